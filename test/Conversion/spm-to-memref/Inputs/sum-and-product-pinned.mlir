// sum-and-product.mlir with both results pinned side by side in the
// scratchpad (8 x 8 x 4 B = 256 bytes each, at offsets 0 and 256) and
// returned from there.
func.func @main(%x: tensor<8x8xf32>, %y: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %e = tensor.empty() : tensor<8x8xf32>
  %s = linalg.add ins(%x, %y : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %ps = "spm.pin"(%s) {offset = 0 : i64, size = 256 : i64} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %e2 = tensor.empty() : tensor<8x8xf32>
  %p = linalg.mul ins(%x, %y : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e2 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %pp = "spm.pin"(%p) {offset = 256 : i64, size = 256 : i64} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %ps, %pp : tensor<8x8xf32>, tensor<8x8xf32>
}

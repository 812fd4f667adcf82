// Single-head attention over 1024 tokens (head size 64): the 1024x1024 score
// matrix dominates activation memory. Used by utils/demo.sh.
func.func @attention(%q: tensor<1024x64xf32>, %k: tensor<1024x64xf32>, %v: tensor<1024x64xf32>) -> tensor<1024x64xf32> {
  %kt0 = tensor.empty() : tensor<64x1024xf32>
  %kt = linalg.transpose ins(%k : tensor<1024x64xf32>) outs(%kt0 : tensor<64x1024xf32>) permutation = [1, 0]
  %s0 = tensor.empty() : tensor<1024x1024xf32>
  %zero = arith.constant 0.0 : f32
  %sf = linalg.fill ins(%zero : f32) outs(%s0 : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %s = linalg.matmul ins(%q, %kt : tensor<1024x64xf32>, tensor<64x1024xf32>) outs(%sf : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %p0 = tensor.empty() : tensor<1024x1024xf32>
  %p = linalg.softmax dimension(1) ins(%s : tensor<1024x1024xf32>) outs(%p0 : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %o0 = tensor.empty() : tensor<1024x64xf32>
  %of = linalg.fill ins(%zero : f32) outs(%o0 : tensor<1024x64xf32>) -> tensor<1024x64xf32>
  %o = linalg.matmul ins(%p, %v : tensor<1024x1024xf32>, tensor<1024x64xf32>) outs(%of : tensor<1024x64xf32>) -> tensor<1024x64xf32>
  return %o : tensor<1024x64xf32>
}

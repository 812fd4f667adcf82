// Single-head causal attention, 64 tokens, head size 64x16: attention-64.mlir
// with a mask that writes the lowest float where the key comes after the query.
// The mask reads the index of the query loop, so a chunk of query rows must
// offset it by the chunk's position.
#rows = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @causal_attention(%q: tensor<64x16xf32>, %k: tensor<64x16xf32>, %v: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %zero = arith.constant 0.0 : f32
  %lowest = arith.constant -3.40282347e+38 : f32
  %kt0 = tensor.empty() : tensor<16x64xf32>
  %kt = linalg.transpose ins(%k : tensor<64x16xf32>) outs(%kt0 : tensor<16x64xf32>) permutation = [1, 0]
  %s0 = tensor.empty() : tensor<64x64xf32>
  %sf = linalg.fill ins(%zero : f32) outs(%s0 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %s = linalg.matmul ins(%q, %kt : tensor<64x16xf32>, tensor<16x64xf32>) outs(%sf : tensor<64x64xf32>) -> tensor<64x64xf32>
  %masked = linalg.generic {indexing_maps = [#rows], iterator_types = ["parallel", "parallel"]}
      outs(%s : tensor<64x64xf32>) {
    ^bb0(%x: f32):
      %query = linalg.index 0 : index
      %key = linalg.index 1 : index
      %future = arith.cmpi ugt, %key, %query : index
      %r = arith.select %future, %lowest, %x : f32
      linalg.yield %r : f32
  } -> tensor<64x64xf32>
  %m0 = tensor.empty() : tensor<64xf32>
  %mf = linalg.fill ins(%lowest : f32) outs(%m0 : tensor<64xf32>) -> tensor<64xf32>
  %max = linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%masked : tensor<64x64xf32>) outs(%mf : tensor<64xf32>) {
    ^bb0(%x: f32, %acc: f32):
      %r = arith.maximumf %x, %acc : f32
      linalg.yield %r : f32
  } -> tensor<64xf32>
  %e0 = tensor.empty() : tensor<64x64xf32>
  %exp = linalg.generic {indexing_maps = [#rows, #row, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%masked, %max : tensor<64x64xf32>, tensor<64xf32>) outs(%e0 : tensor<64x64xf32>) {
    ^bb0(%x: f32, %mx: f32, %o: f32):
      %c = arith.subf %x, %mx : f32
      %r = math.exp %c : f32
      linalg.yield %r : f32
  } -> tensor<64x64xf32>
  %z0 = tensor.empty() : tensor<64xf32>
  %zf = linalg.fill ins(%zero : f32) outs(%z0 : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<64x64xf32>) outs(%zf : tensor<64xf32>) {
    ^bb0(%x: f32, %acc: f32):
      %r = arith.addf %x, %acc : f32
      linalg.yield %r : f32
  } -> tensor<64xf32>
  %p0 = tensor.empty() : tensor<64x64xf32>
  %p = linalg.generic {indexing_maps = [#rows, #row, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<64x64xf32>, tensor<64xf32>) outs(%p0 : tensor<64x64xf32>) {
    ^bb0(%x: f32, %t: f32, %o: f32):
      %r = arith.divf %x, %t : f32
      linalg.yield %r : f32
  } -> tensor<64x64xf32>
  %o0 = tensor.empty() : tensor<64x16xf32>
  %of = linalg.fill ins(%zero : f32) outs(%o0 : tensor<64x16xf32>) -> tensor<64x16xf32>
  %o = linalg.matmul ins(%p, %v : tensor<64x64xf32>, tensor<64x16xf32>) outs(%of : tensor<64x16xf32>) -> tensor<64x16xf32>
  return %o : tensor<64x16xf32>
}

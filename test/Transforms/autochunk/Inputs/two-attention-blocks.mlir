// Two attention blocks in a row (the second takes the first's output as
// queries): each has its own peak, so autochunk needs a stage per block.
#rows = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @two_blocks(%q: tensor<64x16xf32>, %k: tensor<64x16xf32>, %v: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %zero1 = arith.constant 0.0 : f32
  %lowest1 = arith.constant -3.40282347e+38 : f32
  %kt01 = tensor.empty() : tensor<16x64xf32>
  %kt1 = linalg.transpose ins(%k : tensor<64x16xf32>) outs(%kt01 : tensor<16x64xf32>) permutation = [1, 0]
  %s01 = tensor.empty() : tensor<64x64xf32>
  %sf1 = linalg.fill ins(%zero1 : f32) outs(%s01 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %s1 = linalg.matmul ins(%q, %kt1 : tensor<64x16xf32>, tensor<16x64xf32>) outs(%sf1 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m01 = tensor.empty() : tensor<64xf32>
  %mf1 = linalg.fill ins(%lowest1 : f32) outs(%m01 : tensor<64xf32>) -> tensor<64xf32>
  %max1 = linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%s1 : tensor<64x64xf32>) outs(%mf1 : tensor<64xf32>) {
    ^bb0(%x: f32, %acc: f32):
      %r = arith.maximumf %x, %acc : f32
      linalg.yield %r : f32
  } -> tensor<64xf32>
  %e01 = tensor.empty() : tensor<64x64xf32>
  %exp1 = linalg.generic {indexing_maps = [#rows, #row, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%s1, %max1 : tensor<64x64xf32>, tensor<64xf32>) outs(%e01 : tensor<64x64xf32>) {
    ^bb0(%x: f32, %mx: f32, %o: f32):
      %c = arith.subf %x, %mx : f32
      %r = math.exp %c : f32
      linalg.yield %r : f32
  } -> tensor<64x64xf32>
  %z01 = tensor.empty() : tensor<64xf32>
  %zf1 = linalg.fill ins(%zero1 : f32) outs(%z01 : tensor<64xf32>) -> tensor<64xf32>
  %sum1 = linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%exp1 : tensor<64x64xf32>) outs(%zf1 : tensor<64xf32>) {
    ^bb0(%x: f32, %acc: f32):
      %r = arith.addf %x, %acc : f32
      linalg.yield %r : f32
  } -> tensor<64xf32>
  %p01 = tensor.empty() : tensor<64x64xf32>
  %p1 = linalg.generic {indexing_maps = [#rows, #row, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%exp1, %sum1 : tensor<64x64xf32>, tensor<64xf32>) outs(%p01 : tensor<64x64xf32>) {
    ^bb0(%x: f32, %t: f32, %o: f32):
      %r = arith.divf %x, %t : f32
      linalg.yield %r : f32
  } -> tensor<64x64xf32>
  %o01 = tensor.empty() : tensor<64x16xf32>
  %of1 = linalg.fill ins(%zero1 : f32) outs(%o01 : tensor<64x16xf32>) -> tensor<64x16xf32>
  %o1 = linalg.matmul ins(%p1, %v : tensor<64x64xf32>, tensor<64x16xf32>) outs(%of1 : tensor<64x16xf32>) -> tensor<64x16xf32>
  %zero2 = arith.constant 0.0 : f32
  %lowest2 = arith.constant -3.40282347e+38 : f32
  %kt02 = tensor.empty() : tensor<16x64xf32>
  %kt2 = linalg.transpose ins(%k : tensor<64x16xf32>) outs(%kt02 : tensor<16x64xf32>) permutation = [1, 0]
  %s02 = tensor.empty() : tensor<64x64xf32>
  %sf2 = linalg.fill ins(%zero2 : f32) outs(%s02 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %s2 = linalg.matmul ins(%o1, %kt2 : tensor<64x16xf32>, tensor<16x64xf32>) outs(%sf2 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m02 = tensor.empty() : tensor<64xf32>
  %mf2 = linalg.fill ins(%lowest2 : f32) outs(%m02 : tensor<64xf32>) -> tensor<64xf32>
  %max2 = linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%s2 : tensor<64x64xf32>) outs(%mf2 : tensor<64xf32>) {
    ^bb0(%x: f32, %acc: f32):
      %r = arith.maximumf %x, %acc : f32
      linalg.yield %r : f32
  } -> tensor<64xf32>
  %e02 = tensor.empty() : tensor<64x64xf32>
  %exp2 = linalg.generic {indexing_maps = [#rows, #row, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%s2, %max2 : tensor<64x64xf32>, tensor<64xf32>) outs(%e02 : tensor<64x64xf32>) {
    ^bb0(%x: f32, %mx: f32, %o: f32):
      %c = arith.subf %x, %mx : f32
      %r = math.exp %c : f32
      linalg.yield %r : f32
  } -> tensor<64x64xf32>
  %z02 = tensor.empty() : tensor<64xf32>
  %zf2 = linalg.fill ins(%zero2 : f32) outs(%z02 : tensor<64xf32>) -> tensor<64xf32>
  %sum2 = linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%exp2 : tensor<64x64xf32>) outs(%zf2 : tensor<64xf32>) {
    ^bb0(%x: f32, %acc: f32):
      %r = arith.addf %x, %acc : f32
      linalg.yield %r : f32
  } -> tensor<64xf32>
  %p02 = tensor.empty() : tensor<64x64xf32>
  %p2 = linalg.generic {indexing_maps = [#rows, #row, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%exp2, %sum2 : tensor<64x64xf32>, tensor<64xf32>) outs(%p02 : tensor<64x64xf32>) {
    ^bb0(%x: f32, %t: f32, %o: f32):
      %r = arith.divf %x, %t : f32
      linalg.yield %r : f32
  } -> tensor<64x64xf32>
  %o02 = tensor.empty() : tensor<64x16xf32>
  %of2 = linalg.fill ins(%zero2 : f32) outs(%o02 : tensor<64x16xf32>) -> tensor<64x16xf32>
  %o2 = linalg.matmul ins(%p2, %v : tensor<64x64xf32>, tensor<64x16xf32>) outs(%of2 : tensor<64x16xf32>) -> tensor<64x16xf32>
  return %o2 : tensor<64x16xf32>
}

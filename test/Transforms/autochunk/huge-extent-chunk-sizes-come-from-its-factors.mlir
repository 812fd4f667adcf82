// Chunk sizes are the divisors of the chunked extent below it (so every slice
// is static). They come from factoring the extent: the pass once scanned
// every size from 1 to the extent: 30 s for an extent of 2^31 - 1, hours for
// the 1999999999978 rows here. Factoring takes well under a second, and
// `timeout` fails the test if the scan comes back.
//
// 1999999999978 = 2 x 999999999989 (a prime), so the sizes are 1, 2 and
// 999999999989. One row is 4 x f32 = 16 bytes; a whole tensor is 31999999999648
// bytes, and exp and tanh keep two live at the tanh: 63999999999296. Chunking
// the tanh writes its result into the exp's buffer (its last reader, same
// type), leaving that buffer plus one chunk of the tanh's result: 2 rows add
// 32 bytes (31999999999680), 999999999989 rows add 15999999999824
// (47999999999472).
// The largest size whose region fits the budget wins.
// RUN: timeout 60 memopt-opt %s --autochunk=budget=40000000000000 -o /dev/null 2>&1 | FileCheck %s --check-prefix=SMALL
// RUN: timeout 60 memopt-opt %s --autochunk=budget=50000000000000 -o /dev/null 2>&1 | FileCheck %s --check-prefix=LARGE
// SMALL: remark: autochunk stage 1: 2 ops chunked along dimension 0 in 999999999989 chunks of 2 (0 hoisted); estimated peak 63999999999296 -> 31999999999680 bytes
// LARGE: remark: autochunk stage 1: 2 ops chunked along dimension 0 in 2 chunks of 999999999989 (0 hoisted); estimated peak 63999999999296 -> 47999999999472 bytes
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @rows(%x: tensor<1999999999978x4xf32>) -> tensor<1999999999978x4xf32> {
  %e0 = tensor.empty() : tensor<1999999999978x4xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
       ins(%x : tensor<1999999999978x4xf32>) outs(%e0 : tensor<1999999999978x4xf32>) {
  ^bb0(%i: f32, %o: f32):
    %y = math.exp %i : f32
    linalg.yield %y : f32
  } -> tensor<1999999999978x4xf32>
  %e1 = tensor.empty() : tensor<1999999999978x4xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
       ins(%a : tensor<1999999999978x4xf32>) outs(%e1 : tensor<1999999999978x4xf32>) {
  ^bb0(%i: f32, %o: f32):
    %y = math.tanh %i : f32
    linalg.yield %y : f32
  } -> tensor<1999999999978x4xf32>
  return %b : tensor<1999999999978x4xf32>
}

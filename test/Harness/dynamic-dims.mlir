// --dim=N sizes every dynamic dimension of the inputs; peak and the printed
// output type follow it.
//
// With n rows: the input is n x 64 f32 = 256n bytes; a = 2x and b = a + 1 are
// each 256n bytes and live together, so the peak is 512n:
//   n = 4: inputs 1024, peak 2048;  n = 8: inputs 2048, peak 4096.
// RUN: memopt-run %s --dim=4 | FileCheck %s --check-prefix=FOUR
// RUN: memopt-run %s --dim=8 | FileCheck %s --check-prefix=EIGHT
// FOUR:      inputs_bytes: 1024
// FOUR-NEXT: peak_bytes: 2048
// FOUR:      output 0: tensor<4x64xf32> hash=
// EIGHT:      inputs_bytes: 2048
// EIGHT-NEXT: peak_bytes: 4096
// EIGHT:      output 0: tensor<8x64xf32> hash=

#map = affine_map<(i, j) -> (i, j)>
func.func @twice_plus_one(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x64xf32>
  %e1 = tensor.empty(%n) : tensor<?x64xf32>
  %a = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x64xf32>) outs(%e1 : tensor<?x64xf32>) {
  ^bb0(%v: f32, %out: f32):
    %two = arith.constant 2.0 : f32
    %r = arith.mulf %v, %two : f32
    linalg.yield %r : f32
  } -> tensor<?x64xf32>
  %e2 = tensor.empty(%n) : tensor<?x64xf32>
  %b = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<?x64xf32>) outs(%e2 : tensor<?x64xf32>) {
  ^bb0(%v: f32, %out: f32):
    %one = arith.constant 1.0 : f32
    %r = arith.addf %v, %one : f32
    linalg.yield %r : f32
  } -> tensor<?x64xf32>
  return %b : tensor<?x64xf32>
}

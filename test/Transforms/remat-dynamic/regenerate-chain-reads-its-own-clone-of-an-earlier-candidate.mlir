// A regeneration whose chain runs through an earlier candidate recomputes
// that candidate too, and reads its own clone of it, not the earlier
// candidate's regenerated value: %a = exp(%x) and %b = sin(%a) are made
// evictable (and %t), %b's chain is exp then sin (nothing reads %a after %b's
// regenerate), and the sin clone reads the exp clone. Reading %a's
// regenerate instead (as the rewrite of %a redirected the original sin to
// it) kept %a's buffer alive until %b's regenerate and left the exp clone
// dead: with memory to spare (no limit, nothing evicted), the peak rose from
// 4 to 5 buffers of 64 f32, 1024 to 1280 bytes. Now evictable buffers cost
// nothing then: the peak is the unoptimized one, 1024 bytes (%b, %w, %u and
// %c live when %c is computed; %a and %t are dead by then).
// RUN: memopt-opt %s --remat-dynamic="min-gap=1 everywhere=true" 2>/dev/null | FileCheck %s
// RUN: memopt-run %s --compare --runs=1 --tolerance=0 \
// RUN:   --pipeline='builtin.module(remat-dynamic{min-gap=1 everywhere=true},remat-to-runtime)' \
// RUN:   2>/dev/null | FileCheck %s --check-prefix=PEAK

// CHECK:      %[[A:[0-9]+]] = linalg.generic {{.*}} ins(%arg0
// CHECK-NEXT:   ^bb0
// CHECK-NEXT:     math.exp
// CHECK:      %[[A_REGEN:[0-9]+]] = "remat.regenerate"(%[[A]])
// CHECK:      %[[B:[0-9]+]] = linalg.generic {{.*}} ins(%[[A_REGEN]]
// CHECK:      "remat.regenerate"(%[[B]]) ({
// CHECK:        %[[A_AGAIN:[0-9]+]] = linalg.generic {{.*}} ins(%arg0 : tensor<64xf32>)
// CHECK-NEXT:   ^bb0
// CHECK-NEXT:     math.exp
// CHECK:        linalg.generic {{.*}} ins(%[[A_AGAIN]] : tensor<64xf32>)
// CHECK-NEXT:   ^bb0
// CHECK-NEXT:     math.sin

// PEAK: peak_bytes: 1024 1024 1.000
// PEAK: outputs: bit-identical

#id = affine_map<(i) -> (i)>
func.func @main(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %e0 = tensor.empty() : tensor<64xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%e0 : tensor<64xf32>) {
  ^bb0(%p: f32, %o: f32):
    %v = math.exp %p : f32
    linalg.yield %v : f32
  } -> tensor<64xf32>
  %e1 = tensor.empty() : tensor<64xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%e1 : tensor<64xf32>) {
  ^bb0(%p: f32, %o: f32):
    %v = math.tanh %p : f32
    linalg.yield %v : f32
  } -> tensor<64xf32>
  %e2 = tensor.empty() : tensor<64xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<64xf32>) outs(%e2 : tensor<64xf32>) {
  ^bb0(%p: f32, %o: f32):
    %v = math.sin %p : f32
    linalg.yield %v : f32
  } -> tensor<64xf32>
  %e5 = tensor.empty() : tensor<64xf32>
  %w = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%t : tensor<64xf32>) outs(%e5 : tensor<64xf32>) {
  ^bb0(%p: f32, %o: f32):
    %v = math.sin %p : f32
    linalg.yield %v : f32
  } -> tensor<64xf32>
  %e3 = tensor.empty() : tensor<64xf32>
  %u = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%t : tensor<64xf32>) outs(%e3 : tensor<64xf32>) {
  ^bb0(%p: f32, %o: f32):
    %v = math.cos %p : f32
    linalg.yield %v : f32
  } -> tensor<64xf32>
  %e4 = tensor.empty() : tensor<64xf32>
  %c = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%b, %u : tensor<64xf32>, tensor<64xf32>) outs(%e4 : tensor<64xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %v = arith.addf %p, %q : f32
    linalg.yield %v : f32
  } -> tensor<64xf32>
  return %c, %w : tensor<64xf32>, tensor<64xf32>
}

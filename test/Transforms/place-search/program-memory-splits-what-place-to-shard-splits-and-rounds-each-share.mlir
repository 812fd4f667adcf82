// place-search{memory=program} splits over a tensor-parallel group what
// place-to-shard splits, and rounds each device's share up as the lowered
// program allocates it: the prediction is what each rank holds, to the byte.
//
// y = ((x * s) w1 + b1) w2 on 2 devices, a global batch of 1: one stage at
// tensor-parallel 2. Normalized, the scaling by s is fused into the first
// matmul (a generic with a reduction loop, no named contraction) and the
// bias add into the second. Megatron's column split takes w1's columns, so
// the product h and the bias b1 added to it are split too; w2 is split by
// rows (its product summed by an all-reduce: y whole); x and s stay whole.
// Every tensor is allocated at 64-byte multiples, a rank's share too:
//   x 1x8 (32 -> 64) + s 8 (32 -> 64)                           = 128
//   w1 8x32 / 2 = 512, b1 32 / 2 = 64, w2 32x8 / 2 = 512        = 1088
//   the second matmul's op holds h 1x32 / 2 = 64 and y (32 -> 64) = 128
//   in all                                                        = 1344
// (with b1 and h whole, 128 more; unrounded, 96 fewer). Run on 2 MPI
// ranks, each holds that: inputs 1216, peak 128.
// RUN: memopt-opt %s --pass-pipeline='builtin.module(place-search{devices=2 global-batch=1 max-microbatch=1 schedule=list memory=program})' 2>/dev/null | FileCheck %s
// RUN: memopt-opt %s --pass-pipeline='builtin.module(place-search{devices=2 global-batch=1 max-microbatch=1 schedule=list memory=program},place-to-shard)' -o %t.mlir
// RUN: memopt-run %t.mlir --ranks=2 --abs-tolerance=1e-6 | FileCheck %s --check-prefix=RANKS
// CHECK: memory_bytes_per_device = 1344 : i64, {{.*}}tensor_parallel = 2 : i64
// RANKS: rank 0: inputs_bytes=1216 peak_bytes=128 held_bytes=1344 predicted_bytes=1344 predicted/held=1.000
// RANKS: rank 1: inputs_bytes=1216 peak_bytes=128 held_bytes=1344 predicted_bytes=1344 predicted/held=1.000
// RANKS: outputs: within tolerance

#row = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
func.func @mlp(%x: tensor<1x8xf32>, %s: tensor<8xf32>, %w1: tensor<8x32xf32>, %b1: tensor<32xf32>, %w2: tensor<32x8xf32>) -> tensor<1x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<1x8xf32>
  %xs = linalg.generic {indexing_maps = [#row, #col, #row], iterator_types = ["parallel", "parallel"]} ins(%x, %s : tensor<1x8xf32>, tensor<8xf32>) outs(%e0 : tensor<1x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<1x8xf32>
  %e1 = tensor.empty() : tensor<1x32xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x32xf32>) -> tensor<1x32xf32>
  %h = linalg.matmul ins(%xs, %w1 : tensor<1x8xf32>, tensor<8x32xf32>) outs(%f1 : tensor<1x32xf32>) -> tensor<1x32xf32>
  %e2 = tensor.empty() : tensor<1x32xf32>
  %hb = linalg.generic {indexing_maps = [#row, #col, #row], iterator_types = ["parallel", "parallel"]} ins(%h, %b1 : tensor<1x32xf32>, tensor<32xf32>) outs(%e2 : tensor<1x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.addf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<1x32xf32>
  %e3 = tensor.empty() : tensor<1x8xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<1x8xf32>) -> tensor<1x8xf32>
  %y = linalg.matmul ins(%hb, %w2 : tensor<1x32xf32>, tensor<32x8xf32>) outs(%f3 : tensor<1x8xf32>) -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// place-search{memory=program trailing-data-arguments=1} prices the last
// argument as data, like the leading ones: per sample, a data rank's
// microbatch of it, where without the option it is a parameter every
// device holds whole (a training step's labels or target come last).
//
// Batch 4: d = x w - y, with x and y 4x8 f32 (128 bytes, 32 per sample) and
// w 8x8 f32 (256). On 2 devices, global batch 4, microbatch 2 at
// data-parallel 2; h = x w and d are live together at d's op (2 x 32 each):
//   trailing-data-arguments=1: w 256 + x 64 + y 64 + h 64 + d 64 = 512
//   without it:                w 256 + x 64 + y 128 + h 64 + d 64 = 576
// RUN: memopt-opt %s --pass-pipeline='builtin.module(place-search{devices=2 global-batch=4 max-microbatch=2 max-tensor-parallel=1 schedule=list memory=program trailing-data-arguments=1})' 2>/dev/null | FileCheck %s --check-prefix=TRAILING
// RUN: memopt-opt %s --pass-pipeline='builtin.module(place-search{devices=2 global-batch=4 max-microbatch=2 max-tensor-parallel=1 schedule=list memory=program})' 2>/dev/null | FileCheck %s --check-prefix=PARAMETER
// TRAILING: }) {{{.*}}data_parallel = 2 : i64, {{.*}}memory_bytes_per_device = 512 : i64
// PARAMETER: }) {{{.*}}data_parallel = 2 : i64, {{.*}}memory_bytes_per_device = 576 : i64

#row = affine_map<(i, j) -> (i, j)>
func.func @step(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %h = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %d = linalg.generic {indexing_maps = [#row, #row, #row], iterator_types = ["parallel", "parallel"]} ins(%h, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.subf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// --pipeline runs memopt-opt on the model first; --compare runs it without
// and with the pipeline and prints both columns with their ratios.
//
// Without the pipeline, each call keeps two 16x16 f32 buffers (1024 bytes
// each) live at once: a = 2x, then b = a + 1 while a is live -> peak 2048,
// 2 allocations. Elementwise fusion makes it one loop writing b directly:
// peak 1024, 1 allocation; ratio 1024 / 2048 = 0.500. Same arithmetic in the
// same order, so the outputs are bit-identical and the exit code is 0.
// RUN: memopt-run %s --compare --pipeline='builtin.module(func.func(linalg-fuse-elementwise-ops))' \
// RUN:   | FileCheck %s --check-prefix=COMPARE
// COMPARE:      entry: twice_plus_one
// COMPARE-NEXT: baseline: {{.*}}compare-pipeline-fusion.mlir
// COMPARE-NEXT: candidate: {{.*}}compare-pipeline-fusion.mlir with pipeline builtin.module(func.func(linalg-fuse-elementwise-ops))
// COMPARE-NEXT: runs: 3
// COMPARE-NEXT: baseline candidate ratio
// COMPARE-NEXT: inputs_bytes: 1024 1024{{$}}
// COMPARE-NEXT: peak_bytes: 2048 1024 0.500
// COMPARE-NEXT: allocations_per_run: 2 1 0.500
// COMPARE-NEXT: time_ms_median: {{[0-9.]+ [0-9.]+ [0-9.]+$}}
// COMPARE-NEXT: time_ms_min: {{[0-9.]+ [0-9.]+ [0-9.]+$}}
// COMPARE-NEXT: cpu_ms_median: {{[0-9.]+ [0-9.]+ [0-9.]+$}}
// COMPARE-NEXT: cpu_ms_min: {{[0-9.]+ [0-9.]+ [0-9.]+$}}
// COMPARE-NEXT: output 0 baseline: tensor<16x16xf32> hash=[[HASH:0x[0-9a-f]+]] sum=[[SUM:[-0-9.e+]+]] abs_sum=[[ABS:[-0-9.e+]+]] nonfinite=0
// COMPARE-NEXT: output 0 candidate: tensor<16x16xf32> hash=[[HASH]] sum=[[SUM]] abs_sum=[[ABS]] nonfinite=0
// COMPARE-NEXT: output 0: bit-identical
// COMPARE-NEXT: outputs: bit-identical
//
// Without --compare, only the transformed model runs.
// RUN: memopt-run %s --pipeline='builtin.module(func.func(linalg-fuse-elementwise-ops))' \
// RUN:   | FileCheck %s --check-prefix=SINGLE
// SINGLE:      pipeline: builtin.module(func.func(linalg-fuse-elementwise-ops))
// SINGLE:      peak_bytes: 1024
// SINGLE-NEXT: allocations_per_run: 1
//
// A pipeline memopt-opt rejects: its message, then memopt-run's, exit 1.
// RUN: not memopt-run %s --pipeline='builtin.module(no-such-pass)' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD
// BAD: error: {{.*}}no-such-pass
// BAD: memopt-run: error: the pipeline failed: memopt-opt ended with exit code 1

#map = affine_map<(i, j) -> (i, j)>
func.func @twice_plus_one(%x: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %e1 = tensor.empty() : tensor<16x16xf32>
  %a = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<16x16xf32>) outs(%e1 : tensor<16x16xf32>) {
  ^bb0(%v: f32, %out: f32):
    %two = arith.constant 2.0 : f32
    %r = arith.mulf %v, %two : f32
    linalg.yield %r : f32
  } -> tensor<16x16xf32>
  %e2 = tensor.empty() : tensor<16x16xf32>
  %b = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<16x16xf32>) outs(%e2 : tensor<16x16xf32>) {
  ^bb0(%v: f32, %out: f32):
    %one = arith.constant 1.0 : f32
    %r = arith.addf %v, %one : f32
    linalg.yield %r : f32
  } -> tensor<16x16xf32>
  return %b : tensor<16x16xf32>
}

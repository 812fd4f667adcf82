// peak_bytes of a two-layer MLP equals the hand calculation below.
// RUN: memopt-run %s | FileCheck %s
// RUN: memopt-run %s --runs=5 | FileCheck %s --check-prefix=FIVE
//
// Inputs (generated before the first run, so in inputs_bytes, not in the peak):
//   x 8x32 f32 = 1024, w1 32x64 f32 = 8192, w2 64x16 f32 = 4096: 13312 bytes.
// Each call allocates (all sizes are multiples of the 64-byte buffer alignment):
//   h = x * w1        8x64 f32 = 2048
//   a = relu(h)       8x64 f32 = 2048, written into a new tensor, while h is live
//   (h dies after relu)
//   y = a * w2        8x16 f32 =  512, while a is live; y is the result
// Live bytes over a call: 2048, 4096, 2048, 2560, 512 -> peak 4096, 3 allocations.
// CHECK:      entry: mlp
// CHECK-NEXT: pipeline: none
// CHECK-NEXT: runs: 3
// CHECK-NEXT: inputs_bytes: 13312
// CHECK-NEXT: peak_bytes: 4096
// CHECK-NEXT: allocations_per_run: 3
// CHECK-NEXT: time_ms_median: {{[0-9]+\.[0-9][0-9][0-9][0-9][0-9][0-9]$}}
// CHECK-NEXT: time_ms_min: {{[0-9]+\.[0-9][0-9][0-9][0-9][0-9][0-9]$}}
// CHECK-NEXT: cpu_ms_median: {{[0-9]+\.[0-9][0-9][0-9][0-9][0-9][0-9]$}}
// CHECK-NEXT: cpu_ms_min: {{[0-9]+\.[0-9][0-9][0-9][0-9][0-9][0-9]$}}
// CHECK-NEXT: output 0: tensor<8x16xf32> hash=0x{{[0-9a-f]+}} sum={{.*}} abs_sum={{.*}} nonfinite=0
// CHECK-NOT:  output 1
// FIVE: runs: 5
// FIVE: peak_bytes: 4096

func.func @mlp(%x: tensor<8x32xf32>, %w1: tensor<32x64xf32>, %w2: tensor<64x16xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8x64xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x64xf32>) -> tensor<8x64xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<8x32xf32>, tensor<32x64xf32>) outs(%f1 : tensor<8x64xf32>) -> tensor<8x64xf32>
  %e2 = tensor.empty() : tensor<8x64xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<8x64xf32>) outs(%e2 : tensor<8x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>
  %e3 = tensor.empty() : tensor<8x16xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.matmul ins(%a, %w2 : tensor<8x64xf32>, tensor<64x16xf32>) outs(%f3 : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// A stage place-to-shard lowers to a 2x2 grid (data parallel 2 x tensor
// parallel 2) runs on 4 MPI ranks: --pipeline applies place-to-shard to both
// the single-device program and the one partitioned over the ranks. Ranks
// are the grid's devices in row-major order, so rank r holds device
// (r / 2, r % 2): rows 4 (r / 2) .. +4 of the batch (x split over axis 0)
// and columns 16 (r % 2) .. +16 of w and of the result (split over axis 1).
// Every element is the same 16-term dot product as on one device: equal.
// RUN: memopt-run %s --entry=mlp_stage0 --pipeline="builtin.module(place-to-shard)" --ranks=4 | FileCheck %s
//
// Inputs: one device x 8x16 + w 16x32 f32 = 512 + 2048 = 2560 bytes; each
// rank x 4x16 + w 16x16 = 256 + 1024 = 1280. Per call, the result alone:
// 8x32 f32 = 1024 bytes on one device, 4x16 f32 = 256 on each rank.
// CHECK:      entry: mlp_stage0
// CHECK-NEXT: ranks: 4
// CHECK-NEXT: grid: @mlp_stage0_grid 2x2
// CHECK-NEXT: runs: 3
// CHECK-NEXT: single-device: inputs_bytes=2560 peak_bytes=1024 {{.*}}
// CHECK-NEXT: rank 0: inputs_bytes=1280 peak_bytes=256 {{.*}}
// CHECK-NEXT: rank 1: inputs_bytes=1280 peak_bytes=256 {{.*}}
// CHECK-NEXT: rank 2: inputs_bytes=1280 peak_bytes=256 {{.*}}
// CHECK-NEXT: rank 3: inputs_bytes=1280 peak_bytes=256 {{.*}}
// CHECK-NEXT: output 0 rank 0: tensor<4x16xf32> at [0, 0] of tensor<8x32xf32>: max_rel_error=0 equal
// CHECK-NEXT: output 0 rank 1: tensor<4x16xf32> at [0, 16] of tensor<8x32xf32>: max_rel_error=0 equal
// CHECK-NEXT: output 0 rank 2: tensor<4x16xf32> at [4, 0] of tensor<8x32xf32>: max_rel_error=0 equal
// CHECK-NEXT: output 0 rank 3: tensor<4x16xf32> at [4, 16] of tensor<8x32xf32>: max_rel_error=0 equal
// CHECK-NEXT: outputs: equal (max_rel_error=0, tolerance 1e-05)

"place.cluster"() {sym_name = "pod", devices = 4 : i64, hbm_bytes = 1073741824 : i64, link_bandwidth = 4294967296 : i64} : () -> ()
func.func @mlp(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>) -> tensor<8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %a = "place.stage"() ({
    %init = tensor.empty() : tensor<8x32xf32>
    %filled = linalg.fill ins(%zero : f32) outs(%init : tensor<8x32xf32>) -> tensor<8x32xf32>
    %m = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x32xf32>) outs(%filled : tensor<8x32xf32>) -> tensor<8x32xf32>
    vector.yield %m : tensor<8x32xf32>
  }) {cluster = @pod, index = 0 : i64, devices = 4 : i64, data_parallel = 2 : i64, tensor_parallel = 2 : i64, recompute = false, first_layer = 0 : i64, layers = 1 : i64, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : () -> tensor<8x32xf32>
  return %a : tensor<8x32xf32>
}

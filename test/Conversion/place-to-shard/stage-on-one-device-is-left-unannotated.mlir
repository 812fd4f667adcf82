// A stage of tensor and data parallelism 1 sits on a 1x1 grid: place-to-shard
// outlines it but annotates none of its arguments or results, so no
// shard.shard remains for a lowering without partitioning to trip on, and
// memopt-run runs the stage on one device, without --ranks. (Annotated, the
// lowering failed on the shard.shard ops: "op was not bufferized".)
// RUN: memopt-opt %s --pass-pipeline="builtin.module(place-to-shard)" -o %t.mlir
// RUN: FileCheck %s --input-file=%t.mlir
// RUN: memopt-run %t.mlir --entry=f_stage0 | FileCheck %s --check-prefix=EXEC
// CHECK: shard.grid @f_stage0_grid(shape = 1x1)
// CHECK-LABEL: func.func @f_stage0(%arg0: tensor<4x8xf32>, %arg1: tensor<8x8xf32>) -> tensor<4x8xf32>
// CHECK-NOT: shard.
// CHECK: return
// EXEC: peak_bytes: 128
// EXEC: output 0: tensor<4x8xf32>

"place.cluster"() {sym_name = "pod", devices = 1 : i64, hbm_bytes = 1073741824 : i64, link_bandwidth = 4294967296 : i64} : () -> ()
func.func @f(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %a = "place.stage"() ({
    %z = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4x8xf32>
    %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
    %m = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
    vector.yield %m : tensor<4x8xf32>
  }) {cluster = @pod, index = 0 : i64, devices = 1 : i64, data_parallel = 1 : i64, tensor_parallel = 1 : i64, recompute = false, first_layer = 0 : i64, layers = 1 : i64, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : () -> tensor<4x8xf32>
  return %a : tensor<4x8xf32>
}

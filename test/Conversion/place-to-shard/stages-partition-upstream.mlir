// place-to-shard turns each place.stage into a function on its own
// shard.grid (data_parallel x tensor_parallel), annotates the parameters
// (split along their last dimension over the tensor axis) and the
// activations (split along the batch over the data axis), and removes the
// place ops. Each stage is first normalized by upstream's
// linalg-generalize-named-ops (with elementwise fusion and canonicalize), so
// the matmul arrives as a linalg.generic; the fill it starts from is made a
// linalg.fill again (place-fold-neutral-inits recognizes it after
// shard-partition). The results are annotated too: the batch
// over the data axis, and the matmul's columns, which Megatron's column split
// leaves split, over the tensor axis. Upstream sharding-propagation, shard-partition and
// convert-shard-to-mpi accept the result: stage 0's per-device matmul is
// (8/2)x16 times 16x(32/2), stage 1 (tensor-parallel 1) splits only the batch.
// Stages of several devices in a pipeline have no driver
// (pipeline-driver-of-multi-device-stages-is-a-located-error.mlir):
// pipeline-driver=false outlines them alone.
// RUN: memopt-opt %s --pass-pipeline="builtin.module(place-to-shard{pipeline-driver=false})" > %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: mlir-opt %t.mlir --pass-pipeline="builtin.module(func.func(sharding-propagation,shard-partition),convert-shard-to-mpi)" | FileCheck %s --check-prefix=SPMD

// CHECK-NOT: place.
// CHECK: shard.grid @mlp_stage0_grid(shape = 2x2)
// CHECK-LABEL: func.func @mlp_stage0(%arg0: tensor<8x16xf32>, %arg1: tensor<16x32xf32>) -> tensor<8x32xf32>
// CHECK-DAG: %[[SX:.*]] = shard.sharding @mlp_stage0_grid split_axes = {{\[}}[0]] : !shard.sharding
// CHECK-DAG: %[[X:.*]] = shard.shard %arg0 to %[[SX]] annotate_for_users : tensor<8x16xf32>
// CHECK-DAG: %[[SW:.*]] = shard.sharding @mlp_stage0_grid split_axes = {{\[}}[], [1]] : !shard.sharding
// CHECK-DAG: %[[W:.*]] = shard.shard %arg1 to %[[SW]] annotate_for_users : tensor<16x32xf32>
// CHECK: %[[CST:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[FILL:.*]] = linalg.fill ins(%[[CST]] : f32) outs(
// CHECK: %[[M:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %[[W]] : {{.*}}) outs(%[[FILL]] :
// CHECK: %[[SM:.*]] = shard.sharding @mlp_stage0_grid split_axes = {{\[}}[0], [1]] : !shard.sharding
// CHECK-NEXT: %[[R:.*]] = shard.shard %[[M]] to %[[SM]] : tensor<8x32xf32>
// CHECK-NEXT: return %[[R]]
// CHECK: shard.grid @mlp_stage1_grid(shape = 4x1)
// CHECK-LABEL: func.func @mlp_stage1(%arg0: tensor<8x32xf32>) -> tensor<8x32xf32>
// CHECK: shard.sharding @mlp_stage1_grid split_axes = {{\[}}[0]]
// CHECK: math.tanh

// SPMD-LABEL: func.func @mlp_stage0(%arg0: tensor<4x16xf32>, %arg1: tensor<16x16xf32>) -> tensor<4x16xf32>
// SPMD: linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<4x16xf32>, tensor<16x16xf32>)
// SPMD-LABEL: func.func @mlp_stage1(%arg0: tensor<2x32xf32>) -> tensor<2x32xf32>

"place.cluster"() {sym_name = "pod", devices = 8 : i64, hbm_bytes = 1073741824 : i64, link_bandwidth = 4294967296 : i64} : () -> ()
func.func @mlp(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>) -> tensor<8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %a = "place.stage"() ({
    %init = tensor.empty() : tensor<8x32xf32>
    %filled = linalg.fill ins(%zero : f32) outs(%init : tensor<8x32xf32>) -> tensor<8x32xf32>
    %m = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x32xf32>) outs(%filled : tensor<8x32xf32>) -> tensor<8x32xf32>
    vector.yield %m : tensor<8x32xf32>
  }) {cluster = @pod, index = 0 : i64, devices = 4 : i64, data_parallel = 2 : i64, tensor_parallel = 2 : i64, recompute = false, first_layer = 0 : i64, layers = 1 : i64, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : () -> tensor<8x32xf32>
  %b = "place.stage"() ({
    %init = tensor.empty() : tensor<8x32xf32>
    %t = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<8x32xf32>) outs(%init : tensor<8x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %y = math.tanh %in : f32
      linalg.yield %y : f32
    } -> tensor<8x32xf32>
    vector.yield %t : tensor<8x32xf32>
  }) {cluster = @pod, index = 1 : i64, devices = 4 : i64, data_parallel = 4 : i64, tensor_parallel = 1 : i64, recompute = true, first_layer = 1 : i64, layers = 1 : i64, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : () -> tensor<8x32xf32>
  return %b : tensor<8x32xf32>
}

// place-to-shard annotates a stage's results as well as its arguments: a
// result is split by batch over the data axis when an argument is (it is
// then an activation). This stage computes tanh of a parameter alone: no
// argument is split by batch, so its 3x8 result is not either (3 rows would
// not split over data-parallel 2 anyway) and both annotations replicate.
// RUN: memopt-opt %s --pass-pipeline="builtin.module(place-to-shard)" | FileCheck %s
// CHECK-LABEL: func.func @f_stage0(%arg0: tensor<3x8xf32>) -> tensor<3x8xf32>
// CHECK: %[[S:.*]] = shard.sharding @f_stage0_grid split_axes = {{\[}}[]] : !shard.sharding
// CHECK-NEXT: shard.shard %arg0 to %[[S]] annotate_for_users : tensor<3x8xf32>
// CHECK: %[[T:.*]] = linalg.generic
// CHECK: %[[R:.*]] = shard.sharding @f_stage0_grid split_axes = {{\[}}[]] : !shard.sharding
// CHECK-NEXT: %[[A:.*]] = shard.shard %[[T]] to %[[R]] : tensor<3x8xf32>
// CHECK-NEXT: return %[[A]]

"place.cluster"() {sym_name = "pod", devices = 2 : i64, hbm_bytes = 1073741824 : i64, link_bandwidth = 4294967296 : i64} : () -> ()
func.func @f(%x: tensor<4x8xf32>, %w: tensor<3x8xf32>) -> tensor<3x8xf32> {
  %a = "place.stage"() ({
    %init = tensor.empty() : tensor<3x8xf32>
    %t = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<3x8xf32>) outs(%init : tensor<3x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %y = math.tanh %in : f32
      linalg.yield %y : f32
    } -> tensor<3x8xf32>
    vector.yield %t : tensor<3x8xf32>
  }) {cluster = @pod, index = 0 : i64, devices = 2 : i64, data_parallel = 2 : i64, tensor_parallel = 1 : i64, recompute = false, first_layer = 0 : i64, layers = 1 : i64, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : () -> tensor<3x8xf32>
  return %a : tensor<3x8xf32>
}

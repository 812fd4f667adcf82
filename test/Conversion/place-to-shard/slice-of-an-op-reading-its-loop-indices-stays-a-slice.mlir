// place-to-shard moves a slice of a computed value up onto the producer's
// operands (the producer computes only the slice), so that upstream
// sharding sees no tensor.extract_slice. A producer reading its loop indices
// (linalg.index) is left whole: narrowed to columns 4..7 it would count its
// column index from 0 and add 0..3 where the original adds 4..7. The stage
// keeps the 4x8 generic and the slice of its columns 4..7 (of the generic's
// result annotated with its batch split).
// RUN: memopt-opt %s --pass-pipeline="builtin.module(place-to-shard)" | FileCheck %s
// CHECK-LABEL: func.func @f_stage0(%arg0: tensor<4x8xf32>) -> tensor<4x4xf32>
// CHECK: %[[T:.*]] = linalg.generic {{.*}} outs({{.*}} : tensor<4x8xf32>)
// CHECK: linalg.index 1
// CHECK: } -> tensor<4x8xf32>
// CHECK: %[[A:.*]] = shard.shard %[[T]] to
// CHECK: tensor.extract_slice %[[A]][0, 4] [4, 4] [1, 1] : tensor<4x8xf32> to tensor<4x4xf32>

"place.cluster"() {sym_name = "pod", devices = 2 : i64, hbm_bytes = 1073741824 : i64, link_bandwidth = 4294967296 : i64} : () -> ()
func.func @f(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  %a = "place.stage"() ({
    %init = tensor.empty() : tensor<4x8xf32>
    %t = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%init : tensor<4x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %j = linalg.index 1 : index
      %ji = arith.index_cast %j : index to i64
      %jf = arith.sitofp %ji : i64 to f32
      %y = arith.addf %in, %jf : f32
      linalg.yield %y : f32
    } -> tensor<4x8xf32>
    %s = tensor.extract_slice %t[0, 4] [4, 4] [1, 1] : tensor<4x8xf32> to tensor<4x4xf32>
    vector.yield %s : tensor<4x4xf32>
  }) {cluster = @pod, index = 0 : i64, devices = 2 : i64, data_parallel = 2 : i64, tensor_parallel = 1 : i64, recompute = false, first_layer = 0 : i64, layers = 1 : i64, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : () -> tensor<4x4xf32>
  return %a : tensor<4x4xf32>
}

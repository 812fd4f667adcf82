// Megatron's column split divides the 4x8 weight's 8 output columns over
// the tensor axis (4 per device), and the split follows the data flow into
// the generic after the matmul, whose loop 1 is the column. Its body adds
// the column index (linalg.index 1), which shard-partition leaves as it is:
// on the second device it would count columns 4..7 as 0..3 and add 0..3
// where the single device adds 4..7. That is an error at the generic, and
// the module stays as it was.
// RUN: memopt-opt %s --pass-pipeline="builtin.module(place-to-shard)" --verify-diagnostics

"place.cluster"() {sym_name = "pod", devices = 2 : i64, hbm_bytes = 1073741824 : i64, link_bandwidth = 4294967296 : i64} : () -> ()
func.func @f(%x: tensor<2x4xf32>, %w: tensor<4x8xf32>) -> tensor<2x8xf32> {
  %r = "place.stage"() ({
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<2x8xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
    %m = linalg.matmul ins(%x, %w : tensor<2x4xf32>, tensor<4x8xf32>) outs(%z : tensor<2x8xf32>) -> tensor<2x8xf32>
    %init = tensor.empty() : tensor<2x8xf32>
    // expected-error @+1 {{place-to-shard: the tensor-parallel split divides loop 1 of this op, whose body reads its index (linalg.index): each device would count its share from 0}}
    %t = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<2x8xf32>) outs(%init : tensor<2x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %j = linalg.index 1 : index
      %ji = arith.index_cast %j : index to i64
      %jf = arith.sitofp %ji : i64 to f32
      %y = arith.addf %in, %jf : f32
      linalg.yield %y : f32
    } -> tensor<2x8xf32>
    vector.yield %t : tensor<2x8xf32>
  }) {cluster = @pod, index = 0 : i64, devices = 2 : i64, data_parallel = 1 : i64, tensor_parallel = 2 : i64, recompute = false, first_layer = 0 : i64, layers = 1 : i64, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : () -> tensor<2x8xf32>
  return %r : tensor<2x8xf32>
}

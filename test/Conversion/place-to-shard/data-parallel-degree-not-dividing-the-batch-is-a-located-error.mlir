// place-to-shard splits each activation argument of a stage along its batch
// (first) dimension over the data axis. A batch of 3 does not split into 2
// equal slices, so data-parallel 2 is an error at the first op reading the
// argument, and the module stays as it was (no partial output). place-search
// plans for its global batch, not for the IR's: a model meant for
// place-to-shard is generated with a batch the data-parallel degree divides.
// RUN: memopt-opt %s --pass-pipeline="builtin.module(place-to-shard)" --verify-diagnostics

"place.cluster"() {sym_name = "pod", devices = 2 : i64, hbm_bytes = 1073741824 : i64, link_bandwidth = 4294967296 : i64} : () -> ()
func.func @f(%x: tensor<3x8xf32>) -> tensor<3x8xf32> {
  %a = "place.stage"() ({
    %init = tensor.empty() : tensor<3x8xf32>
    // expected-error @+1 {{place-to-shard: data-parallel degree 2 does not divide the batch extent 3 of stage argument 0 used here}}
    %t = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<3x8xf32>) outs(%init : tensor<3x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %y = math.tanh %in : f32
      linalg.yield %y : f32
    } -> tensor<3x8xf32>
    vector.yield %t : tensor<3x8xf32>
  }) {cluster = @pod, index = 0 : i64, devices = 2 : i64, data_parallel = 2 : i64, tensor_parallel = 1 : i64, recompute = false, first_layer = 0 : i64, layers = 1 : i64, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : () -> tensor<3x8xf32>
  return %a : tensor<3x8xf32>
}

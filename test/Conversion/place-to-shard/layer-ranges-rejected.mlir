// Stages with empty bodies (place-search{layers=N}) describe layers the
// function does not hold: there is nothing to shard, and the pass says so.
// RUN: memopt-opt %s --pass-pipeline="builtin.module(place-to-shard)" --verify-diagnostics

"place.cluster"() {sym_name = "pod", devices = 2 : i64, hbm_bytes = 1 : i64, link_bandwidth = 1 : i64} : () -> ()
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{place-to-shard: this stage holds no ops: place-search describes stages by layer range when one layer stands for many (layers=N)}}
  "place.stage"() ({
    vector.yield
  }) {cluster = @pod, index = 0 : i64, devices = 2 : i64, data_parallel = 2 : i64, tensor_parallel = 1 : i64, recompute = false, first_layer = 0 : i64, layers = 12 : i64, resultSegmentSizes = array<i32: 0, 0, 0, 0, 0, 0, 0, 0>} : () -> ()
  return %x : tensor<4xf32>
}

// place-to-shard outlines every stage and removes the function that held
// them: an op of that function outside every stage (here the exp after the
// stage) would be lost, so it is an error at that op and nothing changes.
// Constants outside the stages are fine: they are cloned into the stages.
// RUN: memopt-opt %s --pass-pipeline="builtin.module(place-to-shard)" --verify-diagnostics

"place.cluster"() {sym_name = "pod", devices = 1 : i64, hbm_bytes = 1 : i64, link_bandwidth = 1 : i64} : () -> ()
func.func @mlp(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = "place.stage"() ({
    %t = math.tanh %x : tensor<4xf32>
    vector.yield %t : tensor<4xf32>
  }) {cluster = @pod, index = 0 : i64, devices = 1 : i64, data_parallel = 1 : i64, tensor_parallel = 1 : i64, recompute = false, first_layer = 0 : i64, layers = 1 : i64, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : () -> tensor<4xf32>
  // expected-error @+1 {{place-to-shard: op outside every place.stage of @mlp: the stages become functions of their own and @mlp is removed, so it would be lost; put it in a stage}}
  %b = math.exp %a : tensor<4xf32>
  return %b : tensor<4xf32>
}

// A function that holds stages is removed once its stages are outlined: a
// call to it elsewhere would dangle, so the call is an error (the result used
// to be a func.call to a function that no longer exists).
// RUN: memopt-opt %s --pass-pipeline="builtin.module(place-to-shard)" --verify-diagnostics

"place.cluster"() {sym_name = "pod", devices = 1 : i64, hbm_bytes = 1 : i64, link_bandwidth = 1 : i64} : () -> ()
func.func @staged(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = "place.stage"() ({
    %t = math.tanh %x : tensor<4xf32>
    vector.yield %t : tensor<4xf32>
  }) {cluster = @pod, index = 0 : i64, devices = 1 : i64, data_parallel = 1 : i64, tensor_parallel = 1 : i64, recompute = false, first_layer = 0 : i64, layers = 1 : i64, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : () -> tensor<4xf32>
  return %a : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{place-to-shard: refers to @staged, which holds place.stage ops: its stages become functions of their own and it is removed}}
  %r = func.call @staged(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

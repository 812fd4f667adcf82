// A pipeline stage is a part of a function's body; one nested in control
// flow (here an scf.if) cannot be outlined as a stage of the function, so
// it is an error at the stage (it used to be left in place, unlowered).
// RUN: memopt-opt %s --pass-pipeline="builtin.module(place-to-shard)" --verify-diagnostics

"place.cluster"() {sym_name = "pod", devices = 1 : i64, hbm_bytes = 1 : i64, link_bandwidth = 1 : i64} : () -> ()
func.func @mlp(%x: tensor<4xf32>, %c: i1) -> tensor<4xf32> {
  %r = scf.if %c -> tensor<4xf32> {
    // expected-error @+1 {{place-to-shard: a place.stage must be directly in a function body, this one is in 'scf.if'}}
    %a = "place.stage"() ({
      %t = math.tanh %x : tensor<4xf32>
      vector.yield %t : tensor<4xf32>
    }) {cluster = @pod, index = 0 : i64, devices = 1 : i64, data_parallel = 1 : i64, tensor_parallel = 1 : i64, recompute = false, first_layer = 0 : i64, layers = 1 : i64, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : () -> tensor<4xf32>
    scf.yield %a : tensor<4xf32>
  } else {
    scf.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

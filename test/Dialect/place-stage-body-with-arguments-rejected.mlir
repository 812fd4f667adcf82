// A place.stage has no operands, so nothing binds arguments of its body
// block: such a stage is rejected at the stage. (place-to-shard outlines a
// stage's body into a function whose arguments are the values the body
// captures from outside; a body argument is not one of those, and would be
// left dangling.)
// RUN: memopt-opt %s --verify-diagnostics

"place.cluster"() {sym_name = "pod", devices = 4 : i64, hbm_bytes = 1 : i64, link_bandwidth = 1 : i64} : () -> ()
func.func @stage_with_argument() -> tensor<8x32xf32> {
  // expected-error @+1 {{'place.stage' op body must take no arguments (it takes 1): a stage has no operands to bind them}}
  %b = "place.stage"() ({
  ^bb0(%in: tensor<8x32xf32>):
    %t = math.tanh %in : tensor<8x32xf32>
    vector.yield %t : tensor<8x32xf32>
  }) {cluster = @pod, index = 0 : i64, devices = 4 : i64, data_parallel = 4 : i64, tensor_parallel = 1 : i64, recompute = true, first_layer = 0 : i64, layers = 1 : i64, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : () -> tensor<8x32xf32>
  return %b : tensor<8x32xf32>
}

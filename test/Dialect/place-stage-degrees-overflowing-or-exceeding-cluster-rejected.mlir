// A stage's data_parallel x tensor_parallel is checked without overflow:
// 4294967297 x 4294967296 = 2^64 + 2^32, which wraps to 2^32 in 64 bits and
// would have matched devices = 2^32. It is rejected at the stage. A stage
// whose degrees multiply to its devices but that uses more devices than its
// cluster has (4 x 4 = 16 > 8) is rejected too.
// RUN: memopt-opt %s --split-input-file --verify-diagnostics

"place.cluster"() {sym_name = "pod", devices = 8 : i64, hbm_bytes = 1 : i64, link_bandwidth = 1 : i64} : () -> ()
func.func @degrees_overflow(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'place.stage' op data_parallel x tensor_parallel = 4294967297 x 4294967296 exceeds 2^63 - 1 devices}}
  %a = "place.stage"() ({
    %t = math.tanh %x : tensor<4xf32>
    vector.yield %t : tensor<4xf32>
  }) {cluster = @pod, index = 0 : i64, devices = 4294967296 : i64, data_parallel = 4294967297 : i64, tensor_parallel = 4294967296 : i64, recompute = false, first_layer = 0 : i64, layers = 1 : i64, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : () -> tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

"place.cluster"() {sym_name = "pod", devices = 8 : i64, hbm_bytes = 1 : i64, link_bandwidth = 1 : i64} : () -> ()
func.func @more_devices_than_the_cluster(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'place.stage' op uses 16 devices but cluster @pod has 8}}
  %a = "place.stage"() ({
    %t = math.tanh %x : tensor<4xf32>
    vector.yield %t : tensor<4xf32>
  }) {cluster = @pod, index = 0 : i64, devices = 16 : i64, data_parallel = 4 : i64, tensor_parallel = 4 : i64, recompute = false, first_layer = 0 : i64, layers = 1 : i64, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : () -> tensor<4xf32>
  return %a : tensor<4xf32>
}

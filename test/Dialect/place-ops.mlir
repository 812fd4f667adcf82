// Round trip of place ops through memopt-opt and upstream mlir-opt.
// RUN: memopt-opt %s | FileCheck %s
// RUN: memopt-opt %s | mlir-opt --irdl-file=%memopt_irdl | FileCheck %s

// CHECK: "place.cluster"() {devices = 1024 : i64, hbm_bytes = 85899345920 : i64, link_bandwidth = 4294967296 : i64, sym_name = "pod"}
"place.cluster"() {sym_name = "pod", devices = 1024 : i64, hbm_bytes = 85899345920 : i64, link_bandwidth = 4294967296 : i64} : () -> ()

// CHECK-LABEL: func.func @two_stages
func.func @two_stages(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> tensor<8x16xf32> {
  // CHECK: "place.stage"() ({
  // CHECK: }) {cluster = @pod, data_parallel = 2 : i64, devices = 8 : i64, first_layer = 0 : i64, index = 0 : i64, layers = 1 : i64, recompute = false, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, tensor_parallel = 4 : i64}
  %a = "place.stage"() ({
    %init = tensor.empty() : tensor<8x16xf32>
    %m = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x16xf32>) outs(%init : tensor<8x16xf32>) -> tensor<8x16xf32>
    vector.yield %m : tensor<8x16xf32>
  }) {cluster = @pod, index = 0 : i64, devices = 8 : i64, data_parallel = 2 : i64, tensor_parallel = 4 : i64, recompute = false, first_layer = 0 : i64, layers = 1 : i64, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : () -> tensor<8x16xf32>
  // CHECK: first_layer = 1 : i64, index = 1 : i64, layers = 1 : i64, recompute = true
  %b = "place.stage"() ({
    %n = math.tanh %a : tensor<8x16xf32>
    vector.yield %n : tensor<8x16xf32>
  }) {cluster = @pod, index = 1 : i64, devices = 8 : i64, data_parallel = 8 : i64, tensor_parallel = 1 : i64, recompute = true, first_layer = 1 : i64, layers = 1 : i64, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : () -> tensor<8x16xf32>
  return %b : tensor<8x16xf32>
}

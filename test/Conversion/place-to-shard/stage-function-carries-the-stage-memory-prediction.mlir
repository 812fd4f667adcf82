// place-search writes its memory per device for a stage on the place.stage
// (memory_bytes_per_device); place-to-shard carries it onto the stage's
// function as the discardable place.memory_bytes_per_device, where
// memopt-run --ranks reads it. Stage 0 carries 4096; stage 1 has none, and
// its function gets no such attribute.
// RUN: memopt-opt %s --pass-pipeline="builtin.module(place-to-shard)" | FileCheck %s
// CHECK-LABEL: func.func @f_stage0(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {place.memory_bytes_per_device = 4096 : i64}
// CHECK-LABEL: func.func @f_stage1(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {

"place.cluster"() {sym_name = "pod", devices = 1 : i64, hbm_bytes = 1073741824 : i64, link_bandwidth = 4294967296 : i64} : () -> ()
func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = "place.stage"() ({
    %t = math.tanh %x : tensor<4x8xf32>
    vector.yield %t : tensor<4x8xf32>
  }) {cluster = @pod, index = 0 : i64, devices = 1 : i64, data_parallel = 1 : i64, tensor_parallel = 1 : i64, recompute = false, first_layer = 0 : i64, layers = 1 : i64, memory_bytes_per_device = 4096 : i64, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : () -> tensor<4x8xf32>
  %b = "place.stage"() ({
    %u = math.exp %a : tensor<4x8xf32>
    vector.yield %u : tensor<4x8xf32>
  }) {cluster = @pod, index = 1 : i64, devices = 1 : i64, data_parallel = 1 : i64, tensor_parallel = 1 : i64, recompute = false, first_layer = 1 : i64, layers = 1 : i64, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : () -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}

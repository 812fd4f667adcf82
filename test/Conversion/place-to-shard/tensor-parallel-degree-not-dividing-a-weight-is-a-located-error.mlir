// Megatron's column split divides a matmul's weight along its output
// columns over the tensor axis. A 16x3 weight does not split into 2 equal
// column blocks, so tensor-parallel 2 is an error at the matmul (a
// linalg.generic after the stage is generalized), operand 1 being the
// weight; the module stays as it was.
// RUN: memopt-opt %s --pass-pipeline="builtin.module(place-to-shard)" --verify-diagnostics

"place.cluster"() {sym_name = "pod", devices = 2 : i64, hbm_bytes = 1073741824 : i64, link_bandwidth = 4294967296 : i64} : () -> ()
func.func @f(%x: tensor<4x16xf32>, %w: tensor<16x3xf32>) -> tensor<4x3xf32> {
  %zero = arith.constant 0.0 : f32
  %a = "place.stage"() ({
    %init = tensor.empty() : tensor<4x3xf32>
    %filled = linalg.fill ins(%zero : f32) outs(%init : tensor<4x3xf32>) -> tensor<4x3xf32>
    // expected-error @+1 {{place-to-shard: tensor-parallel degree 2 does not divide extent 3 of dimension 1 of parameter operand 1, which Megatron's split divides among the tensor axis}}
    %m = linalg.matmul ins(%x, %w : tensor<4x16xf32>, tensor<16x3xf32>) outs(%filled : tensor<4x3xf32>) -> tensor<4x3xf32>
    vector.yield %m : tensor<4x3xf32>
  }) {cluster = @pod, index = 0 : i64, devices = 2 : i64, data_parallel = 1 : i64, tensor_parallel = 2 : i64, recompute = false, first_layer = 0 : i64, layers = 1 : i64, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : () -> tensor<4x3xf32>
  return %a : tensor<4x3xf32>
}

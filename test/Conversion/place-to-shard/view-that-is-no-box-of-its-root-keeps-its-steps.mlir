// A weight's columns 1 to 4 (a slice read by a matmul) and the weight seen
// as [4, 3 groups, 2] (read by a negation, its last use). Hoisted, the slice
// is marked as a view of %arg2, the [4, 3, 2] the weight became: collapse
// %arg2 back to 4x6, then slice columns 1 to 4. Columns 1 to 4 run across
// the groups' columns (group 0 column 1 to group 2 column 0), which is no
// box of [4, 3, 2], so the steps stay as recorded, and a caller applies
// both (memopt-run does, on one device and on ranks where the weight is
// whole: each rank's inputs are x's 1x4 and the weight's 4x6 once, 64 + 128
// bytes with memopt_rt's alignment).
// RUN: memopt-opt %s --pass-pipeline="builtin.module(place-to-shard)" | FileCheck %s
// RUN: memopt-run %s --entry=f_stage0 --pipeline="builtin.module(place-to-shard)" --ranks=2 | FileCheck %s --check-prefix=RANKS
// CHECK-LABEL: func.func @f_stage0(%arg0: tensor<2x4xf32>,
// CHECK-SAME:    %arg1: tensor<4x4xf32> {memopt.view = {source = 2 : i64, steps = [
// CHECK-SAME:      {op = "tensor.collapse_shape", properties = {reassociation = {{\[\[}}0], [1, 2]]}, type = tensor<4x6xf32>},
// CHECK-SAME:      {op = "tensor.extract_slice", properties = {operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0, 1>, static_sizes = array<i64: 4, 4>, static_strides = array<i64: 1, 1>}, type = tensor<4x4xf32>}]}},
// CHECK-SAME:    %arg2: tensor<4x3x2xf32>)
// RANKS:      single-device: inputs_bytes=192
// RANKS-NEXT: rank 0: inputs_bytes=192
// RANKS-NEXT: rank 1: inputs_bytes=192
// RANKS:      outputs: equal

"place.cluster"() {sym_name = "pod", devices = 2 : i64, hbm_bytes = 1073741824 : i64, link_bandwidth = 4294967296 : i64} : () -> ()
func.func @f(%x: tensor<2x4xf32>, %w: tensor<4x6xf32>) -> (tensor<2x4xf32>, tensor<4x3x2xf32>) {
  %r:2 = "place.stage"() ({
    %middle = tensor.extract_slice %w[0, 1] [4, 4] [1, 1] : tensor<4x6xf32> to tensor<4x4xf32>
    %zero = arith.constant 0.0 : f32
    %e0 = tensor.empty() : tensor<2x4xf32>
    %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x4xf32>) -> tensor<2x4xf32>
    %first = linalg.matmul ins(%x, %middle : tensor<2x4xf32>, tensor<4x4xf32>) outs(%z0 : tensor<2x4xf32>) -> tensor<2x4xf32>
    %grouped = tensor.expand_shape %w [[0], [1, 2]] output_shape [4, 3, 2] : tensor<4x6xf32> into tensor<4x3x2xf32>
    %e2 = tensor.empty() : tensor<4x3x2xf32>
    %negated = linalg.generic {indexing_maps = [affine_map<(k, g, c) -> (k, g, c)>, affine_map<(k, g, c) -> (k, g, c)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%grouped : tensor<4x3x2xf32>) outs(%e2 : tensor<4x3x2xf32>) {
    ^bb0(%b: f32, %out: f32):
      %n = arith.negf %b : f32
      linalg.yield %n : f32
    } -> tensor<4x3x2xf32>
    vector.yield %first, %negated : tensor<2x4xf32>, tensor<4x3x2xf32>
  }) {cluster = @pod, index = 0 : i64, devices = 2 : i64, data_parallel = 2 : i64, tensor_parallel = 1 : i64, recompute = false, first_layer = 0 : i64, layers = 1 : i64, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>} : () -> (tensor<2x4xf32>, tensor<4x3x2xf32>)
  return %r#0, %r#1 : tensor<2x4xf32>, tensor<4x3x2xf32>
}

// A weight read three ways: its first two columns by a matmul (a slice),
// and seen as [4, 3 groups, 2] by a contraction and, the same view again,
// by a negation. Upstream sharding cannot shard a slice or a reshape, so
// place-to-shard hoists each view of an argument into an argument of its
// own:
// - the two expand_shapes are the same view (one op, type and attributes):
//   they become one argument, %arg2;
// - the slice, hoisted first, leaves the weight read by the expand_shapes:
//   it is marked with how a caller makes it from the weight; when the
//   expand_shape then takes the weight's last use, the weight (4x6) gives
//   way to %arg2 (4x3x2, the same row-major data), and the slice's mark is
//   rooted there: collapse %arg2 back to 4x6, then slice columns 0 and 1;
//   that is one box of %arg2, [0:4, 0:1, 0:2] seen as 4x2, and the mark
//   says so.
// A caller passes %arg1 as that view of %arg2's buffer: the 96 bytes of the
// weight once, not 96 + 32 (test/Harness shows memopt-run doing so).
// RUN: memopt-opt %s --pass-pipeline="builtin.module(place-to-shard)" | FileCheck %s --implicit-check-not="= tensor.expand_shape" --implicit-check-not="= tensor.extract_slice"
// CHECK-LABEL: func.func @f_stage0(%arg0: tensor<2x4xf32>,
// CHECK-SAME:    %arg1: tensor<4x2xf32> {memopt.view = {source = 2 : i64, steps = [
// CHECK-SAME:      {op = "tensor.extract_slice", properties = {operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0, 0, 0>, static_sizes = array<i64: 4, 1, 2>, static_strides = array<i64: 1, 1, 1>}, type = tensor<4x2xf32>}]}},
// CHECK-SAME:    %arg2: tensor<4x3x2xf32>)
// CHECK-SAME:    -> (tensor<2x2xf32>, tensor<2x3x2xf32>, tensor<4x3x2xf32>)
// CHECK-DAG:  %[[GROUPED:.*]] = shard.shard %arg2 to
// CHECK-DAG:  %[[LEFT:.*]] = shard.shard %arg1 to
// CHECK:      linalg.generic {{.*}} ins(%{{.*}}, %[[LEFT]] : tensor<2x4xf32>, tensor<4x2xf32>)
// CHECK:      linalg.generic {{.*}} ins(%{{.*}}, %[[GROUPED]] : tensor<2x4xf32>, tensor<4x3x2xf32>)
// CHECK:      linalg.generic {{.*}} ins(%[[GROUPED]] : tensor<4x3x2xf32>)
// CHECK:      arith.negf

"place.cluster"() {sym_name = "pod", devices = 2 : i64, hbm_bytes = 1073741824 : i64, link_bandwidth = 4294967296 : i64} : () -> ()
func.func @f(%x: tensor<2x4xf32>, %w: tensor<4x6xf32>) -> (tensor<2x2xf32>, tensor<2x3x2xf32>, tensor<4x3x2xf32>) {
  %r:3 = "place.stage"() ({
    %left = tensor.extract_slice %w[0, 0] [4, 2] [1, 1] : tensor<4x6xf32> to tensor<4x2xf32>
    %zero = arith.constant 0.0 : f32
    %e0 = tensor.empty() : tensor<2x2xf32>
    %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x2xf32>) -> tensor<2x2xf32>
    %first = linalg.matmul ins(%x, %left : tensor<2x4xf32>, tensor<4x2xf32>) outs(%z0 : tensor<2x2xf32>) -> tensor<2x2xf32>
    %grouped = tensor.expand_shape %w [[0], [1, 2]] output_shape [4, 3, 2] : tensor<4x6xf32> into tensor<4x3x2xf32>
    %e1 = tensor.empty() : tensor<2x3x2xf32>
    %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
    %all = linalg.generic {indexing_maps = [affine_map<(i, g, c, k) -> (i, k)>, affine_map<(i, g, c, k) -> (k, g, c)>, affine_map<(i, g, c, k) -> (i, g, c)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %grouped : tensor<2x4xf32>, tensor<4x3x2xf32>) outs(%z1 : tensor<2x3x2xf32>) {
    ^bb0(%a: f32, %b: f32, %out: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %m, %out : f32
      linalg.yield %s : f32
    } -> tensor<2x3x2xf32>
    %again = tensor.expand_shape %w [[0], [1, 2]] output_shape [4, 3, 2] : tensor<4x6xf32> into tensor<4x3x2xf32>
    %e2 = tensor.empty() : tensor<4x3x2xf32>
    %negated = linalg.generic {indexing_maps = [affine_map<(k, g, c) -> (k, g, c)>, affine_map<(k, g, c) -> (k, g, c)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%again : tensor<4x3x2xf32>) outs(%e2 : tensor<4x3x2xf32>) {
    ^bb0(%b: f32, %out: f32):
      %n = arith.negf %b : f32
      linalg.yield %n : f32
    } -> tensor<4x3x2xf32>
    vector.yield %first, %all, %negated : tensor<2x2xf32>, tensor<2x3x2xf32>, tensor<4x3x2xf32>
  }) {cluster = @pod, index = 0 : i64, devices = 2 : i64, data_parallel = 2 : i64, tensor_parallel = 1 : i64, recompute = false, first_layer = 0 : i64, layers = 1 : i64, resultSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0>} : () -> (tensor<2x2xf32>, tensor<2x3x2xf32>, tensor<4x3x2xf32>)
  return %r#0, %r#1, %r#2 : tensor<2x2xf32>, tensor<2x3x2xf32>, tensor<4x3x2xf32>
}

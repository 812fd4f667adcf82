// The stage of a weight read as a slice and as [4, 3, 2] (the input of
// test/Conversion/place-to-shard/views-of-one-weight-become-one-argument-each-and-are-marked-with-how-to-make-them.mlir)
// at data-parallel 2: the weight is whole on both ranks, so memopt-run makes
// the slice argument as its memopt.view of the [4, 3, 2] argument, on the
// reference as on every rank. Each rank's inputs: its sample of x (1x4 f32,
// 16 bytes, 64 with memopt_rt's 64-byte alignment) and the weight once (96
// bytes, 128): 192 bytes; the slice (32 bytes, 64) is no buffer of its own.
// The reference holds x whole (32 bytes, 64) and the weight: 192 too.
// RUN: memopt-run %s --entry=f_stage0 --pipeline="builtin.module(place-to-shard)" --ranks=2 | FileCheck %s
// CHECK:      single-device: inputs_bytes=192
// CHECK-NEXT: rank 0: inputs_bytes=192
// CHECK-NEXT: rank 1: inputs_bytes=192
// CHECK:      outputs: equal

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

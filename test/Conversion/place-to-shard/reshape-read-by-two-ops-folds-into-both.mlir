// Upstream's reshape fusion folds a tensor.collapse_shape into the generic
// reading it only when nothing else reads it. Grouped-query attention's
// scores, collapsed from [kv head, group] to heads, are read by the row
// maximum and by the exponent; here the exponent of x (2x2x4) is collapsed
// to 2x8 and read by a row sum and a row maximum. place-to-shard gives each
// reader a collapse of its own and runs the normalization again: both
// reductions then read the 2x2x4 exponent over two reduction loops
// ((d0, d1, d2) -> (d0)), and no reshape is left for upstream sharding to
// stop at.
// RUN: memopt-opt %s --pass-pipeline="builtin.module(place-to-shard)" | FileCheck %s
// CHECK-DAG: #[[ALL:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-LABEL: func.func @f_stage0(%arg0: tensor<2x2x4xf32>) -> tensor<2xf32>
// CHECK-NOT: _shape
// CHECK: %[[EXP:.*]] = linalg.generic {indexing_maps = [#[[ALL]], #[[ALL]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK: math.exp
// The batch split annotates the exponent (place-to-shard annotates every
// value split along the batch); both reductions read the annotated value.
// CHECK: %[[SPLIT:.*]] = shard.shard %[[EXP]] to
// CHECK: linalg.generic {indexing_maps = [#[[ALL]], #[[ROW]]], iterator_types = ["parallel", "reduction", "reduction"]} ins(%[[SPLIT]] : tensor<2x2x4xf32>)
// CHECK: arith.addf
// CHECK: linalg.generic {indexing_maps = [#[[ALL]], #[[ROW]]], iterator_types = ["parallel", "reduction", "reduction"]} ins(%[[SPLIT]] : tensor<2x2x4xf32>)
// CHECK: arith.maximumf
// CHECK-NOT: _shape
// CHECK: return

"place.cluster"() {sym_name = "pod", devices = 2 : i64, hbm_bytes = 1073741824 : i64, link_bandwidth = 4294967296 : i64} : () -> ()
func.func @f(%x: tensor<2x2x4xf32>) -> tensor<2xf32> {
  %r = "place.stage"() ({
    %init = tensor.empty() : tensor<2x2x4xf32>
    %e = linalg.generic {indexing_maps = [affine_map<(i, g, j) -> (i, g, j)>, affine_map<(i, g, j) -> (i, g, j)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<2x2x4xf32>) outs(%init : tensor<2x2x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %n = math.exp %in : f32
      linalg.yield %n : f32
    } -> tensor<2x2x4xf32>
    %c = tensor.collapse_shape %e [[0], [1, 2]] : tensor<2x2x4xf32> into tensor<2x8xf32>
    %zero = arith.constant 0.0 : f32
    %e2 = tensor.empty() : tensor<2xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2xf32>) -> tensor<2xf32>
    %sum = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%c : tensor<2x8xf32>) outs(%z : tensor<2xf32>) {
    ^bb0(%in: f32, %out: f32):
      %a = arith.addf %in, %out : f32
      linalg.yield %a : f32
    } -> tensor<2xf32>
    %max = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%c : tensor<2x8xf32>) outs(%z : tensor<2xf32>) {
    ^bb0(%in: f32, %out: f32):
      %a = arith.maximumf %in, %out : f32
      linalg.yield %a : f32
    } -> tensor<2xf32>
    %e3 = tensor.empty() : tensor<2xf32>
    %q = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%sum, %max : tensor<2xf32>, tensor<2xf32>) outs(%e3 : tensor<2xf32>) {
    ^bb0(%a: f32, %b: f32, %out: f32):
      %d = arith.divf %b, %a : f32
      linalg.yield %d : f32
    } -> tensor<2xf32>
    vector.yield %q : tensor<2xf32>
  }) {cluster = @pod, index = 0 : i64, devices = 2 : i64, data_parallel = 2 : i64, tensor_parallel = 1 : i64, recompute = false, first_layer = 0 : i64, layers = 1 : i64, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : () -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// Upstream sharding has no interface for tensor.concat. place-to-shard
// rewrites a concat of parts of one type as a linalg.generic over
// [rows, part, part column] that selects part p where its part loop is p,
// collapsed back to the concat's type; the normalization then folds the
// collapse into the matmul reading it. Here c = concat(-x, x) along columns
// (2x4 and 2x4 into 2x8) times w (8x3): the matmul's reduction over the 8
// columns of c becomes two loops, part p (2) by column j (4), w is seen as
// [part, row, column] 2x4x3 (a view of the argument, hoisted into it), and
// the negation fuses in: every product reads x[i, j] and takes -x[i, j] for
// part 0, x[i, j] for part 1 (p >= 1). The batch of x splits over the data
// axis as before; no tensor.concat and no reshape is left.
// RUN: memopt-opt %s --pass-pipeline="builtin.module(place-to-shard)" | FileCheck %s
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3, d1)>
// CHECK-LABEL: func.func @f_stage0(%arg0: tensor<2x4xf32>, %arg1: tensor<2x4x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: tensor.concat
// CHECK-NOT: _shape
// CHECK: linalg.generic {indexing_maps = [#[[X]], #[[W]], {{.*}}], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %[[WIN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[PART:.*]] = linalg.index 2 : index
// CHECK-NEXT: %[[NEG:.*]] = arith.negf %[[IN]] : f32
// CHECK-NEXT: %[[SECOND:.*]] = arith.cmpi sge, %[[PART]], %[[ONE]] : index
// CHECK-NEXT: %[[C:.*]] = arith.select %[[SECOND]], %[[IN]], %[[NEG]] : f32
// CHECK-NEXT: arith.mulf %[[C]], %[[WIN]] : f32
// CHECK-NOT: tensor.concat
// CHECK-NOT: _shape
// CHECK: return

"place.cluster"() {sym_name = "pod", devices = 2 : i64, hbm_bytes = 1073741824 : i64, link_bandwidth = 4294967296 : i64} : () -> ()
func.func @f(%x: tensor<2x4xf32>, %w: tensor<8x3xf32>) -> tensor<2x3xf32> {
  %r = "place.stage"() ({
    %init = tensor.empty() : tensor<2x4xf32>
    %a = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2x4xf32>) outs(%init : tensor<2x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %n = arith.negf %in : f32
      linalg.yield %n : f32
    } -> tensor<2x4xf32>
    %c = tensor.concat dim(1) %a, %x : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x8xf32>
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<2x3xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
    %m = linalg.matmul ins(%c, %w : tensor<2x8xf32>, tensor<8x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
    vector.yield %m : tensor<2x3xf32>
  }) {cluster = @pod, index = 0 : i64, devices = 2 : i64, data_parallel = 2 : i64, tensor_parallel = 1 : i64, recompute = false, first_layer = 0 : i64, layers = 1 : i64, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : () -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

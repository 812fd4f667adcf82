// place-to-shard normalizes a tensor.insert_slice of a block (no sharding
// interface upstream) before sharding: %g (4x2) goes into a zero 4x6 at
// columns 2..3, block 1 of the 4x6 seen as 4x3x2. It becomes a generic over
// (i, q, r) in 4x3x2 taking %g[i, r] where q == 1 and the zero elsewhere;
// reshape fusion folds the expand_shape and collapse_shape around it into
// the fill and into the consumer, which the stage returns as 4x3x2 (its
// source: the same row-major data). No insert_slice is left. Executed, the
// stage's result has the same elements (same hash) as @plain, the same ops
// with the insert_slice, outside any stage (place-to-shard leaves it).
// RUN: memopt-opt %s --pass-pipeline="builtin.module(place-to-shard)" -o %t.mlir
// RUN: FileCheck %s --input-file=%t.mlir
// RUN: memopt-run %t.mlir --entry=plain > %t.plain
// RUN: memopt-run %t.mlir --entry=f_stage0 > %t.stage
// RUN: cat %t.plain %t.stage | FileCheck %s --check-prefix=SAME
// CHECK-LABEL: func.func @f_stage0(%arg0: tensor<4x2xf32>) -> tensor<4x3x2xf32>
// CHECK-NOT: tensor.insert_slice
// CHECK: linalg.generic
// CHECK: %[[Q:.*]] = linalg.index 1 : index
// CHECK: arith.cmpi eq, %[[Q]], %{{.*}} : index
// CHECK: arith.select
// CHECK-NOT: tensor.insert_slice
// CHECK-NOT: tensor.collapse_shape
// CHECK: return
// SAME: output 0: tensor<4x6xf32> hash=[[HASH:0x[0-9a-f]+]] sum
// SAME: output 0: tensor<4x3x2xf32> hash=[[HASH]] sum

"place.cluster"() {sym_name = "pod", devices = 1 : i64, hbm_bytes = 1073741824 : i64, link_bandwidth = 4294967296 : i64} : () -> ()
func.func @f(%x: tensor<4x2xf32>) -> tensor<4x6xf32> {
  %zero = arith.constant 0.0 : f32
  %a = "place.stage"() ({
    %e = tensor.empty() : tensor<4x2xf32>
    %g = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x2xf32>) outs(%e : tensor<4x2xf32>) {
    ^bb0(%in: f32, %out: f32):
      %t = math.tanh %in : f32
      linalg.yield %t : f32
    } -> tensor<4x2xf32>
    %d = tensor.empty() : tensor<4x6xf32>
    %z = linalg.fill ins(%zero : f32) outs(%d : tensor<4x6xf32>) -> tensor<4x6xf32>
    %i = tensor.insert_slice %g into %z[0, 2] [4, 2] [1, 1] : tensor<4x2xf32> into tensor<4x6xf32>
    %e2 = tensor.empty() : tensor<4x6xf32>
    %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%i : tensor<4x6xf32>) outs(%e2 : tensor<4x6xf32>) {
    ^bb0(%in: f32, %out: f32):
      %t = math.exp %in : f32
      linalg.yield %t : f32
    } -> tensor<4x6xf32>
    vector.yield %s : tensor<4x6xf32>
  }) {cluster = @pod, index = 0 : i64, devices = 1 : i64, data_parallel = 1 : i64, tensor_parallel = 1 : i64, recompute = false, first_layer = 0 : i64, layers = 1 : i64, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : () -> tensor<4x6xf32>
  return %a : tensor<4x6xf32>
}

func.func @plain(%x: tensor<4x2xf32>) -> tensor<4x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x2xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x2xf32>) outs(%e : tensor<4x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32
    linalg.yield %t : f32
  } -> tensor<4x2xf32>
  %d = tensor.empty() : tensor<4x6xf32>
  %z = linalg.fill ins(%zero : f32) outs(%d : tensor<4x6xf32>) -> tensor<4x6xf32>
  %i = tensor.insert_slice %g into %z[0, 2] [4, 2] [1, 1] : tensor<4x2xf32> into tensor<4x6xf32>
  %e2 = tensor.empty() : tensor<4x6xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%i : tensor<4x6xf32>) outs(%e2 : tensor<4x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.exp %in : f32
    linalg.yield %t : f32
  } -> tensor<4x6xf32>
  return %s : tensor<4x6xf32>
}

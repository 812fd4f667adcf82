// --ranks=3 runs a grid of 3 devices, but x's 8 rows do not split evenly
// over them (8 = 2 x 3 + 2): memopt-run says so at the annotation, before
// anything runs, and exits 1.
// RUN: not memopt-run %s --ranks=3 2>&1 | FileCheck %s
// CHECK:      ranks-split-extent-not-divisible-by-the-grid-is-a-located-error.mlir:[[@LINE+7]]:9: error: 'shard.shard' op argument 0 of @rows: dimension 0 of extent 8 does not split evenly over the 3 devices of grid @g it is split over
// CHECK:      memopt-run: error: argument 0 of @rows: dimension 0 of extent 8 is not divisible by 3
// CHECK-NOT:  rank 0

shard.grid @g(shape = 3)
func.func @rows(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @g split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %s annotate_for_users : tensor<8x16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%xs : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

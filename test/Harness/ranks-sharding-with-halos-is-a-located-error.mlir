// A sharding with halos gives each rank overlapping slices, which memopt-run
// cannot lay over the single-device inputs and results: an error at the
// annotation, before anything runs.
// RUN: not memopt-run %s --ranks=2 2>&1 | FileCheck %s
// CHECK:      ranks-sharding-with-halos-is-a-located-error.mlir:[[@LINE+6]]:9: error: 'shard.shard' op argument 0 of @rows: --ranks needs a static sharding without halos or uneven offsets
// CHECK:      memopt-run: error: argument 0 of @rows has a sharding memopt-run cannot slice

shard.grid @g(shape = 2)
func.func @rows(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @g split_axes = [[0]] halo_sizes = [1, 1] : !shard.sharding
  %xs = shard.shard %x to %s annotate_for_users : tensor<8x16xf32>
  return %xs : tensor<8x16xf32>
}

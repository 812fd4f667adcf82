// The deallocation passes reject mpi ops; memopt-run hides them while those
// passes run, so buffers of a program on MPI ranks are still freed after
// their last use. Here the all-reduced matmul result goes through tanh and
// exp: the buffers of the reduction die before tanh's is made.
// RUN: memopt-run %s --ranks=2 --runs=1 | FileCheck %s
//
// Every buffer is 8x32 f32 = 1024 bytes. Around the all-reduce each rank
// holds 2 of them (the zero-filled accumulator and the buffer reduced in
// place; see
// ranks-contraction-split-matmul-all-reduces-to-the-single-device-result.mlir).
// Then only the reduced buffer stays, as tanh's input, and tanh's replaces
// it as exp's: at most 2 are live at once, 2048 bytes. Without deallocation
// all 4 buffers would be at exp: 4096.
// CHECK:      rank 0: inputs_bytes=1280 peak_bytes=2048 {{.*}}
// CHECK-NEXT: rank 1: inputs_bytes=1280 peak_bytes=2048 {{.*}}
// CHECK:      outputs: {{equal|within tolerance}}

shard.grid @g(shape = 2)
func.func @chain(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>) -> tensor<8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %sx = shard.sharding @g split_axes = [[], [0]] : !shard.sharding
  %xs = shard.shard %x to %sx annotate_for_users : tensor<8x16xf32>
  %sw = shard.sharding @g split_axes = [[0]] : !shard.sharding
  %ws = shard.shard %w to %sw annotate_for_users : tensor<16x32xf32>
  %init = tensor.empty() : tensor<8x32xf32>
  %filled = linalg.fill ins(%zero : f32) outs(%init : tensor<8x32xf32>) -> tensor<8x32xf32>
  %m = linalg.matmul ins(%xs, %ws : tensor<8x16xf32>, tensor<16x32xf32>) outs(%filled : tensor<8x32xf32>) -> tensor<8x32xf32>
  %e1 = tensor.empty() : tensor<8x32xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<8x32xf32>) outs(%e1 : tensor<8x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = math.tanh %in : f32
    linalg.yield %y : f32
  } -> tensor<8x32xf32>
  %e2 = tensor.empty() : tensor<8x32xf32>
  %u = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%t : tensor<8x32xf32>) outs(%e2 : tensor<8x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = math.exp %in : f32
    linalg.yield %y : f32
  } -> tensor<8x32xf32>
  %sr = shard.sharding @g split_axes = [[]] : !shard.sharding
  %r = shard.shard %u to %sr : tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}

// memopt-run --ranks=2 partitions a matmul whose contraction dimension is
// split over a 2-device grid, runs it on 2 MPI ranks (MPICH) and compares
// each rank's result with the single-device run of the program without its
// shard annotations. Each rank multiplies x[:, 8r:8r+8] by w[8r:8r+8, :] and
// the partial sums are all-reduced (mpi.allreduce): both ranks hold the whole
// 8x32 result, summed in another order than on one device, so within the
// tolerance rather than equal.
// RUN: memopt-run %s --ranks=2 | FileCheck %s
// With --tolerance=0 the different summation order is a difference: exit 1.
// RUN: not memopt-run %s --ranks=2 --tolerance=0 | FileCheck %s --check-prefix=EXACT
//
// Inputs: single device x 8x16 + w 16x32 f32 = 512 + 2048 = 2560 bytes; on
// each rank x 8x8 + w 8x32 = 256 + 1024 = 1280 bytes.
// Single device, per call: the 8x32 f32 result, 1024 bytes.
// Each rank, per call (every buffer 8x32 f32 = 1024 bytes): the zero-filled
// accumulator the matmul sums into, and the buffer convert-shard-to-mpi
// copies it into and reduces in place: 2048 on every rank. shard-partition
// gives every rank but the first a zero-filled init of its own, under an
// scf.if on the rank; it is the same fill as the program's, so the cse and
// canonicalize memopt-run runs after shard-partition fold the scf.if away
// and no rank holds a second accumulator.
// CHECK:      entry: mm
// CHECK-NEXT: ranks: 2
// CHECK-NEXT: grid: @g 2
// CHECK-NEXT: runs: 3
// CHECK-NEXT: single-device: inputs_bytes=2560 peak_bytes=1024 allocations_per_run=1 time_ms_median={{.*}}
// CHECK-NEXT: rank 0: inputs_bytes=1280 peak_bytes=2048 {{.*}}
// CHECK-NEXT: rank 1: inputs_bytes=1280 peak_bytes=2048 {{.*}}
// CHECK-NEXT: output 0 rank 0: tensor<8x32xf32> at [0, 0] of tensor<8x32xf32>: max_rel_error={{[0-9.e-]+}} {{equal|within tolerance}}
// CHECK-NEXT: output 0 rank 1: tensor<8x32xf32> at [0, 0] of tensor<8x32xf32>: max_rel_error={{[0-9.e-]+}} {{equal|within tolerance}}
// CHECK-NEXT: outputs: {{equal|within tolerance}} (max_rel_error={{[0-9.e-]+}}, tolerance 1e-05)
// EXACT:      output 0 rank 0: {{.*}} DIFFERENT (element {{[0-9]+}} of the slice is {{.*}})
// EXACT:      outputs: DIFFERENT (max_rel_error={{[0-9.e-]+}}, tolerance 0)

shard.grid @g(shape = 2)
func.func @mm(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>) -> tensor<8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %sx = shard.sharding @g split_axes = [[], [0]] : !shard.sharding
  %xs = shard.shard %x to %sx annotate_for_users : tensor<8x16xf32>
  %sw = shard.sharding @g split_axes = [[0]] : !shard.sharding
  %ws = shard.shard %w to %sw annotate_for_users : tensor<16x32xf32>
  %init = tensor.empty() : tensor<8x32xf32>
  %filled = linalg.fill ins(%zero : f32) outs(%init : tensor<8x32xf32>) -> tensor<8x32xf32>
  %m = linalg.matmul ins(%xs, %ws : tensor<8x16xf32>, tensor<16x32xf32>) outs(%filled : tensor<8x32xf32>) -> tensor<8x32xf32>
  %sr = shard.sharding @g split_axes = [[]] : !shard.sharding
  %r = shard.shard %m to %sr : tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}

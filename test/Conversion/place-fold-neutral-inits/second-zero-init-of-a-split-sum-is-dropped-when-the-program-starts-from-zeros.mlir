// place-fold-neutral-inits, after upstream shard-partition: a matmul whose
// contraction dimension is split over 2 devices sums partial products, and
// shard-partition starts every device but the first from a zero fill of its
// own (an scf.if on the device index), so that an init is added once. When
// the program's init already is a zero fill (@zeros), both branches give
// zeros: the scf.if goes and every device uses the program's fill, with no
// second 8x32 buffer. When it is not (@bias: the sum starts from a bias),
// or the fill is of another constant than the combiner's neutral element
// (@ones), the scf.if stays: only the first device may add it.
// RUN: mlir-opt %s --pass-pipeline='builtin.module(func.func(sharding-propagation,shard-partition))' | memopt-opt --pass-pipeline='builtin.module(func.func(place-fold-neutral-inits))' | FileCheck %s

shard.grid @g(shape = 2)

// CHECK-LABEL: func.func @zeros
// CHECK:       %[[FILL:.*]] = linalg.fill
// CHECK-NOT:   scf.if
// CHECK:       linalg.matmul ins({{.*}}) outs(%[[FILL]] : tensor<8x32xf32>)
// CHECK:       shard.all_reduce
func.func @zeros(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>) -> tensor<8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %sx = shard.sharding @g split_axes = [[], [0]] : !shard.sharding
  %xs = shard.shard %x to %sx annotate_for_users : tensor<8x16xf32>
  %sw = shard.sharding @g split_axes = [[0]] : !shard.sharding
  %ws = shard.shard %w to %sw annotate_for_users : tensor<16x32xf32>
  %init = tensor.empty() : tensor<8x32xf32>
  %filled = linalg.fill ins(%zero : f32) outs(%init : tensor<8x32xf32>) -> tensor<8x32xf32>
  %m = linalg.matmul ins(%xs, %ws : tensor<8x16xf32>, tensor<16x32xf32>) outs(%filled : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %m : tensor<8x32xf32>
}

// CHECK-LABEL: func.func @ones
// CHECK:       scf.if
// CHECK:       linalg.matmul
func.func @ones(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>) -> tensor<8x32xf32> {
  %one = arith.constant 1.0 : f32
  %sx = shard.sharding @g split_axes = [[], [0]] : !shard.sharding
  %xs = shard.shard %x to %sx annotate_for_users : tensor<8x16xf32>
  %sw = shard.sharding @g split_axes = [[0]] : !shard.sharding
  %ws = shard.shard %w to %sw annotate_for_users : tensor<16x32xf32>
  %init = tensor.empty() : tensor<8x32xf32>
  %filled = linalg.fill ins(%one : f32) outs(%init : tensor<8x32xf32>) -> tensor<8x32xf32>
  %m = linalg.matmul ins(%xs, %ws : tensor<8x16xf32>, tensor<16x32xf32>) outs(%filled : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %m : tensor<8x32xf32>
}

// CHECK-LABEL: func.func @bias
// CHECK:       scf.if
// CHECK:       linalg.matmul
func.func @bias(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>, %b: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %sx = shard.sharding @g split_axes = [[], [0]] : !shard.sharding
  %xs = shard.shard %x to %sx annotate_for_users : tensor<8x16xf32>
  %sw = shard.sharding @g split_axes = [[0]] : !shard.sharding
  %ws = shard.shard %w to %sw annotate_for_users : tensor<16x32xf32>
  %m = linalg.matmul ins(%xs, %ws : tensor<8x16xf32>, tensor<16x32xf32>) outs(%b : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %m : tensor<8x32xf32>
}

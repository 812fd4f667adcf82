// chunk.region results combined across chunks round-trip through memopt-opt,
// and through upstream mlir-opt loading the same IRDL (which does not know
// the discardable `combiners` and `rescale_by` attributes and keeps them).
// RUN: memopt-opt %s | FileCheck %s
// RUN: memopt-opt %s | mlir-opt --irdl-file=%memopt_irdl | FileCheck %s
// RUN: memopt-opt %s | memopt-opt | FileCheck %s

// Column sums of a 10x4 tensor, 4 rows per chunk: each chunk yields the
// 4-element sum of its rows, and the region adds them up.
// CHECK-LABEL: func.func @column_sums
// CHECK: vector.yield %{{.*}} : tensor<4xf32>
// CHECK: }) {chunk_size = 4 : i64, combiners = ["add"], input_dims = array<i64: 0>, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, output_dims = array<i64: -1>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<10x4xf32>) -> tensor<4xf32>
func.func @column_sums(%x: tensor<10x4xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<?x4xf32>):
    %e = tensor.empty() : tensor<4xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %p = linalg.reduce ins(%s : tensor<?x4xf32>) outs(%z : tensor<4xf32>) dimensions = [0]
      (%a: f32, %b: f32) {
        %t = arith.addf %a, %b : f32
        linalg.yield %t : f32
      }
    vector.yield %p : tensor<4xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: -1>, chunk_size = 4 : i64,
      combiners = ["add"],
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<10x4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// Every combiner in one region: a concatenated copy, an integer maximum, a
// float maximum m (8 rows) and two sums rescaled by it, l (m's type) and O
// (m's type with a trailing dimension of 3): result #0 keeps its row
// dimension 0, the others have output_dims -1; rescale_by names result #2
// for results #3 and #4 and is -1 elsewhere.
// CHECK-LABEL: func.func @all_combiners
// CHECK: }) {chunk_size = 2 : i64, combiners = ["concat", "max", "max", "rescaled-add", "rescaled-add"], input_dims = array<i64: 1>, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, output_dims = array<i64: 1, -1, -1, -1, -1>, rescale_by = array<i64: -1, -1, -1, 2, 2>, resultSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0>}
func.func @all_combiners(%x: tensor<8x6xf32>, %i: tensor<8xi32>, %m: tensor<8xf32>, %o: tensor<8x3xf32>)
    -> (tensor<8x6xf32>, tensor<8xi32>, tensor<8xf32>, tensor<8xf32>, tensor<8x3xf32>) {
  %0, %1, %2, %3, %4 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<8x2xf32>):
    vector.yield %s, %i, %m, %m, %o : tensor<8x2xf32>, tensor<8xi32>, tensor<8xf32>, tensor<8xf32>, tensor<8x3xf32>
  }) {input_dims = array<i64: 1>, output_dims = array<i64: 1, -1, -1, -1, -1>, chunk_size = 2 : i64,
      combiners = ["concat", "max", "max", "rescaled-add", "rescaled-add"], rescale_by = array<i64: -1, -1, -1, 2, 2>,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0>}
     : (tensor<8x6xf32>) -> (tensor<8x6xf32>, tensor<8xi32>, tensor<8xf32>, tensor<8xf32>, tensor<8x3xf32>)
  return %0, %1, %2, %3, %4 : tensor<8x6xf32>, tensor<8xi32>, tensor<8xf32>, tensor<8xf32>, tensor<8x3xf32>
}

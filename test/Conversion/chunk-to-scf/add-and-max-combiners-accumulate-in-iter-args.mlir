// Results combined across chunks ("add", "max") are scf.for iter_args: they
// start at the combiner's identity (linalg.fill of a tensor.empty) and each
// chunk's value is combined into them by an all-parallel linalg.generic that
// writes the iter_arg in place; nothing is inserted.
// RUN: memopt-opt %s --chunk-to-scf --allow-unregistered-dialect | mlir-opt --verify-each --allow-unregistered-dialect | FileCheck %s --implicit-check-not='"chunk.region"'

// Column sums of 10 rows, 4 per chunk: the full chunks cover rows 0..7
// (loop 0 to 10 - 10 mod 4 = 8), then the remainder loop runs once on the
// 10 - 8 = 2 last rows, whose partial sum is added like the others.
// CHECK-LABEL: func.func @column_sums(
// CHECK-SAME:      %[[X:.*]]: tensor<10x4xf32>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG:     %[[C10:.*]] = arith.constant 10 : index
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[EMPTY:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[FULL:.*]] = scf.for %[[IV:.*]] = %[[C0]] to %[[C8]] step %[[C4]] iter_args(%[[ACC:.*]] = %[[INIT]]) -> (tensor<4xf32>)
// CHECK:           tensor.extract_slice %[[X]][%[[IV]], 0] [4, 4] [1, 1]
// CHECK:           %[[PART:.*]] = linalg.reduce
// CHECK:           %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[ID:.*]], #[[ID]]], iterator_types = ["parallel"]} ins(%[[PART]] : tensor<4xf32>) outs(%[[ACC]] : tensor<4xf32>)
// CHECK-NEXT:      ^bb0(%[[IN:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK-NEXT:        %[[ADD:.*]] = arith.addf %[[OUT]], %[[IN]] : f32
// CHECK-NEXT:        linalg.yield %[[ADD]] : f32
// CHECK:           scf.yield %[[SUM]] : tensor<4xf32>
// CHECK:         %[[LAST:.*]] = scf.for %[[IV2:.*]] = %[[C8]] to %[[C10]] step %[[C4]] iter_args(%[[ACC2:.*]] = %[[FULL]]) -> (tensor<4xf32>)
// CHECK:           tensor.extract_slice %[[X]][%[[IV2]], 0] [2, 4] [1, 1]
// CHECK:           %[[PART2:.*]] = linalg.reduce
// CHECK:           %[[SUM2:.*]] = linalg.generic {{.*}} ins(%[[PART2]] : tensor<4xf32>) outs(%[[ACC2]] : tensor<4xf32>)
// CHECK:             arith.addf
// CHECK:           scf.yield %[[SUM2]] : tensor<4xf32>
// CHECK:         return %[[LAST]] : tensor<4xf32>
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

// An integer maximum over 8 rows in chunks of 4 (one loop, no remainder):
// the identity is the smallest i32, 1 << 31 = -2147483648, and chunks are
// combined with arith.maxsi.
// CHECK-LABEL: func.func @integer_max(
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-DAG:     %[[SHIFT:.*]] = arith.constant 31 : i32
// CHECK:         %[[LOWEST:.*]] = arith.shli %[[ONE]], %[[SHIFT]] : i32
// CHECK-NEXT:    %[[EMPTY:.*]] = tensor.empty() : tensor<3xi32>
// CHECK-NEXT:    %[[INIT:.*]] = linalg.fill ins(%[[LOWEST]] : i32) outs(%[[EMPTY]] : tensor<3xi32>) -> tensor<3xi32>
// CHECK-NEXT:    %[[RES:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (tensor<3xi32>)
// CHECK:           %[[PART:.*]] = "test.column_max"
// CHECK-NEXT:      %[[MAX:.*]] = linalg.generic {{.*}} ins(%[[PART]] : tensor<3xi32>) outs(%[[ACC]] : tensor<3xi32>)
// CHECK-NEXT:      ^bb0(%[[IN:.*]]: i32, %[[OUT:.*]]: i32):
// CHECK-NEXT:        arith.maxsi %[[OUT]], %[[IN]] : i32
// CHECK:           scf.yield %[[MAX]] : tensor<3xi32>
// CHECK-NOT:     scf.for
// CHECK:         return %[[RES]] : tensor<3xi32>
func.func @integer_max(%x: tensor<8x3xi32>) -> tensor<3xi32> {
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<4x3xi32>):
    %p = "test.column_max"(%s) : (tensor<4x3xi32>) -> tensor<3xi32>
    vector.yield %p : tensor<3xi32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: -1>, chunk_size = 4 : i64,
      combiners = ["max"],
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<8x3xi32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

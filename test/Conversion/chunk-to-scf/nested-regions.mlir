// A region over rows (40 in chunks of 16: a remainder) whose body holds a
// region over columns. The inner region is lowered first, so both the
// full-chunk loop and the remainder loop of the outer region contain their
// own copy of the inner loop, reading the outer slice.
// RUN: memopt-opt %s --chunk-to-scf | mlir-opt --verify-each | FileCheck %s --implicit-check-not='"chunk.region"'

// CHECK-LABEL: func.func @nested(
// CHECK-SAME:      %[[X:.*]]: tensor<40x32xf32>)
// CHECK:         %[[DEST:.*]] = tensor.empty() : tensor<40x32xf32>
// CHECK:         %[[FULL:.*]] = scf.for %[[IV:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[DEST]])
// CHECK-NEXT:      %[[ROWS:.*]] = tensor.extract_slice %[[X]][%[[IV]], 0] [16, 32] [1, 1] : tensor<40x32xf32> to tensor<16x32xf32>
// CHECK:           %[[INNER_DEST:.*]] = tensor.empty() : tensor<16x32xf32>
// CHECK-NEXT:      %[[INNER:.*]] = scf.for %[[JV:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[INNER_ACC:.*]] = %[[INNER_DEST]])
// CHECK-NEXT:        %[[COLS:.*]] = tensor.extract_slice %[[ROWS]][0, %[[JV]]] [16, 8] [1, 1] : tensor<16x32xf32> to tensor<16x8xf32>
// CHECK-NEXT:        %[[NEG:.*]] = arith.negf %[[COLS]] : tensor<16x8xf32>
// CHECK-NEXT:        %[[INNER_INS:.*]] = tensor.insert_slice %[[NEG]] into %[[INNER_ACC]][0, %[[JV]]] [16, 8] [1, 1]
// CHECK-NEXT:        scf.yield %[[INNER_INS]] : tensor<16x32xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[EXP:.*]] = math.exp %[[INNER]] : tensor<16x32xf32>
// CHECK-NEXT:      %[[INS:.*]] = tensor.insert_slice %[[EXP]] into %[[ACC]][%[[IV]], 0] [16, 32] [1, 1]
// CHECK-NEXT:      scf.yield %[[INS]]
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[LAST:.*]] = scf.for %[[IV2:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC2:.*]] = %[[FULL]])
// CHECK-NEXT:      %[[START:.*]] = arith.constant 24 : index
// CHECK-NEXT:      %[[KEEP:.*]] = arith.subi %[[IV2]], %[[START]] : index
// CHECK-NEXT:      %[[ROWS2:.*]] = tensor.extract_slice %[[X]][%[[START]], 0] [16, 32] [1, 1]
// CHECK:           %[[INNER2:.*]] = scf.for
// CHECK-NEXT:        tensor.extract_slice %[[ROWS2]][0, %{{.*}}] [16, 8] [1, 1]
// CHECK:           %[[EXP2:.*]] = math.exp %[[INNER2]] : tensor<16x32xf32>
// CHECK-NEXT:      %[[TAIL:.*]] = tensor.extract_slice %[[EXP2]][%[[KEEP]], 0] [8, 32] [1, 1] : tensor<16x32xf32> to tensor<8x32xf32>
// CHECK-NEXT:      tensor.insert_slice %[[TAIL]] into %[[ACC2]][%[[IV2]], 0] [8, 32] [1, 1]
// CHECK:         return %[[LAST]] : tensor<40x32xf32>
func.func @nested(%x: tensor<40x32xf32>) -> tensor<40x32xf32> {
  %0 = "chunk.region"(%x) ({
  ^bb0(%rows: tensor<16x32xf32>):
    %1 = "chunk.region"(%rows) ({
    ^bb0(%cols: tensor<16x8xf32>):
      %n = arith.negf %cols : tensor<16x8xf32>
      vector.yield %n : tensor<16x8xf32>
    }) {input_dims = array<i64: 1>, output_dims = array<i64: 1>, chunk_size = 8 : i64,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
       : (tensor<16x32xf32>) -> tensor<16x32xf32>
    %e = math.exp %1 : tensor<16x32xf32>
    vector.yield %e : tensor<16x32xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 16 : i64,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<40x32xf32>) -> tensor<40x32xf32>
  return %0 : tensor<40x32xf32>
}

// The outer region slices rows as '?' (12 rows in chunks of 5: an exact
// remainder of 2), so the inner region over columns has an output with a
// dynamic row count: each copy of it computes its first column chunk before
// its loop to size its destination.
// CHECK-LABEL: func.func @nested_dynamic(
// CHECK-SAME:      %[[X:.*]]: tensor<12x6xf32>, %[[W:.*]]: tensor<6x8xf32>)
// CHECK:         scf.for %{{.*}} iter_args
// CHECK:           %[[ROWS:.*]] = tensor.cast %{{.*}} : tensor<5x6xf32> to tensor<?x6xf32>
// CHECK:           %[[FIRST_COLS:.*]] = tensor.extract_slice %[[W]][0, %{{.*}}] [6, 4] [1, 1]
// CHECK:           %[[FIRST:.*]] = linalg.matmul ins(%[[ROWS]], %[[FIRST_COLS]] : tensor<?x6xf32>, tensor<6x4xf32>)
// CHECK-NEXT:      %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[N:.*]] = tensor.dim %[[FIRST]], %[[C0]] : tensor<?x4xf32>
// CHECK-NEXT:      %[[INNER_DEST:.*]] = tensor.empty(%[[N]]) : tensor<?x8xf32>
// CHECK:           %[[PEELED:.*]] = tensor.insert_slice %[[FIRST]] into %[[INNER_DEST]]
// CHECK-NEXT:      %[[INNER:.*]] = scf.for %{{.*}} iter_args(%{{.*}} = %[[PEELED]]) -> (tensor<?x8xf32>)
// CHECK:           tensor.cast %[[INNER]] : tensor<?x8xf32> to tensor<5x8xf32>
// CHECK:         scf.for %{{.*}} iter_args
// CHECK:           tensor.cast %{{.*}} : tensor<2x6xf32> to tensor<?x6xf32>
// CHECK:           tensor.empty(%{{.*}}) : tensor<?x8xf32>
// CHECK:           %[[INNER2:.*]] = scf.for
// CHECK:           tensor.cast %[[INNER2]] : tensor<?x8xf32> to tensor<2x8xf32>
func.func @nested_dynamic(%x: tensor<12x6xf32>, %w: tensor<6x8xf32>) -> tensor<12x8xf32> {
  %zero = arith.constant 0.0 : f32
  %0 = "chunk.region"(%x) ({
  ^bb0(%rows: tensor<?x6xf32>):
    %1 = "chunk.region"(%w) ({
    ^bb0(%cols: tensor<6x4xf32>):
      %c0 = arith.constant 0 : index
      %n = tensor.dim %rows, %c0 : tensor<?x6xf32>
      %init = tensor.empty(%n) : tensor<?x4xf32>
      %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<?x4xf32>) -> tensor<?x4xf32>
      %m = linalg.matmul ins(%rows, %cols : tensor<?x6xf32>, tensor<6x4xf32>) outs(%fill : tensor<?x4xf32>) -> tensor<?x4xf32>
      vector.yield %m : tensor<?x4xf32>
    }) {input_dims = array<i64: 1>, output_dims = array<i64: 1>, chunk_size = 4 : i64,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
       : (tensor<6x8xf32>) -> tensor<?x8xf32>
    vector.yield %1 : tensor<?x8xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 5 : i64,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<12x6xf32>) -> tensor<12x8xf32>
  return %0 : tensor<12x8xf32>
}

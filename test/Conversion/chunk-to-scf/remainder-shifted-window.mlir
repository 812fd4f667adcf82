// 100 rows in chunks of 32 with a body typed for exactly 32 rows: a 32-row
// slice cannot hold the last 4, so the remainder loop runs the body on the
// last full window (rows 68..99, static types unchanged) and inserts only its
// last 4 rows (from row 96 - 68 = 28 of the window's result).
// RUN: memopt-opt %s --chunk-to-scf | mlir-opt --verify-each | FileCheck %s --implicit-check-not='"chunk.region"'

// CHECK-LABEL: func.func @static_slices(
// CHECK-SAME:      %[[X:.*]]: tensor<100x8xf32>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG:     %[[C96:.*]] = arith.constant 96 : index
// CHECK-DAG:     %[[C100:.*]] = arith.constant 100 : index
// CHECK:         %[[DEST:.*]] = tensor.empty() : tensor<100x8xf32>
// CHECK:         %[[FULL:.*]] = scf.for %[[IV:.*]] = %[[C0]] to %[[C96]] step %[[C32]] iter_args(%[[ACC:.*]] = %[[DEST]])
// CHECK-NEXT:      %[[SLICE:.*]] = tensor.extract_slice %[[X]][%[[IV]], 0] [32, 8] [1, 1] : tensor<100x8xf32> to tensor<32x8xf32>
// CHECK-NEXT:      %[[EXP:.*]] = math.exp %[[SLICE]] : tensor<32x8xf32>
// CHECK-NEXT:      %[[INS:.*]] = tensor.insert_slice %[[EXP]] into %[[ACC]][%[[IV]], 0] [32, 8] [1, 1]
// CHECK-NEXT:      scf.yield %[[INS]]
// CHECK:         %[[LAST:.*]] = scf.for %[[IV2:.*]] = %[[C96]] to %[[C100]] step %[[C32]] iter_args(%[[ACC2:.*]] = %[[FULL]])
// CHECK-NEXT:      %[[START:.*]] = arith.constant 68 : index
// CHECK-NEXT:      %[[KEEP:.*]] = arith.subi %[[IV2]], %[[START]] : index
// CHECK-NEXT:      %[[WINDOW:.*]] = tensor.extract_slice %[[X]][%[[START]], 0] [32, 8] [1, 1] : tensor<100x8xf32> to tensor<32x8xf32>
// CHECK-NEXT:      %[[EXP2:.*]] = math.exp %[[WINDOW]] : tensor<32x8xf32>
// CHECK-NEXT:      %[[TAIL:.*]] = tensor.extract_slice %[[EXP2]][%[[KEEP]], 0] [4, 8] [1, 1] : tensor<32x8xf32> to tensor<4x8xf32>
// CHECK-NEXT:      %[[INS2:.*]] = tensor.insert_slice %[[TAIL]] into %[[ACC2]][%[[IV2]], 0] [4, 8] [1, 1] : tensor<4x8xf32> into tensor<100x8xf32>
// CHECK-NEXT:      scf.yield %[[INS2]]
// CHECK:         return %[[LAST]] : tensor<100x8xf32>
func.func @static_slices(%x: tensor<100x8xf32>) -> tensor<100x8xf32> {
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<32x8xf32>):
    %e = math.exp %s : tensor<32x8xf32>
    vector.yield %e : tensor<32x8xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 32 : i64,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<100x8xf32>) -> tensor<100x8xf32>
  return %0 : tensor<100x8xf32>
}

// '?' block arguments but a yield typed for 32 rows: also a shifted window.
// CHECK-LABEL: func.func @static_yield(
// CHECK:         scf.for
// CHECK:         scf.for
// CHECK:           %[[START:.*]] = arith.constant 68 : index
// CHECK:           %[[WINDOW:.*]] = tensor.extract_slice %{{.*}}[%[[START]], 0] [32, 8] [1, 1] : tensor<100x8xf32> to tensor<32x8xf32>
// CHECK-NEXT:      tensor.cast %[[WINDOW]] : tensor<32x8xf32> to tensor<?x8xf32>
// CHECK:           tensor.extract_slice %{{.*}} [4, 8] [1, 1] : tensor<32x8xf32> to tensor<4x8xf32>
func.func @static_yield(%x: tensor<100x8xf32>) -> tensor<100x8xf32> {
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<?x8xf32>):
    %e = math.exp %s : tensor<?x8xf32>
    %c = tensor.cast %e : tensor<?x8xf32> to tensor<32x8xf32>
    vector.yield %c : tensor<32x8xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 32 : i64,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<100x8xf32>) -> tensor<100x8xf32>
  return %0 : tensor<100x8xf32>
}

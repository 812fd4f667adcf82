// 100 rows in chunks of 32, the body's slices '?' along the chunk dimension:
// a loop over the three full chunks (static 32-row slices, cast to '?'), then
// a remainder loop from 96 to 100 that runs once on the last 4 rows exactly.
// RUN: memopt-opt %s --chunk-to-scf | mlir-opt --verify-each | FileCheck %s --implicit-check-not='"chunk.region"'

// CHECK-LABEL: func.func @remainder(
// CHECK-SAME:      %[[X:.*]]: tensor<100x8xf32>, %[[W:.*]]: tensor<8x8xf32>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG:     %[[C96:.*]] = arith.constant 96 : index
// CHECK-DAG:     %[[C100:.*]] = arith.constant 100 : index
// CHECK:         %[[DEST:.*]] = tensor.empty() : tensor<100x8xf32>
// CHECK:         %[[FULL:.*]] = scf.for %[[IV:.*]] = %[[C0]] to %[[C96]] step %[[C32]] iter_args(%[[ACC:.*]] = %[[DEST]])
// CHECK-NEXT:      %[[SLICE:.*]] = tensor.extract_slice %[[X]][%[[IV]], 0] [32, 8] [1, 1] : tensor<100x8xf32> to tensor<32x8xf32>
// CHECK-NEXT:      %[[ARG:.*]] = tensor.cast %[[SLICE]] : tensor<32x8xf32> to tensor<?x8xf32>
// CHECK:           %[[MM:.*]] = linalg.matmul ins(%[[ARG]], %[[W]] : tensor<?x8xf32>, tensor<8x8xf32>)
// CHECK-NEXT:      %[[RES:.*]] = tensor.cast %[[MM]] : tensor<?x8xf32> to tensor<32x8xf32>
// CHECK-NEXT:      %[[INS:.*]] = tensor.insert_slice %[[RES]] into %[[ACC]][%[[IV]], 0] [32, 8] [1, 1] : tensor<32x8xf32> into tensor<100x8xf32>
// CHECK-NEXT:      scf.yield %[[INS]]
// CHECK:         %[[LAST:.*]] = scf.for %[[IV2:.*]] = %[[C96]] to %[[C100]] step %[[C32]] iter_args(%[[ACC2:.*]] = %[[FULL]])
// CHECK-NEXT:      %[[SLICE2:.*]] = tensor.extract_slice %[[X]][%[[IV2]], 0] [4, 8] [1, 1] : tensor<100x8xf32> to tensor<4x8xf32>
// CHECK-NEXT:      %[[ARG2:.*]] = tensor.cast %[[SLICE2]] : tensor<4x8xf32> to tensor<?x8xf32>
// CHECK:           %[[MM2:.*]] = linalg.matmul ins(%[[ARG2]], %[[W]] : tensor<?x8xf32>, tensor<8x8xf32>)
// CHECK-NEXT:      %[[RES2:.*]] = tensor.cast %[[MM2]] : tensor<?x8xf32> to tensor<4x8xf32>
// CHECK-NEXT:      %[[INS2:.*]] = tensor.insert_slice %[[RES2]] into %[[ACC2]][%[[IV2]], 0] [4, 8] [1, 1] : tensor<4x8xf32> into tensor<100x8xf32>
// CHECK-NEXT:      scf.yield %[[INS2]]
// CHECK:         return %[[LAST]] : tensor<100x8xf32>
func.func @remainder(%x: tensor<100x8xf32>, %w: tensor<8x8xf32>) -> tensor<100x8xf32> {
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<?x8xf32>):
    %c0 = arith.constant 0 : index
    %n = tensor.dim %s, %c0 : tensor<?x8xf32>
    %init = tensor.empty(%n) : tensor<?x8xf32>
    %m = linalg.matmul ins(%s, %w : tensor<?x8xf32>, tensor<8x8xf32>)
                       outs(%init : tensor<?x8xf32>) -> tensor<?x8xf32>
    vector.yield %m : tensor<?x8xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 32 : i64,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<100x8xf32>) -> tensor<100x8xf32>
  return %0 : tensor<100x8xf32>
}

// Two inputs chunked along different dimensions (rows of %a, columns of %b)
// and two outputs assembled along different dimensions (a transposed result
// along dimension 1, a row-wise one along dimension 0): each gets its own
// slice and its own destination, carried together through iter_args.
// RUN: memopt-opt %s --chunk-to-scf | mlir-opt --verify-each | FileCheck %s --implicit-check-not='"chunk.region"'

// CHECK-LABEL: func.func @mixed_dims(
// CHECK-SAME:      %[[A:.*]]: tensor<24x24xf32>, %[[B:.*]]: tensor<24x24xf32>)
// CHECK:         %[[DEST0:.*]] = tensor.empty() : tensor<24x24xf32>
// CHECK-NEXT:    %[[DEST1:.*]] = tensor.empty() : tensor<24x24xf32>
// CHECK-NEXT:    %[[LOOP:.*]]:2 = scf.for %[[IV:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC0:.*]] = %[[DEST0]], %[[ACC1:.*]] = %[[DEST1]]) -> (tensor<24x24xf32>, tensor<24x24xf32>) {
// CHECK-NEXT:      %[[ROWS:.*]] = tensor.extract_slice %[[A]][%[[IV]], 0] [8, 24] [1, 1] : tensor<24x24xf32> to tensor<8x24xf32>
// CHECK-NEXT:      %[[COLS:.*]] = tensor.extract_slice %[[B]][0, %[[IV]]] [24, 8] [1, 1] : tensor<24x24xf32> to tensor<24x8xf32>
// CHECK:           %[[T:.*]] = linalg.transpose ins(%[[ROWS]] : tensor<8x24xf32>)
// CHECK-NEXT:      %[[SUM:.*]] = arith.addf %[[T]], %[[COLS]] : tensor<24x8xf32>
// CHECK-NEXT:      %[[NEG:.*]] = arith.negf %[[ROWS]] : tensor<8x24xf32>
// CHECK-NEXT:      %[[INS0:.*]] = tensor.insert_slice %[[SUM]] into %[[ACC0]][0, %[[IV]]] [24, 8] [1, 1] : tensor<24x8xf32> into tensor<24x24xf32>
// CHECK-NEXT:      %[[INS1:.*]] = tensor.insert_slice %[[NEG]] into %[[ACC1]][%[[IV]], 0] [8, 24] [1, 1] : tensor<8x24xf32> into tensor<24x24xf32>
// CHECK-NEXT:      scf.yield %[[INS0]], %[[INS1]] : tensor<24x24xf32>, tensor<24x24xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[LOOP]]#0, %[[LOOP]]#1
func.func @mixed_dims(%a: tensor<24x24xf32>, %b: tensor<24x24xf32>)
    -> (tensor<24x24xf32>, tensor<24x24xf32>) {
  %0:2 = "chunk.region"(%a, %b) ({
  ^bb0(%rows: tensor<8x24xf32>, %cols: tensor<24x8xf32>):
    %init = tensor.empty() : tensor<24x8xf32>
    %t = linalg.transpose ins(%rows : tensor<8x24xf32>) outs(%init : tensor<24x8xf32>) permutation = [1, 0]
    %s = arith.addf %t, %cols : tensor<24x8xf32>
    %n = arith.negf %rows : tensor<8x24xf32>
    vector.yield %s, %n : tensor<24x8xf32>, tensor<8x24xf32>
  }) {input_dims = array<i64: 0, 1>, output_dims = array<i64: 1, 0>, chunk_size = 8 : i64,
      operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>}
     : (tensor<24x24xf32>, tensor<24x24xf32>) -> (tensor<24x24xf32>, tensor<24x24xf32>)
  return %0#0, %0#1 : tensor<24x24xf32>, tensor<24x24xf32>
}

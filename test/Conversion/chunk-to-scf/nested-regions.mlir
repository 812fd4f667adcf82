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
    }) {input_dims = array<i64: 1>, output_dims = array<i64: 1>, chunk_size = 8 : i64}
       : (tensor<16x32xf32>) -> tensor<16x32xf32>
    %e = math.exp %1 : tensor<16x32xf32>
    vector.yield %e : tensor<16x32xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 16 : i64}
     : (tensor<40x32xf32>) -> tensor<40x32xf32>
  return %0 : tensor<40x32xf32>
}

// An output with a dynamic extent besides the chunked one: only a computed
// chunk tells that size, so the first chunk is computed before the loop (at
// offset 0), the destination takes the size from its result, and the loop
// over full chunks starts at chunk_size.
// RUN: memopt-opt %s --chunk-to-scf | mlir-opt --verify-each | FileCheck %s --implicit-check-not='"chunk.region"'

// CHECK-LABEL: func.func @dynamic_columns(
// CHECK-SAME:      %[[X:.*]]: tensor<12x?xf32>) -> tensor<12x?xf32>
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[C12:.*]] = arith.constant 12 : index
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[IN_COLS:.*]] = tensor.dim %[[X]], %[[C1]] : tensor<12x?xf32>
// CHECK-NEXT:    %[[FIRST:.*]] = tensor.extract_slice %[[X]][%[[C0]], 0] [4, %[[IN_COLS]]] [1, 1] : tensor<12x?xf32> to tensor<4x?xf32>
// CHECK-NEXT:    %[[EXP:.*]] = math.exp %[[FIRST]] : tensor<4x?xf32>
// CHECK-NEXT:    %[[C1_B:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[OUT_COLS:.*]] = tensor.dim %[[EXP]], %[[C1_B]] : tensor<4x?xf32>
// CHECK-NEXT:    %[[DEST:.*]] = tensor.empty(%[[OUT_COLS]]) : tensor<12x?xf32>
// CHECK:         %[[INS:.*]] = tensor.insert_slice %[[EXP]] into %[[DEST]][%[[C0]], 0] [4, %{{.*}}] [1, 1] : tensor<4x?xf32> into tensor<12x?xf32>
// CHECK-NEXT:    %[[LOOP:.*]] = scf.for %[[IV:.*]] = %[[C4]] to %[[C12]] step %[[C4]] iter_args(%[[ACC:.*]] = %[[INS]])
// CHECK:           tensor.extract_slice %[[X]][%[[IV]], 0] [4, %{{.*}}] [1, 1] : tensor<12x?xf32> to tensor<4x?xf32>
// CHECK:           tensor.insert_slice %{{.*}} into %[[ACC]][%[[IV]], 0] [4, %{{.*}}] [1, 1] : tensor<4x?xf32> into tensor<12x?xf32>
// CHECK-NOT:     scf.for
// CHECK:         return %[[LOOP]]
func.func @dynamic_columns(%x: tensor<12x?xf32>) -> tensor<12x?xf32> {
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<4x?xf32>):
    %e = math.exp %s : tensor<4x?xf32>
    vector.yield %e : tensor<4x?xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 4 : i64,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<12x?xf32>) -> tensor<12x?xf32>
  return %0 : tensor<12x?xf32>
}

// Both extents dynamic: the peeled chunk needs N >= chunk_size at run time.
// CHECK-LABEL: func.func @dynamic_both(
// CHECK-SAME:      %[[X:.*]]: tensor<?x?xf32>) -> tensor<?x?xf32>
// CHECK:         %[[C4:.*]] = arith.constant 4 : index
// CHECK:         %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x?xf32>
// CHECK:         %[[FITS:.*]] = arith.cmpi sge, %[[N]], %[[C4]] : index
// CHECK-NEXT:    cf.assert %[[FITS]], "chunk.region: chunk_size exceeds the dynamic extent"
// CHECK:         %[[FIRST:.*]] = tensor.cast %{{.*}} : tensor<?x?xf32> to tensor<4x?xf32>
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[OUT_COLS:.*]] = tensor.dim %[[FIRST]], %[[C1]] : tensor<4x?xf32>
// CHECK-NEXT:    tensor.empty(%[[N]], %[[OUT_COLS]]) : tensor<?x?xf32>
// CHECK:         scf.for %{{.*}} = %[[C4]] to
// CHECK:         scf.for
// CHECK:           %[[REST:.*]] = arith.subi %[[N]], %{{.*}} : index
func.func @dynamic_both(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<?x?xf32>):
    %e = math.exp %s : tensor<?x?xf32>
    vector.yield %e : tensor<?x?xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 4 : i64,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

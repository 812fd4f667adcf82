// A dynamic chunked extent is read with tensor.dim; the full chunks end at
// N - N mod C and the remainder loop covers the rest (zero or one iteration).
// RUN: memopt-opt %s --chunk-to-scf | mlir-opt --verify-each | FileCheck %s --implicit-check-not='"chunk.region"'

// '?' slices: the remainder loop reads exactly the N - iv remaining rows.
// CHECK-LABEL: func.func @dynamic_rows(
// CHECK-SAME:      %[[X:.*]]: tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C32:.*]] = arith.constant 32 : index
// CHECK:         %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x8xf32>
// CHECK-NEXT:    %[[PARTIAL:.*]] = arith.remui %[[N]], %[[C32]] : index
// CHECK-NEXT:    %[[FULL_END:.*]] = arith.subi %[[N]], %[[PARTIAL]] : index
// CHECK-NEXT:    %[[DEST:.*]] = tensor.empty(%[[N]]) : tensor<?x8xf32>
// CHECK-NEXT:    %[[FULL:.*]] = scf.for %[[IV:.*]] = %[[C0]] to %[[FULL_END]] step %[[C32]] iter_args(%[[ACC:.*]] = %[[DEST]])
// CHECK-NEXT:      tensor.extract_slice %[[X]][%[[IV]], 0] [32, 8] [1, 1] : tensor<?x8xf32> to tensor<32x8xf32>
// CHECK:           tensor.insert_slice %{{.*}} into %[[ACC]][%[[IV]], 0] [32, 8] [1, 1] : tensor<32x8xf32> into tensor<?x8xf32>
// CHECK:         %[[LAST:.*]] = scf.for %[[IV2:.*]] = %[[FULL_END]] to %[[N]] step %[[C32]] iter_args(%[[ACC2:.*]] = %[[FULL]])
// CHECK-NEXT:      %[[REST:.*]] = arith.subi %[[N]], %[[IV2]] : index
// CHECK-NEXT:      %[[SLICE:.*]] = tensor.extract_slice %[[X]][%[[IV2]], 0] [%[[REST]], 8] [1, 1] : tensor<?x8xf32> to tensor<?x8xf32>
// CHECK-NEXT:      %[[EXP:.*]] = math.exp %[[SLICE]] : tensor<?x8xf32>
// CHECK-NEXT:      tensor.insert_slice %[[EXP]] into %[[ACC2]][%[[IV2]], 0] [%[[REST]], 8] [1, 1] : tensor<?x8xf32> into tensor<?x8xf32>
// CHECK:         return %[[LAST]]
func.func @dynamic_rows(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<?x8xf32>):
    %e = math.exp %s : tensor<?x8xf32>
    vector.yield %e : tensor<?x8xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 32 : i64,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// Static slices: the remainder loop runs the body on the last full window,
// which needs N >= 32 at run time: a cf.assert checks it.
// CHECK-LABEL: func.func @dynamic_rows_static_slices(
// CHECK-SAME:      %[[X:.*]]: tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK:         %[[C32:.*]] = arith.constant 32 : index
// CHECK:         %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x8xf32>
// CHECK:         scf.for
// CHECK:         scf.for %[[IV2:.*]] = %{{.*}} to %[[N]] step %[[C32]] iter_args(%[[ACC2:.*]] = %{{.*}})
// CHECK-NEXT:      %[[REST:.*]] = arith.subi %[[N]], %[[IV2]] : index
// CHECK-NEXT:      %[[FITS:.*]] = arith.cmpi sge, %[[N]], %[[C32]] : index
// CHECK-NEXT:      cf.assert %[[FITS]], "chunk.region: chunk_size exceeds the dynamic extent"
// CHECK-NEXT:      %[[START:.*]] = arith.subi %[[N]], %[[C32]] : index
// CHECK-NEXT:      %[[KEEP:.*]] = arith.subi %[[IV2]], %[[START]] : index
// CHECK-NEXT:      %[[WINDOW:.*]] = tensor.extract_slice %[[X]][%[[START]], 0] [32, 8] [1, 1] : tensor<?x8xf32> to tensor<32x8xf32>
// CHECK-NEXT:      %[[EXP:.*]] = math.exp %[[WINDOW]] : tensor<32x8xf32>
// CHECK-NEXT:      %[[TAIL:.*]] = tensor.extract_slice %[[EXP]][%[[KEEP]], 0] [%[[REST]], 8] [1, 1] : tensor<32x8xf32> to tensor<?x8xf32>
// CHECK-NEXT:      tensor.insert_slice %[[TAIL]] into %[[ACC2]][%[[IV2]], 0] [%[[REST]], 8] [1, 1] : tensor<?x8xf32> into tensor<?x8xf32>
func.func @dynamic_rows_static_slices(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<32x8xf32>):
    %e = math.exp %s : tensor<32x8xf32>
    vector.yield %e : tensor<32x8xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 32 : i64,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// A dynamic extent in another dimension of an input: its slices take it
// whole, read with tensor.dim.
// CHECK-LABEL: func.func @dynamic_other_dim(
// CHECK-SAME:      %[[X:.*]]: tensor<?x16xf32>) -> tensor<16xf32>
// CHECK:         scf.for %[[IV:[a-z0-9_]+]] =
// CHECK-NEXT:      %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[ROWS:.*]] = tensor.dim %[[X]], %[[C0]] : tensor<?x16xf32>
// CHECK-NEXT:      tensor.extract_slice %[[X]][0, %[[IV]]] [%[[ROWS]], 8] [1, 1] : tensor<?x16xf32> to tensor<?x8xf32>
// CHECK-NOT:     scf.for
func.func @dynamic_other_dim(%x: tensor<?x16xf32>) -> tensor<16xf32> {
  %zero = arith.constant 0.0 : f32
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<?x8xf32>):
    %init = tensor.empty() : tensor<8xf32>
    %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<8xf32>) -> tensor<8xf32>
    %sum = linalg.reduce ins(%s : tensor<?x8xf32>) outs(%fill : tensor<8xf32>) dimensions = [0]
      (%a: f32, %b: f32) {
        %r = arith.addf %a, %b : f32
        linalg.yield %r : f32
      }
    vector.yield %sum : tensor<8xf32>
  }) {input_dims = array<i64: 1>, output_dims = array<i64: 0>, chunk_size = 8 : i64,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<?x16xf32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

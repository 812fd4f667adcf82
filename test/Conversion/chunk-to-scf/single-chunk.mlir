// chunk_size equal to the extent: the lowering keeps its uniform shape, a
// loop of one iteration over one whole-size slice, and leaves folding it away
// to upstream canonicalization (checked below: no loop remains).
// RUN: memopt-opt %s --chunk-to-scf | mlir-opt --verify-each | FileCheck %s --implicit-check-not='"chunk.region"'
// RUN: memopt-opt %s --chunk-to-scf --canonicalize | mlir-opt --verify-each | FileCheck %s --check-prefix=FOLDED

// CHECK-LABEL: func.func @whole(
// CHECK-SAME:      %[[X:.*]]: tensor<48x8xf32>)
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[LOOP:.*]] = scf.for %[[IV:.*]] = %[[C0]] to %{{.*}} step %{{.*}} iter_args
// CHECK-NEXT:      tensor.extract_slice %[[X]][%[[IV]], 0] [48, 8] [1, 1] : tensor<48x8xf32> to tensor<48x8xf32>
// CHECK:           tensor.insert_slice %{{.*}}[%[[IV]], 0] [48, 8] [1, 1] : tensor<48x8xf32> into tensor<48x8xf32>
// CHECK-NOT:     scf.for
// CHECK:         return %[[LOOP]]

// FOLDED-LABEL: func.func @whole(
// FOLDED-SAME:      %[[X:.*]]: tensor<48x8xf32>)
// FOLDED-NOT:     scf.for
// FOLDED:         %[[EXP:.*]] = math.exp %[[X]] : tensor<48x8xf32>
// FOLDED-NOT:     scf.for
// FOLDED:         return %[[EXP]]
func.func @whole(%x: tensor<48x8xf32>) -> tensor<48x8xf32> {
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<48x8xf32>):
    %e = math.exp %s : tensor<48x8xf32>
    vector.yield %e : tensor<48x8xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 48 : i64,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<48x8xf32>) -> tensor<48x8xf32>
  return %0 : tensor<48x8xf32>
}

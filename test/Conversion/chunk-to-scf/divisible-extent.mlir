// A chunk size that divides the extent: one scf.for over static slices, no
// remainder loop. The output verifies in upstream mlir-opt, which does not
// know the chunk dialect, so no memopt op can be left.
// RUN: memopt-opt %s --chunk-to-scf | mlir-opt --verify-each | FileCheck %s --implicit-check-not='"chunk.region"'
// RUN: memopt-opt %s --pass-pipeline='builtin.module(func.func(chunk-to-scf))' | FileCheck %s

// CHECK-LABEL: func.func @rows(
// CHECK-SAME:      %[[X:.*]]: tensor<1024x64xf32>) -> tensor<1024x64xf32>
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C128:.*]] = arith.constant 128 : index
// CHECK-DAG:     %[[C1024:.*]] = arith.constant 1024 : index
// CHECK:         %[[DEST:.*]] = tensor.empty() : tensor<1024x64xf32>
// CHECK:         %[[LOOP:.*]] = scf.for %[[IV:.*]] = %[[C0]] to %[[C1024]] step %[[C128]] iter_args(%[[ACC:.*]] = %[[DEST]]) -> (tensor<1024x64xf32>) {
// CHECK-NEXT:      %[[SLICE:.*]] = tensor.extract_slice %[[X]][%[[IV]], 0] [128, 64] [1, 1] : tensor<1024x64xf32> to tensor<128x64xf32>
// CHECK-NEXT:      %[[EXP:.*]] = math.exp %[[SLICE]] : tensor<128x64xf32>
// CHECK-NEXT:      %[[INS:.*]] = tensor.insert_slice %[[EXP]] into %[[ACC]][%[[IV]], 0] [128, 64] [1, 1] : tensor<128x64xf32> into tensor<1024x64xf32>
// CHECK-NEXT:      scf.yield %[[INS]] : tensor<1024x64xf32>
// CHECK-NEXT:    }
// CHECK-NOT:     scf.for
// CHECK:         return %[[LOOP]] : tensor<1024x64xf32>
func.func @rows(%x: tensor<1024x64xf32>) -> tensor<1024x64xf32> {
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<128x64xf32>):
    %e = math.exp %s : tensor<128x64xf32>
    vector.yield %e : tensor<128x64xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 128 : i64,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<1024x64xf32>) -> tensor<1024x64xf32>
  return %0 : tensor<1024x64xf32>
}

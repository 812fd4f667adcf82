// A chunk region of an earlier stage passes its own chunked loop through
// dimension flow, so a later stage can take it into a wider region along that
// loop (chunk k of its results needs only chunk k of its inputs) instead of
// stopping at it. Here the earlier region's two results, whole, are the peak
// (49152 bytes with the sum); the later region holds it and the sum, in chunks
// of 8 rows that the inner region runs in two chunks of 4. Other dimensions
// are not passed (they would need the body's own flow). The lowered program
// computes what the original computes.
// RUN: memopt-opt %s --autochunk=budget=24000 2>%t.remarks | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK --input-file=%t.remarks
// RUN: memopt-opt %s --print-dimension-flow -o /dev/null 2>&1 | FileCheck %s --check-prefix=FLOW
// RUN: memopt-opt %s --pass-pipeline='builtin.module(func.func(chunk-to-scf))' -o %t.original.mlir
// RUN: memopt-opt %s --pass-pipeline='builtin.module(autochunk{budget=24000},func.func(chunk-to-scf))' \
// RUN:   -o %t.chunked.mlir 2>/dev/null
// RUN: memopt-run %t.original.mlir --entry=main --compare --against=%t.chunked.mlir --runs=1 \
// RUN:   --tolerance=0 2>&1 | FileCheck %s --check-prefix=EXEC

// EXEC: peak_bytes: 49152 22528 0.458
// EXEC: outputs: bit-identical

// REMARK: remark: autochunk: estimated peak 49152 -> 22528 bytes in 1 stages (budget 24000 bytes)

// CHECK-LABEL: func.func @main
// CHECK: %[[OUTER:.*]] = "chunk.region"(%arg0) ({
// CHECK-NEXT: ^bb0(%[[ROWS:.*]]: tensor<8x64xf32>):
// CHECK-NEXT: %[[INNER:.*]]:2 = "chunk.region"(%[[ROWS]]) ({
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<4x64xf32>):
// CHECK: chunk_size = 4 : i64{{.*}} : (tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>)
// CHECK: linalg.add ins(%[[INNER]]#0, %[[INNER]]#1 : tensor<8x64xf32>, tensor<8x64xf32>)
// CHECK: chunk_size = 8 : i64
// CHECK: return %[[OUTER]]

// FLOW: remark: result #0 dim 0: operand #0 dim 0
// FLOW: remark: result #0 dim 1: blocked: 'chunk.region' passes only its chunked dimension, not dimension 1
func.func @main(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r:2 = "chunk.region"(%x) ({
  ^bb0(%xs: tensor<4x64xf32>):
    %e0 = tensor.empty() : tensor<4x64xf32>
    %a = linalg.exp ins(%xs : tensor<4x64xf32>) outs(%e0 : tensor<4x64xf32>) -> tensor<4x64xf32>
    %e1 = tensor.empty() : tensor<4x64xf32>
    %b = linalg.exp ins(%a : tensor<4x64xf32>) outs(%e1 : tensor<4x64xf32>) -> tensor<4x64xf32>
    vector.yield %a, %b : tensor<4x64xf32>, tensor<4x64xf32>
  }) {chunk_size = 4 : i64, input_dims = array<i64: 0>, output_dims = array<i64: 0, 0>,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>,
      resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>}
      : (tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>)
  %e2 = tensor.empty() : tensor<64x64xf32>
  %t = linalg.add ins(%r#0, %r#1 : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e2 : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %t : tensor<64x64xf32>
}

// A chunk region of an earlier stage that combines a result across its chunks
// (here the column sums of exp(x), summed over chunks of 4 rows) is taken
// into a wider region along the same loop: each wider chunk of 16 rows runs
// it in 4 chunks of 4, which yields that chunk's partial sums, and the wider
// region sums those again (a sum regroups freely). The row maxima of the
// region's other result are the wider region's chunked output. Before, the
// region's 64x64 f32 result (16384 bytes) is live whole beside the sums
// (17920 bytes at the peak); after, only chunks of it are (6144 bytes). The
// lowered program computes what the original computes, up to the order of
// the sums.
// RUN: memopt-opt %s --autochunk=budget=8000 2>%t.remarks | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK --input-file=%t.remarks
// RUN: memopt-opt %s --pass-pipeline='builtin.module(func.func(chunk-to-scf))' -o %t.original.mlir
// RUN: memopt-opt %s --pass-pipeline='builtin.module(autochunk{budget=8000},func.func(chunk-to-scf))' \
// RUN:   -o %t.chunked.mlir 2>/dev/null
// RUN: memopt-run %t.original.mlir --entry=main --compare --against=%t.chunked.mlir --runs=1 \
// RUN:   --tolerance=1e-6 2>&1 | FileCheck %s --check-prefix=EXEC

// EXEC: peak_bytes: 17920 6144 0.343
// EXEC: outputs: {{bit-identical|within tolerance}}

// REMARK: remark: autochunk: estimated peak 17920 -> 6144 bytes in 1 stages (budget 8000 bytes)

// CHECK-LABEL: func.func @main
// CHECK: %[[OUTER:.*]]:2 = "chunk.region"(%arg0) ({
// CHECK-NEXT: ^bb0(%[[ROWS:.*]]: tensor<16x64xf32>):
// CHECK-NEXT: %[[INNER:.*]]:2 = "chunk.region"(%[[ROWS]]) ({
// CHECK: chunk_size = 4 : i64, combiners = ["concat", "add"]{{.*}} : (tensor<16x64xf32>) -> (tensor<16x64xf32>, tensor<64xf32>)
// CHECK: %[[MAX:.*]] = linalg.reduce ins(%[[INNER]]#0 : tensor<16x64xf32>)
// CHECK: vector.yield %[[MAX]], %[[INNER]]#1 : tensor<16xf32>, tensor<64xf32>
// CHECK: chunk_size = 16 : i64, combiners = ["concat", "add"]
// CHECK: return %[[OUTER]]#0, %[[OUTER]]#1
func.func @main(%x: tensor<64x64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %r:2 = "chunk.region"(%x) ({
  ^bb0(%xs: tensor<4x64xf32>):
    %e0 = tensor.empty() : tensor<4x64xf32>
    %a = linalg.exp ins(%xs : tensor<4x64xf32>) outs(%e0 : tensor<4x64xf32>) -> tensor<4x64xf32>
    %e1 = tensor.empty() : tensor<64xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
    %s = linalg.reduce ins(%a : tensor<4x64xf32>) outs(%z : tensor<64xf32>) dimensions = [0]
      (%in: f32, %acc: f32) {
        %t = arith.addf %in, %acc : f32
        linalg.yield %t : f32
      }
    vector.yield %a, %s : tensor<4x64xf32>, tensor<64xf32>
  }) {chunk_size = 4 : i64, input_dims = array<i64: 0>, output_dims = array<i64: 0, -1>,
      combiners = ["concat", "add"],
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>,
      resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>}
      : (tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64xf32>)
  %e2 = tensor.empty() : tensor<64xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64xf32>) -> tensor<64xf32>
  %t = linalg.reduce ins(%r#0 : tensor<64x64xf32>) outs(%z2 : tensor<64xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    }
  return %t, %r#1 : tensor<64xf32>, tensor<64xf32>
}

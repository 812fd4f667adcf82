// A chunk region of an earlier stage whose body reads its chunk's offset (a
// value that depends on the row number) is taken into a wider region along
// the same loop. Inside the wider region it runs over the wider chunk's
// slice, so the offset it is given counts from that slice's first row: the
// body adds the wider region's own offset to it before any read. Before, the
// region's two 64x64 f32 results (16384 bytes each) are live whole together
// with the sum (49152 bytes); after, in chunks of 8 rows, 22528 bytes. The
// lowered program computes what the original computes, bit for bit (without
// the added offset every row but those of the first chunk would differ).
// RUN: memopt-opt %s --autochunk=budget=24000 2>%t.remarks | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK --input-file=%t.remarks
// RUN: memopt-opt %s --pass-pipeline='builtin.module(func.func(chunk-to-scf))' -o %t.original.mlir
// RUN: memopt-opt %s --pass-pipeline='builtin.module(autochunk{budget=24000},func.func(chunk-to-scf))' \
// RUN:   -o %t.chunked.mlir 2>/dev/null
// RUN: memopt-run %t.original.mlir --entry=main --compare --against=%t.chunked.mlir --runs=1 \
// RUN:   --tolerance=0 2>&1 | FileCheck %s --check-prefix=EXEC

// EXEC: peak_bytes: 49152 22528 0.458
// EXEC: outputs: bit-identical

// REMARK: remark: autochunk: estimated peak 49152 -> 22528 bytes in 1 stages (budget 24000 bytes)

// CHECK-LABEL: func.func @main
// CHECK: "chunk.region"(%arg0) ({
// CHECK-NEXT: ^bb0(%[[ROWS:.*]]: tensor<8x64xf32>, %[[OUTER_OFFSET:.*]]: index):
// CHECK-NEXT: "chunk.region"(%[[ROWS]]) ({
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<4x64xf32>, %[[INNER_OFFSET:.*]]: index):
// CHECK-NEXT: %[[ROW0:.*]] = arith.addi %[[INNER_OFFSET]], %[[OUTER_OFFSET]] : index
// CHECK: linalg.index 0
// CHECK-NEXT: arith.addi %{{.*}}, %[[ROW0]] : index
// CHECK: chunk_size = 4 : i64
// CHECK: chunk_size = 8 : i64
func.func @main(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r:2 = "chunk.region"(%x) ({
  ^bb0(%xs: tensor<4x64xf32>, %offset: index):
    %e0 = tensor.empty() : tensor<4x64xf32>
    %a = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                         iterator_types = ["parallel", "parallel"]}
        ins(%xs : tensor<4x64xf32>) outs(%e0 : tensor<4x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %i = linalg.index 0 : index
      %row = arith.addi %i, %offset : index
      %row64 = arith.index_cast %row : index to i64
      %rowf = arith.sitofp %row64 : i64 to f32
      %sum = arith.addf %in, %rowf : f32
      linalg.yield %sum : f32
    } -> tensor<4x64xf32>
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

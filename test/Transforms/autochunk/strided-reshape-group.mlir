// A linear layer on a 3-D activation flattens two dimensions into the rows of
// a matmul ([i, j, c] -> [i * j, c]) and splits them back. Chunking along j,
// an inner member of that group, takes rows of the flattened matrix in a
// strided pattern (rows i * 64 + j for j in the chunk): every op between the
// two reshapes keeps the row index (matmul rows, elementwise ops), so the
// region computes the flattened chunk of its own slice, [8, 16, 16] ->
// [128, 16], and splits it back. The normalization over c blocks c; the sum
// over i can be chunked along i with its partial sums added (a combined
// output), which also meets the budget, but each of its 4 chunks adds its
// 64x16 partial sum into the accumulator: the higher speed cost of the two. Row order is unchanged,
// so the lowered program computes the same bits.
// RUN: memopt-opt %s --autochunk=budget=30000 2>%t.remarks | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK --input-file=%t.remarks
// RUN: memopt-opt %s --print-dimension-flow=mode=function -o /dev/null 2>&1 | FileCheck %s --check-prefix=FLOW
// RUN: memopt-opt %s --pass-pipeline='builtin.module(func.func(chunk-to-scf))' -o %t.original.mlir
// RUN: memopt-opt %s --pass-pipeline='builtin.module(autochunk{budget=30000},func.func(chunk-to-scf))' \
// RUN:   -o %t.chunked.mlir 2>/dev/null
// RUN: memopt-run %t.original.mlir --entry=main --compare --against=%t.chunked.mlir --runs=1 \
// RUN:   --tolerance=0 2>&1 | FileCheck %s --check-prefix=EXEC

// REMARK: remark: autochunk: estimated peak 67584 -> 20992 bytes in 1 stages (budget 30000 bytes)
// REMARK: remark: autochunk stage 1: 15 ops chunked along dimension 0 in 4 chunks of 16 (0 hoisted)

// FLOW: remark: chunk dim 0: extent 64, inputs %arg0 dim 1; outputs %{{.*}} dim 0

// EXEC: peak_bytes: 67584 20992 0.311
// EXEC: outputs: bit-identical

// CHECK-LABEL: func.func @main
// CHECK:       "chunk.region"(%arg0) ({
// CHECK-NEXT:  ^bb0(%[[X:.*]]: tensor<8x16x16xf32>):
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : tensor<8x16x16xf32> into tensor<128x16xf32>
// CHECK:         %[[M:.*]] = linalg.matmul ins(%[[FLAT]], %arg1 : tensor<128x16xf32>, tensor<16x16xf32>)
// CHECK:         tensor.expand_shape %[[M]] {{\[\[}}0, 1], [2]] output_shape [8, 16, 16] : tensor<128x16xf32> into tensor<8x16x16xf32>
// CHECK:       chunk_size = 16 : i64, input_dims = array<i64: 1>{{.*}}output_dims = array<i64: 0>
func.func @main(%x: tensor<8x64x16xf32>, %w: tensor<16x16xf32>) -> tensor<64x16xf32> {
  %zero = arith.constant 0.0 : f32
  %flat = tensor.collapse_shape %x [[0, 1], [2]] : tensor<8x64x16xf32> into tensor<512x16xf32>
  %me = tensor.empty() : tensor<512x16xf32>
  %mz = linalg.fill ins(%zero : f32) outs(%me : tensor<512x16xf32>) -> tensor<512x16xf32>
  %m = linalg.matmul ins(%flat, %w : tensor<512x16xf32>, tensor<16x16xf32>) outs(%mz : tensor<512x16xf32>) -> tensor<512x16xf32>
  %y = tensor.expand_shape %m [[0, 1], [2]] output_shape [8, 64, 16] : tensor<512x16xf32> into tensor<8x64x16xf32>
  %te = tensor.empty() : tensor<8x64x16xf32>
  %t = linalg.exp ins(%y : tensor<8x64x16xf32>) outs(%te : tensor<8x64x16xf32>) -> tensor<8x64x16xf32>
  %se = tensor.empty() : tensor<8x64xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%se : tensor<8x64xf32>) -> tensor<8x64xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j, c) -> (i, j, c)>, affine_map<(i, j, c) -> (i, j)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%t : tensor<8x64x16xf32>) outs(%sz : tensor<8x64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<8x64xf32>
  %ue = tensor.empty() : tensor<8x64x16xf32>
  %u = linalg.generic {indexing_maps = [affine_map<(i, j, c) -> (i, j, c)>, affine_map<(i, j, c) -> (i, j)>, affine_map<(i, j, c) -> (i, j, c)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%t, %s : tensor<8x64x16xf32>, tensor<8x64xf32>) outs(%ue : tensor<8x64x16xf32>) {
  ^bb0(%in: f32, %sum: f32, %out: f32):
    %q = arith.divf %in, %sum : f32
    linalg.yield %q : f32
  } -> tensor<8x64x16xf32>
  %re = tensor.empty() : tensor<64x16xf32>
  %rz = linalg.fill ins(%zero : f32) outs(%re : tensor<64x16xf32>) -> tensor<64x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j, c) -> (i, j, c)>, affine_map<(i, j, c) -> (j, c)>],
                       iterator_types = ["reduction", "parallel", "parallel"]}
      ins(%u : tensor<8x64x16xf32>) outs(%rz : tensor<64x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<64x16xf32>
  return %r : tensor<64x16xf32>
}

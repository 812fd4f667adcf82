// The gradient of a linear layer's weight, dW = x^T g, sums over the 256
// tokens (loop 2 of the matmul, which no result dimension carries) and starts
// from a fill of 0. Whole, g (256 x 32 f32 = 32768 bytes) and dW (64 x 32 =
// 8192) peak at 40960 bytes. Chunked along the token loop, each chunk computes
// g's rows and a partial dW of its tokens, and the region adds the partial
// into an accumulator (`combiners = ["add"]`, output_dims -1): live are the
// fill every chunk starts from, the accumulator and one partial (3 x 8192)
// plus a chunk of g (c x 32 x 4 bytes). The budget of 25000 bytes allows
// c = 2 (24832 bytes) but not c = 4 (25088): 128 chunks of 2.
// RUN: memopt-opt %s --autochunk=budget=25000 2>%t.remarks | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK --input-file=%t.remarks
// RUN: memopt-opt %s --pass-pipeline='builtin.module(func.func(chunk-to-scf))' -o %t.original.mlir
// RUN: memopt-opt %s --pass-pipeline='builtin.module(autochunk{budget=25000},func.func(chunk-to-scf))' \
// RUN:   -o %t.chunked.mlir 2>/dev/null
// RUN: memopt-run %t.original.mlir --entry=grad --compare --against=%t.chunked.mlir --runs=1 \
// RUN:   --tolerance=1e-6 2>&1 | FileCheck %s --check-prefix=EXEC

// REMARK: remark: autochunk: estimated peak 40960 -> 24832 bytes in 1 stages (budget 25000 bytes)
// REMARK: remark: autochunk stage 1: 3 ops chunked along reduced loop 2 in 128 chunks of 2 (2 hoisted)

// Pairs of tokens are added in order, so the sums may round differently.
// EXEC: outputs: {{bit-identical|within tolerance}}

// CHECK-LABEL: func.func @grad
// CHECK:       %[[ZERO:.*]] = linalg.fill
// CHECK:       "chunk.region"(%arg0, %arg1) ({
// CHECK-NEXT:  ^bb0(%[[X:.*]]: tensor<2x64xf32>, %[[G:.*]]: tensor<2x32xf32>):
// CHECK:         %[[SQUARE:.*]] = linalg.generic {{.*}} ins(%[[G]] : tensor<2x32xf32>)
// CHECK:         %[[PARTIAL:.*]] = linalg.matmul {{.*}} ins(%[[X]], %[[SQUARE]] : tensor<2x64xf32>, tensor<2x32xf32>) outs(%[[ZERO]] : tensor<64x32xf32>)
// CHECK-NEXT:    vector.yield %[[PARTIAL]] : tensor<64x32xf32>
// CHECK-NEXT:  }) {chunk_size = 2 : i64, combiners = ["add"], input_dims = array<i64: 0, 0>, {{.*}}output_dims = array<i64: -1>
func.func @grad(%x: tensor<256x64xf32>, %dy: tensor<256x32xf32>) -> tensor<64x32xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x32xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%dy : tensor<256x32xf32>) outs(%e : tensor<256x32xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<256x32xf32>
  %ew = tensor.empty() : tensor<64x32xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%ew : tensor<64x32xf32>) -> tensor<64x32xf32>
  %w = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%x, %g : tensor<256x64xf32>, tensor<256x32xf32>) outs(%z : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %w : tensor<64x32xf32>
}

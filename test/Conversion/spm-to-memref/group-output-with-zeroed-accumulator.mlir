// A group output computed into a zeroed accumulator (%a, a matmul into a
// linalg.fill, as every convolution is): the last op's loop yields it too,
// storing the tile of the matmul where the fill's slice was taken. Tiles of 3
// rows; both outputs run bit-identically to the ungrouped program.
// RUN: split-file %s %t
// RUN: memopt-opt %t/grouped.mlir --spm-to-memref | FileCheck %s
// RUN: memopt-run %t/reference.mlir --compare --runs=1 --tolerance=0 --against=%t/grouped.mlir \
// RUN:   --pipeline='builtin.module(func.func(spm-to-memref{memory-space=0}))' | FileCheck %s --check-prefix=EXECUTED

// CHECK-LABEL: func.func @matmul_output(
// CHECK:         %[[LOOP:.*]]:2 = scf.for %[[ROW:.*]] = {{.*}} iter_args(%[[BACC:.*]] = %{{.*}}, %[[AACC:.*]] = %{{.*}})
// CHECK:           %[[ZEROED:.*]] = linalg.fill
// CHECK:           %[[ATILE:.*]] = linalg.matmul {{.*}} outs(%[[ZEROED]] :
// CHECK:           %[[BTILE:.*]] = linalg.generic {{.*}} ins(%[[ATILE]] :
// CHECK-DAG:       %[[BNEXT:.*]] = tensor.insert_slice %[[BTILE]] into %[[BACC]][%[[ROW]], 0]
// CHECK-DAG:       %[[ANEXT:.*]] = tensor.insert_slice %[[ATILE]] into %[[AACC]][%[[ROW]], 0]
// CHECK:           scf.yield %[[BNEXT]], %[[ANEXT]]
// CHECK-NOT:     scf.for
// CHECK:         return %[[LOOP]]#1, %[[LOOP]]#0

// EXECUTED: outputs: bit-identical

//--- reference.mlir
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @matmul_output(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %a = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x16xf32>) outs(%acc : tensor<8x16xf32>) -> tensor<8x16xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%a : tensor<8x16xf32>) outs(%e2 : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %y = arith.maximumf %v, %zero : f32
    linalg.yield %y : f32
  } -> tensor<8x16xf32>
  return %a, %b : tensor<8x16xf32>, tensor<8x16xf32>
}

//--- grouped.mlir
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @matmul_output(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %g:2 = "spm.group"() ({
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<8x16xf32>
    %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
    %a = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x16xf32>) outs(%acc : tensor<8x16xf32>) -> tensor<8x16xf32>
    %e2 = tensor.empty() : tensor<8x16xf32>
    %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<8x16xf32>) outs(%e2 : tensor<8x16xf32>) {
    ^bb0(%v: f32, %o: f32):
      %y = arith.maximumf %v, %zero : f32
      linalg.yield %y : f32
    } -> tensor<8x16xf32>
    vector.yield %a, %b : tensor<8x16xf32>, tensor<8x16xf32>
  }) {resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, tile = array<i64: 3, 16>} : () -> (tensor<8x16xf32>, tensor<8x16xf32>)
  return %g#0, %g#1 : tensor<8x16xf32>, tensor<8x16xf32>
}

// A group that yields an intermediate (%a) besides its last op's output
// (%b): one tile loop computes both, tile by tile, as the cost model has it.
// It carries a second tensor, into which it stores each tile of %a, and
// yields it for %a's other user. Tiles of 3 rows do not divide the 8 rows:
// the last tile has 2. Both outputs run bit-identically to the ungrouped
// program.
// RUN: split-file %s %t
// RUN: memopt-opt %t/grouped.mlir --spm-to-memref | FileCheck %s
// RUN: memopt-run %t/reference.mlir --compare --runs=1 --tolerance=0 --against=%t/grouped.mlir \
// RUN:   --pipeline='builtin.module(func.func(spm-to-memref{memory-space=0}))' | FileCheck %s --check-prefix=EXECUTED

// CHECK-LABEL: func.func @two_outputs(
// CHECK-SAME:      %[[X:[0-9a-z]+]]: tensor<8x16xf32>)
// CHECK:         %[[C3:.*]] = arith.constant 3 : index
// CHECK:         %[[AINIT:.*]] = tensor.empty() : tensor<8x16xf32>
// CHECK:         %[[LOOP:.*]]:2 = scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step %[[C3]]
// CHECK-SAME:        iter_args(%[[BACC:.*]] = %{{.*}}, %[[AACC:.*]] = %[[AINIT]])
// CHECK:           %[[XS:.*]] = tensor.extract_slice %[[X]][%[[ROW]], 0] [%[[SIZE:.*]], 16]
// CHECK:           %[[XBUF:.*]] = bufferization.alloc_tensor(%[[SIZE]]) {memory_space = 1 : i64} : tensor<?x16xf32>
// CHECK:           %[[XSPM:.*]] = linalg.copy ins(%[[XS]] : tensor<?x16xf32>) outs(%[[XBUF]] :
// CHECK:           %[[ATILE:.*]] = linalg.generic
// CHECK:             arith.addf
// CHECK:           %[[BTILE:.*]] = linalg.generic {{.*}} ins(%[[ATILE]] :
// CHECK:             arith.mulf
// CHECK-DAG:       %[[BNEXT:.*]] = tensor.insert_slice %[[BTILE]] into %[[BACC]][%[[ROW]], 0] [%[[SIZE]], 16]
// CHECK-DAG:       %[[ANEXT:.*]] = tensor.insert_slice %[[ATILE]] into %[[AACC]][%[[ROW]], 0] [%[[SIZE]], 16]
// CHECK:           scf.yield %[[BNEXT]], %[[ANEXT]]
// CHECK-NOT:     scf.for
// CHECK:         return %[[LOOP]]#1, %[[LOOP]]#0

// EXECUTED: outputs: bit-identical

//--- reference.mlir
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @two_outputs(%x: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %e = tensor.empty() : tensor<8x16xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %y = arith.addf %v, %v : f32
    linalg.yield %y : f32
  } -> tensor<8x16xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%a : tensor<8x16xf32>) outs(%e2 : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %y = arith.mulf %v, %v : f32
    linalg.yield %y : f32
  } -> tensor<8x16xf32>
  return %a, %b : tensor<8x16xf32>, tensor<8x16xf32>
}

//--- grouped.mlir
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @two_outputs(%x: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %g:2 = "spm.group"() ({
    %e = tensor.empty() : tensor<8x16xf32>
    %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
    ^bb0(%v: f32, %o: f32):
      %y = arith.addf %v, %v : f32
      linalg.yield %y : f32
    } -> tensor<8x16xf32>
    %e2 = tensor.empty() : tensor<8x16xf32>
    %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<8x16xf32>) outs(%e2 : tensor<8x16xf32>) {
    ^bb0(%v: f32, %o: f32):
      %y = arith.mulf %v, %v : f32
      linalg.yield %y : f32
    } -> tensor<8x16xf32>
    vector.yield %a, %b : tensor<8x16xf32>, tensor<8x16xf32>
  }) {resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, tile = array<i64: 3, 16>} : () -> (tensor<8x16xf32>, tensor<8x16xf32>)
  return %g#0, %g#1 : tensor<8x16xf32>, tensor<8x16xf32>
}

// A group whose loop runs over a dimension its other outputs lack: %c
// repeats %b along a new leading dimension, tiled by 1, so each iteration
// computes %a and %b whole. The loop carries two more tensors and stores %a
// and %b whole into them with linalg.copy (a whole-tensor insert_slice would
// fold away, and the loop would not yield its own buffer). The copy report
// counts every store of the two iterations; the program runs bit-identically.
// RUN: split-file %s %t
// RUN: memopt-opt %t/grouped.mlir --spm-to-memref="report-copies" 2>%t/remarks | FileCheck %s
// RUN: FileCheck %s --check-prefix=COPIES < %t/remarks
// RUN: memopt-run %t/reference.mlir --compare --runs=1 --tolerance=0 --against=%t/grouped.mlir \
// RUN:   --pipeline='builtin.module(func.func(spm-to-memref{memory-space=0}))' | FileCheck %s --check-prefix=EXECUTED

// CHECK-LABEL: func.func @three_outputs(
// CHECK:         %[[LOOP:.*]]:3 = scf.for {{.*}} iter_args(%[[CACC:.*]] = %{{.*}}, %[[AACC:.*]] = %{{.*}}, %[[BACC:.*]] = %{{.*}})
// CHECK:           %[[A:.*]] = linalg.generic
// CHECK:             arith.addf
// CHECK:           %[[B:.*]] = linalg.generic {{.*}} ins(%[[A]] :
// CHECK:           %[[C:.*]] = linalg.generic {{.*}} ins(%[[B]] :
// CHECK:           %[[CNEXT:.*]] = tensor.insert_slice %[[C]] into %[[CACC]]
// CHECK:           %[[ANEXT:.*]] = linalg.copy ins(%[[A]] : tensor<8x16xf32>) outs(%[[AACC]] :
// CHECK:           %[[BNEXT:.*]] = linalg.copy ins(%[[B]] : tensor<8x16xf32>) outs(%[[BACC]] :
// CHECK:           scf.yield %[[CNEXT]], %[[ANEXT]], %[[BNEXT]]
// CHECK-NOT:     scf.for
// CHECK:         return %[[LOOP]]#1, %[[LOOP]]#2, %[[LOOP]]#0

// Stores: %c 2 x 512 bytes, %a and %b 2 x 512 each; %x, the same for every
// tile, is loaded once, before the loop (counted with the weights).
// COPIES: copies 3072 feature-map bytes between off-chip memory and the scratchpad (0 loaded, halos included; 3072 stored), 512 weight bytes

// EXECUTED: outputs: bit-identical

//--- reference.mlir
#id = affine_map<(d0, d1) -> (d0, d1)>
#inner = affine_map<(d0, d1, d2) -> (d1, d2)>
#all = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @three_outputs(%x: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<2x8x16xf32>) {
  %x0 = arith.constant 1.0 : f32
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
  %e3 = tensor.empty() : tensor<2x8x16xf32>
  %c = linalg.generic {indexing_maps = [#inner, #all], iterator_types = ["parallel", "parallel", "parallel"]}
    ins(%b : tensor<8x16xf32>) outs(%e3 : tensor<2x8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %y = arith.subf %v, %x0 : f32
    linalg.yield %y : f32
  } -> tensor<2x8x16xf32>
  return %a, %b, %c : tensor<8x16xf32>, tensor<8x16xf32>, tensor<2x8x16xf32>
}

//--- grouped.mlir
#id = affine_map<(d0, d1) -> (d0, d1)>
#inner = affine_map<(d0, d1, d2) -> (d1, d2)>
#all = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @three_outputs(%x: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<2x8x16xf32>) {
  %x0 = arith.constant 1.0 : f32
  %g:3 = "spm.group"() ({
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
    %e3 = tensor.empty() : tensor<2x8x16xf32>
    %c = linalg.generic {indexing_maps = [#inner, #all], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%b : tensor<8x16xf32>) outs(%e3 : tensor<2x8x16xf32>) {
    ^bb0(%v: f32, %o: f32):
      %y = arith.subf %v, %x0 : f32
      linalg.yield %y : f32
    } -> tensor<2x8x16xf32>
    vector.yield %a, %b, %c : tensor<8x16xf32>, tensor<8x16xf32>, tensor<2x8x16xf32>
  }) {resultSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0>, tile = array<i64: 1, 8, 16>} : () -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<2x8x16xf32>)
  return %g#0, %g#1, %g#2 : tensor<8x16xf32>, tensor<8x16xf32>, tensor<2x8x16xf32>
}

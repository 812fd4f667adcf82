// A group output (%a) whose tiles in the last op's loop do not cover it:
// %b reads every other row, so 2-row tiles of %b compute rows 4t to 4t+2 of
// %a and never row 4t+3. The loop of %b cannot yield %a; %a gets a tile loop
// of its own (first, where %a was), and %b's loop computes the rows it
// needs. Both outputs run bit-identically to the ungrouped program.
// RUN: split-file %s %t
// RUN: memopt-opt %t/grouped.mlir --spm-to-memref | FileCheck %s
// RUN: memopt-run %t/reference.mlir --compare --runs=1 --tolerance=0 --against=%t/grouped.mlir \
// RUN:   --pipeline='builtin.module(func.func(spm-to-memref{memory-space=0}))' | FileCheck %s --check-prefix=EXECUTED

// CHECK-LABEL: func.func @strided_output(
// CHECK:         %[[A:.*]] = scf.for {{.*}} -> (tensor<8x16xf32>)
// CHECK:           arith.addf
// CHECK:           tensor.insert_slice {{.*}} [2, 16] [1, 1] : tensor<2x16xf32> into tensor<8x16xf32>
// CHECK:         %[[B:.*]] = scf.for {{.*}} -> (tensor<4x16xf32>)
// CHECK:           tensor.extract_slice {{.*}} [3, 16] [1, 1] : tensor<8x16xf32> to tensor<3x16xf32>
// CHECK:           arith.addf
// CHECK:           arith.mulf
// CHECK-NOT:       tensor<8x16xf32>
// CHECK:           scf.yield
// CHECK:         return %[[A]], %[[B]]

// EXECUTED: outputs: bit-identical

//--- reference.mlir
#id = affine_map<(d0, d1) -> (d0, d1)>
#even = affine_map<(d0, d1) -> (2 * d0, d1)>
func.func @strided_output(%x: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<4x16xf32>) {
  %e = tensor.empty() : tensor<8x16xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %y = arith.addf %v, %v : f32
    linalg.yield %y : f32
  } -> tensor<8x16xf32>
  %e2 = tensor.empty() : tensor<4x16xf32>
  %b = linalg.generic {indexing_maps = [#even, #id], iterator_types = ["parallel", "parallel"]}
    ins(%a : tensor<8x16xf32>) outs(%e2 : tensor<4x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %y = arith.mulf %v, %v : f32
    linalg.yield %y : f32
  } -> tensor<4x16xf32>
  return %a, %b : tensor<8x16xf32>, tensor<4x16xf32>
}

//--- grouped.mlir
#id = affine_map<(d0, d1) -> (d0, d1)>
#even = affine_map<(d0, d1) -> (2 * d0, d1)>
func.func @strided_output(%x: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<4x16xf32>) {
  %g:2 = "spm.group"() ({
    %e = tensor.empty() : tensor<8x16xf32>
    %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
    ^bb0(%v: f32, %o: f32):
      %y = arith.addf %v, %v : f32
      linalg.yield %y : f32
    } -> tensor<8x16xf32>
    %e2 = tensor.empty() : tensor<4x16xf32>
    %b = linalg.generic {indexing_maps = [#even, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<8x16xf32>) outs(%e2 : tensor<4x16xf32>) {
    ^bb0(%v: f32, %o: f32):
      %y = arith.mulf %v, %v : f32
      linalg.yield %y : f32
    } -> tensor<4x16xf32>
    vector.yield %a, %b : tensor<8x16xf32>, tensor<4x16xf32>
  }) {resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, tile = array<i64: 2, 16>} : () -> (tensor<8x16xf32>, tensor<4x16xf32>)
  return %g#0, %g#1 : tensor<8x16xf32>, tensor<4x16xf32>
}

// A pinned group output whose tile loop starts from a value, not an empty
// tensor: a layer accumulating into its broadcast bias, as torch-mlir writes
// every biased convolution. The bias is copied into the pin's arena view
// once, before the loop (constant data: weight bytes), and the loop updates
// the view in place: no tile of it is stored off-chip or loaded back. The
// second group reads the pin without copies. Runs bit-identically.
// RUN: split-file %s %t
// RUN: memopt-opt %t/grouped.mlir --spm-to-memref="report-copies" 2>%t/remarks | FileCheck %s
// RUN: FileCheck %s --check-prefix=COPIES < %t/remarks
// RUN: memopt-run %t/reference.mlir --compare --runs=1 --tolerance=0 --against=%t/grouped.mlir \
// RUN:   --pipeline='builtin.module(func.func(spm-to-memref{memory-space=0}))' | FileCheck %s --check-prefix=EXECUTED

// CHECK-LABEL: func.func @biased_pin(
// CHECK:         %[[VIEW:.*]] = memref.view
// CHECK:         %[[PIN:.*]] = bufferization.to_tensor %[[VIEW]] restrict writable
// CHECK:         %[[BIAS:.*]] = linalg.generic
// CHECK:         %[[START:.*]] = linalg.copy ins(%[[BIAS]] : tensor<8x16xf32>) outs(%[[PIN]] : tensor<8x16xf32>)
// CHECK:         %[[PINNED:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[START]])
// CHECK:         scf.for
// CHECK:           tensor.extract_slice %[[PINNED]]
// CHECK-NOT:       linalg.copy
// CHECK:           arith.addf

// x loaded (512), the result stored (512), the bias loaded once (512).
// COPIES: copies 1024 feature-map bytes between off-chip memory and the scratchpad (512 loaded, halos included; 512 stored), 512 weight bytes

// EXECUTED: outputs: bit-identical

//--- reference.mlir
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @biased_pin(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %bias = arith.constant dense<0.25> : tensor<16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %broadcast = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]}
    ins(%bias : tensor<16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  } -> tensor<8x16xf32>
  %acc = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%x : tensor<8x16xf32>) outs(%broadcast : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %y = arith.addf %v, %o : f32
    linalg.yield %y : f32
  } -> tensor<8x16xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %twice = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%acc : tensor<8x16xf32>) outs(%e2 : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %y = arith.addf %v, %v : f32
    linalg.yield %y : f32
  } -> tensor<8x16xf32>
  return %twice : tensor<8x16xf32>
}

//--- grouped.mlir
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @biased_pin(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %bias = arith.constant dense<0.25> : tensor<16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %broadcast = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]}
    ins(%bias : tensor<16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  } -> tensor<8x16xf32>
  %g = "spm.group"() ({
    %acc = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%broadcast : tensor<8x16xf32>) {
    ^bb0(%v: f32, %o: f32):
      %y = arith.addf %v, %o : f32
      linalg.yield %y : f32
    } -> tensor<8x16xf32>
    vector.yield %acc : tensor<8x16xf32>
  }) {resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, tile = array<i64: 2, 16>} : () -> tensor<8x16xf32>
  %p = "spm.pin"(%g) {offset = 0 : i64, size = 512 : i64} : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %h = "spm.group"() ({
    %twice = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<8x16xf32>) outs(%e2 : tensor<8x16xf32>) {
    ^bb0(%v: f32, %o: f32):
      %y = arith.addf %v, %v : f32
      linalg.yield %y : f32
    } -> tensor<8x16xf32>
    vector.yield %twice : tensor<8x16xf32>
  }) {resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, tile = array<i64: 2, 16>} : () -> tensor<8x16xf32>
  return %h : tensor<8x16xf32>
}

// A group whose 3x3 convolution reads a padded ReLU, tiled by 3 rows: the
// pad's tile is guarded by an scf.if for an empty source slice, with the
// slice of the ReLU in its else block. The ReLU is fused at the top of the
// loop body, before the scf.if (fusing it into the scf.if crashed MLIR 22),
// and the lowering runs bit-identically to the ungrouped program.
// RUN: split-file %s %t
// RUN: memopt-opt %t/grouped.mlir --spm-to-memref | FileCheck %s
// RUN: memopt-run %t/reference.mlir --compare --runs=1 --tolerance=0 --against=%t/grouped.mlir \
// RUN:   --pipeline='builtin.module(func.func(spm-to-memref{memory-space=0}))' | FileCheck %s --check-prefix=EXECUTED

// CHECK-LABEL: func.func @padded_producer(
// CHECK-SAME:      %[[X:[0-9a-z]+]]: tensor<1x8x8x4xf32>
// CHECK:         scf.for
// CHECK:           %[[XS:.*]] = tensor.extract_slice %[[X]]
// CHECK:           %[[XSPM:.*]] = linalg.copy ins(%[[XS]] :
// CHECK:           %[[RELU:.*]] = linalg.generic {{.*}} ins(%[[XSPM]] :
// CHECK:             arith.maximumf
// CHECK:           %[[PADDED:.*]] = scf.if
// CHECK:           } else {
// CHECK-NOT:         linalg.generic
// CHECK:             tensor.insert_slice %[[RELU]]
// CHECK:           linalg.conv_2d_nhwc_hwcf ins(%[[PADDED]],
// CHECK-NOT:     linalg.generic

// EXECUTED: outputs: bit-identical

//--- reference.mlir
#id = affine_map<(n, h, w, c) -> (n, h, w, c)>
func.func @padded_producer(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x4xf32>) -> tensor<1x8x8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x4xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%x : tensor<1x8x8x4xf32>) outs(%e : tensor<1x8x8x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.maximumf %v, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x8x8x4xf32>
  %padded = tensor.pad %relu low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x4xf32> to tensor<1x10x10x4xf32>
  %e2 = tensor.empty() : tensor<1x8x8x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %conv = linalg.conv_2d_nhwc_hwcf ins(%padded, %w : tensor<1x10x10x4xf32>, tensor<3x3x4x4xf32>) outs(%acc : tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  return %conv : tensor<1x8x8x4xf32>
}

//--- grouped.mlir
#id = affine_map<(n, h, w, c) -> (n, h, w, c)>
func.func @padded_producer(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x4xf32>) -> tensor<1x8x8x4xf32> {
  %g = "spm.group"() ({
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<1x8x8x4xf32>
    %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x8x8x4xf32>) outs(%e : tensor<1x8x8x4xf32>) {
    ^bb0(%v: f32, %o: f32):
      %m = arith.maximumf %v, %zero : f32
      linalg.yield %m : f32
    } -> tensor<1x8x8x4xf32>
    %padded = tensor.pad %relu low[0, 1, 1, 0] high[0, 1, 1, 0] {
    ^bb0(%i: index, %j: index, %k: index, %l: index):
      tensor.yield %zero : f32
    } : tensor<1x8x8x4xf32> to tensor<1x10x10x4xf32>
    %e2 = tensor.empty() : tensor<1x8x8x4xf32>
    %acc = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
    %conv = linalg.conv_2d_nhwc_hwcf ins(%padded, %w : tensor<1x10x10x4xf32>, tensor<3x3x4x4xf32>) outs(%acc : tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
    vector.yield %conv : tensor<1x8x8x4xf32>
  }) {resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, tile = array<i64: 1, 3, 8, 4>} : () -> tensor<1x8x8x4xf32>
  return %g : tensor<1x8x8x4xf32>
}

// A residual block reads its input %x twice per tile: the 1x1 convolution
// reads the tile's rows with the halo the 3x3 convolution after it needs,
// and the residual add reads the tile's own rows, which lie inside those.
// The add's rows are taken from the scratchpad copy of the halo rows instead
// of being loaded again (the nest is run to check the containment). Tiles of
// 2 of the 8 rows load 3 + 4 + 4 + 3 rows of 8 x 4 f32 (1792 bytes) and store
// 1024; a second load would add 1024. Runs bit-identically.
// RUN: split-file %s %t
// RUN: memopt-opt %t/grouped.mlir --spm-to-memref="report-copies" 2>%t/remarks | FileCheck %s
// RUN: FileCheck %s --check-prefix=COPIES < %t/remarks
// RUN: memopt-run %t/reference.mlir --compare --runs=1 --tolerance=0 --against=%t/grouped.mlir \
// RUN:   --pipeline='builtin.module(func.func(spm-to-memref{memory-space=0}))' | FileCheck %s --check-prefix=EXECUTED

// CHECK-LABEL: func.func @residual(
// CHECK-SAME:      %[[X:[0-9a-z]+]]: tensor<1x8x8x4xf32>
// CHECK:         scf.for %[[ROW:[0-9a-z]+]] =
// CHECK:           %[[HALO:.*]] = tensor.extract_slice %[[X]][0, %[[FIRST:.*]], 0, 0] [1, %{{.*}}, 8, 4]
// CHECK:           %[[HALOSPM:.*]] = linalg.copy ins(%[[HALO]] :
// CHECK-NOT:       tensor.extract_slice %[[X]]
// CHECK:           %[[SHIFT:.*]] = arith.subi %[[ROW]], %[[FIRST]] : index
// CHECK:           %[[OWN:.*]] = tensor.extract_slice %[[HALOSPM]][0, %[[SHIFT]], 0, 0] [1, 2, 8, 4]
// CHECK:           linalg.add ins(%{{.*}}, %[[OWN]] :

// COPIES: copies 2816 feature-map bytes between off-chip memory and the scratchpad (1792 loaded, halos included; 1024 stored)

// EXECUTED: outputs: bit-identical

//--- reference.mlir
func.func @residual(%x: tensor<1x8x8x4xf32>, %w1: tensor<1x1x4x4xf32>, %w3: tensor<3x3x4x4xf32>) -> tensor<1x8x8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<1x8x8x4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %a = linalg.conv_2d_nhwc_hwcf ins(%x, %w1 : tensor<1x8x8x4xf32>, tensor<1x1x4x4xf32>) outs(%f1 : tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %padded = tensor.pad %a low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x4xf32> to tensor<1x10x10x4xf32>
  %e2 = tensor.empty() : tensor<1x8x8x4xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %c = linalg.conv_2d_nhwc_hwcf ins(%padded, %w3 : tensor<1x10x10x4xf32>, tensor<3x3x4x4xf32>) outs(%f2 : tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %e3 = tensor.empty() : tensor<1x8x8x4xf32>
  %sum = linalg.add ins(%c, %x : tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) outs(%e3 : tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  return %sum : tensor<1x8x8x4xf32>
}

//--- grouped.mlir
func.func @residual(%x: tensor<1x8x8x4xf32>, %w1: tensor<1x1x4x4xf32>, %w3: tensor<3x3x4x4xf32>) -> tensor<1x8x8x4xf32> {
  %g = "spm.group"() ({
    %zero = arith.constant 0.0 : f32
    %e1 = tensor.empty() : tensor<1x8x8x4xf32>
    %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
    %a = linalg.conv_2d_nhwc_hwcf ins(%x, %w1 : tensor<1x8x8x4xf32>, tensor<1x1x4x4xf32>) outs(%f1 : tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
    %padded = tensor.pad %a low[0, 1, 1, 0] high[0, 1, 1, 0] {
    ^bb0(%i: index, %j: index, %k: index, %l: index):
      tensor.yield %zero : f32
    } : tensor<1x8x8x4xf32> to tensor<1x10x10x4xf32>
    %e2 = tensor.empty() : tensor<1x8x8x4xf32>
    %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
    %c = linalg.conv_2d_nhwc_hwcf ins(%padded, %w3 : tensor<1x10x10x4xf32>, tensor<3x3x4x4xf32>) outs(%f2 : tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
    %e3 = tensor.empty() : tensor<1x8x8x4xf32>
    %sum = linalg.add ins(%c, %x : tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) outs(%e3 : tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
    vector.yield %sum : tensor<1x8x8x4xf32>
  }) {resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, tile = array<i64: 1, 2, 8, 4>} : () -> tensor<1x8x8x4xf32>
  return %g : tensor<1x8x8x4xf32>
}

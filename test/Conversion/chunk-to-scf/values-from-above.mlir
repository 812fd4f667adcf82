// Values defined above the region (a weight, a bias, a constant) are used
// whole in every iteration: the loop body refers to them directly.
// RUN: memopt-opt %s --chunk-to-scf | mlir-opt --verify-each | FileCheck %s --implicit-check-not='"chunk.region"'

// CHECK-LABEL: func.func @linear(
// CHECK-SAME:      %[[X:.*]]: tensor<64x16xf32>, %[[W:.*]]: tensor<16x4xf32>, %[[BIAS:.*]]: tensor<16x4xf32>)
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         scf.for %[[IV:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK-NEXT:      %[[SLICE:.*]] = tensor.extract_slice %[[X]][%[[IV]], 0] [16, 16] [1, 1]
// CHECK-NEXT:      %[[INIT:.*]] = tensor.empty() : tensor<16x4xf32>
// CHECK-NEXT:      %[[FILL:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[INIT]] : tensor<16x4xf32>)
// CHECK-NEXT:      %[[MM:.*]] = linalg.matmul ins(%[[SLICE]], %[[W]] : tensor<16x16xf32>, tensor<16x4xf32>) outs(%[[FILL]] : tensor<16x4xf32>)
// CHECK-NEXT:      %[[ADD:.*]] = arith.addf %[[MM]], %[[BIAS]] : tensor<16x4xf32>
// CHECK-NEXT:      tensor.insert_slice %[[ADD]] into %[[ACC]][%[[IV]], 0] [16, 4] [1, 1]
func.func @linear(%x: tensor<64x16xf32>, %w: tensor<16x4xf32>, %bias: tensor<16x4xf32>) -> tensor<64x4xf32> {
  %zero = arith.constant 0.0 : f32
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<16x16xf32>):
    %init = tensor.empty() : tensor<16x4xf32>
    %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<16x4xf32>) -> tensor<16x4xf32>
    %m = linalg.matmul ins(%s, %w : tensor<16x16xf32>, tensor<16x4xf32>)
                       outs(%fill : tensor<16x4xf32>) -> tensor<16x4xf32>
    %b = arith.addf %m, %bias : tensor<16x4xf32>
    vector.yield %b : tensor<16x4xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 16 : i64,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<64x16xf32>) -> tensor<64x4xf32>
  return %0 : tensor<64x4xf32>
}

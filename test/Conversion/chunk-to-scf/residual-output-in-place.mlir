// An output of the type of an input chunked along the same dimension, where
// the region is the input's last reader (a residual update z + f(z)), is
// written into the input: the loop's destination is the input, and each chunk
// slices the input from the loop's iter_arg before inserting its rows at the
// same offset, so One-Shot Bufferize keeps the result in the input's buffer
// (one 64x16 buffer in the whole function, no copy of it).
// An input still read after the region, or a function argument (a caller's
// buffer), keeps a fresh destination.
// RUN: memopt-opt %s --chunk-to-scf | mlir-opt --verify-each | FileCheck %s --implicit-check-not='"chunk.region"'
// RUN: memopt-opt %s --chunk-to-scf | mlir-opt --one-shot-bufferize=bufferize-function-boundaries \
// RUN:   | FileCheck %s --check-prefix=BUFFERS

// CHECK-LABEL: func.func @residual(
// CHECK:         %[[Z:.*]] = linalg.exp
// CHECK-NOT:     tensor.empty() : tensor<64x16xf32>
// CHECK:         scf.for %[[IV:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %[[Z]]) -> (tensor<64x16xf32>)
// CHECK-NEXT:      %[[SLICE:.*]] = tensor.extract_slice %[[ACC]][%[[IV]], 0] [16, 16] [1, 1]
// CHECK:           %[[T:.*]] = linalg.tanh ins(%[[SLICE]] : tensor<16x16xf32>)
// CHECK:           %[[SUM:.*]] = linalg.add ins(%[[SLICE]], %[[T]] : tensor<16x16xf32>, tensor<16x16xf32>)
// CHECK-NEXT:      tensor.insert_slice %[[SUM]] into %[[ACC]][%[[IV]], 0] [16, 16] [1, 1]

// BUFFERS-LABEL: func.func @residual(
// BUFFERS-COUNT-1: memref.alloc() {{.*}} : memref<64x16xf32>
// BUFFERS-NOT:     memref.alloc() {{.*}} : memref<64x16xf32>
// BUFFERS-NOT:     memref.copy %{{.*}} : memref<64x16xf32> to memref<64x16xf32>
// BUFFERS:       return
func.func @residual(%x: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %ze = tensor.empty() : tensor<64x16xf32>
  %z = linalg.exp ins(%x : tensor<64x16xf32>) outs(%ze : tensor<64x16xf32>) -> tensor<64x16xf32>
  %0 = "chunk.region"(%z) ({
  ^bb0(%s: tensor<16x16xf32>):
    %te = tensor.empty() : tensor<16x16xf32>
    %t = linalg.tanh ins(%s : tensor<16x16xf32>) outs(%te : tensor<16x16xf32>) -> tensor<16x16xf32>
    %re = tensor.empty() : tensor<16x16xf32>
    %r = linalg.add ins(%s, %t : tensor<16x16xf32>, tensor<16x16xf32>) outs(%re : tensor<16x16xf32>) -> tensor<16x16xf32>
    vector.yield %r : tensor<16x16xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 16 : i64,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<64x16xf32>) -> tensor<64x16xf32>
  return %0 : tensor<64x16xf32>
}

// CHECK-LABEL: func.func @input_read_later(
// CHECK:         %[[Z:.*]] = linalg.exp
// CHECK:         %[[DEST:.*]] = tensor.empty() : tensor<64x16xf32>
// CHECK:         scf.for %[[IV:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %[[DEST]])
// CHECK-NEXT:      tensor.extract_slice %[[Z]][%[[IV]], 0] [16, 16] [1, 1]
func.func @input_read_later(%x: tensor<64x16xf32>) -> (tensor<64x16xf32>, tensor<64x16xf32>) {
  %ze = tensor.empty() : tensor<64x16xf32>
  %z = linalg.exp ins(%x : tensor<64x16xf32>) outs(%ze : tensor<64x16xf32>) -> tensor<64x16xf32>
  %0 = "chunk.region"(%z) ({
  ^bb0(%s: tensor<16x16xf32>):
    %te = tensor.empty() : tensor<16x16xf32>
    %t = linalg.tanh ins(%s : tensor<16x16xf32>) outs(%te : tensor<16x16xf32>) -> tensor<16x16xf32>
    %re = tensor.empty() : tensor<16x16xf32>
    %r = linalg.add ins(%s, %t : tensor<16x16xf32>, tensor<16x16xf32>) outs(%re : tensor<16x16xf32>) -> tensor<16x16xf32>
    vector.yield %r : tensor<16x16xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 16 : i64,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<64x16xf32>) -> tensor<64x16xf32>
  %le = tensor.empty() : tensor<64x16xf32>
  %later = linalg.exp ins(%z : tensor<64x16xf32>) outs(%le : tensor<64x16xf32>) -> tensor<64x16xf32>
  return %0, %later : tensor<64x16xf32>, tensor<64x16xf32>
}

// CHECK-LABEL: func.func @argument(
// CHECK-SAME:      %[[X:.*]]: tensor<64x16xf32>)
// CHECK:         %[[DEST:.*]] = tensor.empty() : tensor<64x16xf32>
// CHECK:         scf.for %[[IV:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %[[DEST]])
// CHECK-NEXT:      tensor.extract_slice %[[X]][%[[IV]], 0] [16, 16] [1, 1]
func.func @argument(%x: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<16x16xf32>):
    %te = tensor.empty() : tensor<16x16xf32>
    %t = linalg.tanh ins(%s : tensor<16x16xf32>) outs(%te : tensor<16x16xf32>) -> tensor<16x16xf32>
    %re = tensor.empty() : tensor<16x16xf32>
    %r = linalg.add ins(%s, %t : tensor<16x16xf32>, tensor<16x16xf32>) outs(%re : tensor<16x16xf32>) -> tensor<16x16xf32>
    vector.yield %r : tensor<16x16xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 16 : i64,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<64x16xf32>) -> tensor<64x16xf32>
  return %0 : tensor<64x16xf32>
}

// Round trip of chunk ops through memopt-opt, and through upstream mlir-opt
// loading the same IRDL definitions (memopt output feeds upstream tools).
// RUN: memopt-opt %s | FileCheck %s
// RUN: memopt-opt %s | mlir-opt --irdl-file=%memopt_irdl | FileCheck %s
// RUN: memopt-opt %s | memopt-opt | FileCheck %s

// CHECK-LABEL: func.func @rows
func.func @rows(%x: tensor<1024x64xf32>) -> tensor<1024x64xf32> {
  // CHECK: "chunk.region"(%{{.*}}) ({
  // CHECK: ^bb0(%[[SLICE:.*]]: tensor<128x64xf32>):
  // CHECK: %[[EXP:.*]] = math.exp %[[SLICE]] : tensor<128x64xf32>
  // CHECK: vector.yield %[[EXP]] : tensor<128x64xf32>
  // CHECK: }) {chunk_size = 128 : i64, input_dims = array<i64: 0>, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, output_dims = array<i64: 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<128x64xf32>):
    %e = math.exp %s : tensor<128x64xf32>
    vector.yield %e : tensor<128x64xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 128 : i64, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<1024x64xf32>) -> tensor<1024x64xf32>
  return %0 : tensor<1024x64xf32>
}

// A chunk size that does not divide the extent: the slice is dynamic.
// CHECK-LABEL: func.func @remainder
func.func @remainder(%x: tensor<100x8xf32>, %w: tensor<8x8xf32>) -> tensor<100x8xf32> {
  // CHECK: ^bb0(%{{.*}}: tensor<?x8xf32>):
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<?x8xf32>):
    %c0 = arith.constant 0 : index
    %n = tensor.dim %s, %c0 : tensor<?x8xf32>
    %init = tensor.empty(%n) : tensor<?x8xf32>
    %m = linalg.matmul ins(%s, %w : tensor<?x8xf32>, tensor<8x8xf32>)
                       outs(%init : tensor<?x8xf32>) -> tensor<?x8xf32>
    vector.yield %m : tensor<?x8xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 32 : i64, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<100x8xf32>) -> tensor<100x8xf32>
  return %0 : tensor<100x8xf32>
}

// Regions nest, each along its own dimension.
// CHECK-LABEL: func.func @nested
func.func @nested(%x: tensor<64x32xf32>) -> tensor<64x32xf32> {
  // CHECK: "chunk.region"
  // CHECK: "chunk.region"
  // CHECK: input_dims = array<i64: 1>
  // CHECK: input_dims = array<i64: 0>
  %0 = "chunk.region"(%x) ({
  ^bb0(%rows: tensor<16x32xf32>):
    %1 = "chunk.region"(%rows) ({
    ^bb0(%cols: tensor<16x8xf32>):
      %n = arith.negf %cols : tensor<16x8xf32>
      vector.yield %n : tensor<16x8xf32>
    }) {input_dims = array<i64: 1>, output_dims = array<i64: 1>, chunk_size = 8 : i64, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
       : (tensor<16x32xf32>) -> tensor<16x32xf32>
    vector.yield %1 : tensor<16x32xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 16 : i64, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<64x32xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// Inputs and outputs of different types (IRDL needs one slot per value).
// CHECK-LABEL: func.func @mixed_types
func.func @mixed_types(%x: tensor<64x16xf32>, %m: tensor<64x64xf32>) -> (tensor<64x16xf32>, tensor<64xf32>) {
  // CHECK: "chunk.region"(%{{.*}}, %{{.*}}) ({
  // CHECK: operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>
  // CHECK-SAME: resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>
  %0:2 = "chunk.region"(%x, %m) ({
  ^bb0(%xs: tensor<16x16xf32>, %ms: tensor<16x64xf32>):
    %e = math.exp %xs : tensor<16x16xf32>
    %init = tensor.empty() : tensor<16xf32>
    %r = linalg.reduce ins(%ms : tensor<16x64xf32>) outs(%init : tensor<16xf32>) dimensions = [1]
      (%in: f32, %acc: f32) {
        %s = arith.addf %in, %acc : f32
        linalg.yield %s : f32
      }
    vector.yield %e, %r : tensor<16x16xf32>, tensor<16xf32>
  }) {input_dims = array<i64: 0, 0>, output_dims = array<i64: 0, 0>, chunk_size = 16 : i64,
      operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>}
     : (tensor<64x16xf32>, tensor<64x64xf32>) -> (tensor<64x16xf32>, tensor<64xf32>)
  return %0#0, %0#1 : tensor<64x16xf32>, tensor<64xf32>
}

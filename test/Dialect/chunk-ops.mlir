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
  // CHECK: }) {chunk_size = 128 : i64, input_dims = array<i64: 0>, output_dims = array<i64: 0>}
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<128x64xf32>):
    %e = math.exp %s : tensor<128x64xf32>
    vector.yield %e : tensor<128x64xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 128 : i64}
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
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 32 : i64}
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
    }) {input_dims = array<i64: 1>, output_dims = array<i64: 1>, chunk_size = 8 : i64}
       : (tensor<16x32xf32>) -> tensor<16x32xf32>
    vector.yield %1 : tensor<16x32xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 16 : i64}
     : (tensor<64x32xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// memory=program prices the function as written; layers=N would have one
// recognized layer stand for N the function does not hold, so the two
// together are an error at the function, and nothing is written.
// RUN: not memopt-opt %s --pass-pipeline='builtin.module(place-search{layers=8 memory=program})' -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// CHECK: program-memory-refuses-a-layer-count-the-function-does-not-hold.mlir:[[@LINE+1]]:1: error: place-search: memory=program prices the function as written, which holds 2 layers, not layers=8
func.func @pair(%x: tensor<1x8xf32>, %w1: tensor<8x8xf32>, %w2: tensor<8x8xf32>) -> (tensor<1x8xf32>, tensor<1x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<1x8xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x8xf32>) -> tensor<1x8xf32>
  %h1 = linalg.matmul ins(%x, %w1 : tensor<1x8xf32>, tensor<8x8xf32>) outs(%f1 : tensor<1x8xf32>) -> tensor<1x8xf32>
  %e2 = tensor.empty() : tensor<1x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x8xf32>) -> tensor<1x8xf32>
  %h2 = linalg.matmul ins(%h1, %w2 : tensor<1x8xf32>, tensor<8x8xf32>) outs(%f2 : tensor<1x8xf32>) -> tensor<1x8xf32>
  return %h1, %h2 : tensor<1x8xf32>, tensor<1x8xf32>
}

// Functions autochunk declines, with a remark saying why; the IR stays as it was.
// RUN: memopt-opt %s --split-input-file --verify-diagnostics --autochunk=budget=1KiB | FileCheck %s

// The peak is a matmul whose left operand is also its right one: its rows can
// be chunked, but the operand must stay whole, so nothing lowers the peak.
// CHECK-LABEL: func.func @needed_whole
// CHECK-NOT: chunk.region
// expected-remark @+1 {{autochunk: the budget of 1024 bytes is out of reach: the best is 32768 bytes (from 32768) after 0 stages, then no legal chunk region lowers the peak below 32768 bytes; the function is left unchanged}}
func.func @needed_whole(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %e0 = tensor.empty() : tensor<64x64xf32>
  %e = linalg.exp ins(%x : tensor<64x64xf32>) outs(%e0 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m0 = tensor.empty() : tensor<64x64xf32>
  %m = linalg.matmul ins(%e, %e : tensor<64x64xf32>, tensor<64x64xf32>) outs(%m0 : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %m : tensor<64x64xf32>
}

// -----

// Dynamic sizes: the peak is not a number of bytes.
// CHECK-LABEL: func.func @dynamic
// CHECK-NOT: chunk.region
// expected-remark @+1 {{autochunk: the function holds tensors of dynamic size, so its peak is not a number of bytes; chunking needs static sizes}}
func.func @dynamic(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x64xf32>
  %e0 = tensor.empty(%n) : tensor<?x64xf32>
  %e = linalg.exp ins(%x : tensor<?x64xf32>) outs(%e0 : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %e : tensor<?x64xf32>
}

// -----

// A declaration has no body to chunk and is skipped silently.
// CHECK-LABEL: func.func private @external
func.func private @external(tensor<4xf32>) -> tensor<4xf32>

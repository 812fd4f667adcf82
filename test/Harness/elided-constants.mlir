// Constants published without their data (dense_resource<__elided__>) make a
// model unrunnable: memopt-run says where, and --fill-elided gives them the
// input formulas' values with argument number 1000 + k for the k-th one.
// RUN: not memopt-run %s 2>&1 | FileCheck %s --check-prefix=REFUSED -DFILE=%s
// (the locations are checked next to the constants, the message at the end)
//
// Constant 0 (f32): 0.5 sin(0.7 l + 0.37 * 1000 + 0.1); constant 1 (i32):
// (7 l + 3 * 1001) mod 16 = 11, 2, 9, 0. Constants live in the binary, not on
// the heap. Counted per call: the 2x2 f32 copy (16 bytes, rounded up to the
// 64-byte alignment of bufferization's buffers) and the clone of the i32
// constant the function returns (a result must be a buffer the caller owns;
// 16 bytes, a multiple of the 16-byte alignment clones get): 80 bytes.
// inputs_bytes is the 2x2 f32 argument: 64.
// RUN: memopt-run %s --fill-elided --print-outputs | FileCheck %s --check-prefix=FILLED
// FILLED:      inputs_bytes: 64
// FILLED-NEXT: peak_bytes: 80
// FILLED-NEXT: allocations_per_run: 2
// FILLED:      output 0: tensor<2x2xf32>
// FILLED-NEXT: {{^\[\[-0.285586059, 0.045968432\],$}}
// FILLED-NEXT: {{^ \[0.355903268, 0.498451233\]\]$}}
// FILLED-NEXT: output 1: tensor<4xi32> hash={{.*}} sum=22 abs_sum=22 nonfinite=0
// FILLED-NEXT: {{^}}[11, 2, 9, 0]

func.func @weights(%x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<4xi32>) {
  // The first result is the constant itself, copied into a new buffer.
  // REFUSED: [[FILE]]:[[@LINE+1]]:8: error: this constant's data was elided from the file
  %w = arith.constant dense_resource<__elided__> : tensor<2x2xf32>
  // REFUSED: [[FILE]]:[[@LINE+1]]:10: error: this constant's data was elided from the file
  %ids = arith.constant dense_resource<__elided__> : tensor<4xi32>
  %e = tensor.empty() : tensor<2x2xf32>
  %copy = linalg.copy ins(%w : tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %copy, %ids : tensor<2x2xf32>, tensor<4xi32>
}
// REFUSED: memopt-run: error: the model has 2 constants whose data was elided (dense_resource<__elided__>), so it cannot run; --fill-elided gives them generated values

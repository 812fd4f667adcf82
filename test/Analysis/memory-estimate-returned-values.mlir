// Returned values stay live to the end of the function. A returned value
// whose buffer the function does not own (an argument, a constant) is
// cloned at the return by the deallocation pipeline: a new buffer.
// RUN: memopt-opt %s --split-input-file --verify-diagnostics --memory-estimate=per-op=true -o /dev/null

// 64 x f32 = 256 bytes per buffer. %a is returned: live to the end although
// %b is its last reader. %b is freed after the add. Returning %x clones it.
// expected-remark @+1 {{peak activation memory: 768 bytes at 'tensor.empty' (position 4)}}
func.func @returns(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
  %e = tensor.empty() : tensor<64xf32> // expected-remark {{live activation memory: 256 bytes}}
  %a = linalg.exp ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32> // expected-remark {{live activation memory: 256 bytes}}
  %e2 = tensor.empty() : tensor<64xf32> // expected-remark {{live activation memory: 512 bytes}}
  %b = linalg.exp ins(%a : tensor<64xf32>) outs(%e2 : tensor<64xf32>) -> tensor<64xf32> // expected-remark {{live activation memory: 512 bytes}}
  %e3 = tensor.empty() : tensor<64xf32> // expected-remark {{live activation memory: 768 bytes}}
  %c = linalg.add ins(%b, %b : tensor<64xf32>, tensor<64xf32>) outs(%e3 : tensor<64xf32>) -> tensor<64xf32> // expected-remark {{live activation memory: 768 bytes}}
  // %a and %c, plus the clone of %x.
  return %a, %c, %x : tensor<64xf32>, tensor<64xf32>, tensor<64xf32> // expected-remark {{live activation memory: 768 bytes}}
}

// -----

// A returned constant is cloned too (4 x f32 = 16 bytes); the constant
// itself is a global, not an activation.
// expected-remark @+1 {{peak activation memory: 16 bytes at 'func.return' (position 1)}}
func.func @return_constant() -> tensor<4xf32> {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32> // expected-remark {{live activation memory: 0 bytes}}
  return %c : tensor<4xf32> // expected-remark {{live activation memory: 16 bytes}}
}

// -----

// A view of an owned buffer is returned as it is: no clone, and the whole
// 8x16 buffer (512 bytes) stays live for its 4x16 slice.
// expected-remark @+1 {{peak activation memory: 512 bytes at 'tensor.empty' (position 0)}}
func.func @return_slice(%x: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32> // expected-remark {{live activation memory: 512 bytes}}
  %a = linalg.copy ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32> // expected-remark {{live activation memory: 512 bytes}}
  %s = tensor.extract_slice %a[0, 0] [4, 16] [1, 1] : tensor<8x16xf32> to tensor<4x16xf32> // expected-remark {{live activation memory: 512 bytes}}
  return %s : tensor<4x16xf32> // expected-remark {{live activation memory: 512 bytes}}
}

// A value used again after a long gap keeps its buffer live through the
// gap; and a buffer is allocated where its tensor.empty is, however long
// before its first use (bufferization does not move allocations).
// RUN: memopt-opt %s --verify-diagnostics --memory-estimate=per-op=true -o /dev/null

// 256 x f32 = 1024 bytes per buffer. %early is computed first and read
// last: 1024 bytes for the whole body on top of the chain t1 -> t2 -> t3,
// in which each step needs its input and its output (2048). %late's buffer
// is allocated at the very top (its tensor.empty) and counts from there.
// expected-remark @+1 {{peak activation memory: 4096 bytes at 'tensor.empty' (position 5)}}
func.func @gap(%x: tensor<256xf32>) -> tensor<256xf32> {
  %e_late = tensor.empty() : tensor<256xf32> // expected-remark {{live activation memory: 1024 bytes}}
  %e0 = tensor.empty() : tensor<256xf32> // expected-remark {{live activation memory: 2048 bytes}}
  %early = linalg.exp ins(%x : tensor<256xf32>) outs(%e0 : tensor<256xf32>) -> tensor<256xf32> // expected-remark {{live activation memory: 2048 bytes}}
  %e1 = tensor.empty() : tensor<256xf32> // expected-remark {{live activation memory: 3072 bytes}}
  %t1 = linalg.exp ins(%x : tensor<256xf32>) outs(%e1 : tensor<256xf32>) -> tensor<256xf32> // expected-remark {{live activation memory: 3072 bytes}}
  %e2 = tensor.empty() : tensor<256xf32> // expected-remark {{live activation memory: 4096 bytes}}
  %t2 = linalg.exp ins(%t1 : tensor<256xf32>) outs(%e2 : tensor<256xf32>) -> tensor<256xf32> // expected-remark {{live activation memory: 4096 bytes}}
  %e3 = tensor.empty() : tensor<256xf32> // expected-remark {{live activation memory: 4096 bytes}}
  %t3 = linalg.exp ins(%t2 : tensor<256xf32>) outs(%e3 : tensor<256xf32>) -> tensor<256xf32> // expected-remark {{live activation memory: 4096 bytes}}
  %late = linalg.add ins(%early, %t3 : tensor<256xf32>, tensor<256xf32>) outs(%e_late : tensor<256xf32>) -> tensor<256xf32> // expected-remark {{live activation memory: 3072 bytes}}
  return %late : tensor<256xf32> // expected-remark {{live activation memory: 1024 bytes}}
}

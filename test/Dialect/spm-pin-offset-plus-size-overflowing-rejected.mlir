// A pin occupies bytes [offset, offset + size): the end must fit int64.
// 9223372036854775000 + 4096 exceeds 2^63 - 1 = 9223372036854775807 by 3289,
// so the pin is rejected at the op (it used to wrap negative and give an
// empty arena with a view at offset 9.2e18).
// RUN: memopt-opt %s --verify-diagnostics

func.func @f(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'spm.pin' op offset 9223372036854775000 + size 4096 overflows a 64-bit byte address}}
  %p = "spm.pin"(%x) {offset = 9223372036854775000 : i64, size = 4096 : i64} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %p : tensor<8x8xf32>
}

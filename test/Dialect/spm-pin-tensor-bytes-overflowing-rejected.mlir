// The byte size of a pinned tensor is computed without overflow:
// 2^62 x 4 f32 elements are 2^64 x 32 bits, beyond int64, so the check
// "size holds the tensor" cannot be made and the pin is rejected (it used to
// wrap to 0 bytes and pass with size = 64).
// RUN: memopt-opt %s --verify-diagnostics

func.func @f(%x: tensor<4611686018427387904x4xf32>) -> tensor<4611686018427387904x4xf32> {
  // expected-error @+1 {{'spm.pin' op the pinned tensor needs more than 2^63 - 1 bytes}}
  %p = "spm.pin"(%x) {offset = 0 : i64, size = 64 : i64} : (tensor<4611686018427387904x4xf32>) -> tensor<4611686018427387904x4xf32>
  return %p : tensor<4611686018427387904x4xf32>
}

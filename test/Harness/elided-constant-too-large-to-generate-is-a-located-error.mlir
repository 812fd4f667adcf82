// An elided constant (dense_resource<__elided__>) whose shape holds more
// elements than any buffer can: 2^32 x 2^32 = 2^64 elements overflow the
// 64-bit element count. --fill-elided must not wrap the count around (to 0,
// and then generate an empty array for a huge tensor); it refuses that
// constant with an error at its location.
// RUN: not memopt-run %s --fill-elided 2>&1 | FileCheck %s -DFILE=%s
func.func @main() -> tensor<4294967296x4294967296xf32> {
  // CHECK: [[FILE]]:[[@LINE+1]]:8: error: memopt-run cannot generate data for this elided constant: its element count overflows
  %0 = arith.constant dense_resource<__elided__> : tensor<4294967296x4294967296xf32>
  return %0 : tensor<4294967296x4294967296xf32>
}
// CHECK: memopt-run: error: memopt-run cannot generate 1 elided constants

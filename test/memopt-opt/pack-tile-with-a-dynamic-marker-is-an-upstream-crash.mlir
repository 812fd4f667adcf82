// MLIR 22's verifier of linalg.pack (and linalg.unpack) crashes (SIGSEGV in
// Value::getDefiningOp from PackOp::verify) on inner_tiles holding
// -9223372036854775808, the marker of a tile given by an SSA operand, without
// that operand: it reads the missing operand. The parser runs the verifier
// before returning, and mlir-opt crashes the same way, so memopt-opt cannot
// catch it (python-free-docs/memopt-opt.md, "Upstream defects"). This test
// expects the located error a fixed verifier gives; it fails until MLIR is
// fixed, and an unexpected pass tells us to drop the XFAIL and the doc's entry.
// XFAIL: *
// RUN: not memopt-opt %s 2>&1 | FileCheck %s
// CHECK: pack-tile-with-a-dynamic-marker-is-an-upstream-crash.mlir:16:{{[0-9]+}}: error:
// CHECK-NOT: Stack dump
// CHECK-NOT: AddressSanitizer
func.func @f(%x: tensor<8x8xf32>) -> tensor<4x2x2x4xf32> {
  %e = tensor.empty() : tensor<4x2x2x4xf32>
  %p = linalg.pack %x inner_dims_pos = [0, 1] inner_tiles = [2, -9223372036854775808] into %e : tensor<8x8xf32> -> tensor<4x2x2x4xf32>
  return %p : tensor<4x2x2x4xf32>
}

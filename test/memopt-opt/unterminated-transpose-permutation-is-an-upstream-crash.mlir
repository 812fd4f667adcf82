// MLIR 22's parser crashes (SIGSEGV in NamedAttrList::set) on a linalg.transpose
// whose `permutation = [1, 0` is not closed: linalg's custom parser stores the
// null attribute a failed array parse returns. mlir-opt crashes the same way,
// and nothing in the C API runs before that parser, so memopt-opt cannot catch
// it (python-free-docs/memopt-opt.md, "Upstream defects"). This test expects the
// located error a fixed parser gives; it fails until MLIR is fixed, and an
// unexpected pass tells us to drop the XFAIL and the doc's entry.
// XFAIL: *
// RUN: not memopt-opt %s 2>&1 | FileCheck %s
// CHECK: unterminated-transpose-permutation-is-an-upstream-crash.mlir:{{1[45]}}:{{[0-9]+}}: error:
// CHECK-NOT: Stack dump
// CHECK-NOT: AddressSanitizer
func.func @f(%x: tensor<2x3xf32>, %y: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %t = linalg.transpose ins(%x : tensor<2x3xf32>) outs(%y : tensor<3x2xf32>) permutation = [1, 0
  return %t : tensor<3x2xf32>
}

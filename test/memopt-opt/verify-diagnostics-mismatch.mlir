// A missing or unexpected diagnostic fails the run and says which, where.
// RUN: not memopt-opt %s --split-input-file --verify-diagnostics 2>&1 | FileCheck %s

func.func @unexpected(%x: i32) {
  return %x : i32
}
// CHECK: verify-diagnostics-mismatch.mlir:5:3: error: unexpected error: 'func.return' op has 1 operands

// -----

func.func @never() {
  // expected-error @+1 {{this never happens}}
  return
}
// CHECK: verify-diagnostics-mismatch.mlir:12:6: error: expected error "this never happens" was not produced
// CHECK-NEXT: // {{expected}}-error @+1 {{[{][{]}}this never happens{{[}][}]}}

// An unexpected diagnostic at a location with no file position is reported as
// mlir-opt reports it: at "<unknown>:0", with the location printed before
// the message when it is not the unknown location (here a name alone), and
// with no source line.
// RUN: not memopt-opt %s --split-input-file --verify-diagnostics 2>&1 >/dev/null | FileCheck %s

func.func @named(%a: i32) {
  %0 = "arith.addi"(%a, %a) : (i32, i32) -> i64 loc("named")
  return
}
// CHECK: {{^}}<unknown>:0: error: loc("named"): unexpected error: 'arith.addi' op requires the same type for all operands and results
// CHECK-NEXT: {{^}}<unknown>:0: error: unexpected error: 'arith.addi' op requires the same type for all operands and results
// CHECK-NOT: {{.}}

// -----

func.func @unknown(%a: i32) {
  %0 = "arith.addi"(%a, %a) : (i32, i32) -> i64 loc(unknown)
  return
}

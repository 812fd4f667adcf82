// A diagnostic whose message an expectation on its line matches, but not its
// severity, is a near miss: mlir-opt reports it at the expectation, naming
// both severities, instead of an "unexpected error"; the expectation itself
// stays unmet.
// RUN: not memopt-opt %s --verify-diagnostics 2>&1 | FileCheck %s

func.func @f(%x: i32) {
  // expected-warning @+1 {{'func.return' op has 1 operands}}
  return %x : i32
}
// CHECK: verify-diagnostics-near-miss-names-both-severities.mlir:[[# @LINE - 3]]:6: error: 'error' diagnostic emitted when expecting a 'warning'
// CHECK-NOT: unexpected error
// CHECK: verify-diagnostics-near-miss-names-both-severities.mlir:[[# @LINE - 5]]:6: error: expected warning "'func.return' op has 1 operands" was not produced

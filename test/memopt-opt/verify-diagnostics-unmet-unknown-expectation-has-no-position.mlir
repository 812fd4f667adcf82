// Unmet expectations are reported as mlir-opt reports them: those of the file
// first, in order, at the expectation with its text's length underlined
// ("never" is 5 columns: the caret and 4 '~'); then the @unknown ones, which
// have no position and show no source line, even when written first.
// RUN: not memopt-opt %s --verify-diagnostics 2>&1 >/dev/null | FileCheck %s --strict-whitespace

// expected-warning @unknown {{nowhere}}
func.func @f() {
  // expected-error @+1 {{never}}
  return
}
// CHECK: verify-diagnostics-unmet-unknown-expectation-has-no-position.mlir:[[# @LINE - 3]]:6: error: expected error "never" was not produced
// CHECK-NEXT: {{^}}  // {{expected}}-error @+1 {{[{][{]}}never{{[}][}]}}
// CHECK-NEXT: {{^}}     ^~~~~{{$}}
// CHECK-NEXT: {{^}}<unknown>:0: error: expected warning "nowhere" was not produced
// CHECK-NOT: {{.}}

// --verify-diagnostics takes mlir-opt's values: "all" (also the bare flag, or
// an empty value) fails on a diagnostic no comment expects; "only-expected"
// checks the expectations alone, so the unexpected error of @unexpected
// passes, while an expectation that no diagnostic meets still fails.
// RUN: not memopt-opt %s --split-input-file --verify-diagnostics 2>&1 | FileCheck %s --check-prefixes=ALL,BOTH
// RUN: not memopt-opt %s --split-input-file --verify-diagnostics=all 2>&1 | FileCheck %s --check-prefixes=ALL,BOTH
// RUN: not memopt-opt %s --split-input-file --verify-diagnostics= 2>&1 | FileCheck %s --check-prefixes=ALL,BOTH
// RUN: not memopt-opt %s --split-input-file --verify-diagnostics=only-expected 2>&1 | FileCheck %s --check-prefixes=ONLY,BOTH
// Without the second chunk, only the unexpected error is left: "only-expected" passes.
// RUN: sed '/^\/\/ -----/,$d' %s > %t.mlir
// RUN: memopt-opt %t.mlir --verify-diagnostics=only-expected
// RUN: not memopt-opt %t.mlir --verify-diagnostics
// A value of neither kind is a command-line error.
// RUN: not memopt-opt %s --verify-diagnostics=some 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: '--verify-diagnostics' takes all or only-expected, not 'some'

func.func @unexpected(%x: i32) {
  return %x : i32
}
// ALL: verify-diagnostics-only-expected-ignores-unexpected-diagnostics.mlir:[[# @LINE - 2]]:3: error: unexpected error: 'func.return' op has 1 operands
// ONLY-NOT: unexpected error

// -----

func.func @never() {
  // expected-error @+1 {{this never happens}}
  return
}
// BOTH: verify-diagnostics-only-expected-ignores-unexpected-diagnostics.mlir:[[# @LINE - 3]]:6: error: expected error "this never happens" was not produced

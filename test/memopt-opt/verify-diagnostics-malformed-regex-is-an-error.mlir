// A malformed expected-*-re pattern fails the run with mlir-opt's message,
// at the expectation, underlining as many columns as its text has: a "{{"
// without "}}" (text "{{", 2 columns), and a regex that does not compile
// (text " {{(}} ", 7 columns; the message is llvm::Regex's). The expectation
// is dropped, so the error it was meant for is then unexpected.
// RUN: not memopt-opt %s --split-input-file --verify-diagnostics 2>&1 | FileCheck %s --strict-whitespace

// CHECK: verify-diagnostics-malformed-regex-is-an-error.mlir:[[# @LINE + 3]]:4: error: found start of regex with no end '}}'
// CHECK-NEXT: {{^}}// {{expected}}-error-re {{[{][{][{][{][}][}]}}
// CHECK-NEXT: {{^}}   ^~{{$}}
// expected-error-re {{{{}}

// -----

// CHECK: verify-diagnostics-malformed-regex-is-an-error.mlir:[[# @LINE + 3]]:4: error: invalid regex: parentheses not balanced
// CHECK-NEXT: {{^}}// {{expected}}-error-re {{[{][{] [{][{][(][}][}] [}][}]}}
// CHECK-NEXT: {{^}}   ^~~~~~~{{$}}
// expected-error-re {{ {{(}} }}
func.func @f() -> i32 {
  return
}
// CHECK: verify-diagnostics-malformed-regex-is-an-error.mlir:[[# @LINE - 2]]:3: error: unexpected error: 'func.return' op has 0 operands, but enclosing function (@f) returns 1

// Malformed IR: file:line:col, the source line and a caret, exit code 1.
// RUN: not memopt-run %s 2>&1 | FileCheck %s -DFILE=%s

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %y : tensor<4xf32>
}
// CHECK: [[FILE]]:5:10: error: use of undeclared SSA value name
// CHECK-NEXT: {{^}}  return %y : tensor<4xf32>
// CHECK-NEXT: {{^}}         ^
// CHECK-NEXT: memopt-run: error: cannot parse '[[FILE]]'

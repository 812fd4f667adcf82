// Malformed IR: file:line:col, the source line and a caret, exit code 1.
// RUN: not memopt-opt %s 2>&1 | FileCheck %s -DFILE=%s
// RUN: not memopt-opt < %s 2>&1 | FileCheck %s -DFILE="<stdin>"

func.func @f(%x: i32) -> i32 {
  %y = arith.addi %x, %x : i32
  return %z : i32
}
// CHECK: [[FILE]]:7:10: error: use of undeclared SSA value name
// CHECK-NEXT: {{^}}  return %z : i32
// CHECK-NEXT: {{^}}         ^

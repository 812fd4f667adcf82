// Under a source line with non-ASCII bytes LLVM's SourceMgr shows no caret,
// since it cannot tell the columns: the error at the op whose line ends in a
// "é" comment prints the line alone.
// RUN: not memopt-opt %s 2>&1 | FileCheck %s
// RUN: not mlir-opt %s 2> %t.expected
// RUN: not memopt-opt %s 2> %t.actual
// RUN: diff %t.expected %t.actual

func.func @f(%a: i32) {
  %0 = "arith.addi"(%a, %a) : (i32, i32) -> i64 // é
  return
}
// CHECK: non-ascii-source-line-gets-no-caret.mlir:[[# @LINE - 3]]:8: error: 'arith.addi' op requires the same type for all operands and results
// CHECK-NEXT: {{^}}  %0 = "arith.addi"(%a, %a) : (i32, i32) -> i64 // é
// CHECK-NEXT: non-ascii-source-line-gets-no-caret.mlir:[[# @LINE - 5]]:8: note: see current operation:

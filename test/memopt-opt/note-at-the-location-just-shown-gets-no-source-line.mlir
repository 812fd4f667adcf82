// As mlir-opt's SourceMgrDiagnosticHandler, a note at the location shown just
// before it prints without the source line: the "see current operation" note
// of a verifier error is at the op, where the error is. A note elsewhere (the
// "prior use here" of the second chunk, at line 22) shows its line.
// RUN: not memopt-opt %s --split-input-file 2>&1 | FileCheck %s
// RUN: not mlir-opt %s --split-input-file 2> %t.expected
// RUN: not memopt-opt %s --split-input-file 2> %t.actual
// RUN: diff %t.expected %t.actual

func.func @f(%a: i32) {
  %0 = "arith.addi"(%a, %a) : (i32, i32) -> i64
  return
}
// CHECK: note-at-the-location-just-shown-gets-no-source-line.mlir:[[# @LINE - 3]]:8: error: 'arith.addi' op requires the same type for all operands and results
// CHECK-NEXT: {{^}}  %0 = "arith.addi"
// CHECK-NEXT: {{^}}       ^
// CHECK-NEXT: note-at-the-location-just-shown-gets-no-source-line.mlir:[[# @LINE - 6]]:8: note: see current operation: {{.*}}
// CHECK-NEXT: note-at-the-location-just-shown-gets-no-source-line.mlir:[[# @LINE + 5]]:19: error: use of value '%x' expects different type than prior uses: 'i64' vs 'i32'

// -----

func.func @g(%x: i32) {
  %y = arith.addi %x, %x : i64
  return
}
// CHECK-NEXT: {{^}}  %y = arith.addi %x, %x : i64
// CHECK-NEXT: {{^}}                  ^
// CHECK-NEXT: note-at-the-location-just-shown-gets-no-source-line.mlir:[[# @LINE - 6]]:14: note: prior use here
// CHECK-NEXT: {{^}}func.func @g(%x: i32) {
// CHECK-NEXT: {{^}}             ^

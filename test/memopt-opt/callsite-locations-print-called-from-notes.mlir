// A diagnostic at a call-site location prints, as mlir-opt's
// SourceMgrDiagnosticHandler, at the callee (line 19, column 8) followed by a
// "called from" note for each caller, outermost last: the op stands for a
// call at 23:3 made from a call at 26:3. Its "see current operation" note is
// at the op's location, not at the last caller's, so it shows the source line
// again. The locations name the file itself: CALLSITE stands for its path.
// RUN: sed 's|CALLSITE|%t.mlir|' %s > %t.mlir
// RUN: not memopt-opt %t.mlir 2>&1 | FileCheck %s
// The whole output is mlir-opt's.
// RUN: not mlir-opt %t.mlir 2> %t.expected
// RUN: not memopt-opt %t.mlir 2> %t.actual
// RUN: diff %t.expected %t.actual

#callee = loc("CALLSITE":19:8)
#inner = loc("CALLSITE":23:3)
#outer = loc("CALLSITE":26:3)

func.func @callee(%a: i32) -> i64 {
  %0 = "arith.addi"(%a, %a) : (i32, i32) -> i64 loc(callsite(#callee at callsite(#inner at #outer)))
  return %0 : i64
}
func.func @inner() {
  return
}
func.func @outer() {
  return
}

// CHECK: .mlir.tmp.mlir:19:8: error: 'arith.addi' op requires the same type for all operands and results
// CHECK-NEXT: {{^}}  %0 = "arith.addi"
// CHECK-NEXT: {{^}}       ^
// CHECK-NEXT: .mlir.tmp.mlir:23:3: note: called from
// CHECK-NEXT: {{^}}  return
// CHECK-NEXT: {{^}}  ^
// CHECK-NEXT: .mlir.tmp.mlir:26:3: note: called from
// CHECK-NEXT: {{^}}  return
// CHECK-NEXT: {{^}}  ^
// CHECK-NEXT: .mlir.tmp.mlir:19:8: note: see current operation: {{.*}}
// CHECK-NEXT: {{^}}  %0 = "arith.addi"
// CHECK-NEXT: {{^}}       ^

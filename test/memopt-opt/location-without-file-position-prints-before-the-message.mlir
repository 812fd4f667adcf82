// A diagnostic at a location with no file position prints, as mlir-opt
// prints it, at "<unknown>:0" with the location itself before the message
// (a name alone here, a fused location of names in the second chunk); at the
// unknown location it prints the message alone (third chunk).
// RUN: not memopt-opt %s --split-input-file 2>&1 | FileCheck %s
// RUN: not mlir-opt %s --split-input-file 2> %t.expected
// RUN: not memopt-opt %s --split-input-file 2> %t.actual
// RUN: diff %t.expected %t.actual

func.func @named(%a: i32) {
  %0 = "arith.addi"(%a, %a) : (i32, i32) -> i64 loc("named")
  return
}
// CHECK: {{^}}<unknown>:0: error: loc("named"): 'arith.addi' op requires the same type for all operands and results
// CHECK-NEXT: {{^}}<unknown>:0: note: loc("named"): see current operation:

// -----

func.func @fused(%a: i32) {
  %0 = "arith.addi"(%a, %a) : (i32, i32) -> i64 loc(fused<"meta">["a", "b"])
  return
}
// CHECK: {{^}}<unknown>:0: error: loc(fused<"meta">["a", "b"]): 'arith.addi' op requires the same type for all operands and results

// -----

func.func @unknown(%a: i32) {
  %0 = "arith.addi"(%a, %a) : (i32, i32) -> i64 loc(unknown)
  return
}
// CHECK: {{^}}<unknown>:0: error: 'arith.addi' op requires the same type for all operands and results

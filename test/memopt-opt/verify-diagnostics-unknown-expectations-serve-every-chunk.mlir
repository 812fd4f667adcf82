// With --split-input-file, mlir-opt checks every chunk against the
// expectations of the whole file: the @unknown expectation written in the
// first chunk also meets the error of the second chunk, whose location (a
// name alone) has no file position. The run passes.
// RUN: memopt-opt %s --split-input-file --verify-diagnostics

// expected-error @unknown {{'arith.addi' op requires the same type}}
func.func @first(%a: i32) {
  %0 = "arith.addi"(%a, %a) : (i32, i32) -> i64 loc("first")
  return
}

// -----

func.func @second(%a: i32) {
  %0 = "arith.addi"(%a, %a) : (i32, i32) -> i64 loc("second")
  return
}

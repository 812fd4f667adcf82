// A diagnostic shows a source line only where LLVM's SourceMgr finds one: not
// for a column past the end of the line (line 14, "  return", has 8 columns),
// not for column 0, and not for another file, which memopt-opt does not read
// (mlir-opt cannot read this one either: it does not exist); line 14 of the
// source file is not shown in its place. THIS stands for the file's path.
// RUN: sed 's|THIS|%t.mlir|' %s > %t.mlir
// RUN: not memopt-opt %t.mlir --split-input-file 2>&1 | FileCheck %s --implicit-check-not=return
// RUN: not mlir-opt %t.mlir --split-input-file 2> %t.expected
// RUN: not memopt-opt %t.mlir --split-input-file 2> %t.actual
// RUN: diff %t.expected %t.actual

func.func @past_the_end(%a: i32) {
  %0 = "arith.addi"(%a, %a) : (i32, i32) -> i64 loc("THIS":14:40)
  return
}
// CHECK: .mlir.tmp.mlir:14:40: error: 'arith.addi' op requires the same type for all operands and results
// CHECK-NEXT: .mlir.tmp.mlir:14:40: note: see current operation:

// -----

func.func @column_zero(%a: i32) {
  %0 = "arith.addi"(%a, %a) : (i32, i32) -> i64 loc("THIS":14:0)
  return
}
// CHECK: .mlir.tmp.mlir:14:0: error: 'arith.addi' op requires the same type for all operands and results
// CHECK-NEXT: .mlir.tmp.mlir:14:0: note: see current operation:

// -----

func.func @other_file(%a: i32) {
  %0 = "arith.addi"(%a, %a) : (i32, i32) -> i64 loc("no-such-file.mlir":14:3)
  return
}
// CHECK: {{^}}no-such-file.mlir:14:3: error: 'arith.addi' op requires the same type for all operands and results
// CHECK-NEXT: {{^}}no-such-file.mlir:14:3: note: see current operation:

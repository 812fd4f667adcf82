// --irdl-file loads the dialects an IRDL file defines before the input is
// read, so the input may use their ops (in generic form); a bad IRDL file is
// reported with its own lines.
// RUN: memopt-opt %s --irdl-file=%S/Inputs/toy-irdl.mlir | FileCheck %s
// RUN: not memopt-opt %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not memopt-opt %s --irdl-file=%S/Inputs/invalid.mlir 2>&1 | FileCheck %s --check-prefix=BAD

func.func @f(%a: i32) -> i32 {
  %0 = "toy.twice"(%a) : (i32) -> i32
  return %0 : i32
}
// CHECK: "toy.twice"(%arg0) : (i32) -> i32
// UNKNOWN: irdl-file-loads-dialects-before-the-input.mlir:9:19: error: operation being parsed with an unregistered dialect
// BAD: invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error:

// --emit-bytecode writes MLIR bytecode (at the version --emit-bytecode-version
// asks) that mlir-opt reads back to the same IR. As in mlir-opt, a version
// out of range is an error, and so is a version without --emit-bytecode.
// RUN: memopt-opt %s --emit-bytecode -o %t.mlirbc
// RUN: head -c 4 %t.mlirbc | FileCheck %s --check-prefix=MAGIC
// RUN: mlir-opt %t.mlirbc | FileCheck %s
// RUN: memopt-opt %s --emit-bytecode --emit-bytecode-version=1 | mlir-opt | FileCheck %s
// RUN: not memopt-opt %s --emit-bytecode --emit-bytecode-version=100 -o %t.bad 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not test -e %t.bad
// RUN: not memopt-opt %s --emit-bytecode-version=1 2>&1 | FileCheck %s --check-prefix=TEXT
// RUN: not memopt-opt %s --emit-bytecode --emit-bytecode-version=one 2>&1 | FileCheck %s --check-prefix=INTEGER

func.func @f(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  return %0 : i32
}
// MAGIC: ML{{.}}R
// CHECK: func.func @f(%arg0: i32) -> i32
// CHECK-NEXT: arith.addi %arg0, %arg0 : i32

// RANGE: error: unsupported version requested 100, must be in range [0, {{[0-9]+}}]
// TEXT: error: bytecode version while not emitting bytecode
// INTEGER: error: '--emit-bytecode-version' takes an integer, not 'one'

// --no-implicit-module: the input's one top-level op is the root, printed
// without a module around it; the pipeline runs on it (upstream's pipeline
// parser reads a pipeline anchored on another op than builtin.module, as
// mlir-opt does). Zero or two top-level ops are an error, with mlir-opt's text.
// RUN: memopt-opt %s --no-implicit-module | FileCheck %s
// RUN: memopt-opt %s --no-implicit-module -p 'any(cse)' | FileCheck %s --check-prefix=CSE
// RUN: memopt-opt %s --no-implicit-module --cse | FileCheck %s --check-prefix=CSE
// RUN: not memopt-opt %s --no-implicit-module -p 'builtin.module(cse)' 2>&1 | FileCheck %s --check-prefix=ANCHOR
// RUN: not memopt-opt %S/Inputs/two-top-level-ops.mlir --no-implicit-module 2>&1 | FileCheck %s --check-prefix=TWO -DFILE=%S/Inputs/two-top-level-ops.mlir
// RUN: echo "" | not memopt-opt - --no-implicit-module 2>&1 | FileCheck %s --check-prefix=NONE
// Upstream's parser does not know memopt's passes: they need a module root,
// and a builtin.module root still takes them.
// RUN: not memopt-opt %s --no-implicit-module --memopt-verify 2>&1 | FileCheck %s --check-prefix=MEMOPT-PASS
// RUN: memopt-opt %S/Inputs/one-module.mlir --no-implicit-module --memopt-verify | FileCheck %s --check-prefix=MODULE

func.func @f(%a: i32) -> (i32, i32) {
  %0 = arith.addi %a, %a : i32
  %1 = arith.addi %a, %a : i32
  return %0, %1 : i32, i32
}
// CHECK-NOT: module
// CHECK: func.func @f

// CSE-NOT: module
// CSE: %[[SUM:.*]] = arith.addi
// CSE-NEXT: return %[[SUM]], %[[SUM]]

// ANCHOR: error: can't run 'builtin.module' pass manager on 'func.func' op

// TWO: [[FILE]]:0:0: error: source must contain a single top-level operation, found: 2
// NONE: <stdin>:0:0: error: source must contain a single top-level operation, found: 0

// MEMOPT-PASS: memopt-opt: error: {{.*}}'memopt-verify' does not refer to a registered pass or pass pipeline

// MODULE: module @m {

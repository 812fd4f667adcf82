// memopt and upstream passes mix in one pipeline with options, nested op
// pipelines, and upstream passes anchored on other ops nested implicitly.
// RUN: memopt-opt %s --pass-pipeline='builtin.module(canonicalize{max-iterations=3}, memopt-verify, func.func(cse), affine-data-copy-generate)' | FileCheck %s --check-prefix=NESTED
// RUN: memopt-opt %s --canonicalize --memopt-verify --cse | FileCheck %s
// RUN: memopt-opt %s --canonicalize="max-iterations=3 top-down=false" | FileCheck %s
// RUN: memopt-opt %s --pass-pipeline='builtin.module(canonicalize)' --mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=AFTER
// RUN: memopt-opt %s --pass-pipeline='builtin.module(memopt-verify,func.func(cse))' --mlir-print-ir-before-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=BEFORE
// RUN: memopt-opt %s --pass-pipeline='builtin.module(memopt-verify,func.func(cse))' --mlir-timing -o /dev/null 2>&1 | FileCheck %s --check-prefix=TIMING

// CHECK-LABEL: func.func @folds
// CHECK-NEXT: %[[C:.*]] = arith.constant 5 : i32
// CHECK-NEXT: return %[[C]], %[[C]] : i32, i32
func.func @folds() -> (i32, i32) {
  %a = arith.constant 2 : i32
  %b = arith.constant 3 : i32
  %c = arith.addi %a, %b : i32
  %d = arith.addi %a, %b : i32
  return %c, %d : i32, i32
}

// affine-data-copy-generate runs on func.func: nested implicitly, it leaves
// its (unused) index constant behind, which shows it ran.
// NESTED-LABEL: func.func @folds
// NESTED-NEXT: arith.constant 0 : index
// NESTED-NEXT: %[[C:.*]] = arith.constant 5 : i32
// NESTED-NEXT: return %[[C]], %[[C]] : i32, i32

// AFTER: IR Dump After Canonicalizer (canonicalize)
// AFTER: arith.constant 5 : i32

// BEFORE: IR Dump Before memopt-verify (memopt-verify)
// BEFORE: IR Dump Before CSE (cse)

// TIMING: Execution time report
// TIMING: memopt-verify
// TIMING: CSE

// The remaining IR-printing and pass-manager flags: after-change, after-failure
// (with a failing upstream pass), module scope, one thread, no verifier.
// RUN: memopt-opt %s --pass-pipeline='builtin.module(func.func(canonicalize,cse))' --mlir-print-ir-after-all --mlir-print-ir-after-change -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHANGE
// RUN: memopt-opt %s --pass-pipeline='builtin.module(func.func(cse))' --mlir-print-ir-after-all --mlir-print-ir-module-scope --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s --check-prefix=SCOPE
// RUN: not memopt-opt %S/Inputs/unbufferizable.mlir --allow-unregistered-dialect --one-shot-bufferize --mlir-print-ir-after-failure -o /dev/null 2>&1 | FileCheck %s --check-prefix=FAILURE
// RUN: memopt-opt %s --canonicalize --verify-each=false | FileCheck %s --check-prefix=NOVERIFY

func.func @f() -> i32 {
  %a = arith.constant 2 : i32
  %b = arith.constant 2 : i32
  %c = arith.addi %a, %b : i32
  return %c : i32
}

// canonicalize folds the function to one constant; cse then changes nothing,
// so only canonicalize's dump appears.
// CHANGE: IR Dump After Canonicalizer (canonicalize)
// CHANGE-NOT: IR Dump After CSE

// SCOPE: IR Dump After CSE (cse) ('func.func' operation: @f)
// SCOPE-NEXT: module {

// memopt-opt prints diagnostics after the run, mlir-opt as they come.
// FAILURE-DAG: error: op was not bufferized
// FAILURE-DAG: IR Dump After OneShotBufferizePass Failed (one-shot-bufferize)

// NOVERIFY: arith.constant 4 : i32

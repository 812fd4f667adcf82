// --run-reproducer runs the pipeline of the file's mlir_reproducer resource
// (here cse in func.func, with the verifier off and one thread), before the
// pipeline of the command line. Without the flag the resource is ignored,
// with MLIR's warning. --mlir-generate-reproducer writes such a file: the IR
// after the pipeline and the pipeline, byte for byte as mlir-opt.
// RUN: memopt-opt %s --run-reproducer | FileCheck %s
// RUN: memopt-opt %s --run-reproducer --dump-pass-pipeline --canonicalize -o /dev/null 2>&1 | FileCheck %s --check-prefix=DUMP
// RUN: memopt-opt %s 2>&1 | FileCheck %s --check-prefix=IGNORED
// RUN: not memopt-opt %S/Inputs/reproducer-unknown-key.mlir --run-reproducer 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: memopt-opt %s --cse --mlir-generate-reproducer=%t.memopt -o /dev/null
// RUN: mlir-opt %s --cse --mlir-generate-reproducer=%t.mlir -o /dev/null
// RUN: diff %t.mlir %t.memopt
// RUN: memopt-opt %t.memopt --run-reproducer --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=AGAIN

func.func @f(%a: i32) -> (i32, i32) {
  %0 = arith.addi %a, %a : i32
  %1 = arith.addi %a, %a : i32
  return %0, %1 : i32, i32
}

{-#
  external_resources: {
    mlir_reproducer: {
      pipeline: "builtin.module(func.func(cse))",
      disable_threading: true,
      verify_each: false
    }
  }
#-}

// CHECK: %[[SUM:.*]] = arith.addi
// CHECK-NEXT: return %[[SUM]], %[[SUM]]
// CHECK-NOT: mlir_reproducer

// DUMP: Pass Manager with 2 passes:
// DUMP-NEXT: builtin.module(
// DUMP-NEXT:   func.func(
// DUMP-NEXT:     cse
// DUMP-NEXT:   ),
// DUMP-NEXT:   canonicalize{{.*}}
// DUMP-NEXT: )

// IGNORED: warning: ignoring unknown external resources for 'mlir_reproducer'
// IGNORED: arith.addi
// IGNORED-NEXT: arith.addi

// UNKNOWN: reproducer-unknown-key.mlir:8:7: error: unknown 'mlir_reproducer' resource key 'bogus'

// AGAIN: Pass Manager with 1 passes:
// AGAIN-NEXT: builtin.module(
// AGAIN-NEXT:   cse
// AGAIN-NEXT: )

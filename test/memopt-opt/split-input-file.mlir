// Each chunk is processed alone, keeps its line numbers, and the outputs are
// joined by the marker; a failing chunk fails the run but not the others.
// RUN: memopt-opt %s --split-input-file | FileCheck %s
// RUN: memopt-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(cse))' --verify-each=false --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// The marker is split in two on the RUN line: anywhere it occurs whole, even
// after text on a line, the input is cut.
// RUN: memopt-opt %s --split-input-file='// ==''===' | FileCheck %s --check-prefix=MARKER

// CHECK-LABEL: func.func @first
// CHECK: // -----
// CHECK-LABEL: func.func @second
// MARKER-LABEL: func.func @first
// MARKER: func.func @second
// MARKER-NOT: // -----
func.func @first() {
  return
}

// -----

func.func @second() {
  return
}

// GENERIC: "func.func"() <{function_type = () -> (), sym_name = "first"}>

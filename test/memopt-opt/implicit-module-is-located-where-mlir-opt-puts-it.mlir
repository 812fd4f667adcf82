// The module memopt-opt wraps around top-level ops has mlir-opt's location,
// line 0 and column 0 of the file, so output printed with locations is
// mlir-opt's byte for byte.
// RUN: memopt-opt %s --mlir-print-debuginfo | FileCheck %s
// RUN: memopt-opt %s --mlir-print-debuginfo > %t.memopt
// RUN: mlir-opt %s --mlir-print-debuginfo > %t.upstream
// RUN: diff %t.upstream %t.memopt

// CHECK: } loc(#[[MODULE:loc[0-9]*]])
// CHECK: #[[MODULE]] = loc("{{.*}}implicit-module-is-located-where-mlir-opt-puts-it.mlir":0:0)
func.func private @declared()

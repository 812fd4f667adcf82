// With --no-implicit-module and --split-input-file, a chunk that is not one
// op is reported where the chunk starts in the file, just after its marker
// (line 12, column 9), as mlir-opt's parser reports it, not at line 0.
// RUN: not memopt-opt %s --no-implicit-module --split-input-file 2> %t.memopt | FileCheck %s --check-prefix=OUTPUT
// RUN: FileCheck %s < %t.memopt
// RUN: not mlir-opt %s --no-implicit-module --split-input-file 2> %t.upstream
// RUN: diff %t.upstream %t.memopt

// OUTPUT: func.func private @first()
func.func private @first()

// -----
// CHECK: no-implicit-module-chunk-of-two-ops-is-reported-at-its-start.mlir:[[# @LINE - 1]]:9: error: source must contain a single top-level operation, found: 2
func.func private @second()
func.func private @third()

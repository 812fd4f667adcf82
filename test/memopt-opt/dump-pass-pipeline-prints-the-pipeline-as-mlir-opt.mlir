// --dump-pass-pipeline prints the pipeline about to run to standard error in
// OpPassManager::dump's form: the count of top-level passes, then one pass a
// line, nested pass managers indented. Pass flags nest as mlir-opt nests them.
// RUN: memopt-opt %s --dump-pass-pipeline --canonicalize --cse -o /dev/null 2>&1 | FileCheck %s --check-prefix=FLAGS
// RUN: memopt-opt %s --dump-pass-pipeline -p 'builtin.module(func.func(cse,canonicalize{max-iterations=1}),symbol-dce)' -o /dev/null 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: memopt-opt %s --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=EMPTY
// Byte for byte as mlir-opt:
// RUN: memopt-opt %s --dump-pass-pipeline -p 'builtin.module(func.func(cse,canonicalize{max-iterations=1}),symbol-dce)' -o /dev/null 2> %t.memopt
// RUN: mlir-opt %s --dump-pass-pipeline -p 'builtin.module(func.func(cse,canonicalize{max-iterations=1}),symbol-dce)' -o /dev/null 2> %t.mlir
// RUN: diff %t.mlir %t.memopt
// RUN: memopt-opt %s --dump-pass-pipeline -o /dev/null 2> %t.memopt
// RUN: mlir-opt %s --dump-pass-pipeline -o /dev/null 2> %t.mlir
// RUN: diff %t.mlir %t.memopt

func.func @f() {
  return
}

// FLAGS: Pass Manager with 2 passes:
// FLAGS-NEXT: builtin.module(
// FLAGS-NEXT:   canonicalize{  max-iterations=10 {{.*}}},
// FLAGS-NEXT:   cse
// FLAGS-NEXT: )

// NESTED: Pass Manager with 2 passes:
// NESTED-NEXT: builtin.module(
// NESTED-NEXT:   func.func(
// NESTED-NEXT:     cse,
// NESTED-NEXT:     canonicalize{  max-iterations=1 {{.*}}}
// NESTED-NEXT:   ),
// NESTED-NEXT:   symbol-dce
// NESTED-NEXT: )

// EMPTY: Pass Manager with 0 passes:
// EMPTY-NEXT: builtin.module(
// EMPTY-EMPTY:
// EMPTY-NEXT: )

// --mlir-print-ir-tree-dir writes the --mlir-print-ir-* dumps to files under
// the directory, one per pass and op, named as mlir-opt names them
// (<op>_<symbol>/<index>_<pass>.mlir), instead of standard error.
// RUN: rm -rf %t
// RUN: memopt-opt %s -p 'builtin.module(func.func(cse),symbol-dce)' --mlir-print-ir-after-all --mlir-print-ir-tree-dir=%t -o /dev/null 2>&1 | count 0
// RUN: FileCheck %s --check-prefix=CSE < %t/builtin_module_no-symbol-name/func_func_f/0_0_cse.mlir
// RUN: FileCheck %s --check-prefix=DCE < %t/builtin_module_no-symbol-name/1_symbol-dce.mlir
// The same files as mlir-opt's:
// RUN: rm -rf %t.mlir-opt
// RUN: mlir-opt %s -p 'builtin.module(func.func(cse),symbol-dce)' --mlir-print-ir-after-all --mlir-print-ir-tree-dir=%t.mlir-opt -o /dev/null
// RUN: diff -r %t.mlir-opt %t

func.func @f() {
  return
}
// CSE: func.func @f()
// DCE: module {

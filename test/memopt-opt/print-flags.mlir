// --mlir-print-op-generic, --mlir-print-debuginfo, --allow-unregistered-dialect,
// and reading from standard input.
// RUN: memopt-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: memopt-opt %s --mlir-print-debuginfo | FileCheck %s --check-prefix=DEBUG -DFILE=%s
// RUN: memopt-opt --mlir-print-debuginfo - < %s | FileCheck %s --check-prefix=DEBUG -DFILE="<stdin>"
// RUN: not memopt-opt %S/Inputs/unregistered.mlir 2>&1 | FileCheck %s --check-prefix=REJECT
// RUN: memopt-opt %S/Inputs/unregistered.mlir --allow-unregistered-dialect | FileCheck %s --check-prefix=ALLOW

func.func @f() {
  return
}
// GENERIC: "func.func"() <{function_type = () -> (), sym_name = "f"}> ({
// GENERIC: "func.return"() : () -> ()

// DEBUG: return loc(#[[RET:loc[0-9]*]])
// DEBUG: #[[RET]] = loc("[[FILE]]":10:3)

// REJECT: unregistered.mlir:1:10: error: operation being parsed with an unregistered dialect
// ALLOW: "foo.bar"() : () -> ()

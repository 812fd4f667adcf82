// --mlir-timing prints one report, in the tree display (the C API's), of the
// pipeline that ran: the pass manager that checks the pipeline before the
// input is read reports nothing.
// RUN: memopt-opt %s --mlir-timing --cse -o /dev/null 2>&1 | FileCheck %s --implicit-check-not="Execution time report"
// RUN: memopt-opt %s --mlir-timing --mlir-timing-display=tree --mlir-output-format=text --cse -o /dev/null 2>&1 | FileCheck %s --implicit-check-not="Execution time report"

func.func @f() {
  return
}
// CHECK: ... Execution time report ...
// CHECK: ----Wall Time----  ----Name----
// CHECK: CSE
// CHECK-NEXT: (A) DominanceInfo
// CHECK: Total

// --mlir-diagnostic-verbosity-level=errors drops warnings (and remarks),
// =warnings drops remarks only, as mlir-opt's DiagnosticFilter does. The
// warning here is the parser's, about a resource nobody reads.
// RUN: memopt-opt %s 2>&1 | FileCheck %s --check-prefix=ALL
// RUN: memopt-opt %s --mlir-diagnostic-verbosity-level=warnings 2>&1 | FileCheck %s --check-prefix=ALL
// RUN: memopt-opt %s --mlir-diagnostic-verbosity-level=errors 2>&1 | FileCheck %s --check-prefix=ERRORS
// --mlir-disable-diagnostic-notes drops notes emitted on their own only;
// this warning has none and stays.
// RUN: memopt-opt %s --mlir-disable-diagnostic-notes 2>&1 | FileCheck %s --check-prefix=ALL

func.func @f() {
  return
}

{-#
  external_resources: {
    nobody_reads_this: {
      key: "value"
    }
  }
#-}
// ALL: warning: ignoring unknown external resources for 'nobody_reads_this'
// ERRORS-NOT: warning
// ERRORS: func.func @f()

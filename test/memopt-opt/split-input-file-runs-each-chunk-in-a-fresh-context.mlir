// With --split-input-file every chunk is parsed and transformed in a context
// of its own, as with mlir-opt: the transform library the preload pass loads
// for the first chunk is not still loaded when the second chunk preloads it
// again (which failed with "doubly defined symbol @print_functions").
// What transform.print writes (on LLVM's stream) stays beside the IR of its
// own chunk on standard output: printer output, then that chunk's module,
// then the marker.
// RUN: memopt-opt %s --split-input-file --transform-preload-library=transform-library-paths=%S/Inputs/transform-library-print.mlir --transform-interpreter=entry-point=print_functions | FileCheck %s
// RUN: memopt-opt %s --split-input-file --transform-preload-library=transform-library-paths=%S/Inputs/transform-library-print.mlir --transform-interpreter=entry-point=print_functions > %t.memopt
// RUN: mlir-opt %s --split-input-file --transform-preload-library=transform-library-paths=%S/Inputs/transform-library-print.mlir --transform-interpreter=entry-point=print_functions > %t.upstream
// RUN: diff %t.upstream %t.memopt

// CHECK: {{\[\[\[}} IR printer: library ]]]
// CHECK-NEXT: func.func @first
// CHECK: module {
// CHECK-NEXT: func.func @first
// CHECK-NOT: @second
// CHECK: {{\[\[\[}} IR printer: library ]]]
// CHECK-NEXT: func.func @second
// CHECK: module {
// CHECK-NEXT: func.func @second
func.func @first() {
  return
}

// -----

func.func @second() {
  return
}

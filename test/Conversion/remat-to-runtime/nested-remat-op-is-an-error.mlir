// remat ops inside a region other than a remat.regenerate body are refused
// with a located error and no output.
// RUN: not memopt-opt %s --remat-to-runtime -o %t.out 2>&1 | FileCheck %s
// RUN: not test -e %t.out

func.func @nested(%x: tensor<4xf32>, %c: i1) {
  scf.if %c {
    // CHECK: nested-remat-op-is-an-error.mlir:[[@LINE+1]]:5: error: remat-to-runtime: remat ops are lowered only at the top level of a function body or in a remat.regenerate body
    "remat.evict"(%x) : (tensor<4xf32>) -> ()
  }
  return
}

// The printing flags of mlir-opt, each through the C API's
// MlirOpPrintingFlags, print as mlir-opt does (diff; with locations the
// implicit module is at 1:1 in memopt-opt, 0:0 in mlir-opt, so those are
// checked with FileCheck), and also in the IR dumps around passes.
// --no-implicit-module keeps the function the top-level op, so that
// --mlir-print-skip-regions shows its signature.
// RUN: memopt-opt %s --mlir-print-local-scope --mlir-print-debuginfo | FileCheck %s --check-prefix=LOCAL
// RUN: memopt-opt %s --mlir-elide-elementsattrs-if-larger=2 | FileCheck %s --check-prefix=ELIDE
// RUN: memopt-opt %s --mlir-print-debuginfo --mlir-pretty-debuginfo | FileCheck %s --check-prefix=PRETTY
// RUN: memopt-opt %s --mlir-use-nameloc-as-prefix | FileCheck %s --check-prefix=NAMELOC
// RUN: memopt-opt %s --no-implicit-module --mlir-print-skip-regions | FileCheck %s --check-prefix=SKIP
// RUN: memopt-opt %s --no-implicit-module --canonicalize --mlir-print-ir-after-all --mlir-print-skip-regions -o /dev/null 2>&1 | FileCheck %s --check-prefix=DUMP
// RUN: memopt-opt %s --mlir-print-local-scope > %t.memopt && mlir-opt %s --mlir-print-local-scope > %t.mlir && diff %t.mlir %t.memopt
// RUN: memopt-opt %s --mlir-elide-elementsattrs-if-larger=2 > %t.memopt && mlir-opt %s --mlir-elide-elementsattrs-if-larger=2 > %t.mlir && diff %t.mlir %t.memopt
// RUN: memopt-opt %s --mlir-use-nameloc-as-prefix > %t.memopt && mlir-opt %s --mlir-use-nameloc-as-prefix > %t.mlir && diff %t.mlir %t.memopt
// RUN: memopt-opt %s --no-implicit-module --mlir-print-skip-regions > %t.memopt && mlir-opt %s --no-implicit-module --mlir-print-skip-regions > %t.mlir && diff %t.mlir %t.memopt
// RUN: memopt-opt %S/Inputs/resource-blob.mlir --mlir-elide-resource-strings-if-larger=4 | FileCheck %s --check-prefix=RESOURCE
// RUN: memopt-opt %S/Inputs/resource-blob.mlir --mlir-elide-resource-strings-if-larger=4 > %t.memopt && mlir-opt %S/Inputs/resource-blob.mlir --mlir-elide-resource-strings-if-larger=4 > %t.mlir && diff %t.mlir %t.memopt
// RUN: memopt-opt %s --mlir-print-assume-verified > %t.memopt && mlir-opt %s --mlir-print-assume-verified > %t.mlir && diff %t.mlir %t.memopt

// Local scope: no #map alias, locations inline.
// LOCAL-NOT: #map =
#map = affine_map<(d0) -> (d0 + 1)>
func.func @f(%arg0: tensor<3xf32>, %i: index) -> (tensor<3xf32>, index) {
  %c = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %0 = arith.addf %arg0, %c : tensor<3xf32> loc("sum")
  // PRETTY: arith.addf %arg0, %cst : tensor<3xf32> "sum"
  %1 = affine.apply #map(%i)
  // LOCAL: affine.apply affine_map<(d0) -> (d0 + 1)>(%arg1) loc("{{.*}}":[[# @LINE - 1]]:8)
  // PRETTY: affine.apply #map(%arg1) {{.*}}printing-flags-print-as-mlir-opt-does.mlir:[[# @LINE - 2]]:8
  return %0, %1 : tensor<3xf32>, index
}

// Three elements are more than two: elided.
// ELIDE: arith.constant dense_resource<__elided__> : tensor<3xf32>

// NAMELOC: %sum = arith.addf %arg0, %cst

// The blob's string, "0x010000000102", has 14 characters, more than 4: it is
// left out, and (as in mlir-opt) its metadata block is printed empty.
// RESOURCE: dense_resource<blob1>
// RESOURCE-NOT: 0x010000000102

// SKIP: func.func @f(%arg0: tensor<3xf32>, %arg1: index) -> (tensor<3xf32>, index) {...}
// SKIP-NOT: return

// DUMP: IR Dump After Canonicalizer
// DUMP: func.func @f({{.*}}) -> (tensor<3xf32>, index) {...}

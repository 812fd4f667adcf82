// --verify-roundtrip: the parsed input, printed generic with locations and
// parsed back (as text, then as bytecode) in a fresh context, prints the
// same; then the run goes on as usual.
// RUN: memopt-opt %s --verify-roundtrip | FileCheck %s
// RUN: memopt-opt %s --verify-roundtrip --allow-unregistered-dialect | FileCheck %s

func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = arith.addf %a, %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}
// CHECK: func.func @f
// CHECK-NEXT: arith.addf

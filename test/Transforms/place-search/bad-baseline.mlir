// A baseline that is not 'pipeline,tensor,data' is rejected when the pipeline
// is parsed, before the input is read, with the option named.
// RUN: not memopt-opt %s --pass-pipeline="builtin.module(place-search{baseline=4x2})" 2>&1 | FileCheck %s
// CHECK: <pass-pipeline>:1:{{[0-9]+}}: error: option 'baseline' must be 'pipeline,tensor,data' (positive integers), got '4x2'
// CHECK-NOT: bad-baseline.mlir
// RUN: not memopt-opt %s --place-search=baseline=0,1,1 2>&1 | FileCheck %s --check-prefix=FLAG
// FLAG: memopt-opt: error: in '--place-search=baseline=0,1,1': option 'baseline' must be 'pipeline,tensor,data' (positive integers), got '0,1,1'
module {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}

// A baseline that is not 'pipeline,tensor,data' is rejected.
// RUN: memopt-opt %s --pass-pipeline="builtin.module(place-search{baseline=4x2})" --verify-diagnostics

// expected-error @below {{place-search: baseline must be 'pipeline,tensor,data' (positive integers), got '4x2'}}
module {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}

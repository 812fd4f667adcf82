// Invariants of remat ops that IRDL cannot state.
// RUN: memopt-opt %s --split-input-file --verify-diagnostics

func.func @dim_out_of_range(%x: tensor<?xf32>) {
  // expected-error @+1 {{dimension 1 is out of range for the operand}}
  "remat.dim_symbol"(%x) {dim = 1 : i64, symbol = "n"} : (tensor<?xf32>) -> ()
  return
}

// -----

func.func @empty_symbol(%x: tensor<?xf32>) {
  // expected-error @+1 {{symbol name must not be empty}}
  "remat.dim_symbol"(%x) {dim = 0 : i64, symbol = ""} : (tensor<?xf32>) -> ()
  return
}

// -----

func.func @regenerate_wrong_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{body yields a value of another type than result #0}}
  %r = "remat.regenerate"(%x) ({
    %e = tensor.empty() : tensor<8xf32>
    vector.yield %e : tensor<8xf32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @regenerate_changes_type(%x: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{result type must equal the operand type}}
  %r = "remat.regenerate"(%x) ({
    %e = tensor.empty() : tensor<8xf32>
    vector.yield %e : tensor<8xf32>
  }) : (tensor<4xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// Invariants of spm ops that IRDL cannot state.
// RUN: memopt-opt %s --split-input-file --verify-diagnostics

func.func @pin_too_small(%x: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-error @+1 {{pins 512 bytes but the tensor needs 1024}}
  %p = "spm.pin"(%x) {offset = 0 : i64, size = 512 : i64} : (tensor<16x16xf32>) -> tensor<16x16xf32>
  return %p : tensor<16x16xf32>
}

// -----

func.func @pin_negative_offset(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{attribute 'offset' must be at least 0, got -16}}
  %p = "spm.pin"(%x) {offset = -16 : i64, size = 16 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %p : tensor<4xf32>
}

// -----

func.func @load_changes_type(%x: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{result type must equal the operand type}}
  %p = "spm.load"(%x) : (tensor<4xf32>) -> tensor<8xf32>
  return %p : tensor<8xf32>
}

// -----

func.func @tile_not_positive() -> tensor<4xf32> {
  // expected-error @+1 {{tile sizes must be positive, got 0 at #0}}
  %g = "spm.group"() ({
    %e = tensor.empty() : tensor<4xf32>
    vector.yield %e : tensor<4xf32>
  }) {resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, tile = array<i64: 0>} : () -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

func.func @group_yield_type() -> tensor<4xf32> {
  // expected-error @+1 {{body yields a value of another type than result #0}}
  %g = "spm.group"() ({
    %e = tensor.empty() : tensor<8xf32>
    vector.yield %e : tensor<8xf32>
  }) {resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, tile = array<i64: 4>} : () -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// Invariants of chunk.region that IRDL cannot state, and those it can.
// RUN: memopt-opt %s --split-input-file --verify-diagnostics

func.func @missing_attribute(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{attribute "chunk_size" is expected but not provided}}
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<4xf32>):
    vector.yield %s : tensor<4xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @dims_count(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{needs one chunk dimension per input and per output: got 2 input_dims for 1 inputs}}
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<4xf32>):
    vector.yield %s : tensor<4xf32>
  }) {input_dims = array<i64: 0, 0>, output_dims = array<i64: 0>, chunk_size = 4 : i64, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @dim_out_of_range(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{chunk dimension 1 of input #0 is out of range for rank 1}}
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<4xf32>):
    vector.yield %s : tensor<4xf32>
  }) {input_dims = array<i64: 1>, output_dims = array<i64: 0>, chunk_size = 4 : i64, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @extents_differ(%x: tensor<8x4xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{chunked dimensions differ in extent: 8 and 4}}
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<2x4xf32>):
    %t = tensor.empty() : tensor<2x8xf32>
    vector.yield %t : tensor<2x8xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 2 : i64, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x4xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @chunk_too_large(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{chunk_size 16 exceeds the chunked extent 8}}
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<16xf32>):
    vector.yield %s : tensor<16xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 16 : i64, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @chunk_not_positive(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{attribute 'chunk_size' must be at least 1, got 0}}
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<4xf32>):
    vector.yield %s : tensor<4xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 0 : i64, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @wrong_slice(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{body argument #0 must be a slice of input #0 along dimension 0}}
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<4x2xf32>):
    %t = tensor.empty() : tensor<4x4xf32>
    vector.yield %t : tensor<4x4xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 4 : i64, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @wrong_terminator(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{region must end in 'vector.yield'}}
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<4xf32>):
    "tosa.yield"(%s) : (tensor<4xf32>) -> ()
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 4 : i64, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @yield_count(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{body yields 2 values but the op has 1 outputs}}
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<4xf32>):
    vector.yield %s, %s : tensor<4xf32>, tensor<4xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 4 : i64, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @not_a_tensor(%x: memref<8xf32>) {
  // expected-error @+1 {{expected base type 'builtin.tensor' but got 'builtin.memref'}}
  "chunk.region"(%x) ({
  ^bb0(%s: memref<4xf32>):
    vector.yield
  }) {input_dims = array<i64: 0>, output_dims = array<i64>, chunk_size = 4 : i64, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 0, 0, 0, 0, 0, 0, 0, 0>} : (memref<8xf32>) -> ()
  return
}

// -----

func.func @offset_not_index(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{body argument #1 after the input slices must be the chunk offset, of type index}}
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<4xf32>, %offset: i64):
    vector.yield %s : tensor<4xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 4 : i64, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @too_many_arguments(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{body takes 3 arguments but the op has 1 inputs (one slice per input, then an optional index offset)}}
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<4xf32>, %offset: index, %extra: index):
    vector.yield %s : tensor<4xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 4 : i64, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// The body of this region takes static 4-row slices of a 10-row input, so
// its partial last chunk (rows 8 and 9) would run on the shifted window of
// rows 6..9 and add rows 6 and 7 to the sum a second time. chunk-to-scf
// rejects it at the region, naming the result; the same region with a
// "max" result (a maximum is unchanged by repeated rows) lowers.
// RUN: memopt-opt %s --split-input-file --chunk-to-scf --allow-unregistered-dialect --verify-diagnostics

func.func @sum_with_static_slices(%x: tensor<10x4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{cannot be lowered to scf: result #0 is combined with "add", and the partial last chunk would run on a shifted window that counts rows twice; give the body '?' slices along the chunked dimension}}
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<4x4xf32>):
    %p = "test.column_sums"(%s) : (tensor<4x4xf32>) -> tensor<4xf32>
    vector.yield %p : tensor<4xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: -1>, chunk_size = 4 : i64,
      combiners = ["add"],
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<10x4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @max_with_static_slices(%x: tensor<10x4xf32>) -> tensor<4xf32> {
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<4x4xf32>):
    %p = "test.column_max"(%s) : (tensor<4x4xf32>) -> tensor<4xf32>
    vector.yield %p : tensor<4xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: -1>, chunk_size = 4 : i64,
      combiners = ["max"],
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<10x4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

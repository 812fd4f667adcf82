// A chunk_size whose value does not fit a signed 64-bit integer is rejected
// at the region, not truncated: 2^64 + 3 as an i128 would otherwise read as
// its low 64 bits, 3, and 2^64 - 1 as a ui64 as -1.
// RUN: memopt-opt %s --split-input-file --verify-diagnostics --chunk-to-scf

func.func @i128_above_int64(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'chunk.region' op attribute 'chunk_size' (18446744073709551619 : i128) is out of the 64-bit signed range}}
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<?x8xf32>):
    %e = math.exp %s : tensor<?x8xf32>
    vector.yield %e : tensor<?x8xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 18446744073709551619 : i128,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @ui64_above_int64(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'chunk.region' op attribute 'chunk_size' (18446744073709551615 : ui64) is out of the 64-bit signed range}}
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<?x8xf32>):
    %e = math.exp %s : tensor<?x8xf32>
    vector.yield %e : tensor<?x8xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 18446744073709551615 : ui64,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

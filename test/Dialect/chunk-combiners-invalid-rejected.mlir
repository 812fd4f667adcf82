// The `combiners` and `rescale_by` attributes of chunk.region, checked in C
// (IRDL in MLIR 22 has no optional attributes): each malformed use gets its
// error at the region, naming the result and the offending value.
// RUN: memopt-opt %s --split-input-file --verify-diagnostics

// A combiner name that is none of the four.
func.func @unknown_name(%x: tensor<10x4xf32>) {
  // expected-error @+1 {{combiner "sum" of result #0 is unknown: expected "concat", "add", "max" or "rescaled-add"}}
  %r0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<?x4xf32>):
    %c0 = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4xf32>
    %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %p = linalg.reduce ins(%s : tensor<?x4xf32>) outs(%z : tensor<4xf32>) dimensions = [0]
      (%a: f32, %b: f32) { %t = arith.addf %a, %b : f32
        linalg.yield %t : f32 }
    vector.yield %p : tensor<4xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: -1>, chunk_size = 4 : i64, combiners = ["sum"], operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<10x4xf32>) -> tensor<4xf32>
  return
}

// -----

// A combiner that is not a string.
func.func @not_a_string(%x: tensor<10x4xf32>) {
  // expected-error @+1 {{combiner 1 : i64 of result #0 is unknown}}
  %r0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<?x4xf32>):
    %c0 = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4xf32>
    %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %p = linalg.reduce ins(%s : tensor<?x4xf32>) outs(%z : tensor<4xf32>) dimensions = [0]
      (%a: f32, %b: f32) { %t = arith.addf %a, %b : f32
        linalg.yield %t : f32 }
    vector.yield %p : tensor<4xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: -1>, chunk_size = 4 : i64, combiners = [1], operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<10x4xf32>) -> tensor<4xf32>
  return
}

// -----

// Two combiners for one result.
func.func @wrong_count(%x: tensor<10x4xf32>) {
  // expected-error @+1 {{attribute 'combiners' must be an array of strings, one per result (1)}}
  %r0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<?x4xf32>):
    %c0 = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4xf32>
    %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %p = linalg.reduce ins(%s : tensor<?x4xf32>) outs(%z : tensor<4xf32>) dimensions = [0]
      (%a: f32, %b: f32) { %t = arith.addf %a, %b : f32
        linalg.yield %t : f32 }
    vector.yield %p : tensor<4xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: -1>, chunk_size = 4 : i64, combiners = ["add", "add"], operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<10x4xf32>) -> tensor<4xf32>
  return
}

// -----

// A single string instead of an array.
func.func @not_an_array(%x: tensor<10x4xf32>) {
  // expected-error @+1 {{attribute 'combiners' must be an array of strings, one per result (1)}}
  %r0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<?x4xf32>):
    %c0 = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4xf32>
    %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %p = linalg.reduce ins(%s : tensor<?x4xf32>) outs(%z : tensor<4xf32>) dimensions = [0]
      (%a: f32, %b: f32) { %t = arith.addf %a, %b : f32
        linalg.yield %t : f32 }
    vector.yield %p : tensor<4xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: -1>, chunk_size = 4 : i64, combiners = "add", operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<10x4xf32>) -> tensor<4xf32>
  return
}

// -----

// A summed result has no dimension to be assembled along.
func.func @combined_with_dim(%x: tensor<10x4xf32>) {
  // expected-error @+1 {{result #0 is combined with "add", not concatenated: its output_dims entry must be -1, got 0}}
  %r0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<?x4xf32>):
    %c0 = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4xf32>
    %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %p = linalg.reduce ins(%s : tensor<?x4xf32>) outs(%z : tensor<4xf32>) dimensions = [0]
      (%a: f32, %b: f32) { %t = arith.addf %a, %b : f32
        linalg.yield %t : f32 }
    vector.yield %p : tensor<4xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 4 : i64, combiners = ["add"], operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<10x4xf32>) -> tensor<4xf32>
  return
}

// -----

// Without combiners every result is "concat" and needs a dimension.
func.func @concat_without_dim(%x: tensor<10x4xf32>) {
  // expected-error @+1 {{result #0 is concatenated ("concat"): its output_dims entry must be the dimension it is assembled along, not -1}}
  %r0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<?x4xf32>):
    vector.yield %s : tensor<?x4xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: -1>, chunk_size = 4 : i64, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<10x4xf32>) -> tensor<10x4xf32>
  return
}

// -----

// A summed result is yielded whole (its partial value), not as a slice.
func.func @yield_slice_for_sum(%x: tensor<10x4xf32>) {
  // expected-error @+1 {{result #0 is combined with "add": the body must yield a value of the result's type, it yields tensor<?x4xf32> but the result is tensor<10x4xf32>}}
  %r0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<?x4xf32>):
    vector.yield %s : tensor<?x4xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: -1>, chunk_size = 4 : i64, combiners = ["add"], operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<10x4xf32>) -> tensor<10x4xf32>
  return
}

// -----

// index has neither a -inf nor a fixed smallest value.
func.func @index_max(%x: tensor<10x4xf32>) {
  // expected-error @+1 {{result #0 is combined with "max", which needs a float or integer element type, not index}}
  %r0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<?x4xf32>):
    %c0 = arith.constant 0 : index
    %e = tensor.empty() : tensor<4xindex>
    %z = linalg.fill ins(%c0 : index) outs(%e : tensor<4xindex>) -> tensor<4xindex>
    vector.yield %z : tensor<4xindex>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: -1>, chunk_size = 4 : i64, combiners = ["max"], operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<10x4xf32>) -> tensor<4xindex>
  return
}

// -----

// A rescaled sum must say which maximum rescales it.
func.func @rescale_by_missing(%x: tensor<10x4xf32>) {
  // expected-error @+1 {{a "rescaled-add" result needs attribute 'rescale_by' naming its "max" result}}
  %r0, %r1 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<?x4xf32>):
    %c0 = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4xf32>
    %m = linalg.fill ins(%c0 : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %e2 = tensor.empty() : tensor<4x3xf32>
    %l = linalg.fill ins(%c0 : f32) outs(%e2 : tensor<4x3xf32>) -> tensor<4x3xf32>
    vector.yield %m, %l : tensor<4xf32>, tensor<4x3xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: -1, -1>, chunk_size = 4 : i64, combiners = ["max", "rescaled-add"], operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>} : (tensor<10x4xf32>) -> (tensor<4xf32>, tensor<4x3xf32>)
  return
}

// -----

// One entry per result, -1 where unused.
func.func @rescale_by_length(%x: tensor<10x4xf32>) {
  // expected-error @+1 {{attribute 'rescale_by' must have one entry per result: got 1 for 2}}
  %r0, %r1 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<?x4xf32>):
    %c0 = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4xf32>
    %m = linalg.fill ins(%c0 : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %e2 = tensor.empty() : tensor<4x3xf32>
    %l = linalg.fill ins(%c0 : f32) outs(%e2 : tensor<4x3xf32>) -> tensor<4x3xf32>
    vector.yield %m, %l : tensor<4xf32>, tensor<4x3xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: -1, -1>, chunk_size = 4 : i64, combiners = ["max", "rescaled-add"], rescale_by = array<i64: 0>, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>} : (tensor<10x4xf32>) -> (tensor<4xf32>, tensor<4x3xf32>)
  return
}

// -----

// rescale_by is a dense i64 array, not an array attribute.
func.func @rescale_by_kind(%x: tensor<10x4xf32>) {
  // expected-error @+1 {{attribute 'rescale_by' must be an array<i64: ...>}}
  %r0, %r1 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<?x4xf32>):
    %c0 = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4xf32>
    %m = linalg.fill ins(%c0 : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %e2 = tensor.empty() : tensor<4x3xf32>
    %l = linalg.fill ins(%c0 : f32) outs(%e2 : tensor<4x3xf32>) -> tensor<4x3xf32>
    vector.yield %m, %l : tensor<4xf32>, tensor<4x3xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: -1, -1>, chunk_size = 4 : i64, combiners = ["max", "rescaled-add"], rescale_by = [-1, 0], operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>} : (tensor<10x4xf32>) -> (tensor<4xf32>, tensor<4x3xf32>)
  return
}

// -----

// The result named must be a maximum.
func.func @rescale_by_not_max(%x: tensor<10x4xf32>) {
  // expected-error @+1 {{result #1 is rescaled by result #0, which is "add", not "max"}}
  %r0, %r1 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<?x4xf32>):
    %c0 = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4xf32>
    %m = linalg.fill ins(%c0 : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %e2 = tensor.empty() : tensor<4x3xf32>
    %l = linalg.fill ins(%c0 : f32) outs(%e2 : tensor<4x3xf32>) -> tensor<4x3xf32>
    vector.yield %m, %l : tensor<4xf32>, tensor<4x3xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: -1, -1>, chunk_size = 4 : i64, combiners = ["add", "rescaled-add"], rescale_by = array<i64: -1, 0>, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>} : (tensor<10x4xf32>) -> (tensor<4xf32>, tensor<4x3xf32>)
  return
}

// -----

// A rescaled sum cannot be its own maximum.
func.func @rescale_by_itself(%x: tensor<10x4xf32>) {
  // expected-error @+1 {{result #1 is rescaled by itself: its rescale_by entry must name a "max" result}}
  %r0, %r1 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<?x4xf32>):
    %c0 = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4xf32>
    %m = linalg.fill ins(%c0 : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %e2 = tensor.empty() : tensor<4x3xf32>
    %l = linalg.fill ins(%c0 : f32) outs(%e2 : tensor<4x3xf32>) -> tensor<4x3xf32>
    vector.yield %m, %l : tensor<4xf32>, tensor<4x3xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: -1, -1>, chunk_size = 4 : i64, combiners = ["max", "rescaled-add"], rescale_by = array<i64: -1, 1>, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>} : (tensor<10x4xf32>) -> (tensor<4xf32>, tensor<4x3xf32>)
  return
}

// -----

// Index 2 of two results.
func.func @rescale_by_out_of_range(%x: tensor<10x4xf32>) {
  // expected-error @+1 {{rescale_by entry of result #1 (2) must be the index of a "max" result (0 to 1)}}
  %r0, %r1 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<?x4xf32>):
    %c0 = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4xf32>
    %m = linalg.fill ins(%c0 : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %e2 = tensor.empty() : tensor<4x3xf32>
    %l = linalg.fill ins(%c0 : f32) outs(%e2 : tensor<4x3xf32>) -> tensor<4x3xf32>
    vector.yield %m, %l : tensor<4xf32>, tensor<4x3xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: -1, -1>, chunk_size = 4 : i64, combiners = ["max", "rescaled-add"], rescale_by = array<i64: -1, 2>, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>} : (tensor<10x4xf32>) -> (tensor<4xf32>, tensor<4x3xf32>)
  return
}

// -----

// Only rescaled sums have an entry.
func.func @rescale_by_on_max(%x: tensor<10x4xf32>) {
  // expected-error @+1 {{rescale_by entry of result #0 must be -1: the result is "max", not "rescaled-add" (got 1)}}
  %r0, %r1 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<?x4xf32>):
    %c0 = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4xf32>
    %m = linalg.fill ins(%c0 : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %e2 = tensor.empty() : tensor<4x3xf32>
    %l = linalg.fill ins(%c0 : f32) outs(%e2 : tensor<4x3xf32>) -> tensor<4x3xf32>
    vector.yield %m, %l : tensor<4xf32>, tensor<4x3xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: -1, -1>, chunk_size = 4 : i64, combiners = ["max", "rescaled-add"], rescale_by = array<i64: 1, 0>, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>} : (tensor<10x4xf32>) -> (tensor<4xf32>, tensor<4x3xf32>)
  return
}

// -----

// The maximum broadcasts along trailing dimensions only: 4 is not a prefix of 3x4.
func.func @prefix_mismatch(%x: tensor<10x4xf32>) {
  // expected-error @+1 {{result #1 (tensor<3x4xf32>) is rescaled by result #0 (tensor<4xf32>), so its type must be the maximum's with trailing dimensions appended}}
  %r0, %r1 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<?x4xf32>):
    %c0 = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4xf32>
    %m = linalg.fill ins(%c0 : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %e2 = tensor.empty() : tensor<3x4xf32>
    %l = linalg.fill ins(%c0 : f32) outs(%e2 : tensor<3x4xf32>) -> tensor<3x4xf32>
    vector.yield %m, %l : tensor<4xf32>, tensor<3x4xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: -1, -1>, chunk_size = 4 : i64, combiners = ["max", "rescaled-add"], rescale_by = array<i64: -1, 0>, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>} : (tensor<10x4xf32>) -> (tensor<4xf32>, tensor<3x4xf32>)
  return
}

// -----

// exp rescaling needs floats.
func.func @integer_rescaled(%x: tensor<10x4xf32>) {
  // expected-error @+1 {{result #1 is combined with "rescaled-add", which needs a float element type, not i32}}
  %r0, %r1 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<?x4xf32>):
    %c0 = arith.constant 0 : i32
    %e = tensor.empty() : tensor<4xi32>
    %m = linalg.fill ins(%c0 : i32) outs(%e : tensor<4xi32>) -> tensor<4xi32>
    %e2 = tensor.empty() : tensor<4x3xi32>
    %l = linalg.fill ins(%c0 : i32) outs(%e2 : tensor<4x3xi32>) -> tensor<4x3xi32>
    vector.yield %m, %l : tensor<4xi32>, tensor<4x3xi32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: -1, -1>, chunk_size = 4 : i64, combiners = ["max", "rescaled-add"], rescale_by = array<i64: -1, 0>, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>} : (tensor<10x4xf32>) -> (tensor<4xi32>, tensor<4x3xi32>)
  return
}

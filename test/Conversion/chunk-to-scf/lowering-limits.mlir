// Valid chunk regions that chunk-to-scf cannot lower are rejected with an
// error on the region. (Regions that break memopt's invariants never reach
// the pass: they are rejected at parse, see test/Dialect/chunk-invalid.mlir.)
// RUN: memopt-opt %s --split-input-file --verify-diagnostics --chunk-to-scf
// When one region of a function fails, none is lowered. (Both printing flags:
// through the C API, after-failure alone prints nothing; see autochunk.md.)
// RUN: not memopt-opt %s --split-input-file --chunk-to-scf \
// RUN:     --mlir-print-ir-after-all --mlir-print-ir-after-failure 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNCHANGED

func.func @dynamic_extent_without_inputs(%y: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{the chunked extent is dynamic and there is no input to read it from}}
  %0 = "chunk.region"() ({
    vector.yield %y : tensor<?x8xf32>
  }) {input_dims = array<i64>, output_dims = array<i64: 0>, chunk_size = 4 : i64,
      operandSegmentSizes = array<i32: 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : () -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

func.func @yield_of_another_element_type(%x: tensor<64x8xf32>) -> tensor<64x8xf32> {
  // expected-error @+1 {{yielded slice #0 does not fit output #0: it needs the output's element type and extents, with chunk_size (16) or '?' along dimension 0}}
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<16x8xf32>):
    %h = arith.truncf %s : tensor<16x8xf32> to tensor<16x8xf16>
    vector.yield %h : tensor<16x8xf16>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 16 : i64,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<64x8xf32>) -> tensor<64x8xf32>
  return %0 : tensor<64x8xf32>
}

// -----

// UNCHANGED-LABEL: func.func @one_bad_region
// UNCHANGED:       "chunk.region"
// UNCHANGED:       chunk_size = 16
// UNCHANGED:       "chunk.region"
// UNCHANGED:       chunk_size = 8
// UNCHANGED-NOT:   scf.for
func.func @one_bad_region(%x: tensor<64x8xf32>) -> (tensor<64x8xf32>, tensor<64x8xf32>) {
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<16x8xf32>):
    %e = math.exp %s : tensor<16x8xf32>
    vector.yield %e : tensor<16x8xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 16 : i64,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<64x8xf32>) -> tensor<64x8xf32>
  // expected-error @+1 {{yielded slice #0 does not fit output #0}}
  %1 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<8x8xf32>):
    %e = math.exp %s : tensor<8x8xf32>
    %wide = tensor.empty() : tensor<16x8xf32>
    vector.yield %wide : tensor<16x8xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 8 : i64,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<64x8xf32>) -> tensor<64x8xf32>
  return %0, %1 : tensor<64x8xf32>, tensor<64x8xf32>
}

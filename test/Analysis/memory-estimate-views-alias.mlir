// Views (expand/collapse_shape, extract_slice, cast) share their source's
// buffer: the buffer lives until the last use of any of its views. A
// collapse_shape that memref.collapse_shape cannot express as a view (its
// source's strides are not provably contiguous) copies the source instead.
// RUN: memopt-opt %s --split-input-file --verify-diagnostics --memory-estimate=per-op=true -o /dev/null

// %a (8x16 f32, 512 bytes) is only read through the slice of its collapsed
// view, by the copy into %b at position 5: it lives until then, although %a
// itself has no use after position 2.
// expected-remark @+1 {{peak activation memory: 768 bytes at 'tensor.empty' (position 4)}}
func.func @views(%x: tensor<8x16xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<8x16xf32> // expected-remark {{live activation memory: 512 bytes}}
  %a = linalg.copy ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32> // expected-remark {{live activation memory: 512 bytes}}
  %v = tensor.collapse_shape %a [[0, 1]] : tensor<8x16xf32> into tensor<128xf32> // expected-remark {{live activation memory: 512 bytes}}
  %s = tensor.extract_slice %v[0] [64] [1] : tensor<128xf32> to tensor<64xf32> // expected-remark {{live activation memory: 512 bytes}}
  %e2 = tensor.empty() : tensor<64xf32> // expected-remark {{live activation memory: 768 bytes}}
  %b = linalg.copy ins(%s : tensor<64xf32>) outs(%e2 : tensor<64xf32>) -> tensor<64xf32> // expected-remark {{live activation memory: 768 bytes}}
  // %a's buffer is free now.
  %e3 = tensor.empty() : tensor<64xf32> // expected-remark {{live activation memory: 512 bytes}}
  %c = linalg.add ins(%b, %b : tensor<64xf32>, tensor<64xf32>) outs(%e3 : tensor<64xf32>) -> tensor<64xf32> // expected-remark {{live activation memory: 512 bytes}}
  return %c : tensor<64xf32> // expected-remark {{live activation memory: 256 bytes}}
}

// -----

// A write into a view writes the viewed buffer: filling the expanded view
// of %a in place fills %a, so no second buffer.
// expected-remark @+1 {{peak activation memory: 256 bytes at 'tensor.empty' (position 1)}}
func.func @write_through_view(%x: tensor<64xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32 // expected-remark {{live activation memory: 0 bytes}}
  %e = tensor.empty() : tensor<64xf32> // expected-remark {{live activation memory: 256 bytes}}
  %a = linalg.copy ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32> // expected-remark {{live activation memory: 256 bytes}}
  %v = tensor.expand_shape %a [[0, 1]] output_shape [4, 16] : tensor<64xf32> into tensor<4x16xf32> // expected-remark {{live activation memory: 256 bytes}}
  %f = linalg.fill ins(%zero : f32) outs(%v : tensor<4x16xf32>) -> tensor<4x16xf32> // expected-remark {{live activation memory: 256 bytes}}
  return %f : tensor<4x16xf32> // expected-remark {{live activation memory: 256 bytes}}
}

// -----

// Function arguments get fully dynamic strides at the function boundary, so
// collapsing 8x16 into 128 cannot be proven contiguous: bufferization copies
// the argument (512 bytes) where the collapse is. Collapsing away a unit
// dimension (1x128 -> 128) needs no proof and stays a view.
// expected-remark @+1 {{peak activation memory: 1024 bytes at 'tensor.empty' (position 1)}}
func.func @collapse_argument(%x: tensor<8x16xf32>) -> tensor<128xf32> {
  %v = tensor.collapse_shape %x [[0, 1]] : tensor<8x16xf32> into tensor<128xf32> // expected-remark {{live activation memory: 512 bytes}}
  %e = tensor.empty() : tensor<128xf32> // expected-remark {{live activation memory: 1024 bytes}}
  %c = linalg.copy ins(%v : tensor<128xf32>) outs(%e : tensor<128xf32>) -> tensor<128xf32> // expected-remark {{live activation memory: 1024 bytes}}
  return %c : tensor<128xf32> // expected-remark {{live activation memory: 512 bytes}}
}

// expected-remark @+1 {{peak activation memory: 512 bytes at 'tensor.empty' (position 1)}}
func.func @collapse_unit_argument(%x: tensor<1x128xf32>) -> tensor<128xf32> {
  %v = tensor.collapse_shape %x [[0, 1]] : tensor<1x128xf32> into tensor<128xf32> // expected-remark {{live activation memory: 0 bytes}}
  %e = tensor.empty() : tensor<128xf32> // expected-remark {{live activation memory: 512 bytes}}
  %c = linalg.copy ins(%v : tensor<128xf32>) outs(%e : tensor<128xf32>) -> tensor<128xf32> // expected-remark {{live activation memory: 512 bytes}}
  return %c : tensor<128xf32> // expected-remark {{live activation memory: 512 bytes}}
}

// -----

// The rows [0, 4) of %b are contiguous: their collapse is a view of %b. The
// columns [0, 8) are not (rows of 8 elements, 16 apart): collapsing them
// copies the 8x8 slice first (256 bytes), at the collapse.
// expected-remark @+1 {{peak activation memory: 1024 bytes at 'tensor.empty' (position 6)}}
func.func @collapse_slices(%x: tensor<8x16xf32>) -> tensor<64xf32> {
  %e0 = tensor.empty() : tensor<8x16xf32> // expected-remark {{live activation memory: 512 bytes}}
  %b = linalg.copy ins(%x : tensor<8x16xf32>) outs(%e0 : tensor<8x16xf32>) -> tensor<8x16xf32> // expected-remark {{live activation memory: 512 bytes}}
  %rows = tensor.extract_slice %b[0, 0] [4, 16] [1, 1] : tensor<8x16xf32> to tensor<4x16xf32> // expected-remark {{live activation memory: 512 bytes}}
  %r = tensor.collapse_shape %rows [[0, 1]] : tensor<4x16xf32> into tensor<64xf32> // expected-remark {{live activation memory: 512 bytes}}
  %cols = tensor.extract_slice %b[0, 0] [8, 8] [1, 1] : tensor<8x16xf32> to tensor<8x8xf32> // expected-remark {{live activation memory: 512 bytes}}
  %c = tensor.collapse_shape %cols [[0, 1]] : tensor<8x8xf32> into tensor<64xf32> // expected-remark {{live activation memory: 768 bytes}}
  %e = tensor.empty() : tensor<64xf32> // expected-remark {{live activation memory: 1024 bytes}}
  %s = linalg.add ins(%r, %c : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32> // expected-remark {{live activation memory: 1024 bytes}}
  return %s : tensor<64xf32> // expected-remark {{live activation memory: 256 bytes}}
}

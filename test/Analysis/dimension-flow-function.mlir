// Planning a whole function body as one chunk region: which chunk dimensions
// are legal, which inputs are sliced, and which ops are hoisted.
// RUN: memopt-opt %s --split-input-file --verify-diagnostics --print-dimension-flow=mode=function -o /dev/null

// Attention: rows of the query chunk through QK^T, the row softmax and P·V;
// the transpose of K does not depend on the rows and is hoisted (with its
// init and the zero). Columns of the output chunk only through the last
// matmul, so everything before it is hoisted.
// expected-remark @+2 {{chunk dim 0: extent 128, inputs %arg0 dim 0; outputs %8 dim 0; 3 of 11 ops hoisted}}
// expected-remark @+1 {{chunk dim 1: extent 64, inputs %arg2 dim 1; outputs %8 dim 1; 8 of 11 ops hoisted}}
func.func @attention(%q: tensor<128x64xf32>, %k: tensor<128x64xf32>, %v: tensor<128x64xf32>) -> tensor<128x64xf32> {
  %kt0 = tensor.empty() : tensor<64x128xf32>
  %kt = linalg.transpose ins(%k : tensor<128x64xf32>) outs(%kt0 : tensor<64x128xf32>) permutation = [1, 0]
  %s0 = tensor.empty() : tensor<128x128xf32>
  %zero = arith.constant 0.0 : f32
  %sf = linalg.fill ins(%zero : f32) outs(%s0 : tensor<128x128xf32>) -> tensor<128x128xf32>
  %s = linalg.matmul ins(%q, %kt : tensor<128x64xf32>, tensor<64x128xf32>) outs(%sf : tensor<128x128xf32>) -> tensor<128x128xf32>
  %p0 = tensor.empty() : tensor<128x128xf32>
  %p = linalg.softmax dimension(1) ins(%s : tensor<128x128xf32>) outs(%p0 : tensor<128x128xf32>) -> tensor<128x128xf32>
  %o0 = tensor.empty() : tensor<128x64xf32>
  %of = linalg.fill ins(%zero : f32) outs(%o0 : tensor<128x64xf32>) -> tensor<128x64xf32>
  %o = linalg.matmul ins(%p, %v : tensor<128x128xf32>, tensor<128x64xf32>) outs(%of : tensor<128x64xf32>) -> tensor<128x64xf32>
  return %o : tensor<128x64xf32>
}

// -----

// The softmax normalizes the dimension the output is chunked along.
// expected-remark @+2 {{chunk dim 0: extent 4}}
// expected-remark @+1 {{chunk dim 1: illegal: 'linalg.softmax' normalizes along dimension 1}}
func.func @softmax_dim(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}

// -----

// A value chunked along rows is also needed whole by a later op of the range.
// expected-remark @+2 {{chunk dim 0: illegal: a value chunked along dimension 0 is also needed whole in the range}}
// expected-remark @+1 {{chunk dim 1: illegal: a value chunked along dimension}}
func.func @needed_whole(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %e = math.exp %x : tensor<8x8xf32>
  %init = tensor.empty() : tensor<8x8xf32>
  %m = linalg.matmul ins(%e, %e : tensor<8x8xf32>, tensor<8x8xf32>) outs(%init : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %m : tensor<8x8xf32>
}

// -----

// A transpose inside the range: rows of the output are columns of the input.
// expected-remark @+2 {{chunk dim 0: extent 16, inputs %arg0 dim 1; outputs %1 dim 0; 0 of 3 ops hoisted}}
// expected-remark @+1 {{chunk dim 1: extent 4, inputs %arg0 dim 0; outputs %1 dim 1; 0 of 3 ops hoisted}}
func.func @transposed(%x: tensor<4x16xf32>) -> tensor<16x4xf32> {
  %init = tensor.empty() : tensor<16x4xf32>
  %t = linalg.transpose ins(%x : tensor<4x16xf32>) outs(%init : tensor<16x4xf32>) permutation = [1, 0]
  %n = math.tanh %t : tensor<16x4xf32>
  return %n : tensor<16x4xf32>
}

// -----

// Reshapes inside the range: the sliced input and the output differ in extent,
// and an inner member of a group (dimension 2) chunks the input's dimension
// in a strided pattern, which a slice of the input cannot take.
// expected-remark @+3 {{chunk dim 0: extent 2, inputs %arg0 dim 0; outputs %0 dim 0; 0 of 2 ops hoisted}}
// expected-remark @+2 {{chunk dim 1: illegal: the chunked dimensions of the inputs and outputs differ in extent (12 and 3)}}
// expected-remark @+1 {{chunk dim 2: illegal: a value chunked in a strided pattern (an inner member of a reshaped group) crosses the range}}
func.func @reshaped(%x: tensor<2x12xf32>) -> tensor<2x3x4xf32> {
  %e = tensor.expand_shape %x [[0], [1, 2]] output_shape [2, 3, 4] : tensor<2x12xf32> into tensor<2x3x4xf32>
  %n = math.tanh %e : tensor<2x3x4xf32>
  return %n : tensor<2x3x4xf32>
}

// -----

// One projection split into two heads, each used after the range (q and k of
// attention): the primary output %t fixes the rows (its dimension 1), and the
// other output %b, computed from the same chunked projection, is chunked
// along its rows too. Planned from the primary output alone, %y would be
// needed whole by %b's slice. Along %t's dimension 0, the columns of one
// head, the slice takes part of the projection's columns.
// expected-remark @+2 {{chunk dim 0: illegal: 'tensor.extract_slice' takes part of dimension 1 (only whole dimensions pass through)}}
// expected-remark @+1 {{chunk dim 1: extent 8, inputs %arg0 dim 0; outputs %transposed dim 1, %extracted_slice_0 dim 0; 1 of 8 ops hoisted}}
func.func @split_heads(%x: tensor<8x4xf32>, %w: tensor<4x6xf32>) -> (tensor<8x3xf32>, tensor<3x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %y0 = tensor.empty() : tensor<8x6xf32>
  %yf = linalg.fill ins(%zero : f32) outs(%y0 : tensor<8x6xf32>) -> tensor<8x6xf32>
  %y = linalg.matmul ins(%x, %w : tensor<8x4xf32>, tensor<4x6xf32>) outs(%yf : tensor<8x6xf32>) -> tensor<8x6xf32>
  %a = tensor.extract_slice %y[0, 0] [8, 3] [1, 1] : tensor<8x6xf32> to tensor<8x3xf32>
  %b = tensor.extract_slice %y[0, 3] [8, 3] [1, 1] : tensor<8x6xf32> to tensor<8x3xf32>
  %t0 = tensor.empty() : tensor<3x8xf32>
  %t = linalg.transpose ins(%a : tensor<8x3xf32>) outs(%t0 : tensor<3x8xf32>) permutation = [1, 0]
  return %b, %t : tensor<8x3xf32>, tensor<3x8xf32>
}

// -----

// A function that returns nothing has no output to chunk along. Reading the
// return's first operand crashed.
// expected-remark @+1 {{no chunk dim: the function returns no value}}
func.func @returns_nothing(%x: tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %y = linalg.copy ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return
}

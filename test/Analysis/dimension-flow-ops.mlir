// Dimension flow through each supported op kind: where each result dimension
// comes from in every operand, and which ops reduce or block it; for each
// loop an op reduces, whether its chunks' partial results can be combined.
// RUN: memopt-opt %s --split-input-file --verify-diagnostics --print-dimension-flow -o /dev/null

func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // expected-remark @+4 {{result #0 dim 0: operand #0 dim 0, operand #1 whole, operand #2 dim 0}}
  // expected-remark @+3 {{result #0 dim 1: operand #0 whole, operand #1 dim 1, operand #2 dim 1}}
  // A sum, but from %c: chunks of k would each add %c.
  // expected-remark @+1 {{reduced loop 2: not combinable: 'linalg.matmul' starts its reduction of loop 2 from a value other than the identity}}
  %m = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %m : tensor<4x16xf32>
}

// -----

func.func @batch_matmul(%a: tensor<2x4x8xf32>, %b: tensor<2x8x16xf32>, %c: tensor<2x4x16xf32>) -> tensor<2x4x16xf32> {
  // expected-remark @+4 {{result #0 dim 0: operand #0 dim 0, operand #1 dim 0, operand #2 dim 0}}
  // expected-remark @+3 {{result #0 dim 1: operand #0 dim 1, operand #1 whole, operand #2 dim 1}}
  // expected-remark @+2 {{result #0 dim 2: operand #0 whole, operand #1 dim 2, operand #2 dim 2}}
  // expected-remark @+1 {{reduced loop 3: not combinable: 'linalg.batch_matmul' starts its reduction of loop 3 from a value other than the identity}}
  %m = linalg.batch_matmul ins(%a, %b : tensor<2x4x8xf32>, tensor<2x8x16xf32>) outs(%c : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  return %m : tensor<2x4x16xf32>
}

// -----

func.func @transpose(%x: tensor<2x3x4xf32>, %init: tensor<4x2x3xf32>) -> tensor<4x2x3xf32> {
  // expected-remark @+3 {{result #0 dim 0: operand #0 dim 2, operand #1 dim 0}}
  // expected-remark @+2 {{result #0 dim 1: operand #0 dim 0, operand #1 dim 1}}
  // expected-remark @+1 {{result #0 dim 2: operand #0 dim 1, operand #1 dim 2}}
  %t = linalg.transpose ins(%x : tensor<2x3x4xf32>) outs(%init : tensor<4x2x3xf32>) permutation = [2, 0, 1]
  return %t : tensor<4x2x3xf32>
}

// -----

func.func @broadcast_and_reduce(%x: tensor<8xf32>, %b: tensor<4x8xf32>, %r: tensor<4xf32>) -> tensor<4xf32> {
  // expected-remark @+2 {{result #0 dim 0: operand #0 whole, operand #1 dim 0}}
  // expected-remark @+1 {{result #0 dim 1: operand #0 dim 0, operand #1 dim 1}}
  %bc = linalg.broadcast ins(%x : tensor<8xf32>) outs(%b : tensor<4x8xf32>) dimensions = [0]
  // The reduced dimension is not a result dimension: rows still chunk.
  // expected-remark @+2 {{result #0 dim 0: operand #0 dim 0, operand #1 dim 0}}
  // expected-remark @+1 {{reduced loop 1: not combinable: 'linalg.reduce' starts its reduction of loop 1 from a value other than the identity}}
  %red = linalg.reduce ins(%bc : tensor<4x8xf32>) outs(%r : tensor<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %red : tensor<4xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @generic(%x: tensor<4x8xf32>, %bias: tensor<4xf32>, %out: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-remark @+2 {{result #0 dim 0: operand #0 dim 0, operand #1 dim 0, operand #2 dim 0}}
  // expected-remark @+1 {{result #0 dim 1: operand #0 dim 1, operand #1 whole, operand #2 dim 1}}
  %g = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %bias : tensor<4x8xf32>, tensor<4xf32>) outs(%out : tensor<4x8xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %g : tensor<4x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_reads_index(%out: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-remark @+2 {{result #0 dim 0: operand #0 dim 0; reads the index of loop 0 (offset per chunk)}}
  // expected-remark @+1 {{result #0 dim 1: operand #0 dim 1}}
  %g = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%out : tensor<4x8xf32>) {
    ^bb0(%o: f32):
      %i = linalg.index 0 : index
      %c = arith.index_cast %i : index to i32
      %f = arith.sitofp %c : i32 to f32
      linalg.yield %f : f32
  } -> tensor<4x8xf32>
  return %g : tensor<4x8xf32>
}

// -----

func.func @convolution(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>, %o: tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32> {
  // The batch and output channels pass through; rows and columns read a window.
  // expected-remark @+7 {{result #0 dim 0: operand #0 dim 0, operand #1 whole, operand #2 dim 0}}
  // expected-remark @+6 {{result #0 dim 1: blocked: 'linalg.conv_2d_nhwc_hwcf' reads operand #0 along loop 1 through a window or a combination}}
  // expected-remark @+5 {{result #0 dim 2: blocked: 'linalg.conv_2d_nhwc_hwcf' reads operand #0 along loop 2 through a window}}
  // expected-remark @+4 {{result #0 dim 3: operand #0 whole, operand #1 dim 3, operand #2 dim 3}}
  // expected-remark @+3 {{reduced loop 4: not combinable: 'linalg.conv_2d_nhwc_hwcf' reads operand #0 along loop 4 through a window or a combination}}
  // expected-remark @+2 {{reduced loop 5: not combinable: 'linalg.conv_2d_nhwc_hwcf' reads operand #0 along loop 5 through a window or a combination}}
  // expected-remark @+1 {{reduced loop 6: not combinable: 'linalg.conv_2d_nhwc_hwcf' starts its reduction of loop 6 from a value other than the identity}}
  %c = linalg.conv_2d_nhwc_hwcf ins(%x, %w : tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) outs(%o : tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  return %c : tensor<1x6x6x4xf32>
}

// -----

func.func @softmax(%x: tensor<4x8xf32>, %o: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-remark @+2 {{result #0 dim 0: operand #0 dim 0, operand #1 dim 0}}
  // expected-remark @+1 {{result #0 dim 1: reduced: 'linalg.softmax' normalizes along dimension 1}}
  %s = linalg.softmax dimension(1) ins(%x : tensor<4x8xf32>) outs(%o : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}

// -----

func.func @elementwise(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-remark @+2 {{result #0 dim 0: operand #0 dim 0, operand #1 dim 0}}
  // expected-remark @+1 {{result #0 dim 1: operand #0 dim 1, operand #1 dim 1}}
  %a = arith.addf %x, %y : tensor<4x8xf32>
  // expected-remark @+2 {{result #0 dim 0: operand #0 dim 0}}
  // expected-remark @+1 {{result #0 dim 1: operand #0 dim 1}}
  %e = math.exp %a : tensor<4x8xf32>
  return %e : tensor<4x8xf32>
}

// -----

func.func @reshapes(%x: tensor<2x3x4xf32>) -> (tensor<6x4xf32>, tensor<2x3x2x2xf32>) {
  // expected-remark @+2 {{result #0 dim 0: operand #0 dim 0}}
  // expected-remark @+1 {{result #0 dim 1: operand #0 dim 2}}
  %c = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
  // expected-remark @+4 {{result #0 dim 0: operand #0 dim 0}}
  // expected-remark @+3 {{result #0 dim 1: operand #0 dim 1}}
  // expected-remark @+2 {{result #0 dim 2: operand #0 dim 2}}
  // expected-remark @+1 {{result #0 dim 3: blocked: 'tensor.expand_shape' splits dimension 3 out of an inner position of a group}}
  %e = tensor.expand_shape %x [[0], [1], [2, 3]] output_shape [2, 3, 2, 2] : tensor<2x3x4xf32> into tensor<2x3x2x2xf32>
  return %c, %e : tensor<6x4xf32>, tensor<2x3x2x2xf32>
}

// -----

func.func @slices_and_constants(%x: tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<4x8xf32>, tensor<2xf32>) {
  // expected-remark @+2 {{result #0 dim 0: operand #0 dim 0}}
  // expected-remark @+1 {{result #0 dim 1: blocked: 'tensor.extract_slice' takes part of dimension 1 (only whole dimensions pass through)}}
  %s = tensor.extract_slice %x[0, 2] [4, 2] [1, 1] : tensor<4x8xf32> to tensor<4x2xf32>
  // expected-remark @+2 {{result #0 dim 0: no operands}}
  // expected-remark @+1 {{result #0 dim 1: no operands}}
  %splat = arith.constant dense<1.0> : tensor<4x8xf32>
  // expected-remark @+1 {{result #0 dim 0: blocked: 'arith.constant' is a constant that is not a splat}}
  %table = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %s, %splat, %table : tensor<4x2xf32>, tensor<4x8xf32>, tensor<2xf32>
}

// -----

// A pad passes the dimensions it leaves alone; a padded one is read through a window.
func.func @pad(%x: tensor<2x6x6x4xf32>) -> tensor<2x8x8x4xf32> {
  %zero = arith.constant 0.0 : f32
  // expected-remark @+4 {{result #0 dim 0: operand #0 dim 0}}
  // expected-remark @+3 {{result #0 dim 1: blocked: 'tensor.pad' pads dimension 1}}
  // expected-remark @+2 {{result #0 dim 2: blocked: 'tensor.pad' pads dimension 2}}
  // expected-remark @+1 {{result #0 dim 3: operand #0 dim 3}}
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<2x6x6x4xf32> to tensor<2x8x8x4xf32>
  return %p : tensor<2x8x8x4xf32>
}

// -----

// A concatenation passes every dimension but the one it joins along.
func.func @concat(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x16xf32> {
  // expected-remark @+2 {{result #0 dim 0: operand #0 dim 0, operand #1 dim 0}}
  // expected-remark @+1 {{result #0 dim 1: blocked: 'tensor.concat' joins its operands along dimension 1}}
  %c = tensor.concat dim(1) %x, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
  return %c : tensor<4x16xf32>
}

// -----

func.func @unsupported(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-remark @+2 {{result #0 dim 0: blocked: 'tensor.generate' is not modelled by dimension flow}}
  // expected-remark @+1 {{result #0 dim 1: blocked: 'tensor.generate' is not modelled by dimension flow}}
  %g = tensor.generate {
  ^bb0(%i: index, %j: index):
    %v = tensor.extract %x[%i, %j] : tensor<4x8xf32>
    tensor.yield %v : f32
  } : tensor<4x8xf32>
  return %g : tensor<4x8xf32>
}

// -----

// Gradients of a linear layer's weight sum over the tokens (loop 2): a chunk
// of tokens gives a partial sum, and the sums of all chunks add up to the
// whole, because every chunk starts from the fill of 0.
func.func @weight_gradient(%x: tensor<16x8xf32>, %dy: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %zero = arith.constant 0.0 : f32
  // expected-remark @+2 {{result #0 dim 0: no operands}}
  // expected-remark @+1 {{result #0 dim 1: no operands}}
  %e = tensor.empty() : tensor<8x4xf32>
  // expected-remark @+2 {{result #0 dim 0: operand #0 whole, operand #1 dim 0}}
  // expected-remark @+1 {{result #0 dim 1: operand #0 whole, operand #1 dim 1}}
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  // expected-remark @+3 {{result #0 dim 0: operand #0 dim 1, operand #1 whole, operand #2 dim 0}}
  // expected-remark @+2 {{result #0 dim 1: operand #0 whole, operand #1 dim 1, operand #2 dim 1}}
  // expected-remark @+1 {{reduced loop 2: combined by add: operand #0 dim 0, operand #1 dim 0, operand #2 whole}}
  %w = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%x, %dy : tensor<16x8xf32>, tensor<16x4xf32>) outs(%z : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %w : tensor<8x4xf32>
}

// -----

// A row maximum starting from -inf combines by max; a payload that is not
// a sum or a maximum (a product) does not combine.
func.func @row_max_and_product(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %one = arith.constant 1.0 : f32
  // expected-remark @+1 {{result #0 dim 0: no operands}}
  %e = tensor.empty() : tensor<4xf32>
  // expected-remark @+1 {{result #0 dim 0: operand #0 whole, operand #1 dim 0}}
  %m0 = linalg.fill ins(%ninf : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  // expected-remark @+2 {{result #0 dim 0: operand #0 dim 0, operand #1 dim 0}}
  // expected-remark @+1 {{reduced loop 1: combined by max: operand #0 dim 1, operand #1 whole}}
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%m0 : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.maximumf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  // expected-remark @+1 {{result #0 dim 0: operand #0 whole, operand #1 dim 0}}
  %p0 = linalg.fill ins(%one : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  // expected-remark @+2 {{result #0 dim 0: operand #0 dim 0, operand #1 dim 0}}
  // expected-remark @+1 {{reduced loop 1: not combinable: 'linalg.generic' reduces loop 1 with a payload that is not a sum or a maximum}}
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%p0 : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.mulf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %m, %p : tensor<4xf32>, tensor<4xf32>
}

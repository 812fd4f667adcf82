// The layer graph of NCHW networks as torch-mlir writes them: rows are
// dimension 2. A padded stride-2 convolution, a padded depthwise convolution
// with a reshaped filter (a weight, not a layer), squeeze-and-excitation (a
// global sum pooling whose window covers every row, then a broadcast multiply
// of the per-channel result), a concatenation along channels and an instance
// norm (its statistics reduce over rows: every row is read).
// RUN: memopt-opt %s --split-input-file --print-layer-graph -o /dev/null 2>&1 | FileCheck %s

// CHECK: layer 0: conv (linalg.conv_2d_nchw_fchw), 4 rows of 32 elements, 3456 MACs, 216 weight elements; reads an argument (window 3 stride 2); last read by layer 4
// CHECK: layer 1: depthwise (linalg.depthwise_conv_2d_nchw_chw), 4 rows of 32 elements, 1152 MACs, 72 weight elements; reads layer 0 (window 3 stride 1); last read by layer 3
// The window of the global pooling is the whole 4-row input.
// CHECK: layer 2: pool (linalg.pooling_nchw_sum), 1 rows of 8 elements, 128 MACs, 0 weight elements; reads layer 1 (window 4 stride 1); last read by layer 3
// CHECK: layer 3: elementwise (linalg.generic), 4 rows of 32 elements, 128 MACs, 0 weight elements; reads layer 1 (same rows), layer 2 (broadcast); last read by layer 4
// CHECK: layer 4: concat (tensor.concat), 4 rows of 64 elements, 0 MACs, 0 weight elements; reads layer 3 (same rows), layer 0 (same rows); returned
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#bcast = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>
func.func @torch_block(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>, %dw: tensor<8x1x3x3xf32>) -> tensor<1x16x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x3x8x8xf32> to tensor<1x3x10x10xf32>
  %e0 = tensor.empty() : tensor<1x8x4x4xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %conv = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
    ins(%padded, %w : tensor<1x3x10x10xf32>, tensor<8x3x3x3xf32>) outs(%f0 : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %padded1 = tensor.pad %conv low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x8x4x4xf32> to tensor<1x8x6x6xf32>
  %filter = tensor.collapse_shape %dw [[0, 1], [2], [3]] : tensor<8x1x3x3xf32> into tensor<8x3x3xf32>
  %e1 = tensor.empty() : tensor<1x8x4x4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %depthwise = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
    ins(%padded1, %filter : tensor<1x8x6x6xf32>, tensor<8x3x3xf32>) outs(%f1 : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %e2 = tensor.empty() : tensor<1x8x1x1xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x8x1x1xf32>) -> tensor<1x8x1x1xf32>
  %window = tensor.empty() : tensor<4x4xf32>
  %pooled = linalg.pooling_nchw_sum {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
    ins(%depthwise, %window : tensor<1x8x4x4xf32>, tensor<4x4xf32>) outs(%f2 : tensor<1x8x1x1xf32>) -> tensor<1x8x1x1xf32>
  %e3 = tensor.empty() : tensor<1x8x4x4xf32>
  %scaled = linalg.generic {indexing_maps = [#map, #bcast, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%depthwise, %pooled : tensor<1x8x4x4xf32>, tensor<1x8x1x1xf32>) outs(%e3 : tensor<1x8x4x4xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %y = arith.mulf %a, %s : f32
    linalg.yield %y : f32
  } -> tensor<1x8x4x4xf32>
  %joined = tensor.concat dim(1) %scaled, %conv : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x16x4x4xf32>
  return %joined : tensor<1x16x4x4xf32>
}

// -----

// CHECK: layer 0: pointwise (linalg.conv_2d_nchw_fchw), 8 rows of 64 elements, 4096 MACs, 64 weight elements; reads an argument (window 1 stride 1); last read by layer 3
// CHECK: layer 1: reduction (linalg.generic), 1 rows of 8 elements, 512 MACs, 0 weight elements; reads layer 0 (whole); last read by layer 2
// CHECK: layer 2: reshape (tensor.expand_shape), 1 rows of 8 elements, 0 MACs, 0 weight elements; reads layer 1 (whole); last read by layer 3
// CHECK: layer 3: norm (linalg.generic), 8 rows of 64 elements, 512 MACs, 0 weight elements; reads layer 0 (same rows), layer 2 (broadcast); returned
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#stat = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
#bcast = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>
func.func @instance_norm(%image: tensor<1x8x8x8xf32>, %w: tensor<8x8x1x1xf32>) -> tensor<1x8x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %x = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
    ins(%image, %w : tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>) outs(%f : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %es = tensor.empty() : tensor<1x8xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<1x8xf32>) -> tensor<1x8xf32>
  %sumsq = linalg.generic {indexing_maps = [#map, #stat], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
    ins(%x : tensor<1x8x8x8xf32>) outs(%fs : tensor<1x8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %y = arith.addf %acc, %sq : f32
    linalg.yield %y : f32
  } -> tensor<1x8xf32>
  %stats = tensor.expand_shape %sumsq [[0], [1, 2, 3]] output_shape [1, 8, 1, 1] : tensor<1x8xf32> into tensor<1x8x1x1xf32>
  %e2 = tensor.empty() : tensor<1x8x8x8xf32>
  %norm = linalg.generic {indexing_maps = [#map, #bcast, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%x, %stats : tensor<1x8x8x8xf32>, tensor<1x8x1x1xf32>) outs(%e2 : tensor<1x8x8x8xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %r = math.rsqrt %s : f32
    %y = arith.mulf %a, %r : f32
    linalg.yield %y : f32
  } -> tensor<1x8x8x8xf32>
  return %norm : tensor<1x8x8x8xf32>
}

// The layer graph of a small NHWC network (as memopt-zoo writes them): a
// padded 3x3 convolution, a batch norm, ReLU, a padded stride-2 depthwise
// convolution, a pointwise convolution and a residual add. The pads, empty
// tensors and fills belong to the layers that read them.
// RUN: memopt-opt %s --print-layer-graph -o /dev/null 2>&1 | FileCheck %s
// Halo and cost of the whole network as one group, 2 rows of the last layer
// per tile, worked out by hand below.
// RUN: memopt-opt %s --print-layer-graph="group-first=0 group-last=5 tile-rows=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=GROUP
// RUN: memopt-opt %s --print-layer-graph="group-first=3 group-last=5 tile-rows=4 target=spm-512k" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TAIL

// 8 output rows of 1x8x8 = 64 elements; MACs = 512 outputs x 3x3x4 = 18432.
// CHECK: layer 0: conv (linalg.conv_2d_nhwc_hwcf), 8 rows of 64 elements, 18432 MACs, 288 weight elements; reads an argument (window 3 stride 1); last read by layer 1
// CHECK: layer 1: norm (linalg.generic), 8 rows of 64 elements, 512 MACs, 8 weight elements; reads layer 0 (same rows); last read by layer 2
// CHECK: layer 2: elementwise (linalg.generic), 8 rows of 64 elements, 512 MACs, 0 weight elements; reads layer 1 (same rows); last read by layer 3
// 128 outputs x 3x3 = 1152 MACs.
// CHECK: layer 3: depthwise (linalg.depthwise_conv_2d_nhwc_hwc), 4 rows of 32 elements, 1152 MACs, 72 weight elements; reads layer 2 (window 3 stride 2); last read by layer 5
// CHECK: layer 4: pointwise (linalg.conv_2d_nhwc_hwcf), 4 rows of 32 elements, 1024 MACs, 64 weight elements; reads layer 3 (window 1 stride 1); last read by layer 5
// CHECK: layer 5: add (linalg.generic), 4 rows of 32 elements, 128 MACs, 0 weight elements; reads layer 4 (same rows), layer 3 (same rows); returned

// 2 tiles. Rows per tile, back from the add: 2, 2 (pointwise), 2 (depthwise:
// both readers need 2), then (2-1)*2+3 = 5 rows through the stride-2 window,
// 5, 5. MACs per tile 18432*5/8 + 512*5/8 + 512*5/8 + 1152*2/4 + 1024*2/4 +
// 128*2/4 = 13312, x2 tiles = 26624. Off-chip: the image, 7 rows of 32
// elements per tile ((5-1)+3) = 896 bytes x 2 tiles, plus the 512-byte result
// = 2304. Weights (288+8+72+64) x 4 = 1728 bytes. Footprint: image tiles 2 x
// 896, result tiles 2 x 256, intermediates 3 x 1280 + 2 x 256, weights 1728 =
// 8384. Cycles on spm-2m (32 B/cycle, 1024 MACs/cycle, 64 cycles per DMA):
// a tile moves 896 + 256 bytes in 2 transfers = 36 + 128 = 164 cycles against
// 13 of compute; the first also loads the weights (4 transfers): 90 + 384 =
// 474; total 474 + 164 = 638.
// GROUP: remark: group of layers 0-5, 2 tiles; rows per tile 5, 5, 5, 2, 2, 2; MACs 26624, off-chip feature-map bytes 2304, weight bytes 1728, cycles 638, footprint 8384 bytes

// One tile: the depthwise convolution reads its whole 8-row input (min(3*2+3, 8)).
// Off-chip 8 x 64 x 4 = 2048 in + 512 out; 16 B/cycle, 256 MACs/cycle on spm-512k:
// (2560 + 544) / 16 = 194 + 4 transfers x 64 = 450 cycles; footprint 2 x 2048 +
// 2 x 512 + 2 x 512 (depthwise and pointwise tiles) + 544 = 6688.
// TAIL: remark: group of layers 3-5, 1 tiles; rows per tile 4, 4, 4; MACs 2304, off-chip feature-map bytes 2560, weight bytes 544, cycles 450, footprint 6688 bytes

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @block(%image: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x8xf32>, %var: tensor<8xf32>,
                 %dw: tensor<3x3x8xf32>, %pw: tensor<1x1x8x8xf32>) -> tensor<1x4x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %image low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x4xf32> to tensor<1x10x10x4xf32>
  %e0 = tensor.empty() : tensor<1x8x8x8xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%padded, %w : tensor<1x10x10x4xf32>, tensor<3x3x4x8xf32>) outs(%f0 : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %e1 = tensor.empty() : tensor<1x8x8x8xf32>
  %bn = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%conv, %var : tensor<1x8x8x8xf32>, tensor<8xf32>) outs(%e1 : tensor<1x8x8x8xf32>) {
  ^bb0(%x: f32, %v: f32, %o: f32):
    %s = math.sqrt %v : f32
    %y = arith.divf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<1x8x8x8xf32>
  %e2 = tensor.empty() : tensor<1x8x8x8xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%bn : tensor<1x8x8x8xf32>) outs(%e2 : tensor<1x8x8x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.maximumf %x, %zero : f32
    linalg.yield %y : f32
  } -> tensor<1x8x8x8xf32>
  %padded2 = tensor.pad %relu low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x8xf32> to tensor<1x10x10x8xf32>
  %e3 = tensor.empty() : tensor<1x4x4x8xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %depthwise = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%padded2, %dw : tensor<1x10x10x8xf32>, tensor<3x3x8xf32>) outs(%f3 : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %e4 = tensor.empty() : tensor<1x4x4x8xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %pointwise = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%depthwise, %pw : tensor<1x4x4x8xf32>, tensor<1x1x8x8xf32>) outs(%f4 : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %e5 = tensor.empty() : tensor<1x4x4x8xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%pointwise, %depthwise : tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>) outs(%e5 : tensor<1x4x4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %y = arith.addf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<1x4x4x8xf32>
  return %sum : tensor<1x4x4x8xf32>
}

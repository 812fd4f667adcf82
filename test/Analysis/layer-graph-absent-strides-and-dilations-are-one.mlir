// `strides` and `dilations` of a named convolution or pooling are optional and
// default to 1 in every dimension. The layer graph reads them to size each
// layer's window; an op written without them once crashed print-layer-graph
// and spm-pin-fuse (a null attribute was read).
// RUN: memopt-opt %s --print-layer-graph -o /dev/null 2>&1 | FileCheck %s

// Neither attribute: a 3x3 window at stride 1; 6x6 outputs of 8 channels,
// 288 outputs x 3x3x4 = 10368 MACs.
// CHECK: layer 0: conv (linalg.conv_2d_nhwc_hwcf), 6 rows of 48 elements, 10368 MACs, 288 weight elements; reads an argument (window 3 stride 1)
// Dilations only: a 2x2 filter dilated by 2 spans (2-1)*2+1 = 3 rows at
// stride 1; 4x4x8 = 128 outputs x 2x2x8 = 4096 MACs.
// CHECK: layer 1: conv (linalg.conv_2d_nhwc_hwcf), 4 rows of 32 elements, 4096 MACs, 256 weight elements; reads layer 0 (window 3 stride 1)
// Strides only: a 2x2 window at stride 2, undilated; 2x2x8 = 32 outputs x 4
// window elements (a pooling has no weights).
// CHECK: layer 2: pool (linalg.pooling_nhwc_max), 2 rows of 16 elements, 128 MACs, 0 weight elements; reads layer 1 (window 2 stride 2); returned
func.func @absent_window_attributes(%x: tensor<1x8x8x4xf32>, %w0: tensor<3x3x4x8xf32>,
                                    %w1: tensor<2x2x8x8xf32>) -> tensor<1x2x2x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<1x6x6x8xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  %c0 = linalg.conv_2d_nhwc_hwcf ins(%x, %w0 : tensor<1x8x8x4xf32>, tensor<3x3x4x8xf32>)
        outs(%f0 : tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  %e1 = tensor.empty() : tensor<1x4x4x8xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %c1 = linalg.conv_2d_nhwc_hwcf {dilations = dense<2> : tensor<2xi64>}
        ins(%c0, %w1 : tensor<1x6x6x8xf32>, tensor<2x2x8x8xf32>)
        outs(%f1 : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %window = tensor.empty() : tensor<2x2xf32>
  %e2 = tensor.empty() : tensor<1x2x2x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x2x2x8xf32>) -> tensor<1x2x2x8xf32>
  %p = linalg.pooling_nhwc_max {strides = dense<2> : tensor<2xi64>}
       ins(%c1, %window : tensor<1x4x4x8xf32>, tensor<2x2xf32>)
       outs(%f2 : tensor<1x2x2x8xf32>) -> tensor<1x2x2x8xf32>
  return %p : tensor<1x2x2x8xf32>
}

// A 3x3 convolution cannot run in a 1 KiB scratchpad even at 1-row tiles:
// three input rows double-buffered (2 x 384 bytes), its output row
// double-buffered (2 x 192) and, its 1152 bytes of weights not fitting beside
// them, two streamed slices of one output channel's filter (2 x 144): 1440
// bytes. The error names the layer, and no output is written.
// RUN: memopt-opt %s --spm-pin-fuse="spm-bytes=1KiB" --verify-diagnostics -o /dev/null
// RUN: not memopt-opt %s --spm-pin-fuse="spm-bytes=1KiB" -o %t.out 2>&1 | FileCheck %s
// RUN: not test -e %t.out
// CHECK: error: spm-pin-fuse: layer 0 (conv) needs 1440 bytes of scratchpad at its smallest tile (1 row), more than the 1024 bytes there are

func.func @too_large(%image: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x8xf32>) -> tensor<1x6x6x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x6x6x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  // expected-error @+1 {{spm-pin-fuse: layer 0 (conv) needs 1440 bytes of scratchpad at its smallest tile (1 row), more than the 1024 bytes there are}}
  %conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%image, %w : tensor<1x8x8x4xf32>, tensor<3x3x4x8xf32>) outs(%f : tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  return %conv : tensor<1x6x6x8xf32>
}

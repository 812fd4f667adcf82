// A model whose layer cannot fit in HBM even split 8 ways and recomputed:
// a clear error says what does not fit, and no IR is written. The 1024x1024
// weight is 2 MiB in 2-byte elements, 256 KiB per device at tensor-parallel
// 8, times 8 with gradient and Adam state: 2 MiB; recomputing keeps one
// 2 KiB input and 512 bytes of the layer's results per device.
// RUN: memopt-opt %s --pass-pipeline="builtin.module(place-search{devices=8 global-batch=8 hbm=1MiB})" --verify-diagnostics

// expected-error @+1 {{place-search: nothing fits in 1 MiB of HBM: a layer alone needs 2 MiB per device at the largest tensor-parallel degree, microbatch 1 and recompute (2 MiB of parameters, gradients and optimizer state, 2.5 KiB of activations)}}
func.func @big(%x: tensor<8x1024xf32>, %w: tensor<1024x1024xf32>) -> tensor<8x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<8x1024xf32>
  %filled = linalg.fill ins(%zero : f32) outs(%init : tensor<8x1024xf32>) -> tensor<8x1024xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<8x1024xf32>, tensor<1024x1024xf32>) outs(%filled : tensor<8x1024xf32>) -> tensor<8x1024xf32>
  return %mm : tensor<8x1024xf32>
}

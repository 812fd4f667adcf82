// A chain of three matmuls, x(32x64) . w1(64x128) . w2(128x256) . w3(256x32),
// all f32. Arguments (x and the weights) are not activations. Each product
// gets a buffer at its tensor.empty; linalg.fill and linalg.matmul write into
// it in place; a product's buffer is freed right after the matmul that last
// reads it. Hand-computed live bytes:
//   h1 = 32*128*4 = 16384, h2 = 32*256*4 = 32768, out = 32*32*4 = 4096
//   peak: h1 and h2 together while h2 is computed = 49152, first reached at
//   the tensor.empty of h2 (position 4).
// RUN: memopt-opt %s --verify-diagnostics --memory-estimate=per-op=true -o /dev/null

// expected-remark @+1 {{peak activation memory: 49152 bytes at 'tensor.empty' (position 4)}}
func.func @mlp(%x: tensor<32x64xf32>, %w1: tensor<64x128xf32>, %w2: tensor<128x256xf32>,
               %w3: tensor<256x32xf32>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32 // expected-remark {{live activation memory: 0 bytes}}
  %e1 = tensor.empty() : tensor<32x128xf32> // expected-remark {{live activation memory: 16384 bytes}}
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<32x128xf32>) -> tensor<32x128xf32> // expected-remark {{live activation memory: 16384 bytes}}
  %h1 = linalg.matmul ins(%x, %w1 : tensor<32x64xf32>, tensor<64x128xf32>) outs(%f1 : tensor<32x128xf32>) -> tensor<32x128xf32> // expected-remark {{live activation memory: 16384 bytes}}
  %e2 = tensor.empty() : tensor<32x256xf32> // expected-remark {{live activation memory: 49152 bytes}}
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<32x256xf32>) -> tensor<32x256xf32> // expected-remark {{live activation memory: 49152 bytes}}
  %h2 = linalg.matmul ins(%h1, %w2 : tensor<32x128xf32>, tensor<128x256xf32>) outs(%f2 : tensor<32x256xf32>) -> tensor<32x256xf32> // expected-remark {{live activation memory: 49152 bytes}}
  // h1 is dead: 32768 + 4096.
  %e3 = tensor.empty() : tensor<32x32xf32> // expected-remark {{live activation memory: 36864 bytes}}
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<32x32xf32>) -> tensor<32x32xf32> // expected-remark {{live activation memory: 36864 bytes}}
  %out = linalg.matmul ins(%h2, %w3 : tensor<32x256xf32>, tensor<256x32xf32>) outs(%f3 : tensor<32x32xf32>) -> tensor<32x32xf32> // expected-remark {{live activation memory: 36864 bytes}}
  // Only the returned product is left.
  return %out : tensor<32x32xf32> // expected-remark {{live activation memory: 4096 bytes}}
}

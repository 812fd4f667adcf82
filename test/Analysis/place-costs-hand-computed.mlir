// Op costs on a small accelerator, checked against hand computation.
// 2 tensor cores of 128x128, 2 vector cores of 128 lanes, 1 GHz, 1e12 B/s,
// 2-byte elements. %w is a parameter (argument 1; argument 0 is data).
//
// matmul 256x512 * 512x384: tiles 1 * ceil(512/128) * ceil(384/128) = 12,
// 6 rounds on 2 cores of 128 + 256 + 128 - 1 = 511 cycles: 3066 cycles;
// 2*256*384*512 = 100663296 flops; bytes (256*512 + 512*384 + 256*384) * 2
// = 851968; compute bound: 3.066e-6 s.
// add 256x384, one op per element: 98304 / 256 lanes = 384 cycles; bytes
// 3 * 196608 = 589824; memory bound: 5.89824e-7 s.
// RUN: memopt-opt %s --pass-pipeline="builtin.module(func.func(place-costs{per-op tensor-cores=2 vector-cores=2 frequency=1e9 memory-bandwidth=1e12}))" -o /dev/null 2>&1 | FileCheck %s
//
// With a 256 KiB buffer the matmul's 851968 bytes do not fit: the smaller
// input (262144 bytes) is read again ceil(851968 / 262144) - 1 = 3 times:
// 851968 + 786432 = 1638400 bytes.
// RUN: memopt-opt %s --pass-pipeline="builtin.module(func.func(place-costs{per-op tensor-cores=2 vector-cores=2 frequency=1e9 memory-bandwidth=1e12 buffer=256KiB}))" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SMALL
//
// Twice the batch doubles M against a weight: 6 * (128 + 512 + 127) = 4602
// cycles; the add works on 196608 elements: 768 cycles.
// RUN: memopt-opt %s --pass-pipeline="builtin.module(func.func(place-costs{per-op batch-scale=2 tensor-cores=2 vector-cores=2 frequency=1e9 memory-bandwidth=1e12}))" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SCALED

// The fill: 98304 elements / 256 lanes = 384 cycles, 196608 bytes written;
// the layer: 3.84e-7 + 3.066e-6 + 5.89824e-7 = 4.039824e-6 s; parameters %w
// and %b; three 98304-element results; input %x.
// CHECK: remark: layers: 1 from op 0, the first of 5 ops; prologue 0 ops, epilogue 0 ops
// CHECK: remark: layer: 5 ops (1 tensor, 2 vector), forward 4.03982e-06 s, 1.0086e+08 flops, 294912 parameter elements, 294912 activation elements, 131072 input elements
// CHECK: remark: cost: vector, 98304 flops, 384 cycles, 196608 bytes, 3.84e-07 s
// CHECK: remark: cost: tensor, 100663296 flops, 3066 cycles, 851968 bytes, 3.066e-06 s
// CHECK: remark: cost: vector, 98304 flops, 384 cycles, 589824 bytes, 5.89824e-07 s
// SMALL: remark: cost: tensor, 100663296 flops, 3066 cycles, 1638400 bytes, 3.066e-06 s
// SCALED: remark: cost: tensor, 201326592 flops, 4602 cycles,
// SCALED: remark: cost: vector, 196608 flops, 768 cycles,
func.func @layer(%x: tensor<256x512xf32>, %w: tensor<512x384xf32>, %b: tensor<256x384xf32>) -> tensor<256x384xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<256x384xf32>
  %filled = linalg.fill ins(%zero : f32) outs(%init : tensor<256x384xf32>) -> tensor<256x384xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<256x512xf32>, tensor<512x384xf32>) outs(%filled : tensor<256x384xf32>) -> tensor<256x384xf32>
  %sum = linalg.add ins(%mm, %b : tensor<256x384xf32>, tensor<256x384xf32>) outs(%init : tensor<256x384xf32>) -> tensor<256x384xf32>
  return %sum : tensor<256x384xf32>
}

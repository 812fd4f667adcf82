// place-search{memory=program} prices each pipeline stage whole, as the
// function place-to-shard makes of it: its arguments are what earlier
// stages made and its ops read, held while it runs, beside the buffers its
// own ops make. A value the function returns does not cross into the
// stages after the one that made it: that stage returns it.
//
// Three equal layers h_k = h_(k-1) w_k (h_0 = x), all three returned, on 3
// devices with a global batch of 1: a pipeline of 3 stages, the constant
// (the prologue) with layer 1, then layer 2, then layer 3. x and each h_k
// are 1x8 f32, 32 bytes allocated at 64 (one-shot bufferization's
// alignment, the arguments' too); each w_k is 8x8 f32 (256 bytes).
//   stage 0: x 64 + h1 64 + w1 256                       = 384
//   stage 1: h1 64 (its argument) + h2 64 + w2 256       = 384
//   stage 2: h2 64 + h3 64 + w3 256                      = 384
// Stage 2 does not hold h1, though the function holds it to its end.
// Run on its own, each stage function holds what was predicted: memopt-run's
// inputs (x or h, 64, and w, 256) and peak (h, 64), 384 bytes.
// RUN: memopt-opt %s --pass-pipeline='builtin.module(place-search{devices=3 global-batch=1 max-microbatch=1 max-tensor-parallel=1 schedule=list memory=program})' 2>/dev/null | FileCheck %s
// RUN: memopt-opt %s --pass-pipeline='builtin.module(place-search{devices=3 global-batch=1 max-microbatch=1 max-tensor-parallel=1 schedule=list memory=program},place-to-shard{pipeline-driver=false})' -o %t.mlir
// RUN: memopt-run %t.mlir --entry=chain_stage0 | FileCheck %s --check-prefix=HELD
// RUN: memopt-run %t.mlir --entry=chain_stage1 | FileCheck %s --check-prefix=HELD
// RUN: memopt-run %t.mlir --entry=chain_stage2 | FileCheck %s --check-prefix=HELD
// CHECK: first_layer = 0 : i64, index = 0 : i64, layers = 2 : i64, memory_bytes_per_device = 384 : i64
// CHECK: first_layer = 2 : i64, index = 1 : i64, layers = 1 : i64, memory_bytes_per_device = 384 : i64
// CHECK: first_layer = 3 : i64, index = 2 : i64, layers = 1 : i64, memory_bytes_per_device = 384 : i64
// HELD: inputs_bytes: 320
// HELD-NEXT: peak_bytes: 64

func.func @chain(%x: tensor<1x8xf32>, %w1: tensor<8x8xf32>, %w2: tensor<8x8xf32>, %w3: tensor<8x8xf32>) -> (tensor<1x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<1x8xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x8xf32>) -> tensor<1x8xf32>
  %h1 = linalg.matmul ins(%x, %w1 : tensor<1x8xf32>, tensor<8x8xf32>) outs(%f1 : tensor<1x8xf32>) -> tensor<1x8xf32>
  %e2 = tensor.empty() : tensor<1x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x8xf32>) -> tensor<1x8xf32>
  %h2 = linalg.matmul ins(%h1, %w2 : tensor<1x8xf32>, tensor<8x8xf32>) outs(%f2 : tensor<1x8xf32>) -> tensor<1x8xf32>
  %e3 = tensor.empty() : tensor<1x8xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<1x8xf32>) -> tensor<1x8xf32>
  %h3 = linalg.matmul ins(%h2, %w3 : tensor<1x8xf32>, tensor<8x8xf32>) outs(%f3 : tensor<1x8xf32>) -> tensor<1x8xf32>
  return %h1, %h2, %h3 : tensor<1x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>
}

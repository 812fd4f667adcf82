// place-search{memory=program} prices what the function holds (as
// place-to-shard runs it; here as written, with no elementwise chain to
// fuse): its parameters' share, its data for one microbatch, and the most
// its buffers hold at once, where a buffer carrying the batch scales with the
// microbatch and one that does not (a gradient, summed over the batch) is
// whole on every device of a data-parallel group; a buffer Megatron's split
// divides over a tensor-parallel group holds its share.
//
// A training-step-like function of batch 4: h = x w (4x8 f32, 128 bytes,
// 32 per sample: it carries x's batch through the matmul's parallel loop)
// and g = x^T h (8x8 f32, 256 bytes: the batch loop k is a reduction, so g
// does not carry it). Both are returned, so both are live at the end.
// Parameter w: 8x8 f32, 256 bytes; data x: 32 bytes per sample.
//   1 device, microbatch 4:          256 + 4 x 32 + 4 x 32 + 256 = 768
//   data-parallel 2, microbatch 2:   256 + 2 x 32 + 2 x 32 + 256 = 640
// At tensor-parallel 2 (a global batch of 1 sample), Megatron's column
// split takes the loop j that only w and h index: each device holds half
// of w's columns and of h, and g = x^T h, indexed by j too, is split the
// same way. Each device's share is allocated at a multiple of 64 bytes
// (one-shot bufferization's alignment), so the one-sample x and h take 64:
//   tensor-parallel 2, microbatch 1: 256 / 2 + 64 + 64 + 256 / 2 = 384
// RUN: memopt-opt %s --pass-pipeline='builtin.module(place-search{devices=1 global-batch=4 max-microbatch=4 max-tensor-parallel=1 schedule=list memory=program})' | FileCheck %s --check-prefix=ONE
// RUN: memopt-opt %s --pass-pipeline='builtin.module(place-search{devices=2 global-batch=4 max-microbatch=2 max-tensor-parallel=1 schedule=list memory=program})' | FileCheck %s --check-prefix=TWO
// RUN: memopt-opt %s --pass-pipeline='builtin.module(place-search{devices=2 global-batch=1 max-microbatch=1 schedule=list memory=program})' | FileCheck %s --check-prefix=SPLIT
// ONE: }) {{{.*}}data_parallel = 1 : i64, {{.*}}memory_bytes_per_device = 768 : i64
// TWO: }) {{{.*}}data_parallel = 2 : i64, {{.*}}memory_bytes_per_device = 640 : i64
// SPLIT: }) {{{.*}}memory_bytes_per_device = 384 : i64, {{.*}}tensor_parallel = 2 : i64

func.func @step(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %h = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<8x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(k, i, j) -> (k, i)>, affine_map<(k, i, j) -> (k, j)>, affine_map<(k, i, j) -> (i, j)>], iterator_types = ["reduction", "parallel", "parallel"]} ins(%x, %h : tensor<4x8xf32>, tensor<4x8xf32>) outs(%f2 : tensor<8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  return %h, %g : tensor<4x8xf32>, tensor<8x8xf32>
}

// place-search{memory=program} prices the function as place-to-shard runs
// it: normalized, so that an elementwise op read once is fused into its
// reader and the buffer between them is gone.
//
// Batch 4: h = x w (4x8 f32, 128 bytes), p = 2 h, q = p + h, returned. As
// written, q's op holds h, p and q at once: 384 bytes (memopt-opt
// --memory-estimate gives that peak). Fused, q is one generic reading h
// (p's doubling inside it): h and q, 256 bytes, all of it carrying the
// batch. With parameter w (8x8 f32, 256 bytes) and x (32 bytes per sample),
// on 1 device at microbatch 4:
//   256 + 4 x 32 + 256 = 640  (as written it would be 256 + 128 + 384 = 768)
// and at data-parallel 2, microbatch 2: 256 + 2 x 32 + 128 = 448.
// RUN: memopt-opt %s --pass-pipeline='builtin.module(place-search{devices=1 global-batch=4 max-microbatch=4 max-tensor-parallel=1 schedule=list memory=program})' | FileCheck %s --check-prefix=ONE
// RUN: memopt-opt %s --pass-pipeline='builtin.module(place-search{devices=2 global-batch=4 max-microbatch=2 max-tensor-parallel=1 schedule=list memory=program})' | FileCheck %s --check-prefix=TWO
// RUN: memopt-opt %s --memory-estimate 2>&1 | FileCheck %s --check-prefix=WRITTEN
// ONE: }) {{{.*}}data_parallel = 1 : i64, {{.*}}memory_bytes_per_device = 640 : i64
// TWO: }) {{{.*}}data_parallel = 2 : i64, {{.*}}memory_bytes_per_device = 448 : i64
// WRITTEN: remark: peak activation memory: 384 bytes

#map = affine_map<(i, j) -> (i, j)>
func.func @step(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %h = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %p = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<4x8xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %d = arith.mulf %a, %two : f32
    linalg.yield %d : f32
  } -> tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %q = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%p, %h : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %q : tensor<4x8xf32>
}

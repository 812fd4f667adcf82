// An elementwise generic writes into an input of its type, read at the
// element it writes, whose buffer dies at it: the bias add after a matmul
// and the activation after it reuse the matmul's buffer, so the function
// holds one 128-byte buffer instead of three, and at most one at a time instead of two. The empty
// inits go. The lowered program runs in place (execute-zoo-training-step.test).
// RUN: memopt-opt %s --split-input-file --inplace-elementwise 2>/dev/null | FileCheck %s
// RUN: memopt-opt %s --split-input-file --inplace-elementwise 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: memopt-opt %s --split-input-file --inplace-elementwise | mlir-opt --split-input-file --one-shot-bufferize=bufferize-function-boundaries | FileCheck %s --check-prefix=BUFFERS

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// REMARK: remark: inplace-elementwise: 2 ops write into an input; peak 256 -> 128 bytes
// CHECK-LABEL: func.func @matmul_bias_relu
// CHECK:      %[[MM:.*]] = linalg.matmul
// CHECK-NOT:  tensor.empty
// CHECK:      %[[ADD:.*]] = linalg.generic {{.*}} ins(%[[MM]], %{{.*}} : tensor<4x8xf32>, tensor<8xf32>) outs(%[[MM]] : tensor<4x8xf32>)
// CHECK:      %[[RELU:.*]] = linalg.generic {{.*}} ins(%[[ADD]] : tensor<4x8xf32>) outs(%[[ADD]] : tensor<4x8xf32>)
// CHECK:      return %[[RELU]]
// BUFFERS-LABEL: func.func @matmul_bias_relu
// BUFFERS-COUNT-1: memref.alloc
// BUFFERS-NOT:   memref.alloc
// BUFFERS-NOT:   memref.copy
// BUFFERS:       return
func.func @matmul_bias_relu(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4x8xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%f0 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %add = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<4x8xf32>, tensor<8xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%add : tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %r = arith.maximumf %p, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %relu : tensor<4x8xf32>
}

// -----

// A product of two dying inputs reuses the first; the gradient times the
// activation's derivative of a backward pass is this shape.
#id = affine_map<(d0, d1) -> (d0, d1)>

// REMARK: remark: inplace-elementwise: 1 op writes into an input; peak 384 -> 256 bytes
// CHECK-LABEL: func.func @product_of_two_temporaries
// CHECK:      %[[A:.*]] = linalg.generic
// CHECK:      %[[B:.*]] = linalg.generic
// CHECK:      linalg.generic {{.*}} ins(%[[A]], %[[B]] : {{.*}}) outs(%[[A]] : tensor<4x8xf32>)
func.func @product_of_two_temporaries(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e0 = tensor.empty() : tensor<4x8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %r = math.exp %p : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %r = math.tanh %p : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %c = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.mulf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// -----

// Two ops sharing one empty init (as after CSE) each write into their own
// dying input; the empty is erased once, when nothing uses it.
#id = affine_map<(d0, d1) -> (d0, d1)>

// REMARK: remark: inplace-elementwise: 3 ops write into an input; peak 512 -> 256 bytes
// CHECK-LABEL: func.func @shared_empty
// CHECK:      %[[A:.*]] = linalg.generic {{.*}} ins(%arg0
// CHECK:      %[[B:.*]] = linalg.generic {{.*}} ins(%arg0
// CHECK-NOT:  tensor.empty
// CHECK:      %[[C:.*]] = linalg.generic {{.*}} ins(%[[A]] : tensor<4x8xf32>) outs(%[[A]] : tensor<4x8xf32>)
// CHECK:      %[[D:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<4x8xf32>) outs(%[[B]] : tensor<4x8xf32>)
// CHECK:      linalg.generic {{.*}} ins(%[[C]], %[[D]] : {{.*}}) outs(%[[C]] : tensor<4x8xf32>)
func.func @shared_empty(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e0 = tensor.empty() : tensor<4x8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %r = math.exp %p : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %r = math.tanh %p : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %r = math.sin %p : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %d = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %r = math.cos %p : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %d : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.addf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}

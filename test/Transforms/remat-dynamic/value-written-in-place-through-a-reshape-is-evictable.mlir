// %p is written in place into the buffer of a 2-D exp, seen per head
// through a tensor.expand_shape (as attention's probabilities are written
// into the scores' buffer): a different type, but surely the same bytes, so
// it fills the buffer and is a candidate. Its regenerate recomputes the
// whole chain, exp, reshape and square, from the argument.
// RUN: memopt-opt %s --remat-dynamic="min-gap=2 everywhere=true" 2>/dev/null | FileCheck %s
// RUN: memopt-opt %s --remat-dynamic="min-gap=2 everywhere=true" 2>&1 >/dev/null \
// RUN: | FileCheck %s --check-prefix=REMARK

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @scores_per_head(%x: tensor<?x8xf32>) -> tensor<?x2x4xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %i0 = tensor.empty(%n) : tensor<?x8xf32>
  %s = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x8xf32>) outs(%i0 : tensor<?x8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %v = math.exp %p : f32
    linalg.yield %v : f32
  } -> tensor<?x8xf32>
  %heads = tensor.expand_shape %s [[0], [1, 2]] output_shape [%n, 2, 4] : tensor<?x8xf32> into tensor<?x2x4xf32>
  %p = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%heads : tensor<?x2x4xf32>) outs(%heads : tensor<?x2x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.mulf %a, %a : f32
    linalg.yield %v : f32
  } -> tensor<?x2x4xf32>
  %i1 = tensor.empty(%n) : tensor<?x2x4xf32>
  %q = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p : tensor<?x2x4xf32>) outs(%i1 : tensor<?x2x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.sin %a : f32
    linalg.yield %v : f32
  } -> tensor<?x2x4xf32>
  %i2 = tensor.empty(%n) : tensor<?x2x4xf32>
  %r = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%q : tensor<?x2x4xf32>) outs(%i2 : tensor<?x2x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.cos %a : f32
    linalg.yield %v : f32
  } -> tensor<?x2x4xf32>
  %i3 = tensor.empty(%n) : tensor<?x2x4xf32>
  %t = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%r : tensor<?x2x4xf32>) outs(%i3 : tensor<?x2x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.tanh %a : f32
    linalg.yield %v : f32
  } -> tensor<?x2x4xf32>
  %i4 = tensor.empty(%n) : tensor<?x2x4xf32>
  %u = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%t, %p : tensor<?x2x4xf32>, tensor<?x2x4xf32>) outs(%i4 : tensor<?x2x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.addf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<?x2x4xf32>
  return %u : tensor<?x2x4xf32>
}

// REMARK: remat-dynamic: 1 value made evictable: ops 7..13, 32*s0 bytes, 4 ops recomputed
// CHECK-LABEL: func.func @scores_per_head(
// CHECK-SAME: %[[X:[-0-9A-Za-z_.$]+]]: tensor<?x8xf32>
// CHECK: %[[EXPANDED:[-0-9A-Za-z_.$]+]] = tensor.expand_shape
// CHECK-NEXT: %[[P:[-0-9A-Za-z_.$]+]] = linalg.generic {{.*}} ins(%[[EXPANDED]] : tensor<?x2x4xf32>) outs(%[[EXPANDED]] : tensor<?x2x4xf32>)
// CHECK: "remat.evict"(%[[P]], %{{[-0-9A-Za-z_.$]+}}) : (tensor<?x2x4xf32>, index) -> ()
// CHECK: %[[AGAIN:[-0-9A-Za-z_.$]+]] = "remat.regenerate"(%[[P]]) ({
// CHECK-NEXT: %[[EMPTY:[-0-9A-Za-z_.$]+]] = tensor.empty({{.*}}) : tensor<?x8xf32>
// CHECK-NEXT: %[[EXP:[-0-9A-Za-z_.$]+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<?x8xf32>) outs(%[[EMPTY]] : tensor<?x8xf32>)
// CHECK: %[[HEADS:[-0-9A-Za-z_.$]+]] = tensor.expand_shape %[[EXP]]
// CHECK-NEXT: %[[SQUARE:[-0-9A-Za-z_.$]+]] = linalg.generic {{.*}} ins(%[[HEADS]] : tensor<?x2x4xf32>) outs(%[[HEADS]] : tensor<?x2x4xf32>)
// CHECK: vector.yield %[[SQUARE]] : tensor<?x2x4xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[AGAIN]] : tensor<?x2x4xf32>, tensor<?x2x4xf32>)

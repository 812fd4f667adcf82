// The next use of %e (a matmul) is prepared by ops that only allocate or
// read a weight: its init's tensor.empty and linalg.fill, and the weight's
// transpose into a tensor.empty. The regenerate of %e goes before all of
// them, so that their buffers are not held through the regeneration (the
// regenerated %e is resident while they run either way). It stays after
// %v, a column sum the final op reads too, which frees %u (its last read):
// holding the regenerated %e across it could raise the peak. (max-ops=4
// keeps %v itself, 9 ops away from the argument, from being evictable.)
// RUN: memopt-opt %s --remat-dynamic="min-gap=2 everywhere=true max-ops=4" 2>/dev/null | FileCheck %s
// RUN: memopt-opt %s --remat-dynamic="min-gap=2 everywhere=true max-ops=4" 2>&1 >/dev/null \
// RUN: | FileCheck %s --check-prefix=REMARK

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @prepared(%x: tensor<?x4xf32>, %w: tensor<4x4xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x4xf32>
  %i0 = tensor.empty(%n) : tensor<?x4xf32>
  %e = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x4xf32>) outs(%i0 : tensor<?x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.exp %a : f32
    linalg.yield %v : f32
  } -> tensor<?x4xf32>
  %i1 = tensor.empty(%n) : tensor<?x4xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%e : tensor<?x4xf32>) outs(%i1 : tensor<?x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.mulf %a, %a : f32
    linalg.yield %v : f32
  } -> tensor<?x4xf32>
  %i2 = tensor.empty(%n) : tensor<?x4xf32>
  %u = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<?x4xf32>) outs(%i2 : tensor<?x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.sin %a : f32
    linalg.yield %v : f32
  } -> tensor<?x4xf32>
  %i3 = tensor.empty() : tensor<4xf32>
  %sum = linalg.fill ins(%zero : f32) outs(%i3 : tensor<4xf32>) -> tensor<4xf32>
  %v = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%u : tensor<?x4xf32>) outs(%sum : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %i4 = tensor.empty() : tensor<4x4xf32>
  %wt = linalg.transpose ins(%w : tensor<4x4xf32>) outs(%i4 : tensor<4x4xf32>) permutation = [1, 0]
  %i5 = tensor.empty(%n) : tensor<?x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%i5 : tensor<?x4xf32>) -> tensor<?x4xf32>
  %m = linalg.matmul ins(%e, %wt : tensor<?x4xf32>, tensor<4x4xf32>)
      outs(%init : tensor<?x4xf32>) -> tensor<?x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %v : tensor<?x4xf32>, tensor<4xf32>) outs(%m : tensor<?x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// REMARK: remark: remat-dynamic: 1 value made evictable: ops 6..16, 16*s0 bytes, 2 ops recomputed
// CHECK-LABEL: func.func @prepared(
// CHECK-SAME: %[[X:[-0-9A-Za-z_.$]+]]: tensor<?x4xf32>, %[[W:[-0-9A-Za-z_.$]+]]: tensor<4x4xf32>
// CHECK: %[[E:[-0-9A-Za-z_.$]+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<?x4xf32>)
// CHECK: "remat.evict"(%[[E]], %{{[-0-9A-Za-z_.$]+}})
// CHECK: %[[V:[-0-9A-Za-z_.$]+]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<?x4xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: %[[AGAIN:[-0-9A-Za-z_.$]+]] = "remat.regenerate"(%[[E]]) ({
// CHECK: }) : (tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK-NEXT: tensor.empty() : tensor<4x4xf32>
// CHECK-NEXT: %[[WT:[-0-9A-Za-z_.$]+]] = linalg.transpose ins(%[[W]]
// CHECK-NEXT: tensor.empty
// CHECK-NEXT: %[[INIT:[-0-9A-Za-z_.$]+]] = linalg.fill
// CHECK-NEXT: %[[M:[-0-9A-Za-z_.$]+]] = linalg.matmul ins(%[[AGAIN]], %[[WT]] : tensor<?x4xf32>, tensor<4x4xf32>) outs(%[[INIT]] : tensor<?x4xf32>)
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[M]], %[[V]] : tensor<?x4xf32>, tensor<4xf32>)
// CHECK-NOT: remat.

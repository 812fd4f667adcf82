// remat-dynamic recomputes every op that a clone computes again the same way
// (memoptOpIsRecomputable: results and memoptOperationIsPure), as remat does:
// here %e = exp(%m) with %m = %x * %x, an arith op on whole tensors. %e
// (4*s0*s1 bytes) is read right away, then not again until the end, so it is
// evicted across the gap; its regenerate recomputes the arith.mulf, then the
// tensor.empty and the generic: 3 ops.
// RUN: memopt-opt %s --remat-dynamic="min-gap=2 everywhere=true" 2>/dev/null | FileCheck %s
// RUN: memopt-opt %s --remat-dynamic="min-gap=2 everywhere=true" 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @gap(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %x, %c1 : tensor<?x?xf32>
  %m = arith.mulf %x, %x : tensor<?x?xf32>
  %i0 = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %e = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<?x?xf32>) outs(%i0 : tensor<?x?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.exp %a : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  %i1 = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%e : tensor<?x?xf32>) outs(%i1 : tensor<?x?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.mulf %a, %a : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  %i2 = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %u = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<?x?xf32>) outs(%i2 : tensor<?x?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.addf %a, %a : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  %i3 = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %w = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%u : tensor<?x?xf32>) outs(%i3 : tensor<?x?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.sin %a : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  %i4 = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %e : tensor<?x?xf32>, tensor<?x?xf32>) outs(%i4 : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.addf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// REMARK: remark: remat-dynamic: 1 value made evictable: ops 8..14, 4*s0*s1 bytes, 3 ops recomputed
// CHECK-LABEL: func.func @gap(
// CHECK-SAME: %[[X:[-0-9A-Za-z_.$]+]]: tensor<?x?xf32>
// CHECK: %[[E:[-0-9A-Za-z_.$]+]] = linalg.generic
// CHECK: "remat.evict"(%[[E]], %{{[-0-9A-Za-z_.$]+}}) : (tensor<?x?xf32>, index) -> ()
// CHECK: %[[AGAIN:[-0-9A-Za-z_.$]+]] = "remat.regenerate"(%[[E]]) ({
// CHECK-NEXT: %[[M:[-0-9A-Za-z_.$]+]] = arith.mulf %[[X]], %[[X]] : tensor<?x?xf32>
// CHECK-NEXT: %[[EMPTY:[-0-9A-Za-z_.$]+]] = tensor.empty
// CHECK-NEXT: %[[R:[-0-9A-Za-z_.$]+]] = linalg.generic {{.*}} ins(%[[M]] : tensor<?x?xf32>) outs(%[[EMPTY]] : tensor<?x?xf32>)
// CHECK: vector.yield %[[R]] : tensor<?x?xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[AGAIN]] : tensor<?x?xf32>, tensor<?x?xf32>)
// CHECK-NOT: remat.

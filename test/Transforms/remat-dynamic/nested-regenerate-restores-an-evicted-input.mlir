// %a = exp(%x) is idle from its first read to the end; %b = %a * %a is idle
// across a shorter gap inside %a's. When %b is regenerated, %a may be
// evicted, so %b's body reads %a through a nested regenerate (recomputed
// only when it was evicted) and makes it evictable again after its last
// read there; %a's own regenerate comes later, before its last read. With
// max-nested=0 the nesting is refused and %b is not made evictable.
// RUN: memopt-opt %s --remat-dynamic="min-gap=2 everywhere=true" 2>/dev/null | FileCheck %s
// RUN: memopt-opt %s --remat-dynamic="min-gap=2 everywhere=true" 2>&1 >/dev/null \
// RUN: | FileCheck %s --check-prefix=REMARK
// RUN: memopt-opt %s --remat-dynamic="min-gap=2 everywhere=true max-nested=0" 2>&1 \
// RUN: | FileCheck %s --check-prefix=REFUSED

#id = affine_map<(d0) -> (d0)>
func.func @nested(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %i0 = tensor.empty(%n) : tensor<?xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%i0 : tensor<?xf32>) {
  ^bb0(%p: f32, %o: f32):
    %v = math.exp %p : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  %i1 = tensor.empty(%n) : tensor<?xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<?xf32>) outs(%i1 : tensor<?xf32>) {
  ^bb0(%p: f32, %o: f32):
    %v = arith.mulf %p, %p : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  %i2 = tensor.empty(%n) : tensor<?xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%b : tensor<?xf32>) outs(%i2 : tensor<?xf32>) {
  ^bb0(%p: f32, %o: f32):
    %v = math.sin %p : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  %i3 = tensor.empty(%n) : tensor<?xf32>
  %d = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%c : tensor<?xf32>) outs(%i3 : tensor<?xf32>) {
  ^bb0(%p: f32, %o: f32):
    %v = math.cos %p : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  %i4 = tensor.empty(%n) : tensor<?xf32>
  %e = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%d : tensor<?xf32>) outs(%i4 : tensor<?xf32>) {
  ^bb0(%p: f32, %o: f32):
    %v = math.tanh %p : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  %i5 = tensor.empty(%n) : tensor<?xf32>
  %f = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%e, %b : tensor<?xf32>, tensor<?xf32>) outs(%i5 : tensor<?xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %v = arith.addf %p, %q : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  %i6 = tensor.empty(%n) : tensor<?xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%f : tensor<?xf32>) outs(%i6 : tensor<?xf32>) {
  ^bb0(%p: f32, %o: f32):
    %v = math.sqrt %p : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  %i7 = tensor.empty(%n) : tensor<?xf32>
  %h = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%g, %a : tensor<?xf32>, tensor<?xf32>) outs(%i7 : tensor<?xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %v = arith.subf %p, %q : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  return %h : tensor<?xf32>
}

// REMARK: remark: remat-dynamic: 2 values made evictable: ops 5..17, 4*s0 bytes, 2 ops recomputed, restored beside 8*s0 resident bytes; ops 7..13, 4*s0 bytes, 2 ops recomputed, 1 evictable input regenerated inside, restored beside 12*s0 resident bytes
// CHECK-LABEL: func.func @nested(
// CHECK-SAME: %[[X:[-0-9A-Za-z_.$]+]]: tensor<?xf32>
// CHECK: %[[A:[-0-9A-Za-z_.$]+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<?xf32>)
// CHECK: %[[B:[-0-9A-Za-z_.$]+]] = linalg.generic {{.*}} ins(%[[A]] : tensor<?xf32>)
// CHECK: "remat.evict"(%[[A]], %{{[-0-9A-Za-z_.$]+}})
// CHECK: "remat.evict"(%[[B]], %{{[-0-9A-Za-z_.$]+}})
// CHECK: %[[B2:[-0-9A-Za-z_.$]+]] = "remat.regenerate"(%[[B]]) ({
// CHECK-NEXT: %[[A_IN:[-0-9A-Za-z_.$]+]] = "remat.regenerate"(%[[A]]) ({
// CHECK-NEXT: tensor.empty
// CHECK-NEXT: %[[A_AGAIN:[-0-9A-Za-z_.$]+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<?xf32>)
// CHECK: vector.yield %[[A_AGAIN]]
// CHECK-NEXT: })
// CHECK-NEXT: tensor.empty
// CHECK-NEXT: %[[B_IN:[-0-9A-Za-z_.$]+]] = linalg.generic {{.*}} ins(%[[A_IN]] : tensor<?xf32>)
// CHECK: "remat.evict"(%[[A]], %{{[-0-9A-Za-z_.$]+}})
// CHECK-NEXT: vector.yield %[[B_IN]]
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[B2]] : tensor<?xf32>, tensor<?xf32>)
// CHECK: %[[A2:[-0-9A-Za-z_.$]+]] = "remat.regenerate"(%[[A]]) ({
// CHECK-NOT: remat.
// CHECK: vector.yield
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[A2]] : tensor<?xf32>, tensor<?xf32>)

// REFUSED: remark: remat-dynamic: 1 value made evictable: ops 5..17, 4*s0 bytes, 2 ops recomputed, restored beside 8*s0 resident bytes{{$}}
// REFUSED-COUNT-1: "remat.evict"
// REFUSED-NOT: "remat.evict"

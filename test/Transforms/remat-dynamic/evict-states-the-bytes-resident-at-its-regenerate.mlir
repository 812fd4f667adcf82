// Each remat.evict states the bytes resident, at least, while its value's
// regenerate runs (what memopt_rt weighs eviction against its limit with):
// the buffers live across that point, except those of other candidates that
// may be evicted there. %s is regenerated from %b, which may be evicted:
// %b is restored inside and counts, with %s itself and %d3 (12*s0). %a,
// which %b's recomputation reads, is restored only when %b was evicted too,
// so it counts as evictable there, as it does for %b's footprint where %a
// is the direct input (12*s0: %a, %b, %e3) and at its own regenerate (8*s0:
// %a, %f2). The footprints are built at the start of the function.
// restore-footprints=false leaves them out: the same evicts, one operand each.
// RUN: memopt-opt %s --remat-dynamic="min-gap=2 everywhere=true" 2>/dev/null | FileCheck %s
// RUN: memopt-opt %s --remat-dynamic="min-gap=2 everywhere=true" 2>&1 >/dev/null \
// RUN: | FileCheck %s --check-prefix=REMARK
// RUN: memopt-opt %s --remat-dynamic="min-gap=2 everywhere=true restore-footprints=false" 2>&1 \
// RUN: | FileCheck %s --check-prefix=NONE

#id = affine_map<(d0) -> (d0)>
func.func @footprint(%x: tensor<?xf32>) -> tensor<?xf32> {
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
  %b = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %a : tensor<?xf32>, tensor<?xf32>) outs(%i1 : tensor<?xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %v = arith.mulf %p, %q : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  %i2 = tensor.empty(%n) : tensor<?xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%b : tensor<?xf32>) outs(%i2 : tensor<?xf32>) {
  ^bb0(%p: f32, %o: f32):
    %v = math.sin %p : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  %i3 = tensor.empty(%n) : tensor<?xf32>
  %d1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%i3 : tensor<?xf32>) {
  ^bb0(%p: f32, %o: f32):
    %v = math.cos %p : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  %i4 = tensor.empty(%n) : tensor<?xf32>
  %d2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%d1 : tensor<?xf32>) outs(%i4 : tensor<?xf32>) {
  ^bb0(%p: f32, %o: f32):
    %v = math.tanh %p : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  %i5 = tensor.empty(%n) : tensor<?xf32>
  %d3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%d2 : tensor<?xf32>) outs(%i5 : tensor<?xf32>) {
  ^bb0(%p: f32, %o: f32):
    %v = math.sqrt %p : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  %i6 = tensor.empty(%n) : tensor<?xf32>
  %t = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%s, %d3 : tensor<?xf32>, tensor<?xf32>) outs(%i6 : tensor<?xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %v = arith.addf %p, %q : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  %i7 = tensor.empty(%n) : tensor<?xf32>
  %e1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%t : tensor<?xf32>) outs(%i7 : tensor<?xf32>) {
  ^bb0(%p: f32, %o: f32):
    %v = math.exp %p : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  %i8 = tensor.empty(%n) : tensor<?xf32>
  %e2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%e1 : tensor<?xf32>) outs(%i8 : tensor<?xf32>) {
  ^bb0(%p: f32, %o: f32):
    %v = math.cos %p : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  %i9 = tensor.empty(%n) : tensor<?xf32>
  %e3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%e2 : tensor<?xf32>) outs(%i9 : tensor<?xf32>) {
  ^bb0(%p: f32, %o: f32):
    %v = math.sin %p : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  %i10 = tensor.empty(%n) : tensor<?xf32>
  %u = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%e3, %b : tensor<?xf32>, tensor<?xf32>) outs(%i10 : tensor<?xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %v = arith.addf %p, %q : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  %i11 = tensor.empty(%n) : tensor<?xf32>
  %f1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%u : tensor<?xf32>) outs(%i11 : tensor<?xf32>) {
  ^bb0(%p: f32, %o: f32):
    %v = math.tanh %p : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  %i12 = tensor.empty(%n) : tensor<?xf32>
  %f2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%f1 : tensor<?xf32>) outs(%i12 : tensor<?xf32>) {
  ^bb0(%p: f32, %o: f32):
    %v = math.sqrt %p : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  %i13 = tensor.empty(%n) : tensor<?xf32>
  %v = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%f2, %a : tensor<?xf32>, tensor<?xf32>) outs(%i13 : tensor<?xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %v = arith.subf %p, %q : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  return %v : tensor<?xf32>
}

// REMARK: remark: remat-dynamic: 3 values made evictable: ops 5..29, 4*s0 bytes, 2 ops recomputed, restored beside 8*s0 resident bytes; ops 7..23, 4*s0 bytes, 2 ops recomputed, 1 evictable input regenerated inside, restored beside 12*s0 resident bytes; ops 7..15, 4*s0 bytes, 2 ops recomputed, 1 evictable input regenerated inside, restored beside 12*s0 resident bytes{{$}}
// CHECK-LABEL: func.func @footprint(
// CHECK-SAME: %[[X:[-0-9A-Za-z_.$]+]]: tensor<?xf32>
// CHECK-NEXT: %[[C8:[-0-9A-Za-z_.$]+]] = arith.constant 8 : index
// CHECK-NEXT: %[[C0:[-0-9A-Za-z_.$]+]] = arith.constant 0 : index
// CHECK-NEXT: %[[N:[-0-9A-Za-z_.$]+]] = tensor.dim %[[X]], %[[C0]]
// CHECK-NEXT: %[[A_BYTES:[-0-9A-Za-z_.$]+]] = arith.muli %[[C8]], %[[N]] : index
// CHECK-NEXT: %[[C12:[-0-9A-Za-z_.$]+]] = arith.constant 12 : index
// CHECK-NEXT: %[[B_BYTES:[-0-9A-Za-z_.$]+]] = arith.muli %[[C12]], %[[N]] : index
// CHECK-NEXT: %[[C12_AGAIN:[-0-9A-Za-z_.$]+]] = arith.constant 12 : index
// CHECK-NEXT: %[[S_BYTES:[-0-9A-Za-z_.$]+]] = arith.muli %[[C12_AGAIN]], %[[N]] : index
// CHECK: %[[A:[-0-9A-Za-z_.$]+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<?xf32>)
// CHECK: %[[B:[-0-9A-Za-z_.$]+]] = linalg.generic {{.*}} ins(%[[A]], %[[A]] : tensor<?xf32>, tensor<?xf32>)
// CHECK: "remat.evict"(%[[A]], %[[A_BYTES]]) : (tensor<?xf32>, index) -> ()
// CHECK: %[[S:[-0-9A-Za-z_.$]+]] = linalg.generic {{.*}} ins(%[[B]] : tensor<?xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: math.sin
// CHECK: "remat.evict"(%[[B]], %[[B_BYTES]]) : (tensor<?xf32>, index) -> ()
// CHECK-NEXT: "remat.evict"(%[[S]], %[[S_BYTES]]) : (tensor<?xf32>, index) -> ()
// CHECK: "remat.regenerate"(%[[S]])
// The inputs restored inside become evictable again with their own footprints.
// CHECK: "remat.evict"(%[[A]], %[[A_BYTES]]) : (tensor<?xf32>, index) -> ()
// CHECK-NEXT: "remat.evict"(%[[B]], %[[B_BYTES]]) : (tensor<?xf32>, index) -> ()
// CHECK-NEXT: vector.yield

// NONE: remark: remat-dynamic: 3 values made evictable: ops 5..29, 4*s0 bytes, 2 ops recomputed; ops 7..23, 4*s0 bytes, 2 ops recomputed, 1 evictable input regenerated inside; ops 7..15, 4*s0 bytes, 2 ops recomputed, 1 evictable input regenerated inside{{$}}
// NONE-LABEL: func.func @footprint(
// NONE-NOT: arith.muli
// NONE-COUNT-3: "remat.evict"(%{{[-0-9A-Za-z_.$]+}}) : (tensor<?xf32>) -> ()
// NONE-NOT: index) -> ()

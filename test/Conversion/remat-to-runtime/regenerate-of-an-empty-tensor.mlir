// A regenerate whose body yields a tensor.empty (written by hand: remat-dynamic
// does not make such values evictable) lowers to an scf.if whose body only
// views the evicted buffer: there is nothing to recompute.
// RUN: memopt-opt %s --remat-to-runtime | FileCheck %s

func.func @empty(%v: tensor<4xf32>) -> tensor<4xf32> {
  "remat.evict"(%v) : (tensor<4xf32>) -> ()
  %r = "remat.regenerate"(%v) ({
    %e = tensor.empty() : tensor<4xf32>
    vector.yield %e : tensor<4xf32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// CHECK-LABEL: func.func @empty(
// CHECK: scf.if
// CHECK-NEXT: call @memoptRtRecommit
// CHECK-NEXT: %[[T:[-0-9A-Za-z_.$]+]] = bufferization.to_tensor %[[B:[-0-9A-Za-z_.$]+]] restrict writable
// CHECK-NEXT: bufferization.materialize_in_destination %[[T]] in restrict writable %[[B]]
// CHECK-NOT: tensor.empty

// A remat.evict in a regenerate's body takes effect once the body has run,
// wherever it sits in the body: here it comes first, before the nested
// regenerate of %a and the op that reads %a (which once made
// remat-to-runtime place memoptRtRecommit before an op it had erased, and
// crash). It is lowered after the write into %b's buffer, so %a cannot be
// evicted while %b is recomputed from it, and memoptRtRecommit(%b) comes
// after the nested regenerate, right before the first recomputed op. The
// nested evict registers %a at the position of %b's regenerate (4) until
// %a's own (5), with the cost of that regenerate built from %x's extent (one
// exp per element), not -1.
// RUN: memopt-opt %s --remat-to-runtime | FileCheck %s

// CHECK-LABEL: func.func @evict_first(
// CHECK-SAME:      %[[X:[-0-9A-Za-z_.$]+]]: tensor<?xf32>
// CHECK:         %[[A:[-0-9A-Za-z_.$]+]] = math.exp %[[X]]
// CHECK:         %[[B:[-0-9A-Za-z_.$]+]] = math.sin %[[A]]
// CHECK:         call @memoptRtRestore(%[[B_ADDR:[-0-9A-Za-z_.$]+]],
// CHECK:         scf.if
// CHECK:           func.call @memoptRtRestore(
// CHECK:           scf.if
// CHECK:             func.call @memoptRtRecommit(
// CHECK:             math.exp %[[X]]
// CHECK:           func.call @memoptRtRecommit(%[[B_ADDR]])
// CHECK-NEXT:      %[[B_AGAIN:[-0-9A-Za-z_.$]+]] = math.sin %[[A]]
// CHECK-NEXT:      bufferization.materialize_in_destination %[[B_AGAIN]]
// CHECK-NEXT:      bufferization.to_buffer %[[A]] read_only
// CHECK:           func.call @memoptRtEvictable(%{{[0-9]+}}, %c4_i64{{[_0-9]*}}, %c5_i64{{[_0-9]*}}, %{{[0-9]+}}, %c-1_i64{{[_0-9]*}})
// CHECK-NEXT:    } else {
// CHECK-NOT:     remat.
func.func @evict_first(%x: tensor<?xf32>) -> tensor<?xf32> {
  %a = math.exp %x : tensor<?xf32>
  %b = math.sin %a : tensor<?xf32>
  "remat.evict"(%a) : (tensor<?xf32>) -> ()
  "remat.evict"(%b) : (tensor<?xf32>) -> ()
  %r = "remat.regenerate"(%b) ({
    "remat.evict"(%a) : (tensor<?xf32>) -> ()
    %a2 = "remat.regenerate"(%a) ({
      %e = math.exp %x : tensor<?xf32>
      vector.yield %e : tensor<?xf32>
    }) : (tensor<?xf32>) -> tensor<?xf32>
    %s = math.sin %a2 : tensor<?xf32>
    vector.yield %s : tensor<?xf32>
  }) : (tensor<?xf32>) -> tensor<?xf32>
  %a3 = "remat.regenerate"(%a) ({
    %e = math.exp %x : tensor<?xf32>
    vector.yield %e : tensor<?xf32>
  }) : (tensor<?xf32>) -> tensor<?xf32>
  %sum = arith.addf %r, %a3 : tensor<?xf32>
  return %sum : tensor<?xf32>
}

// Remat ops nested in a regenerate's body (remat-dynamic reads %a, which
// may be evicted when %b is regenerated, through a nested regenerate) are
// lowered inside the scf.if, at the position of the top-level regenerate:
// %a is restored there (recomputed into its own buffer when evicted), then
// %b counts again (memoptRtRecommit, which cannot evict %a now) and is
// recomputed from it, and once %b is written, %a becomes evictable again
// until its own regenerate. %b's evict passes its own cost (one multiply per element,
// s0), without %a's exp, which the nested regenerate runs and counts only
// when %a was evicted; each evict passes the footprint remat-dynamic stated
// for its value (the nested one %a's too). Positions count the footprints
// built at the start of the function. Running it:
// remat-dynamic-gap-runs.test.
// RUN: memopt-opt %S/../../Transforms/remat-dynamic/nested-regenerate-restores-an-evicted-input.mlir \
// RUN:   --remat-dynamic="min-gap=2 everywhere=true" 2>/dev/null \
// RUN: | memopt-opt --remat-to-runtime | FileCheck %s

// CHECK-LABEL: func.func @nested(
// CHECK-SAME: %[[X:[-0-9A-Za-z_.$]+]]: tensor<?xf32>
// CHECK: %[[A:[-0-9A-Za-z_.$]+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<?xf32>)
// CHECK: %[[B:[-0-9A-Za-z_.$]+]] = linalg.generic {{.*}} ins(%[[A]] : tensor<?xf32>)
// CHECK: %[[COST_A:[-0-9A-Za-z_.$]+]] = arith.index_cast %{{[0-9]+}} : index to i64
// CHECK-NEXT: %[[POS_A:[-0-9A-Za-z_.$]+]] = arith.constant 12 : i64
// CHECK-NEXT: %[[NEXT_A:[-0-9A-Za-z_.$]+]] = arith.constant 25 : i64
// CHECK-NEXT: %[[RESTORE_A:[-0-9A-Za-z_.$]+]] = arith.index_cast %[[A_BYTES:[-0-9A-Za-z_.$]+]] : index to i64
// CHECK-NEXT: call @memoptRtEvictable(%{{.*}}, %[[POS_A]], %[[NEXT_A]], %[[COST_A]], %[[RESTORE_A]])
// CHECK: bufferization.to_buffer %[[B]] read_only
// CHECK: %[[ONE:[-0-9A-Za-z_.$]+]] = arith.constant 1 : index
// CHECK: %[[COST_B:[-0-9A-Za-z_.$]+]] = arith.index_cast %{{[0-9]+}} : index to i64
// CHECK-NEXT: %[[POS_B:[-0-9A-Za-z_.$]+]] = arith.constant 15 : i64
// CHECK-NEXT: %[[NEXT_B:[-0-9A-Za-z_.$]+]] = arith.constant 20 : i64
// CHECK-NEXT: %[[RESTORE_B:[-0-9A-Za-z_.$]+]] = arith.index_cast %{{[-0-9A-Za-z_.$]+}} : index to i64
// CHECK-NEXT: call @memoptRtEvictable(%{{.*}}, %[[POS_B]], %[[NEXT_B]], %[[COST_B]], %[[RESTORE_B]])
// CHECK: %[[BUF_B:[-0-9A-Za-z_.$]+]] = bufferization.to_buffer %[[B]] read_only
// CHECK: %[[AT_B:[-0-9A-Za-z_.$]+]] = arith.constant 20 : i64
// CHECK-NEXT: %[[FLAG_B:[-0-9A-Za-z_.$]+]] = call @memoptRtRestore(%[[ADDR_B:[-0-9A-Za-z_.$]+]], %[[AT_B]])
// CHECK: %[[EVICTED_B:[-0-9A-Za-z_.$]+]] = arith.cmpi ne, %[[FLAG_B]]
// CHECK-NEXT: scf.if %[[EVICTED_B]] {
// CHECK-NEXT: %[[BUF_A:[-0-9A-Za-z_.$]+]] = bufferization.to_buffer %[[A]] read_only
// CHECK: %[[AT_A:[-0-9A-Za-z_.$]+]] = arith.constant 20 : i64
// CHECK-NEXT: %[[FLAG_A:[-0-9A-Za-z_.$]+]] = func.call @memoptRtRestore(%[[ADDR_A:[-0-9A-Za-z_.$]+]], %[[AT_A]])
// CHECK: %[[EVICTED_A:[-0-9A-Za-z_.$]+]] = arith.cmpi ne, %[[FLAG_A]]
// CHECK-NEXT: scf.if %[[EVICTED_A]] {
// CHECK-NEXT: func.call @memoptRtRecommit(%[[ADDR_A]])
// CHECK-NEXT: %[[DEST_A:[-0-9A-Za-z_.$]+]] = bufferization.to_tensor %[[BUF_A]] restrict writable
// CHECK-NEXT: %[[A_AGAIN:[-0-9A-Za-z_.$]+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<?xf32>) outs(%[[DEST_A]] : tensor<?xf32>)
// CHECK: bufferization.materialize_in_destination %[[A_AGAIN]] in restrict writable %[[BUF_A]]
// CHECK: func.call @memoptRtRecommit(%[[ADDR_B]])
// CHECK-NEXT: %[[DEST_B:[-0-9A-Za-z_.$]+]] = bufferization.to_tensor %[[BUF_B]] restrict writable
// CHECK-NEXT: %[[B_AGAIN:[-0-9A-Za-z_.$]+]] = linalg.generic {{.*}} ins(%[[A]] : tensor<?xf32>) outs(%[[DEST_B]] : tensor<?xf32>)
// CHECK: bufferization.materialize_in_destination %[[B_AGAIN]] in restrict writable %[[BUF_B]]
// CHECK: %[[AT_A_AGAIN:[-0-9A-Za-z_.$]+]] = arith.constant 20 : i64
// CHECK-NEXT: %[[NEXT_A_AGAIN:[-0-9A-Za-z_.$]+]] = arith.constant 25 : i64
// CHECK-NEXT: %[[RESTORE_A_AGAIN:[-0-9A-Za-z_.$]+]] = arith.index_cast %[[A_BYTES]] : index to i64
// CHECK-NEXT: func.call @memoptRtEvictable(%{{.*}}, %[[AT_A_AGAIN]], %[[NEXT_A_AGAIN]], %{{[-0-9A-Za-z_.$]+}}, %[[RESTORE_A_AGAIN]])
// CHECK-NEXT: } else {
// CHECK: %[[AT_A_LAST:[-0-9A-Za-z_.$]+]] = arith.constant 25 : i64
// CHECK-NEXT: call @memoptRtRestore(%{{.*}}, %[[AT_A_LAST]])
// CHECK-NOT: remat.

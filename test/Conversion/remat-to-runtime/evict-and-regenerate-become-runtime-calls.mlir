// remat.evict registers the value's buffer with memopt_rt (address, its op
// position, the position of its regenerate, the element operations the
// regenerate's body performs: one exp per element, s0*s1, read from the
// argument's dimensions, then the restore footprint remat-dynamic stated,
// 8*s0*s1 built at the start of the function, whose ops the positions
// count); remat.regenerate asks whether it was evicted
// and, if so, counts it again (memoptRtRecommit) and recomputes into the
// same buffer: the body's destination tensor.empty becomes a to_tensor of
// that buffer. Later uses read the original value. Running it:
// remat-dynamic-gap-runs.test.
// RUN: memopt-opt %S/../../Transforms/remat-dynamic/evict-across-long-gap.mlir \
// RUN:   --remat-dynamic="min-gap=2 everywhere=true" 2>/dev/null \
// RUN: | memopt-opt --remat-to-runtime | FileCheck %s

// CHECK-DAG: func.func private @memoptRtRestore(i64, i64) -> i32
// CHECK-DAG: func.func private @memoptRtRecommit(i64)
// CHECK-DAG: func.func private @memoptRtEvictable(i64, i64, i64, i64, i64)
// CHECK-LABEL: func.func @gap(
// CHECK-SAME: %[[X:[-0-9A-Za-z_.$]+]]: tensor<?x?xf32>
// CHECK-NEXT: %[[EIGHT:[-0-9A-Za-z_.$]+]] = arith.constant 8 : index
// CHECK: %[[EIGHT_S0:[-0-9A-Za-z_.$]+]] = arith.muli %[[EIGHT]], %{{[-0-9A-Za-z_.$]+}} : index
// CHECK: %[[FOOTPRINT:[-0-9A-Za-z_.$]+]] = arith.muli %[[EIGHT_S0]], %{{[-0-9A-Za-z_.$]+}} : index
// CHECK: %[[E:[-0-9A-Za-z_.$]+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<?x?xf32>)
// CHECK: %[[B1:[-0-9A-Za-z_.$]+]] = bufferization.to_buffer %[[E]] read_only : tensor<?x?xf32> to memref<?x?xf32>
// CHECK-NEXT: %[[P1:[-0-9A-Za-z_.$]+]] = memref.extract_aligned_pointer_as_index %[[B1]]
// CHECK-NEXT: %[[A1:[-0-9A-Za-z_.$]+]] = arith.index_cast %[[P1]] : index to i64
// CHECK-NEXT: %[[ONE:[-0-9A-Za-z_.$]+]] = arith.constant 1 : index
// CHECK-NEXT: %[[I0:[-0-9A-Za-z_.$]+]] = arith.constant 0 : index
// CHECK-NEXT: %[[S0:[-0-9A-Za-z_.$]+]] = tensor.dim %[[X]], %[[I0]]
// CHECK-NEXT: %[[T0:[-0-9A-Za-z_.$]+]] = arith.muli %[[ONE]], %[[S0]] : index
// CHECK-NEXT: %[[I1:[-0-9A-Za-z_.$]+]] = arith.constant 1 : index
// CHECK-NEXT: %[[S1:[-0-9A-Za-z_.$]+]] = tensor.dim %[[X]], %[[I1]]
// CHECK-NEXT: %[[T1:[-0-9A-Za-z_.$]+]] = arith.muli %[[T0]], %[[S1]] : index
// CHECK-NEXT: %[[COST:[-0-9A-Za-z_.$]+]] = arith.index_cast %[[T1]] : index to i64
// CHECK-NEXT: %[[POS:[-0-9A-Za-z_.$]+]] = arith.constant 15 : i64
// CHECK-NEXT: %[[NEXT:[-0-9A-Za-z_.$]+]] = arith.constant 20 : i64
// CHECK-NEXT: %[[RESTORE:[-0-9A-Za-z_.$]+]] = arith.index_cast %[[FOOTPRINT]] : index to i64
// CHECK-NEXT: call @memoptRtEvictable(%[[A1]], %[[POS]], %[[NEXT]], %[[COST]], %[[RESTORE]])
// CHECK: %[[B2:[-0-9A-Za-z_.$]+]] = bufferization.to_buffer %[[E]] read_only
// CHECK-NEXT: %[[P2:[-0-9A-Za-z_.$]+]] = memref.extract_aligned_pointer_as_index %[[B2]]
// CHECK-NEXT: %[[A2:[-0-9A-Za-z_.$]+]] = arith.index_cast %[[P2]] : index to i64
// CHECK-NEXT: %[[HERE:[-0-9A-Za-z_.$]+]] = arith.constant 20 : i64
// CHECK-NEXT: %[[FLAG:[-0-9A-Za-z_.$]+]] = call @memoptRtRestore(%[[A2]], %[[HERE]]) : (i64, i64) -> i32
// CHECK-NEXT: %[[ZERO:[-0-9A-Za-z_.$]+]] = arith.constant 0 : i32
// CHECK-NEXT: %[[EVICTED:[-0-9A-Za-z_.$]+]] = arith.cmpi ne, %[[FLAG]], %[[ZERO]] : i32
// CHECK-NEXT: scf.if %[[EVICTED]] {
// CHECK-NEXT: call @memoptRtRecommit(%[[A2]]) : (i64) -> ()
// CHECK-NEXT: %[[DEST:[-0-9A-Za-z_.$]+]] = bufferization.to_tensor %[[B2]] restrict writable
// CHECK-NEXT: %[[AGAIN:[-0-9A-Za-z_.$]+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<?x?xf32>) outs(%[[DEST]] : tensor<?x?xf32>)
// CHECK: bufferization.materialize_in_destination %[[AGAIN]] in restrict writable %[[B2]]
// CHECK-NEXT: } else {
// CHECK-NEXT: }
// CHECK-NEXT: tensor.empty
// CHECK-NEXT: linalg.generic {{.*}} ins(%{{.*}}, %[[E]] : tensor<?x?xf32>, tensor<?x?xf32>)
// CHECK-NOT: remat.

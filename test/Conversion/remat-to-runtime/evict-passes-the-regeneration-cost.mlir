// remat.evict passes memopt_rt the element operations its regenerate
// recomputes, built before the evict from the shape symbols' dimensions:
// a fill (s0*16 points, one op each) plus a matmul (s0*16*8 points, a
// multiply and an add each) is 16*s0 + 256*s0 = 272*s0, s0 read from %a.
// An evict with no regenerate is dropped: its value is never read again
// (execute-evict-of-a-value-never-read-again.mlir). A regenerate's result has the shape of the tensor it
// regenerates, so extents read through a nested regenerate are known too.
// RUN: memopt-opt %s --remat-to-runtime | FileCheck %s

func.func @matmul_chain(%a: tensor<?x8xf32>, %w: tensor<8x16xf32>, %v: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %a, %c0 : tensor<?x8xf32>
  "remat.evict"(%v) : (tensor<?x16xf32>) -> ()
  %r = "remat.regenerate"(%v) ({
    %cst = arith.constant 0.0 : f32
    %e = tensor.empty(%d0) : tensor<?x16xf32>
    %z = linalg.fill ins(%cst : f32) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
    %m = linalg.matmul ins(%a, %w : tensor<?x8xf32>, tensor<8x16xf32>) outs(%z : tensor<?x16xf32>) -> tensor<?x16xf32>
    vector.yield %m : tensor<?x16xf32>
  }) : (tensor<?x16xf32>) -> tensor<?x16xf32>
  return %r : tensor<?x16xf32>
}

// CHECK-LABEL: func.func @matmul_chain(
// CHECK-SAME: %[[A:[-0-9A-Za-z_.$]+]]: tensor<?x8xf32>
// CHECK: %[[C:[-0-9A-Za-z_.$]+]] = arith.constant 272 : index
// CHECK-NEXT: %[[I0:[-0-9A-Za-z_.$]+]] = arith.constant 0 : index
// CHECK-NEXT: %[[S0:[-0-9A-Za-z_.$]+]] = tensor.dim %[[A]], %[[I0]]
// CHECK-NEXT: %[[N:[-0-9A-Za-z_.$]+]] = arith.muli %[[C]], %[[S0]] : index
// CHECK-NEXT: %[[COST:[-0-9A-Za-z_.$]+]] = arith.index_cast %[[N]] : index to i64
// CHECK: call @memoptRtEvictable(%{{.*}}, %{{.*}}, %{{.*}}, %[[COST]], %{{[-0-9A-Za-z_.$]+}})

func.func @no_regenerate(%v: tensor<?xf32>) {
  "remat.evict"(%v) : (tensor<?xf32>) -> ()
  return
}

// CHECK-LABEL: func.func @no_regenerate(
// CHECK-NEXT:    return

// The body exponentiates what a nested regenerate restores, in place: 8*s0
// element operations (the nested body's exp counts only when it runs), s0
// read from %x although the exp's extents come from the nested result.
func.func @reads_a_nested_regenerate(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x8xf32>
  %e1 = tensor.empty(%d0) : tensor<?x8xf32>
  %a = linalg.exp ins(%x : tensor<?x8xf32>) outs(%e1 : tensor<?x8xf32>) -> tensor<?x8xf32>
  %e2 = tensor.empty(%d0) : tensor<?x8xf32>
  %v = linalg.exp ins(%a : tensor<?x8xf32>) outs(%e2 : tensor<?x8xf32>) -> tensor<?x8xf32>
  "remat.evict"(%v) : (tensor<?x8xf32>) -> ()
  %r = "remat.regenerate"(%v) ({
    %ra = "remat.regenerate"(%a) ({
      %e3 = tensor.empty(%d0) : tensor<?x8xf32>
      %a2 = linalg.exp ins(%x : tensor<?x8xf32>) outs(%e3 : tensor<?x8xf32>) -> tensor<?x8xf32>
      vector.yield %a2 : tensor<?x8xf32>
    }) : (tensor<?x8xf32>) -> tensor<?x8xf32>
    %m = linalg.exp ins(%ra : tensor<?x8xf32>) outs(%ra : tensor<?x8xf32>) -> tensor<?x8xf32>
    vector.yield %m : tensor<?x8xf32>
  }) : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}

// CHECK-LABEL: func.func @reads_a_nested_regenerate(
// CHECK-SAME: %[[X:[-0-9A-Za-z_.$]+]]: tensor<?x8xf32>
// CHECK: %[[C8:[-0-9A-Za-z_.$]+]] = arith.constant 8 : index
// CHECK: %[[S0:[-0-9A-Za-z_.$]+]] = tensor.dim %[[X]]
// CHECK-NEXT: %[[N:[-0-9A-Za-z_.$]+]] = arith.muli %[[C8]], %[[S0]] : index
// CHECK-NEXT: %[[COST:[-0-9A-Za-z_.$]+]] = arith.index_cast %[[N]] : index to i64
// CHECK: call @memoptRtEvictable(%{{.*}}, %{{.*}}, %{{.*}}, %[[COST]], %{{[-0-9A-Za-z_.$]+}})

// The recomputation writes into the evicted buffer with no temporary: the
// matmul's destination is the buffer seen with the matmul's shape
// (memref.collapse_shape, undoing the expand_shape between them), the bias
// add writes in place over the matmul result, and the final
// materialize_in_destination copies the buffer onto itself.
// RUN: memopt-opt %s --remat-to-runtime | FileCheck %s

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#bias = affine_map<(d0, d1, d2) -> (d2)>
func.func @into_buffer(%a: tensor<32x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>, %v: tensor<4x8x16xf32>) -> tensor<4x8x16xf32> {
  "remat.evict"(%v) : (tensor<4x8x16xf32>) -> ()
  %r = "remat.regenerate"(%v) ({
    %cst = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<32x16xf32>
    %z = linalg.fill ins(%cst : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
    %m = linalg.matmul ins(%a, %w : tensor<32x8xf32>, tensor<8x16xf32>) outs(%z : tensor<32x16xf32>) -> tensor<32x16xf32>
    %x = tensor.expand_shape %m [[0, 1], [2]] output_shape [4, 8, 16] : tensor<32x16xf32> into tensor<4x8x16xf32>
    %e2 = tensor.empty() : tensor<4x8x16xf32>
    %y = linalg.generic {indexing_maps = [#map, #bias, #map], iterator_types = ["parallel", "parallel", "parallel"]}
        ins(%x, %b : tensor<4x8x16xf32>, tensor<16xf32>) outs(%e2 : tensor<4x8x16xf32>) {
    ^bb0(%p: f32, %q: f32, %o: f32):
      %s = arith.addf %p, %q : f32
      linalg.yield %s : f32
    } -> tensor<4x8x16xf32>
    vector.yield %y : tensor<4x8x16xf32>
  }) : (tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  return %r : tensor<4x8x16xf32>
}

// CHECK-LABEL: func.func @into_buffer(
// CHECK-SAME: %[[V:[-0-9A-Za-z_.$]+]]: tensor<4x8x16xf32>)
// CHECK: call @memoptRtEvictable
// CHECK: %[[BUF:[-0-9A-Za-z_.$]+]] = bufferization.to_buffer %[[V]] read_only
// CHECK: call @memoptRtRestore
// CHECK: scf.if
// CHECK-NEXT: %[[FLAT:[-0-9A-Za-z_.$]+]] = memref.collapse_shape %[[BUF]] {{\[}}[0, 1], [2]] : memref<4x8x16xf32> into memref<32x16xf32>
// CHECK-NOT: tensor.empty
// CHECK: %[[DEST:[-0-9A-Za-z_.$]+]] = bufferization.to_tensor %[[FLAT]] restrict writable : memref<32x16xf32> to tensor<32x16xf32>
// CHECK-NEXT: %[[Z:[-0-9A-Za-z_.$]+]] = linalg.fill {{.*}} outs(%[[DEST]] : tensor<32x16xf32>)
// CHECK-NEXT: %[[M:[-0-9A-Za-z_.$]+]] = linalg.matmul {{.*}} outs(%[[Z]] : tensor<32x16xf32>)
// CHECK-NEXT: %[[X:[-0-9A-Za-z_.$]+]] = tensor.expand_shape %[[M]]
// CHECK-NOT: tensor.empty
// CHECK: %[[Y:[-0-9A-Za-z_.$]+]] = linalg.generic {{.*}} ins(%[[X]], %{{.*}} : tensor<4x8x16xf32>, tensor<16xf32>) outs(%[[X]] : tensor<4x8x16xf32>)
// CHECK: bufferization.materialize_in_destination %[[Y]] in restrict writable %[[BUF]]
// CHECK: return %[[V]]

// %e is read after the gap only through %flat, a view taken before it: the
// regenerated value gets its own view (a clone of the collapse_shape), and
// the late read uses that.
// RUN: memopt-opt %s --remat-dynamic="min-gap=2 everywhere=true" 2>/dev/null | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#id1 = affine_map<(d0) -> (d0)>
func.func @view(%x: tensor<?x8xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x8xf32>
  %i0 = tensor.empty(%d0) : tensor<?x8xf32>
  %e = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x8xf32>) outs(%i0 : tensor<?x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.exp %a : f32
    linalg.yield %v : f32
  } -> tensor<?x8xf32>
  %flat = tensor.collapse_shape %e [[0, 1]] : tensor<?x8xf32> into tensor<?xf32>
  %c8 = arith.constant 8 : index
  %len = arith.muli %d0, %c8 : index
  %i1 = tensor.empty(%len) : tensor<?xf32>
  %t = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%flat : tensor<?xf32>) outs(%i1 : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.mulf %a, %a : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  %i2 = tensor.empty(%len) : tensor<?xf32>
  %u = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%t : tensor<?xf32>) outs(%i2 : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.sin %a : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  %i3 = tensor.empty(%len) : tensor<?xf32>
  %w = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%u : tensor<?xf32>) outs(%i3 : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.cos %a : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  %i4 = tensor.empty(%len) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%w, %flat : tensor<?xf32>, tensor<?xf32>) outs(%i4 : tensor<?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.addf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// CHECK-LABEL: func.func @view(
// CHECK: %[[E:[-0-9A-Za-z_.$]+]] = linalg.generic
// CHECK: %[[FLAT:[-0-9A-Za-z_.$]+]] = tensor.collapse_shape %[[E]]
// CHECK: "remat.evict"(%[[E]], %{{[-0-9A-Za-z_.$]+}})
// CHECK: %[[AGAIN:[-0-9A-Za-z_.$]+]] = "remat.regenerate"(%[[E]])
// CHECK: vector.yield
// CHECK-NEXT: }) : (tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK-NEXT: tensor.empty
// CHECK-NEXT: %[[FLAT2:[-0-9A-Za-z_.$]+]] = tensor.collapse_shape %[[AGAIN]] {{\[}}[0, 1]] : tensor<?x8xf32> into tensor<?xf32>
// CHECK-NEXT: linalg.generic {{.*}} ins(%{{.*}}, %[[FLAT2]] : tensor<?xf32>, tensor<?xf32>)

// A tensor.empty whose buffer is allocated early and first written far
// later holds nothing to regenerate: it is not made evictable (moving it is
// memory-schedule's business).
// RUN: memopt-opt %s --remat-dynamic="min-gap=2 everywhere=true" 2>&1 | FileCheck %s
// CHECK: remark: remat-dynamic: 0 values made evictable
// CHECK-NOT: remat.

#id = affine_map<(d0) -> (d0)>
func.func @late_init(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %late = tensor.empty(%n) : tensor<?xf32>
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
    %v = math.sin %p : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%b : tensor<?xf32>) outs(%late : tensor<?xf32>) {
  ^bb0(%p: f32, %o: f32):
    %v = math.cos %p : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  %i2 = tensor.empty(%n) : tensor<?xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%r : tensor<?xf32>) outs(%i2 : tensor<?xf32>) {
  ^bb0(%p: f32, %o: f32):
    %v = math.tanh %p : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  return %s : tensor<?xf32>
}

// A value made from a slice of a fused projection (q of a qkv matmul) is
// regenerated from that slice's part of the projection only: the slice
// moves up its chain, so the regenerate body's matmul reads the weight's
// first 8 columns and writes an ?x8 tensor, and the bias add reads the
// bias's first 8 elements, instead of recomputing all 24 columns and
// slicing. The init the bias add wrote in place (the matmul's result) is
// sliced once; the matmul's own empty and fill are made at the slice's size.
// RUN: memopt-opt %s --remat-dynamic="min-gap=2 everywhere=true" 2>/dev/null | FileCheck %s

// CHECK-LABEL: func.func @fused_projection
// CHECK:       remat.evict
// CHECK:       "remat.regenerate"
// CHECK-NEXT:    %[[W:.*]] = tensor.extract_slice %arg1[0, 0] [8, 8] [1, 1] : tensor<8x24xf32> to tensor<8x8xf32>
// CHECK-NEXT:    %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<?x8xf32>
// CHECK-NEXT:    %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<?x8xf32>)
// CHECK-NEXT:    %[[MM:.*]] = linalg.matmul ins(%arg0, %[[W]] : tensor<?x8xf32>, tensor<8x8xf32>) outs(%[[F]] : tensor<?x8xf32>)
// CHECK-NEXT:    %[[B:.*]] = tensor.extract_slice %arg2[0] [8] [1] : tensor<24xf32> to tensor<8xf32>
// CHECK-NEXT:    %[[ADD:.*]] = linalg.generic {{.*}} ins(%[[MM]], %[[B]] : tensor<?x8xf32>, tensor<8xf32>) outs(%[[MM]] : tensor<?x8xf32>)
// CHECK:         %[[EXP:.*]] = linalg.generic {{.*}} ins(%[[ADD]] : tensor<?x8xf32>)
// CHECK:         vector.yield %[[EXP]]
// CHECK-NOT:   tensor<?x24xf32>
// CHECK:       return

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @fused_projection(%x: tensor<?x8xf32>, %w: tensor<8x24xf32>, %b: tensor<24xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %e0 = tensor.empty(%n) : tensor<?x24xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<?x24xf32>) -> tensor<?x24xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<?x8xf32>, tensor<8x24xf32>) outs(%f0 : tensor<?x24xf32>) -> tensor<?x24xf32>
  %qkv = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<?x24xf32>, tensor<24xf32>) outs(%mm : tensor<?x24xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<?x24xf32>
  %slice = tensor.extract_slice %qkv[0, 0] [%n, 8] [1, 1] : tensor<?x24xf32> to tensor<?x8xf32>
  %i1 = tensor.empty(%n) : tensor<?x8xf32>
  %q = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%slice : tensor<?x8xf32>) outs(%i1 : tensor<?x8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %v = math.exp %p : f32
    linalg.yield %v : f32
  } -> tensor<?x8xf32>
  %i2 = tensor.empty(%n) : tensor<?x8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%q : tensor<?x8xf32>) outs(%i2 : tensor<?x8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %v = math.sin %p : f32
    linalg.yield %v : f32
  } -> tensor<?x8xf32>
  %i3 = tensor.empty(%n) : tensor<?x8xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<?x8xf32>) outs(%i3 : tensor<?x8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %v = math.cos %p : f32
    linalg.yield %v : f32
  } -> tensor<?x8xf32>
  %i4 = tensor.empty(%n) : tensor<?x8xf32>
  %d = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c : tensor<?x8xf32>) outs(%i4 : tensor<?x8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %v = math.tanh %p : f32
    linalg.yield %v : f32
  } -> tensor<?x8xf32>
  %i5 = tensor.empty(%n) : tensor<?x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%d, %q : tensor<?x8xf32>, tensor<?x8xf32>) outs(%i5 : tensor<?x8xf32>) {
  ^bb0(%p: f32, %s: f32, %o: f32):
    %v = arith.addf %p, %s : f32
    linalg.yield %v : f32
  } -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}

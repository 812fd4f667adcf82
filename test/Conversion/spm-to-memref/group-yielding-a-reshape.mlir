// A group that yields a reshape of its last linalg op (a classifier's add,
// then tensor.collapse_shape to the logits, as in TPP's MobileNet) with a
// tile covering the whole logits: the add is computed as one tile in the
// scratchpad, and the reshape follows the loop.
// RUN: memopt-opt %s --spm-to-memref | FileCheck %s

// CHECK-LABEL: func.func @classifier(
// CHECK:         %[[LOOP:.*]] = scf.for
// CHECK:           bufferization.alloc_tensor() {memory_space = 1 : i64} : tensor<1x1x1x10xf32>
// CHECK:           linalg.generic
// CHECK:           tensor.insert_slice
// CHECK:         }
// CHECK:         %[[LOGITS:.*]] = tensor.collapse_shape %[[LOOP]] {{\[}}[0], [1, 2, 3]] : tensor<1x1x1x10xf32> into tensor<1x10xf32>
// CHECK:         return %[[LOGITS]]

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @classifier(%x: tensor<1x1x1x10xf32>, %bias: tensor<1x1x1x10xf32>) -> tensor<1x10xf32> {
  %g = "spm.group"() ({
    %e = tensor.empty() : tensor<1x1x1x10xf32>
    %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %bias : tensor<1x1x1x10xf32>, tensor<1x1x1x10xf32>) outs(%e : tensor<1x1x1x10xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    } -> tensor<1x1x1x10xf32>
    %logits = tensor.collapse_shape %sum [[0], [1, 2, 3]] : tensor<1x1x1x10xf32> into tensor<1x10xf32>
    vector.yield %logits : tensor<1x10xf32>
  }) {resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, tile = array<i64: 1, 10>} : () -> tensor<1x10xf32>
  return %g : tensor<1x10xf32>
}

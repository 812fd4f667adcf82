// Where writing into an input would change what the program computes or
// could not save a buffer, the init stays: the input is read again later,
// is a function argument or returned, is read at another element than the
// result's (a transpose, or the same buffer read through a second map), or
// the body reads the init.
// RUN: memopt-opt %s --split-input-file --inplace-elementwise 2>/dev/null | FileCheck %s
// RUN: memopt-opt %s --split-input-file --inplace-elementwise 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK

// REMARK-COUNT-5: remark: inplace-elementwise: 0 ops write into an input

#id = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @read_again_later
// CHECK:       linalg.generic
// CHECK:       %[[E:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK:       linalg.generic {{.*}} outs(%[[E]] : tensor<4x4xf32>)
func.func @read_again_later(%x: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %e0 = tensor.empty() : tensor<4x4xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x4xf32>) outs(%e0 : tensor<4x4xf32>) {
  ^bb0(%p: f32, %o: f32):
    %r = math.exp %p : f32
    linalg.yield %r : f32
  } -> tensor<4x4xf32>
  %e1 = tensor.empty() : tensor<4x4xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x4xf32>) outs(%e1 : tensor<4x4xf32>) {
  ^bb0(%p: f32, %o: f32):
    %r = math.tanh %p : f32
    linalg.yield %r : f32
  } -> tensor<4x4xf32>
  return %a, %b : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @argument
// CHECK:       %[[E:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK:       linalg.generic {{.*}} outs(%[[E]] : tensor<4x4xf32>)
func.func @argument(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %e0 = tensor.empty() : tensor<4x4xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x4xf32>) outs(%e0 : tensor<4x4xf32>) {
  ^bb0(%p: f32, %o: f32):
    %r = math.exp %p : f32
    linalg.yield %r : f32
  } -> tensor<4x4xf32>
  return %a : tensor<4x4xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>

// CHECK-LABEL: func.func @transposed_read
// CHECK:       linalg.generic
// CHECK:       %[[E:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK:       linalg.generic {{.*}} outs(%[[E]] : tensor<4x4xf32>)
// CHECK-LABEL: func.func @same_buffer_two_maps
// CHECK:       linalg.generic
// CHECK:       %[[E:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK:       linalg.generic {{.*}} outs(%[[E]] : tensor<4x4xf32>)
func.func @transposed_read(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %e0 = tensor.empty() : tensor<4x4xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x4xf32>) outs(%e0 : tensor<4x4xf32>) {
  ^bb0(%p: f32, %o: f32):
    %r = math.exp %p : f32
    linalg.yield %r : f32
  } -> tensor<4x4xf32>
  %e1 = tensor.empty() : tensor<4x4xf32>
  %t = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x4xf32>) outs(%e1 : tensor<4x4xf32>) {
  ^bb0(%p: f32, %o: f32):
    linalg.yield %p : f32
  } -> tensor<4x4xf32>
  return %t : tensor<4x4xf32>
}

// The same buffer read at (i, j) and at (j, i): writing (i, j) would clobber
// what a later iteration reads as (j, i).
func.func @same_buffer_two_maps(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %e0 = tensor.empty() : tensor<4x4xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x4xf32>) outs(%e0 : tensor<4x4xf32>) {
  ^bb0(%p: f32, %o: f32):
    %r = math.exp %p : f32
    linalg.yield %r : f32
  } -> tensor<4x4xf32>
  %e1 = tensor.empty() : tensor<4x4xf32>
  %s = linalg.generic {indexing_maps = [#id, #tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %a : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e1 : tensor<4x4xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.addf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<4x4xf32>
  return %s : tensor<4x4xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @body_reads_init
// CHECK:       linalg.generic
// CHECK:       %[[F:.*]] = linalg.fill
// CHECK:       linalg.generic {{.*}} outs(%[[F]] : tensor<4x4xf32>)
func.func @body_reads_init(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %one = arith.constant 1.0 : f32
  %e0 = tensor.empty() : tensor<4x4xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x4xf32>) outs(%e0 : tensor<4x4xf32>) {
  ^bb0(%p: f32, %o: f32):
    %r = math.exp %p : f32
    linalg.yield %r : f32
  } -> tensor<4x4xf32>
  %e1 = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%one : f32) outs(%e1 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x4xf32>) outs(%f : tensor<4x4xf32>) {
  ^bb0(%p: f32, %o: f32):
    %r = arith.addf %p, %o : f32
    linalg.yield %r : f32
  } -> tensor<4x4xf32>
  return %s : tensor<4x4xf32>
}

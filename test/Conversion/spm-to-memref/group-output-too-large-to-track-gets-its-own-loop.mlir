// A group output (%a) too large to check element by element whether the
// tiles of the last op's loop cover it: 4294967296 x 8589934592 = 2^32 * 2^33
// = 2^65 elements, more than a size_t counts (2^64). Coverage is then unknown
// and the safe answer holds: the loop of %b does not yield %a; %a gets a tile
// loop of its own (first, where %a was), as for tiles that do not cover, and
// the two 2147483648-row tiles (2^31 each) of %b's loop recompute %a's rows.
// (The element count once wrapped to 2^65 mod 2^64 = 0 and the flags of the
// first tile were written past a one-byte array.) No execution: the tensors
// are 2^67 bytes.
// RUN: memopt-opt %s --spm-to-memref | FileCheck %s
// Counting the copies: each tile is 2^31 x 2^33 x 4 = 2^66 bytes, more than
// 64 bits count, so its copies are left out and the remark says so (the
// product once overflowed int64_t, found by fuzzing).
// RUN: memopt-opt %s --spm-to-memref=report-copies=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=COPIES
// COPIES: remark: spm-to-memref: @huge_output: copies 0 feature-map bytes {{.*}}; some copies are left out: their loop bounds or tile sizes are unknown, or their bytes do not fit 64 bits

// CHECK-LABEL: func.func @huge_output(
// CHECK:         %[[A:.*]] = scf.for {{.*}} -> (tensor<4294967296x8589934592xf32>)
// CHECK:           arith.addf
// CHECK:           tensor.insert_slice {{.*}} [2147483648, 8589934592] [1, 1] : tensor<2147483648x8589934592xf32> into tensor<4294967296x8589934592xf32>
// CHECK:         %[[B:.*]] = scf.for {{.*}} -> (tensor<4294967296x8589934592xf32>)
// CHECK:           arith.addf
// CHECK:           arith.mulf
// CHECK:           scf.yield
// CHECK-NOT:     scf.for
// CHECK:         return %[[A]], %[[B]]

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @huge_output(%x: tensor<4294967296x8589934592xf32>) -> (tensor<4294967296x8589934592xf32>, tensor<4294967296x8589934592xf32>) {
  %g:2 = "spm.group"() ({
    %e = tensor.empty() : tensor<4294967296x8589934592xf32>
    %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4294967296x8589934592xf32>) outs(%e : tensor<4294967296x8589934592xf32>) {
    ^bb0(%v: f32, %o: f32):
      %y = arith.addf %v, %v : f32
      linalg.yield %y : f32
    } -> tensor<4294967296x8589934592xf32>
    %e2 = tensor.empty() : tensor<4294967296x8589934592xf32>
    %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4294967296x8589934592xf32>) outs(%e2 : tensor<4294967296x8589934592xf32>) {
    ^bb0(%v: f32, %o: f32):
      %y = arith.mulf %v, %v : f32
      linalg.yield %y : f32
    } -> tensor<4294967296x8589934592xf32>
    vector.yield %a, %b : tensor<4294967296x8589934592xf32>, tensor<4294967296x8589934592xf32>
  }) {resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, tile = array<i64: 2147483648, 8589934592>} : () -> (tensor<4294967296x8589934592xf32>, tensor<4294967296x8589934592xf32>)
  return %g#0, %g#1 : tensor<4294967296x8589934592xf32>, tensor<4294967296x8589934592xf32>
}

// A tile of a constant tensor (a bias broadcast to the output's shape, as
// TPP's models add it) is weight data to spm-pin-fuse's cost model, not a
// feature map: report-copies counts it among the weight bytes, per tile.
// 8x16 f32 rows in tiles of 2: the input's tiles load 512 bytes, the result's
// store 512; the constant's tiles load 512 weight bytes.
// RUN: memopt-opt %s --spm-to-memref="report-copies" -o /dev/null 2>&1 | FileCheck %s
// CHECK: remark: spm-to-memref: @biased: copies 1024 feature-map bytes between off-chip memory and the scratchpad (512 loaded, halos included; 512 stored), 512 weight bytes, 0 through spm.load/spm.store

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @biased(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %bias = arith.constant dense<0.5> : tensor<8x16xf32>
  %g = "spm.group"() ({
    %e = tensor.empty() : tensor<8x16xf32>
    %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %bias : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
    ^bb0(%v: f32, %b: f32, %o: f32):
      %y = arith.addf %v, %b : f32
      linalg.yield %y : f32
    } -> tensor<8x16xf32>
    vector.yield %sum : tensor<8x16xf32>
  }) {resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, tile = array<i64: 2, 16>} : () -> tensor<8x16xf32>
  return %g : tensor<8x16xf32>
}

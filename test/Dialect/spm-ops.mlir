// Round trip of spm ops through memopt-opt and upstream mlir-opt.
// RUN: memopt-opt %s | FileCheck %s
// RUN: memopt-opt %s | mlir-opt --irdl-file=%memopt_irdl | FileCheck %s

// CHECK-LABEL: func.func @fused_pair
func.func @fused_pair(%x: tensor<1x56x56x64xf32>, %w: tensor<1x1x64x64xf32>) -> tensor<1x56x56x64xf32> {
  // CHECK: %[[IN:.*]] = "spm.load"(%{{.*}}) : (tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  %in = "spm.load"(%x) : (tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  // CHECK: "spm.group"() ({
  // CHECK: linalg.conv_2d_nhwc_hwcf
  // CHECK: vector.yield
  // CHECK: }) {resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, tile = array<i64: 1, 8, 56, 64>}
  %g = "spm.group"() ({
    %init = tensor.empty() : tensor<1x56x56x64xf32>
    %c = linalg.conv_2d_nhwc_hwcf ins(%in, %w : tensor<1x56x56x64xf32>, tensor<1x1x64x64xf32>)
                                  outs(%init : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
    vector.yield %c : tensor<1x56x56x64xf32>
  }) {resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, tile = array<i64: 1, 8, 56, 64>} : () -> tensor<1x56x56x64xf32>
  // CHECK: "spm.pin"(%{{.*}}) {offset = 0 : i64, size = 802816 : i64}
  %p = "spm.pin"(%g) {offset = 0 : i64, size = 802816 : i64} : (tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  // CHECK: "spm.store"
  %out = "spm.store"(%p) : (tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  return %out : tensor<1x56x56x64xf32>
}

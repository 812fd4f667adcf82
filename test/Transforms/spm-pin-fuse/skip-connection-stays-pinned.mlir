// One layer per group (pin-only): the depthwise output (layer 3) is read by
// the pointwise convolution and, through the skip connection, by the add two
// groups later; it stays pinned across the pointwise group, so every
// feature map but the image and the result stays on chip.
// RUN: memopt-opt %S/Inputs/residual-block.mlir --spm-pin-fuse="spm-bytes=64KiB strategy=pin-only" 2>/dev/null | FileCheck %s
// RUN: memopt-opt %S/Inputs/residual-block.mlir --spm-pin-fuse="spm-bytes=64KiB strategy=pin-only" 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK

// REMARK: remark: spm-pin-fuse (pin-only): @block: 6 layers in 6 groups, 5 pinned; off-chip feature-map bytes 1536
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc
// CHECK: %[[DWPIN:.*]] = "spm.pin"(%{{.*}}) {offset = {{[0-9]+}} : i64, size = 512 : i64}
// CHECK: "spm.group"() ({
// CHECK: linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[DWPIN]],
// CHECK: "spm.pin"
// CHECK: "spm.group"() ({
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[DWPIN]]

// With at most 3 layers per group the residual block splits into two groups.
// The 2048-byte ReLU output between them is the only feature map that
// crosses; the DP keeps it in the scratchpad, so only the image (1024 bytes)
// and the result (512) cross the chip boundary. Fusion alone stores it and
// reads it back: 1024 + 2048 + 2048 + 512 = 5632 bytes.
// RUN: memopt-opt %S/Inputs/residual-block.mlir --spm-pin-fuse="spm-bytes=64KiB max-group=3 objective=transfer" 2>/dev/null | FileCheck %s
// RUN: memopt-opt %S/Inputs/residual-block.mlir --spm-pin-fuse="spm-bytes=64KiB max-group=3 objective=transfer" 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: memopt-opt %S/Inputs/residual-block.mlir --spm-pin-fuse="spm-bytes=64KiB max-group=3 objective=transfer strategy=fuse-only" 2>&1 >/dev/null | FileCheck %s --check-prefix=FUSE
// RUN: memopt-opt %S/Inputs/residual-block.mlir --spm-pin-fuse="spm-bytes=64KiB max-group=3 objective=transfer strategy=fuse-only" 2>/dev/null | FileCheck %s --check-prefix=FUSE-IR
// RUN: memopt-opt %S/Inputs/residual-block.mlir --spm-pin-fuse="spm-bytes=64KiB max-group=3 objective=transfer" 2>/dev/null | mlir-opt --irdl-file=%memopt_irdl | FileCheck %s --check-prefix=UPSTREAM

// REMARK: remark: spm-pin-fuse (dp): @block: 6 layers in 2 groups, 1 pinned; off-chip feature-map bytes 1536, cycles
// CHECK: module attributes {spm.cycles = {{[0-9]+}} : i64, spm.offchip_bytes = 1536 : i64}
// CHECK: %[[G0:.*]] = "spm.group"() ({
// CHECK: linalg.conv_2d_nhwc_hwcf
// CHECK: linalg.generic
// CHECK: %[[RELU:.*]] = linalg.generic
// CHECK: vector.yield %[[RELU]] : tensor<1x8x8x8xf32>
// CHECK: }) {resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, tile = array<i64: 1, 8, 8, 8>} : () -> tensor<1x8x8x8xf32>
// CHECK: %[[PIN:.*]] = "spm.pin"(%[[G0]]) {offset = 0 : i64, size = 2048 : i64}
// CHECK: %[[G1:.*]] = "spm.group"() ({
// CHECK: tensor.pad %[[PIN]]
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc
// CHECK: linalg.conv_2d_nhwc_hwcf
// CHECK: %[[SUM:.*]] = linalg.generic
// CHECK: vector.yield %[[SUM]]
// CHECK: return %[[G1]]

// FUSE: remark: spm-pin-fuse (fuse-only): @block: 6 layers in 2 groups, 0 pinned; off-chip feature-map bytes 5632
// FUSE-IR: spm.offchip_bytes = 5632
// FUSE-IR-NOT: spm.pin

// UPSTREAM: "spm.pin"
// UPSTREAM: return

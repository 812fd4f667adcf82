// The target comes from the `target` option, else the module's spm.target
// (a preset name, or a dictionary with a preset and fields overriding it),
// else spm-2m; the spm-bytes option overrides any of them. The report shows
// the target used.
// RUN: memopt-opt %s --split-input-file --spm-pin-fuse="report=%t.preset.json" -o /dev/null
// RUN: FileCheck %s --input-file=%t.preset.json --check-prefix=PRESET
// RUN: memopt-opt %s --split-input-file --spm-pin-fuse="target=spm-8m spm-bytes=1MiB report=%t.option.json" -o /dev/null
// RUN: FileCheck %s --input-file=%t.option.json --check-prefix=OPTION
// RUN: memopt-opt %s --split-input-file --spm-pin-fuse -o /dev/null 2>&1 | FileCheck %s --check-prefix=CYCLES
// RUN: not memopt-opt %s --spm-pin-fuse="target=spm-1m" -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not memopt-opt %s --spm-pin-fuse="spm-bytes=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not memopt-opt %s --pass-pipeline="builtin.module(spm-pin-fuse{dram-bandwidth=0})" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ZERO-BANDWIDTH

// The report of the last function of the split input (a dictionary target).
// PRESET: "spm_bytes": 1048576
// PRESET: "dram_bytes_per_cycle": 8
// PRESET: "macs_per_cycle": 256

// OPTION: "spm_bytes": 1048576
// OPTION: "dram_bytes_per_cycle": 64
// OPTION: "macs_per_cycle": 4096

// One group moves the 512-byte input, the 256 bytes of weights and the
// 512-byte output in 3 transfers of 64 cycles each: at 16 bytes per cycle
// (spm-512k) 80 + 192 cycles, at 8 (the dictionary) 160 + 192.
// CYCLES: remark: spm-pin-fuse (dp): @relu: 1 layers in 1 groups, 0 pinned; off-chip feature-map bytes 1024, cycles 272
// CYCLES: remark: spm-pin-fuse (dp): @relu: 1 layers in 1 groups, 0 pinned; off-chip feature-map bytes 1024, cycles 352

// An unknown preset, and a capacity, bandwidth or throughput of 0, are refused
// when the pipeline is parsed, before the input is read.
// UNKNOWN: memopt-opt: error: in '--spm-pin-fuse=target=spm-1m': option 'target': unknown target 'spm-1m' (spm-512k, spm-2m, spm-8m)
// ZERO: memopt-opt: error: in '--spm-pin-fuse=spm-bytes=0': option 'spm-bytes' must be positive (leave it out to use the target's)
// ZERO-BANDWIDTH: <pass-pipeline>:1:{{[0-9]+}}: error: option 'dram-bandwidth' must be positive (leave it out to use the target's)

module attributes {spm.target = "spm-512k"} {
  func.func @relu(%x: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<1x4x4x8xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
    %w = arith.constant dense<1.0> : tensor<1x1x8x8xf32>
    %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x4x4x8xf32>, tensor<1x1x8x8xf32>) outs(%f : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
    return %c : tensor<1x4x4x8xf32>
  }
}

// -----

module attributes {spm.target = {preset = "spm-512k", spm_bytes = 1048576 : i64, dram_bytes_per_cycle = 8 : i64}} {
  func.func @relu(%x: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<1x4x4x8xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
    %w = arith.constant dense<1.0> : tensor<1x1x8x8xf32>
    %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x4x4x8xf32>, tensor<1x1x8x8xf32>) outs(%f : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
    return %c : tensor<1x4x4x8xf32>
  }
}

// Without spm-bytes, the pin arena is the scratchpad of the module's
// spm.target, read as spm-pin-fuse reads it: a preset name ("spm-512k":
// 512 KiB = 524288 bytes), or a dictionary whose spm_bytes refines a preset
// (spm-2m when it names none). A pin outside that scratchpad is an error at
// the pin, as with spm-bytes; spm-bytes still wins. Without spm.target the
// arena ends at the highest pin end (4096 bytes here).
// RUN: memopt-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(spm-to-memref))' | FileCheck %s
// RUN: memopt-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(spm-to-memref{spm-bytes=8KiB}))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OPTION

// CHECK-LABEL: func.func @preset
// CHECK: memref.alloc() : memref<524288xi8, 1>
// OPTION-LABEL: func.func @preset
// OPTION: memref.alloc() : memref<8192xi8, 1>
module attributes {spm.target = "spm-512k"} {
  func.func @preset(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
    %p = "spm.pin"(%x) {offset = 0 : i64, size = 4096 : i64} : (tensor<8x128xf32>) -> tensor<8x128xf32>
    %e = tensor.empty() : tensor<8x128xf32>
    %r = linalg.exp ins(%p : tensor<8x128xf32>) outs(%e : tensor<8x128xf32>) -> tensor<8x128xf32>
    return %r : tensor<8x128xf32>
  }
}

// -----

// CHECK-LABEL: func.func @dictionary
// CHECK: memref.alloc() : memref<6144xi8, 1>
module attributes {spm.target = {spm_bytes = 6144 : i64}} {
  func.func @dictionary(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
    %p = "spm.pin"(%x) {offset = 0 : i64, size = 4096 : i64} : (tensor<8x128xf32>) -> tensor<8x128xf32>
    %e = tensor.empty() : tensor<8x128xf32>
    %r = linalg.exp ins(%p : tensor<8x128xf32>) outs(%e : tensor<8x128xf32>) -> tensor<8x128xf32>
    return %r : tensor<8x128xf32>
  }
}

// -----

module attributes {spm.target = {spm_bytes = 2048 : i64}} {
  func.func @outside(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
    // expected-error @+1 {{'spm.pin' op cannot be lowered to memref: bytes [0, 4096) lie outside the scratchpad of spm.target spm_bytes=2048}}
    %p = "spm.pin"(%x) {offset = 0 : i64, size = 4096 : i64} : (tensor<8x128xf32>) -> tensor<8x128xf32>
    %e = tensor.empty() : tensor<8x128xf32>
    %r = linalg.exp ins(%p : tensor<8x128xf32>) outs(%e : tensor<8x128xf32>) -> tensor<8x128xf32>
    return %r : tensor<8x128xf32>
  }
}

// -----

// expected-error @+1 {{spm-to-memref: unknown spm.target preset 'spm-1k' (spm-512k, spm-2m, spm-8m)}}
module attributes {spm.target = "spm-1k"} {
  func.func @unknown(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
    %p = "spm.pin"(%x) {offset = 0 : i64, size = 4096 : i64} : (tensor<8x128xf32>) -> tensor<8x128xf32>
    return %p : tensor<8x128xf32>
  }
}

// -----

// An empty preset name (a string attribute with no storage) is an unknown preset
// too, found by fuzzing.
// expected-error @+1 {{spm-to-memref: unknown spm.target preset '' (spm-512k, spm-2m, spm-8m)}}
module attributes {spm.target = ""} {
  func.func @empty(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
    %p = "spm.pin"(%x) {offset = 0 : i64, size = 4096 : i64} : (tensor<8x128xf32>) -> tensor<8x128xf32>
    return %p : tensor<8x128xf32>
  }
}

// -----

// CHECK-LABEL: func.func @no_target
// CHECK: memref.alloc() : memref<4096xi8, 1>
func.func @no_target(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  %p = "spm.pin"(%x) {offset = 0 : i64, size = 4096 : i64} : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %e = tensor.empty() : tensor<8x128xf32>
  %r = linalg.exp ins(%p : tensor<8x128xf32>) outs(%e : tensor<8x128xf32>) -> tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

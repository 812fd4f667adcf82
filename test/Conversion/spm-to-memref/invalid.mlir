// spm ops that spm-to-memref cannot lower are rejected with an error at the
// op, naming what is wrong.
// RUN: memopt-opt %s --split-input-file --verify-diagnostics --spm-to-memref="spm-bytes=2KiB"
// A failing function is left as it was and nothing is printed.
// RUN: not memopt-opt %s --spm-to-memref="spm-bytes=2KiB" 2>&1 >%t.stdout \
// RUN:   | FileCheck %s --check-prefix=MESSAGE
// RUN: count 0 < %t.stdout
// RUN: not memopt-opt %s --split-input-file --spm-to-memref="spm-bytes=2KiB" \
// RUN:     --mlir-print-ir-after-all --mlir-print-ir-after-failure 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNCHANGED

// MESSAGE: invalid.mlir:[[@LINE+7]]:8: error: 'spm.pin' op cannot be lowered to memref: bytes [1024, 3072) lie outside the scratchpad of spm-bytes=2048
// UNCHANGED-LABEL: IR Dump After spm-to-memref Failed
// UNCHANGED: "spm.pin"(%{{.*}}) {offset = 1024 : i64, size = 2048 : i64}
// UNCHANGED: "spm.load"
func.func @pin_beyond_the_scratchpad(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %l = "spm.load"(%x) : (tensor<8x64xf32>) -> tensor<8x64xf32>
  // expected-error @+1 {{'spm.pin' op cannot be lowered to memref: bytes [1024, 3072) lie outside the scratchpad of spm-bytes=2048}}
  %p = "spm.pin"(%l) {offset = 1024 : i64, size = 2048 : i64} : (tensor<8x64xf32>) -> tensor<8x64xf32>
  return %p : tensor<8x64xf32>
}

// -----

func.func @pin_of_a_dynamic_tensor(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  // expected-error @+1 {{'spm.pin' op cannot be lowered to memref: a pinned tensor needs a static shape}}
  %p = "spm.pin"(%x) {offset = 0 : i64, size = 1024 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  return %p : tensor<?x64xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @tile_larger_than_the_output(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'spm.group' op cannot be lowered to memref: tile size 12 of dimension 0 does not fit its extent 8}}
  %g = "spm.group"() ({
    %e = tensor.empty() : tensor<8x16xf32>
    %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
    ^bb0(%a: f32, %o: f32):
      %y = arith.addf %a, %a : f32
      linalg.yield %y : f32
    } -> tensor<8x16xf32>
    vector.yield %r : tensor<8x16xf32>
  }) {resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, tile = array<i64: 12, 16>} : () -> tensor<8x16xf32>
  return %g : tensor<8x16xf32>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @tile_of_another_rank(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'spm.group' op cannot be lowered to memref: 'tile' has 3 sizes for an output of rank 2}}
  %g = "spm.group"() ({
    %e = tensor.empty() : tensor<8x16xf32>
    %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
    ^bb0(%a: f32, %o: f32):
      %y = arith.addf %a, %a : f32
      linalg.yield %y : f32
    } -> tensor<8x16xf32>
    vector.yield %r : tensor<8x16xf32>
  }) {resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, tile = array<i64: 1, 8, 16>} : () -> tensor<8x16xf32>
  return %g : tensor<8x16xf32>
}

// -----

func.func @last_op_not_linalg(%x: tensor<8x16xf32>) -> tensor<128xf32> {
  // expected-error @+1 {{'spm.group' op cannot be lowered to memref: its last op must be a linalg op with one result, the output 'tile' describes}}
  %g = "spm.group"() ({
    %c = tensor.collapse_shape %x [[0, 1]] : tensor<8x16xf32> into tensor<128xf32>
    vector.yield %c : tensor<128xf32>
  }) {resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, tile = array<i64: 64>} : () -> tensor<128xf32>
  return %g : tensor<128xf32>
}

// -----

func.func @load_of_a_dynamic_tensor(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{'spm.load' op cannot be lowered to memref: the copied tensor needs a static shape}}
  %l = "spm.load"(%x) : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %l : tensor<?x8xf32>
}

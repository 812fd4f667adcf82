// Two pins whose bytes overlap must not be live at the same time: the
// lowering gives both the same scratchpad bytes, so one overwrites the other.
// A pin is live from its producer (when in its block) to its last reader,
// following values that may share its buffer (views, in-place destinations,
// yields). %a = [0, 256) and %b = [128, 384) share [128, 256) while the add
// reads both: rejected at the later pin, naming the earlier one's position.
// Pins at one offset one after the other (%c dead when %d is pinned), or
// whose bytes only touch ([0, 256) and [256, 512)), are accepted.
// RUN: memopt-opt %s --split-input-file --verify-diagnostics

func.func @overlapping_live_together(%x: tensor<8x8xf32>, %y: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %a = "spm.pin"(%x) {offset = 0 : i64, size = 256 : i64} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  // expected-error @+1 {{'spm.pin' op bytes [128, 384) overlap bytes [0, 256) of the spm.pin at 12:8, and both are live at the same time}}
  %b = "spm.pin"(%y) {offset = 128 : i64, size = 256 : i64} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %e = tensor.empty() : tensor<8x8xf32>
  %s = linalg.add ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %s : tensor<8x8xf32>
}

// -----

// A view of %a keeps its bytes live until the view's last reader.
func.func @overlapping_through_a_view(%x: tensor<8x8xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %a = "spm.pin"(%x) {offset = 0 : i64, size = 256 : i64} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %v = tensor.collapse_shape %a [[0, 1]] : tensor<8x8xf32> into tensor<64xf32>
  // expected-error @+1 {{'spm.pin' op bytes [0, 256) overlap bytes [0, 256) of the spm.pin at 24:8, and both are live at the same time}}
  %b = "spm.pin"(%y) {offset = 0 : i64, size = 256 : i64} : (tensor<64xf32>) -> tensor<64xf32>
  %e = tensor.empty() : tensor<64xf32>
  %s = linalg.add ins(%v, %b : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  return %s : tensor<64xf32>
}

// -----

func.func @one_offset_one_after_the_other(%x: tensor<8x8xf32>, %y: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %c = "spm.pin"(%x) {offset = 0 : i64, size = 256 : i64} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %e = tensor.empty() : tensor<8x8xf32>
  %s = linalg.add ins(%c, %c : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %d = "spm.pin"(%y) {offset = 0 : i64, size = 256 : i64} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %e2 = tensor.empty() : tensor<8x8xf32>
  %t = linalg.add ins(%d, %d : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e2 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %u = "spm.pin"(%x) {offset = 256 : i64, size = 256 : i64} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %e3 = tensor.empty() : tensor<8x8xf32>
  %w = linalg.add ins(%d, %u : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e3 : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %s, %w : tensor<8x8xf32>, tensor<8x8xf32>
}

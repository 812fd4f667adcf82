// A tensor.pad whose low[...] or high[...] holds -9223372036854775808 (the
// marker of a padding given by an SSA operand) without that operand passes
// MLIR 22's verifier (the slice ops' verifier checks these counts, the pad's
// does not), and its printer then reads an operand past the end: SIGSEGV in
// mlir-opt, and in memopt-opt printing the result of any pipeline (found by
// memopt-mutate, whose mutations write boundary integers such as -2^63).
// memopt-opt rejects it as it reads the input, at the pad, with the slice ops'
// message. Counted per list: in the generic form below the one operand is
// high's (segments 1, 0, 1) while both lists hold one marker, so low has 0
// operands for 1 marker; upstream printed it with low's padding taken from
// high's operand. A pad with its operand is accepted and printed.
// RUN: memopt-opt %s --split-input-file --verify-diagnostics
// RUN: not memopt-opt %s --split-input-file 2>/dev/null | FileCheck %s

func.func @low(%x: tensor<8x8xf32>) -> tensor<8x10xf32> {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{'tensor.pad' op expected the number of 'low' to match the number of dynamic entries in 'static_low' (0 vs 1): -9223372036854775808 is the marker of a padding given by an operand}}
  %p = tensor.pad %x low[0, -9223372036854775808] high[0, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<8x8xf32> to tensor<8x10xf32>
  return %p : tensor<8x10xf32>
}

// -----

func.func @high(%x: tensor<8x8xf32>) -> tensor<8x?xf32> {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{expected the number of 'high' to match the number of dynamic entries in 'static_high' (0 vs 1)}}
  %p = tensor.pad %x low[0, 0] high[0, -9223372036854775808] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<8x8xf32> to tensor<8x?xf32>
  return %p : tensor<8x?xf32>
}

// -----

func.func @segments(%x: tensor<8x8xf32>, %c: index) -> tensor<8x?xf32> {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{expected the number of 'low' to match the number of dynamic entries in 'static_low' (0 vs 1)}}
  %p = "tensor.pad"(%x, %c) <{operandSegmentSizes = array<i32: 1, 0, 1>,
                              static_low = array<i64: 0, -9223372036854775808>,
                              static_high = array<i64: 0, -9223372036854775808>}> ({
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  }) : (tensor<8x8xf32>, index) -> tensor<8x?xf32>
  return %p : tensor<8x?xf32>
}

// -----

// CHECK-LABEL: func.func @operand(
// CHECK-SAME:      %[[C:arg1]]: index
// CHECK: tensor.pad %{{.*}} low[0, %[[C]]] high[0, 1]
func.func @operand(%x: tensor<8x8xf32>, %c: index) -> tensor<8x?xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, %c] high[0, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<8x8xf32> to tensor<8x?xf32>
  return %p : tensor<8x?xf32>
}

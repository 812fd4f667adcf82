// Argument 1 carries place-to-shard's mark of a hoisted view (memopt.view):
// columns 2 and 3 of argument 0 (2x4), seen as 2x2x1. memopt-run makes it so,
// as a caller passes it: a view of argument 0's buffer. Its elements are
// argument 0's at linear indices 2, 3, 6 and 7 (0.5 sin(0.7 l + 0.1): 0.4987,
// 0.4042, -0.4581, -0.4795), and it holds no buffer of its own: the inputs
// are argument 0's 32 bytes, rounded up to memopt_rt's 64-byte alignment,
// 64 bytes, where two generated inputs hold 128.
// RUN: memopt-run %s --print-outputs | FileCheck %s
// RUN: sed -e 's/ {memopt.view = .*}}) ->/) ->/' %s > %t.mlir
// RUN: memopt-run %t.mlir | FileCheck %s --check-prefix=GENERATED
// CHECK:      inputs_bytes: 64
// CHECK:      output 0: tensor<2x4xf32>
// CHECK-NEXT: {{^\[\[0.049916707, 0.358678043, 0.498747498, 0.404248208\],$}}
// CHECK-NEXT: {{^ \[0.119624667, -0.22126022, -0.458082974, -0.479462147\]\]$}}
// CHECK-NEXT: output 1: tensor<2x2x1xf32>
// CHECK-NEXT: {{^\[\[\[0.498747498\],$}}
// CHECK-NEXT: {{^  \[0.404248208\]\],$}}
// CHECK-NEXT: {{^ \[\[-0.458082974\],$}}
// CHECK-NEXT: {{^  \[-0.479462147\]\]\]$}}
// GENERATED:  inputs_bytes: 128

func.func @halves(%w: tensor<2x4xf32>, %right: tensor<2x2x1xf32> {memopt.view = {source = 0 : i64, steps = [{op = "tensor.extract_slice", properties = {operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0, 2>, static_sizes = array<i64: 2, 2>, static_strides = array<i64: 1, 1>}, type = tensor<2x2xf32>}, {op = "tensor.expand_shape", properties = {reassociation = [[0], [1, 2]], static_output_shape = array<i64: 2, 2, 1>}, type = tensor<2x2x1xf32>}]}}) -> (tensor<2x4xf32>, tensor<2x2x1xf32>) {
  return %w, %right : tensor<2x4xf32>, tensor<2x2x1xf32>
}

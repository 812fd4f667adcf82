// The list-scheduling example at run time, in units of 4 KiB (1024 f32):
// branches of 4 and 3 units reduced to 1 unit each. memopt-run measures the
// heap: 6 units live at once in the input order, 5 once the larger branch
// goes first (each buffer is 64-byte aligned: 4096 bytes exactly). The
// arithmetic is unchanged, so the outputs are bit-identical.
// RUN: memopt-run %s --compare --tolerance=0 --pipeline='builtin.module(func.func(memory-schedule))' \
// RUN:   | FileCheck %s
// CHECK: peak_bytes:{{ +}}24576{{ +}}20480{{ +}}0.833
// CHECK: outputs: bit-identical

func.func @two_branches(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %zero = arith.constant 0.0 : f32
  %eb = tensor.empty() : tensor<3x1024xf32>
  %b = linalg.broadcast ins(%x : tensor<1024xf32>) outs(%eb : tensor<3x1024xf32>) dimensions = [0]
  %eb2 = tensor.empty() : tensor<1024xf32>
  %zb = linalg.fill ins(%zero : f32) outs(%eb2 : tensor<1024xf32>) -> tensor<1024xf32>
  %b2 = linalg.reduce ins(%b : tensor<3x1024xf32>) outs(%zb : tensor<1024xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %ea = tensor.empty() : tensor<4x1024xf32>
  %a = linalg.broadcast ins(%x : tensor<1024xf32>) outs(%ea : tensor<4x1024xf32>) dimensions = [0]
  %ea2 = tensor.empty() : tensor<1024xf32>
  %za = linalg.fill ins(%zero : f32) outs(%ea2 : tensor<1024xf32>) -> tensor<1024xf32>
  %a2 = linalg.reduce ins(%a : tensor<4x1024xf32>) outs(%za : tensor<1024xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.maximumf %in, %acc : f32
      linalg.yield %s : f32
    }
  %eo = tensor.empty() : tensor<1024xf32>
  %o = linalg.sub ins(%a2, %b2 : tensor<1024xf32>, tensor<1024xf32>) outs(%eo : tensor<1024xf32>) -> tensor<1024xf32>
  return %o : tensor<1024xf32>
}

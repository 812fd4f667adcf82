// Small programs whose estimated peak memory-estimate-vs-run.test compares
// with what memopt-run measures. Each exercises one part of the model.

// Matmul chain: products freed after their last reader.
func.func @mlp(%x: tensor<32x64xf32>, %w1: tensor<64x128xf32>, %w2: tensor<128x256xf32>,
               %w3: tensor<256x32xf32>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<32x128xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %h1 = linalg.matmul ins(%x, %w1 : tensor<32x64xf32>, tensor<64x128xf32>) outs(%f1 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %e2 = tensor.empty() : tensor<32x256xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %h2 = linalg.matmul ins(%h1, %w2 : tensor<32x128xf32>, tensor<128x256xf32>) outs(%f2 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %e3 = tensor.empty() : tensor<32x32xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<32x32xf32>) -> tensor<32x32xf32>
  %out = linalg.matmul ins(%h2, %w3 : tensor<32x256xf32>, tensor<256x32xf32>) outs(%f3 : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %out : tensor<32x32xf32>
}

// In-place elementwise chain, then an init still read later (copied), and
// arith/math on tensors.
func.func @elementwise(%x: tensor<1024xf32>) -> (tensor<1024xf32>, tensor<1024xi1>) {
  %e = tensor.empty() : tensor<1024xf32>
  %a = linalg.exp ins(%x : tensor<1024xf32>) outs(%e : tensor<1024xf32>) -> tensor<1024xf32>
  %b = linalg.add ins(%a, %a : tensor<1024xf32>, tensor<1024xf32>) outs(%a : tensor<1024xf32>) -> tensor<1024xf32>
  %c = linalg.mul ins(%b, %b : tensor<1024xf32>, tensor<1024xf32>) outs(%b : tensor<1024xf32>) -> tensor<1024xf32>
  %d = math.exp %c : tensor<1024xf32>
  %m = arith.cmpf ogt, %d, %c : tensor<1024xf32>
  return %c, %m : tensor<1024xf32>, tensor<1024xi1>
}

// Views: a collapse of an argument is copied, one of a contiguous slice is
// not, one of a strided slice is; the source lives as long as its views.
func.func @views(%x: tensor<8x16xf32>) -> tensor<64xf32> {
  %all = tensor.collapse_shape %x [[0, 1]] : tensor<8x16xf32> into tensor<128xf32>
  %e0 = tensor.empty() : tensor<128xf32>
  %b0 = linalg.exp ins(%all : tensor<128xf32>) outs(%e0 : tensor<128xf32>) -> tensor<128xf32>
  %b = tensor.expand_shape %b0 [[0, 1]] output_shape [8, 16] : tensor<128xf32> into tensor<8x16xf32>
  %rows = tensor.extract_slice %b[0, 0] [4, 16] [1, 1] : tensor<8x16xf32> to tensor<4x16xf32>
  %r = tensor.collapse_shape %rows [[0, 1]] : tensor<4x16xf32> into tensor<64xf32>
  %cols = tensor.extract_slice %b[0, 0] [8, 8] [1, 1] : tensor<8x16xf32> to tensor<8x8xf32>
  %c = tensor.collapse_shape %cols [[0, 1]] : tensor<8x8xf32> into tensor<64xf32>
  %e = tensor.empty() : tensor<64xf32>
  %s = linalg.add ins(%r, %c : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  return %s : tensor<64xf32>
}

// Returned values: an owned buffer, a view of one, an argument (cloned) and
// a constant (cloned); 5 x f32 buffers show the rounding to 64 bytes.
func.func @returns(%x: tensor<5xf32>) -> (tensor<5xf32>, tensor<2xf32>, tensor<5xf32>, tensor<3xf32>) {
  %k = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %e = tensor.empty() : tensor<5xf32>
  %a = linalg.exp ins(%x : tensor<5xf32>) outs(%e : tensor<5xf32>) -> tensor<5xf32>
  %e2 = tensor.empty() : tensor<5xf32>
  %b = linalg.exp ins(%a : tensor<5xf32>) outs(%e2 : tensor<5xf32>) -> tensor<5xf32>
  %s = tensor.extract_slice %b[1] [2] [1] : tensor<5xf32> to tensor<2xf32>
  return %a, %s, %x, %k : tensor<5xf32>, tensor<2xf32>, tensor<5xf32>, tensor<3xf32>
}

// Region ops: a loop carrying a buffer in place with a temporary per
// iteration (memopt-run passes n = 3), then an scf.if whose branches
// allocate different amounts. The estimate counts the heavier branch at the
// scf.if: the condition is made to take it, so that the run reaches it too.
func.func @regions(%x: tensor<64xf32>, %n: index) -> tensor<64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %flag = arith.constant true
  %e = tensor.empty() : tensor<64xf32>
  %init = linalg.copy ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %l = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<64xf32>) {
    %t = tensor.empty() : tensor<64xf32>
    %m = linalg.mul ins(%acc, %acc : tensor<64xf32>, tensor<64xf32>) outs(%t : tensor<64xf32>) -> tensor<64xf32>
    %next = linalg.add ins(%m, %acc : tensor<64xf32>, tensor<64xf32>) outs(%acc : tensor<64xf32>) -> tensor<64xf32>
    scf.yield %next : tensor<64xf32>
  }
  %r = scf.if %flag -> (tensor<64xf32>) {
    %t1 = tensor.empty() : tensor<64xf32>
    %t2 = tensor.empty() : tensor<256xf32>
    %zero = arith.constant 0.0 : f32
    %f = linalg.fill ins(%zero : f32) outs(%t2 : tensor<256xf32>) -> tensor<256xf32>
    %s = tensor.extract_slice %f[0] [64] [1] : tensor<256xf32> to tensor<64xf32>
    %a = linalg.add ins(%l, %s : tensor<64xf32>, tensor<64xf32>) outs(%t1 : tensor<64xf32>) -> tensor<64xf32>
    scf.yield %a : tensor<64xf32>
  } else {
    %t = tensor.empty() : tensor<64xf32>
    %a = linalg.exp ins(%l : tensor<64xf32>) outs(%t : tensor<64xf32>) -> tensor<64xf32>
    scf.yield %a : tensor<64xf32>
  }
  %e2 = tensor.empty() : tensor<64xf32>
  %s = linalg.exp ins(%r : tensor<64xf32>) outs(%e2 : tensor<64xf32>) -> tensor<64xf32>
  return %s : tensor<64xf32>
}

// Calls: the callee's peak counts at the call; its result leaves every
// buffer of the caller to be freed at the end, after a run-time alias check
// whose arrays are heap too.
func.func private @twice_exp(%x: tensor<256xf32>) -> tensor<256xf32> {
  %e = tensor.empty() : tensor<256xf32>
  %a = linalg.exp ins(%x : tensor<256xf32>) outs(%e : tensor<256xf32>) -> tensor<256xf32>
  %e2 = tensor.empty() : tensor<256xf32>
  %b = linalg.exp ins(%a : tensor<256xf32>) outs(%e2 : tensor<256xf32>) -> tensor<256xf32>
  return %b : tensor<256xf32>
}

func.func @caller(%x: tensor<256xf32>) -> tensor<256xf32> {
  %e = tensor.empty() : tensor<256xf32>
  %a = linalg.exp ins(%x : tensor<256xf32>) outs(%e : tensor<256xf32>) -> tensor<256xf32>
  %r = func.call @twice_exp(%a) : (tensor<256xf32>) -> tensor<256xf32>
  %e2 = tensor.empty() : tensor<256xf32>
  %s = linalg.add ins(%r, %a : tensor<256xf32>, tensor<256xf32>) outs(%e2 : tensor<256xf32>) -> tensor<256xf32>
  return %s : tensor<256xf32>
}

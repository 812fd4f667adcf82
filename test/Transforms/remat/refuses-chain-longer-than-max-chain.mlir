// max-chain=1: recomputing %b = mul(exp(x)) takes two computing ops (exp is
// not live at the later use), so the only other way is to keep exp's result
// alive instead of %b's, which frees nothing. No candidate is left and the
// function is unchanged (the default max-chain recomputes both:
// recomputes-cheap-elementwise-chain.mlir).
// RUN: memopt-opt %s --remat="budget=36KiB max-chain=1" 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: memopt-opt %s --remat="budget=36KiB max-chain=1" -o %t.mlir
// RUN: memopt-opt %s -o %t.orig.mlir
// RUN: diff %t.mlir %t.orig.mlir

// REMARK: remark: remat: the budget of 36864 bytes is out of reach: the best is 40960 bytes (from 40960), then no value live across the peak can be recomputed with at most max-chain computing ops within max-recompute so that the peak goes down; the function is left unchanged

#id = affine_map<(d0) -> (d0)>
func.func @elementwise_chain(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<1024xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<1024xf32>) outs(%e0 : tensor<1024xf32>) {
    ^bb0(%in: f32, %out: f32):
      %v = math.exp %in : f32
      linalg.yield %v : f32
  } -> tensor<1024xf32>
  %e1 = tensor.empty() : tensor<1024xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<1024xf32>) outs(%e1 : tensor<1024xf32>) {
    ^bb0(%in: f32, %out: f32):
      %v = arith.mulf %in, %in : f32
      linalg.yield %v : f32
  } -> tensor<1024xf32>
  %ep = tensor.empty() : tensor<8x1024xf32>
  %p = linalg.broadcast ins(%x : tensor<1024xf32>) outs(%ep : tensor<8x1024xf32>) dimensions = [0]
  %er = tensor.empty() : tensor<1024xf32>
  %zr = linalg.fill ins(%zero : f32) outs(%er : tensor<1024xf32>) -> tensor<1024xf32>
  %r = linalg.reduce ins(%p : tensor<8x1024xf32>) outs(%zr : tensor<1024xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %eo = tensor.empty() : tensor<1024xf32>
  %o = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%r, %b : tensor<1024xf32>, tensor<1024xf32>) outs(%eo : tensor<1024xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %v = arith.addf %in, %in2 : f32
      linalg.yield %v : f32
  } -> tensor<1024xf32>
  return %o : tensor<1024xf32>
}

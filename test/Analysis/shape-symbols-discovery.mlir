// Shape symbols: one per independent unknown dimension, found from function
// arguments, tensor.dim, sizes shared through SSA values and linalg indexing
// maps; remat.dim_symbol names a symbol and equates the dimensions it names.
// RUN: memopt-opt %s --split-input-file --verify-diagnostics --print-shape-symbols -o /dev/null

// Two arguments whose rows meet in an elementwise op: one symbol.
// expected-remark @+1 {{2 shape symbols: s0 = dim 0 of argument #0 in [1, inf); s1 = dim 1 of argument #1 in [1, inf)}}
func.func @elementwise_equates(%x: tensor<?x8xf32>, %y: tensor<?x?xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  // expected-remark @+1 {{result #0 = s0}}
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  // expected-remark @+1 {{result #0: s0 x 8, 32*s0 bytes}}
  %e = tensor.empty(%n) : tensor<?x8xf32>
  // expected-remark @+1 {{result #0: s0 x 8, 32*s0 bytes}}
  %s = linalg.add ins(%x, %x : tensor<?x8xf32>, tensor<?x8xf32>) outs(%e : tensor<?x8xf32>) -> tensor<?x8xf32>
  // The second argument's rows are only related through the matmul below:
  // its dim 0 joins the contraction (8), its dim 1 stays its own symbol.
  %c1 = arith.constant 1 : index
  // expected-remark @+1 {{result #0 = s1}}
  %m = tensor.dim %y, %c1 : tensor<?x?xf32>
  // expected-remark @+1 {{result #0: s0 x s1, 4*s0*s1 bytes}}
  %o = tensor.empty(%n, %m) : tensor<?x?xf32>
  // expected-remark @+1 {{result #0: s0 x s1, 4*s0*s1 bytes}}
  %p = linalg.matmul ins(%s, %y : tensor<?x8xf32>, tensor<?x?xf32>) outs(%o : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %s : tensor<?x8xf32>
}

// -----

// Index arguments used as sizes are symbols; products and sums of them are
// polynomials. The matmul equates the columns of %w with a sum of symbols.
// expected-remark @+1 {{2 shape symbols: s0 = argument #1 in [1, inf); s1 = argument #2 in [1, inf)}}
func.func @index_arithmetic(%w: tensor<16x?xf32>, %a: index, %b: index) -> tensor<?x?xf32> {
  // expected-remark @+1 {{result #0 = s0*s1}}
  %ab = arith.muli %a, %b : index
  // expected-remark @+1 {{result #0 = 2*s0}}
  %t = arith.addi %a, %a : index
  %one = arith.constant 1 : index
  // expected-remark @+1 {{result #0 = 2*s0 + 1}}
  %t1 = arith.addi %t, %one : index
  // expected-remark @+1 {{result #0: s0*s1 x 16, 64*s0*s1 bytes}}
  %x = tensor.empty(%ab) : tensor<?x16xf32>
  // expected-remark @+1 {{result #0: s0*s1 x (2*s0 + 1), 8*s0^2*s1 + 4*s0*s1 bytes}}
  %o = tensor.empty(%ab, %t1) : tensor<?x?xf32>
  // expected-remark @+1 {{result #0: s0*s1 x (2*s0 + 1), 8*s0^2*s1 + 4*s0*s1 bytes}}
  %m = linalg.matmul ins(%x, %w : tensor<?x16xf32>, tensor<16x?xf32>) outs(%o : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %m : tensor<?x?xf32>
}

// -----

// remat.dim_symbol names a symbol, and two dimensions named alike are equal.
// expected-remark @+1 {{1 shape symbol: seq = dim 0 of argument #0 in [1, inf)}}
func.func @named(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  "remat.dim_symbol"(%x) {dim = 0 : i64, symbol = "seq"} : (tensor<?xf32>) -> ()
  "remat.dim_symbol"(%y) {dim = 0 : i64, symbol = "seq"} : (tensor<?xf32>) -> ()
  // expected-remark @+1 {{result #0: seq, 4*seq bytes}}
  %s = arith.addf %x, %y : tensor<?xf32>
  return %s : tensor<?xf32>
}

// -----

// User bounds come from the function attribute memopt.symbol_bounds.
// expected-remark @+1 {{1 shape symbol: seq = dim 0 of argument #0 in [16, 4096]}}
func.func @bounded(%x: tensor<?xf32>) -> tensor<?xf32> attributes {memopt.symbol_bounds = {seq = [16, 4096]}} {
  "remat.dim_symbol"(%x) {dim = 0 : i64, symbol = "seq"} : (tensor<?xf32>) -> ()
  return %x : tensor<?xf32>
}

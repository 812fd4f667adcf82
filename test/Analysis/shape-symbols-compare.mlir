// Live bytes as polynomials over shape symbols, compared op by op: less,
// equal, greater, or unknown when the answer depends on the symbols' values;
// user bounds (memopt.symbol_bounds) decide some of the unknown cases. The
// candidate peaks are the positions no other position surely exceeds.
// RUN: memopt-opt %s --split-input-file --verify-diagnostics --print-shape-symbols=live=true -o /dev/null

// expected-remark @+2 {{2 shape symbols: s0 = dim 0 of argument #0 in [1, inf); s1 = dim 0 of argument #1 in [1, inf)}}
// expected-remark @+1 {{peak candidates: position 5 'tensor.empty' 8*s0; position 7 'tensor.empty' 4*s0 + 4*s1}}
func.func @unbounded(%x: tensor<?xf32>, %y: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  // expected-remark @+1 {{live bytes: 0}}
  %c0 = arith.constant 0 : index
  // expected-remark @+1 {{live bytes: 0 (versus the previous op: equal)}}
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  // expected-remark @+1 {{live bytes: 0 (versus the previous op: equal)}}
  %m = tensor.dim %y, %c0 : tensor<?xf32>
  // expected-remark @+1 {{live bytes: 4*s0 (versus the previous op: greater)}}
  %e0 = tensor.empty(%n) : tensor<?xf32>
  // expected-remark @+1 {{live bytes: 4*s0 (versus the previous op: equal)}}
  %a = linalg.exp ins(%x : tensor<?xf32>) outs(%e0 : tensor<?xf32>) -> tensor<?xf32>
  // expected-remark @+1 {{live bytes: 8*s0 (versus the previous op: greater)}}
  %e1 = tensor.empty(%n) : tensor<?xf32>
  // expected-remark @+1 {{live bytes: 8*s0 (versus the previous op: equal)}}
  %a2 = linalg.exp ins(%a : tensor<?xf32>) outs(%e1 : tensor<?xf32>) -> tensor<?xf32>
  // %a (4*s0) died, a buffer of 4*s1 bytes is born: it depends on s0 and s1.
  // expected-remark @+1 {{live bytes: 4*s0 + 4*s1 (versus the previous op: unknown)}}
  %e2 = tensor.empty(%m) : tensor<?xf32>
  // expected-remark @+1 {{live bytes: 4*s0 + 4*s1 (versus the previous op: equal)}}
  %b = linalg.exp ins(%y : tensor<?xf32>) outs(%e2 : tensor<?xf32>) -> tensor<?xf32>
  // expected-remark @+1 {{live bytes: 4*s0 + 4*s1 (versus the previous op: equal)}}
  return %a2, %b : tensor<?xf32>, tensor<?xf32>
}

// -----

// The same function with s1 known to exceed s0: one peak.
// expected-remark @+2 {{2 shape symbols: n = dim 0 of argument #0 in [1, 100]; m = dim 0 of argument #1 in [200, 300]}}
// expected-remark @+1 {{peak candidates: position 9 'tensor.empty' 4*n + 4*m}}
func.func @bounded(%x: tensor<?xf32>, %y: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) attributes {memopt.symbol_bounds = {n = [1, 100], m = [200, 300]}} {
  // expected-remark @+1 {{live bytes: 0}}
  "remat.dim_symbol"(%x) {dim = 0 : i64, symbol = "n"} : (tensor<?xf32>) -> ()
  // expected-remark @+1 {{live bytes: 0 (versus the previous op: equal)}}
  "remat.dim_symbol"(%y) {dim = 0 : i64, symbol = "m"} : (tensor<?xf32>) -> ()
  // expected-remark @+1 {{live bytes: 0 (versus the previous op: equal)}}
  %c0 = arith.constant 0 : index
  // expected-remark @+1 {{live bytes: 0 (versus the previous op: equal)}}
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  // expected-remark @+1 {{live bytes: 0 (versus the previous op: equal)}}
  %m = tensor.dim %y, %c0 : tensor<?xf32>
  // expected-remark @+1 {{live bytes: 4*n (versus the previous op: greater)}}
  %e0 = tensor.empty(%n) : tensor<?xf32>
  // expected-remark @+1 {{live bytes: 4*n (versus the previous op: equal)}}
  %a = linalg.exp ins(%x : tensor<?xf32>) outs(%e0 : tensor<?xf32>) -> tensor<?xf32>
  // expected-remark @+1 {{live bytes: 8*n (versus the previous op: greater)}}
  %e1 = tensor.empty(%n) : tensor<?xf32>
  // expected-remark @+1 {{live bytes: 8*n (versus the previous op: equal)}}
  %a2 = linalg.exp ins(%a : tensor<?xf32>) outs(%e1 : tensor<?xf32>) -> tensor<?xf32>
  // expected-remark @+1 {{live bytes: 4*n + 4*m (versus the previous op: greater)}}
  %e2 = tensor.empty(%m) : tensor<?xf32>
  // expected-remark @+1 {{live bytes: 4*n + 4*m (versus the previous op: equal)}}
  %b = linalg.exp ins(%y : tensor<?xf32>) outs(%e2 : tensor<?xf32>) -> tensor<?xf32>
  // expected-remark @+1 {{live bytes: 4*n + 4*m (versus the previous op: equal)}}
  return %a2, %b : tensor<?xf32>, tensor<?xf32>
}


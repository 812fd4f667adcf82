// Reshapes make products of dimensions (the merged side of a reshape is the
// product of its group), concatenation makes sums, and expand_shape's
// output_shape operands equate the split dimensions with the values given.
// RUN: memopt-opt %s --split-input-file --verify-diagnostics --print-shape-symbols -o /dev/null

// expected-remark @+1 {{2 shape symbols: s0 = dim 0 of argument #0 in [1, inf); s1 = dim 1 of argument #0 in [1, inf)}}
func.func @collapse(%x: tensor<?x?x64xf32>) -> tensor<?x64xf32> {
  // expected-remark @+1 {{result #0: s0*s1 x 64, 256*s0*s1 bytes}}
  %c = tensor.collapse_shape %x [[0, 1], [2]] : tensor<?x?x64xf32> into tensor<?x64xf32>
  // expected-remark @+1 {{result #0: s0 x 64*s1, 256*s0*s1 bytes}}
  %d = tensor.collapse_shape %x [[0], [1, 2]] : tensor<?x?x64xf32> into tensor<?x?xf32>
  return %c : tensor<?x64xf32>
}

// -----

// The source of an expand_shape is the product of the dimensions it splits into.
// expected-remark @+1 {{2 shape symbols: s0 = argument #1 in [1, inf); s1 = argument #2 in [1, inf)}}
func.func @expand(%x: tensor<?x8xf32>, %b: index, %s: index) -> tensor<?x?x8xf32> {
  // expected-remark @+1 {{result #0: s0 x s1 x 8, 32*s0*s1 bytes}}
  %e = tensor.expand_shape %x [[0, 1], [2]] output_shape [%b, %s, 8] : tensor<?x8xf32> into tensor<?x?x8xf32>
  %c0 = arith.constant 0 : index
  // expected-remark @+1 {{result #0 = s0*s1}}
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  return %e : tensor<?x?x8xf32>
}

// -----

// expected-remark @+1 {{2 shape symbols: s0 = dim 0 of argument #0 in [1, inf); s1 = dim 0 of argument #1 in [1, inf)}}
func.func @concat(%x: tensor<?x16xf32>, %y: tensor<?x16xf32>) -> tensor<?x16xf32> {
  // expected-remark @+1 {{result #0: (2*s0 + s1) x 16, 128*s0 + 64*s1 bytes}}
  %c = tensor.concat dim(0) %x, %y, %x : (tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>) -> tensor<?x16xf32>
  return %x : tensor<?x16xf32>
}

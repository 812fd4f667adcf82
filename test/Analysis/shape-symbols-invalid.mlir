// Malformed symbol bounds are errors on the function.
// RUN: memopt-opt %s --split-input-file --verify-diagnostics --print-shape-symbols -o /dev/null

// expected-error @+1 {{'memopt.symbol_bounds' names 'seq', which is not a symbol of the function}}
func.func @unknown_name(%x: tensor<?xf32>) -> tensor<?xf32> attributes {memopt.symbol_bounds = {seq = [1, 8]}} {
  return %x : tensor<?xf32>
}

// -----

// expected-error @+1 {{'memopt.symbol_bounds' of 's0' must be [minimum, maximum] with 1 <= minimum <= maximum}}
func.func @empty_range(%x: tensor<?xf32>) -> tensor<?xf32> attributes {memopt.symbol_bounds = {s0 = [8, 4]}} {
  return %x : tensor<?xf32>
}

// -----

// expected-error @+1 {{'memopt.symbol_bounds' must be a dictionary from symbol names to [minimum, maximum]}}
func.func @not_a_dictionary(%x: tensor<?xf32>) -> tensor<?xf32> attributes {memopt.symbol_bounds = [1, 8]} {
  return %x : tensor<?xf32>
}

// Malformed symbol bounds are an error on the function, and the pass fails
// without touching the IR.
// RUN: memopt-opt %s --verify-diagnostics --memory-schedule -o /dev/null
// RUN: not memopt-opt %s --memory-schedule -o %t.mlir 2>&1 | FileCheck %s
// RUN: not test -e %t.mlir
// CHECK: invalid-bounds.mlir:9:1: error: 'memopt.symbol_bounds' of 's0' must be [minimum, maximum] with 1 <= minimum <= maximum

// expected-error @+1 {{'memopt.symbol_bounds' of 's0' must be [minimum, maximum] with 1 <= minimum <= maximum}}
func.func @empty_range(%x: tensor<?xf32>) -> tensor<?xf32> attributes {memopt.symbol_bounds = {s0 = [0, 4]}} {
  return %x : tensor<?xf32>
}

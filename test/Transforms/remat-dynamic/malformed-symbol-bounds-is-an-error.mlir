// Malformed symbol bounds are an error on the function, the run fails and
// nothing is written.
// RUN: memopt-opt %s --verify-diagnostics --remat-dynamic -o /dev/null
// RUN: not memopt-opt %s --remat-dynamic -o %t.out 2>&1 | FileCheck %s
// RUN: not test -e %t.out
// CHECK: malformed-symbol-bounds-is-an-error.mlir:[[@LINE+3]]:1: error: 'memopt.symbol_bounds' of 's0' must be [minimum, maximum]

// expected-error @+1 {{'memopt.symbol_bounds' of 's0' must be [minimum, maximum] with 1 <= minimum <= maximum}}
func.func @empty_range(%x: tensor<?xf32>) -> tensor<?xf32> attributes {memopt.symbol_bounds = {s0 = [8, 4]}} {
  return %x : tensor<?xf32>
}

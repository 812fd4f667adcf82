// From a remat.evict until the next remat.regenerate of its value, the buffer
// may be evicted (its pages released): an op that reads the value there
// would read garbage under a memory limit, so remat-to-runtime refuses it
// with an error at the reader and a note at the evict. Reading its shape
// (tensor.dim), or no read at all, is fine: see
// execute-evict-of-a-value-never-read-again.test.
// RUN: memopt-opt %s --split-input-file --verify-diagnostics --remat-to-runtime

func.func @read_with_no_regenerate(%x: tensor<?xf32>) -> tensor<?xf32> {
  %e = math.exp %x : tensor<?xf32>
  // expected-note @+1 {{made evictable here}}
  "remat.evict"(%e) : (tensor<?xf32>) -> ()
  %t = math.tanh %x : tensor<?xf32>
  // expected-error @+1 {{'arith.addf' op reads a value that a remat.evict made evictable, before a remat.regenerate restores it}}
  %r = arith.addf %e, %t : tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

func.func @returned(%x: tensor<?xf32>) -> tensor<?xf32> {
  %e = math.exp %x : tensor<?xf32>
  // expected-note @+1 {{made evictable here}}
  "remat.evict"(%e) : (tensor<?xf32>) -> ()
  // expected-error @+1 {{'func.return' op reads a value that a remat.evict made evictable}}
  return %e : tensor<?xf32>
}

// -----

// The read comes before the regenerate; its shape may be read anywhere.
func.func @read_before_the_regenerate(%x: tensor<?xf32>) -> tensor<?xf32> {
  %e = math.exp %x : tensor<?xf32>
  // expected-note @+1 {{made evictable here}}
  "remat.evict"(%e) : (tensor<?xf32>) -> ()
  %c0 = arith.constant 0 : index
  %n = tensor.dim %e, %c0 : tensor<?xf32>
  // expected-error @+1 {{'math.sin' op reads a value that a remat.evict made evictable}}
  %s = math.sin %e : tensor<?xf32>
  %r = "remat.regenerate"(%e) ({
    %again = math.exp %x : tensor<?xf32>
    vector.yield %again : tensor<?xf32>
  }) : (tensor<?xf32>) -> tensor<?xf32>
  %sum = arith.addf %r, %s : tensor<?xf32>
  return %sum : tensor<?xf32>
}

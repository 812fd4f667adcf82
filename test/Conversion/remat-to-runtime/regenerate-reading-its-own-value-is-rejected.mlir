// A regenerate's body runs while the value it regenerates is evicted, so it
// cannot read that value, nor regenerate it again (which once crashed
// remat-to-runtime): a located error on the regenerate. Reading its shape
// (tensor.dim) stays valid: evict-passes-the-restore-footprint.mlir.
// RUN: memopt-opt %s --split-input-file --verify-diagnostics --remat-to-runtime

func.func @reads_itself(%x: tensor<?xf32>) -> tensor<?xf32> {
  "remat.evict"(%x) : (tensor<?xf32>) -> ()
  // expected-error @+1 {{'remat.regenerate' op body uses the value it regenerates: a buffer cannot be recomputed from itself}}
  %r = "remat.regenerate"(%x) ({
    %e = math.exp %x : tensor<?xf32>
    vector.yield %e : tensor<?xf32>
  }) : (tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

func.func @regenerates_itself_inside(%x: tensor<?xf32>) -> tensor<?xf32> {
  "remat.evict"(%x) : (tensor<?xf32>) -> ()
  // expected-error @+1 {{'remat.regenerate' op body uses the value it regenerates}}
  %r = "remat.regenerate"(%x) ({
    "remat.evict"(%x) : (tensor<?xf32>) -> ()
    // expected-error @+1 {{'remat.regenerate' op body uses the value it regenerates}}
    %q = "remat.regenerate"(%x) ({
      vector.yield %x : tensor<?xf32>
    }) : (tensor<?xf32>) -> tensor<?xf32>
    vector.yield %q : tensor<?xf32>
  }) : (tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// Options that would make place-search allocate or enumerate without bound
// are refused when the pipeline is parsed, before the input is read:
// `devices` above 65536 and `layers` above 1024 (the search keeps stage
// sums per layer count and caps per stage for every configuration, and the
// depth is at most the layer count), and `brute-force` with more than
// 12 layers (it enumerates up to 2 x 3^11 splits and recompute choices per
// configuration at 12; 1000000 layers never finished). A model recognized
// with more than 12 layers (prologue and epilogue included) is refused by
// brute-force at the function, before any search: here 14 identical
// elementwise ops are 14 layers.
// RUN: not memopt-opt %s --pass-pipeline="builtin.module(place-search{devices=1000000000 global-batch=1000000000000 layers=1000000})" 2>&1 | FileCheck %s --check-prefix=DEVICES
// DEVICES: <pass-pipeline>:1:{{[0-9]+}}: error: option 'devices' must be in [0, 65536], got '1000000000'
// RUN: not memopt-opt %s --pass-pipeline="builtin.module(place-search{layers=1000000})" 2>&1 | FileCheck %s --check-prefix=LAYERS
// LAYERS: <pass-pipeline>:1:{{[0-9]+}}: error: option 'layers' must be in [0, 1024], got '1000000'
// RUN: not memopt-opt %s --pass-pipeline="builtin.module(place-search{brute-force=true layers=13})" 2>&1 | FileCheck %s --check-prefix=BRUTE
// BRUTE: <pass-pipeline>:1:{{[0-9]+}}: error: option 'brute-force' enumerates at most 12 layers, got layers=13
// BRUTE-NOT: brute-force-and-sizes
// RUN: not memopt-opt %s --pass-pipeline="builtin.module(place-search{brute-force=true})" -o %t.out 2>&1 | FileCheck %s --check-prefix=RECOGNIZED
// RUN: not test -e %t.out
// RECOGNIZED: brute-force-and-sizes-beyond-what-it-can-search-are-refused.mlir:[[@LINE+3]]:3: error: place-search: brute force enumerates at most 12 layers; the model has 14 (prologue and epilogue included)
#id = affine_map<(d0) -> (d0)>
module {
  func.func @chain(%v0: tensor<8xf32>) -> tensor<8xf32> {
    %e1 = tensor.empty() : tensor<8xf32>
    %v1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%v0 : tensor<8xf32>) outs(%e1 : tensor<8xf32>) {
    ^bb0(%a: f32, %o: f32):
      %r = math.exp %a : f32
      linalg.yield %r : f32
    } -> tensor<8xf32>
    %e2 = tensor.empty() : tensor<8xf32>
    %v2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%v1 : tensor<8xf32>) outs(%e2 : tensor<8xf32>) {
    ^bb0(%a: f32, %o: f32):
      %r = math.exp %a : f32
      linalg.yield %r : f32
    } -> tensor<8xf32>
    %e3 = tensor.empty() : tensor<8xf32>
    %v3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%v2 : tensor<8xf32>) outs(%e3 : tensor<8xf32>) {
    ^bb0(%a: f32, %o: f32):
      %r = math.exp %a : f32
      linalg.yield %r : f32
    } -> tensor<8xf32>
    %e4 = tensor.empty() : tensor<8xf32>
    %v4 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%v3 : tensor<8xf32>) outs(%e4 : tensor<8xf32>) {
    ^bb0(%a: f32, %o: f32):
      %r = math.exp %a : f32
      linalg.yield %r : f32
    } -> tensor<8xf32>
    %e5 = tensor.empty() : tensor<8xf32>
    %v5 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%v4 : tensor<8xf32>) outs(%e5 : tensor<8xf32>) {
    ^bb0(%a: f32, %o: f32):
      %r = math.exp %a : f32
      linalg.yield %r : f32
    } -> tensor<8xf32>
    %e6 = tensor.empty() : tensor<8xf32>
    %v6 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%v5 : tensor<8xf32>) outs(%e6 : tensor<8xf32>) {
    ^bb0(%a: f32, %o: f32):
      %r = math.exp %a : f32
      linalg.yield %r : f32
    } -> tensor<8xf32>
    %e7 = tensor.empty() : tensor<8xf32>
    %v7 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%v6 : tensor<8xf32>) outs(%e7 : tensor<8xf32>) {
    ^bb0(%a: f32, %o: f32):
      %r = math.exp %a : f32
      linalg.yield %r : f32
    } -> tensor<8xf32>
    %e8 = tensor.empty() : tensor<8xf32>
    %v8 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%v7 : tensor<8xf32>) outs(%e8 : tensor<8xf32>) {
    ^bb0(%a: f32, %o: f32):
      %r = math.exp %a : f32
      linalg.yield %r : f32
    } -> tensor<8xf32>
    %e9 = tensor.empty() : tensor<8xf32>
    %v9 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%v8 : tensor<8xf32>) outs(%e9 : tensor<8xf32>) {
    ^bb0(%a: f32, %o: f32):
      %r = math.exp %a : f32
      linalg.yield %r : f32
    } -> tensor<8xf32>
    %e10 = tensor.empty() : tensor<8xf32>
    %v10 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%v9 : tensor<8xf32>) outs(%e10 : tensor<8xf32>) {
    ^bb0(%a: f32, %o: f32):
      %r = math.exp %a : f32
      linalg.yield %r : f32
    } -> tensor<8xf32>
    %e11 = tensor.empty() : tensor<8xf32>
    %v11 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%v10 : tensor<8xf32>) outs(%e11 : tensor<8xf32>) {
    ^bb0(%a: f32, %o: f32):
      %r = math.exp %a : f32
      linalg.yield %r : f32
    } -> tensor<8xf32>
    %e12 = tensor.empty() : tensor<8xf32>
    %v12 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%v11 : tensor<8xf32>) outs(%e12 : tensor<8xf32>) {
    ^bb0(%a: f32, %o: f32):
      %r = math.exp %a : f32
      linalg.yield %r : f32
    } -> tensor<8xf32>
    %e13 = tensor.empty() : tensor<8xf32>
    %v13 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%v12 : tensor<8xf32>) outs(%e13 : tensor<8xf32>) {
    ^bb0(%a: f32, %o: f32):
      %r = math.exp %a : f32
      linalg.yield %r : f32
    } -> tensor<8xf32>
    %e14 = tensor.empty() : tensor<8xf32>
    %v14 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%v13 : tensor<8xf32>) outs(%e14 : tensor<8xf32>) {
    ^bb0(%a: f32, %o: f32):
      %r = math.exp %a : f32
      linalg.yield %r : f32
    } -> tensor<8xf32>
    return %v14 : tensor<8xf32>
  }
}

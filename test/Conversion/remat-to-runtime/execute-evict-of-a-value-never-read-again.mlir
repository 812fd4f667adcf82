// An evict whose value nothing reads afterwards (no regenerate follows) is
// dropped: the buffer of exp(x) is dead after sin reads it, and the
// deallocation pipeline frees it there. (Lowered to a memoptRtEvictable
// call, it ran after that free, and memopt_rt aborted on the freed
// pointer.) Under a 1-byte limit the program runs with no eviction, the
// peak of the program without the evict (2 buffers of 64 f32 = 512 bytes)
// and bit-identical results. Reading the value after the evict is refused:
// read-of-an-evicted-value-before-its-regenerate-is-rejected.mlir.
// RUN: split-file %s %t
// RUN: memopt-run %t/base.mlir --compare --against=%t/evicting.mlir \
// RUN:   --pipeline='builtin.module(remat-to-runtime)' --dim=64 --limit-bytes=1 --tolerance=0 \
// RUN:   --runs=1 | FileCheck %s

// CHECK: peak_bytes: 512 512 1.000
// CHECK: evictions_per_run: 0 0
// CHECK: outputs: bit-identical

//--- base.mlir
#id = affine_map<(i) -> (i)>
func.func @main(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %i = tensor.empty(%n) : tensor<?xf32>
  %e = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%i : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.exp %a : f32
    linalg.yield %y : f32
  } -> tensor<?xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%e : tensor<?xf32>) outs(%i : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.sin %a : f32
    linalg.yield %y : f32
  } -> tensor<?xf32>
  %i2 = tensor.empty(%n) : tensor<?xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%i2 : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.tanh %a : f32
    linalg.yield %y : f32
  } -> tensor<?xf32>
  return %s, %t : tensor<?xf32>, tensor<?xf32>
}

//--- evicting.mlir
#id = affine_map<(i) -> (i)>
func.func @main(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %i = tensor.empty(%n) : tensor<?xf32>
  %e = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%i : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.exp %a : f32
    linalg.yield %y : f32
  } -> tensor<?xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%e : tensor<?xf32>) outs(%i : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.sin %a : f32
    linalg.yield %y : f32
  } -> tensor<?xf32>
  "remat.evict"(%e) : (tensor<?xf32>) -> ()
  %i2 = tensor.empty(%n) : tensor<?xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%i2 : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.tanh %a : f32
    linalg.yield %y : f32
  } -> tensor<?xf32>
  return %s, %t : tensor<?xf32>, tensor<?xf32>
}

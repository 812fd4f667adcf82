// remat-to-runtime checks the memopt invariants itself before it lowers:
// here the input is valid (%b is an equal computation, not %a), but cse
// replaces %b by %a, so that the return reads %a after its evict with no
// regenerate. The lowering would run; the check refuses it instead.
// RUN: rm -f %t.out
// RUN: not memopt-opt %s --pass-pipeline='builtin.module(cse,remat-to-runtime)' -o %t.out 2>&1 \
// RUN:   | FileCheck %s
// RUN: not test -e %t.out

#id = affine_map<(i) -> (i)>
func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %i = tensor.empty(%n) : tensor<?xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%i : tensor<?xf32>) {
  ^bb0(%p: f32, %o: f32):
    %v = math.exp %p : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  // CHECK-DAG: verifies-the-ir-earlier-passes-left.mlir:[[@LINE+1]]:3: note: made evictable here
  "remat.evict"(%a) : (tensor<?xf32>) -> ()
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%i : tensor<?xf32>) {
  ^bb0(%p: f32, %o: f32):
    %v = math.exp %p : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  // CHECK-DAG: verifies-the-ir-earlier-passes-left.mlir:[[@LINE+1]]:3: error: 'func.return' op reads a value that a remat.evict made evictable, before a remat.regenerate restores it
  return %b : tensor<?xf32>
}

// Static rematerialization needs byte counts: a function holding tensors of
// dynamic size is left unchanged with a remark, and the pass succeeds.
// RUN: memopt-opt %s --remat 2>&1 | FileCheck %s

// CHECK: remark: remat: not applied: the function holds tensors of dynamic size; static rematerialization needs static sizes
// CHECK: math.exp
// CHECK-NOT: math.exp

#id = affine_map<(d0) -> (d0)>
func.func @dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) {
    ^bb0(%in: f32, %out: f32):
      %v = math.exp %in : f32
      linalg.yield %v : f32
  } -> tensor<?xf32>
  return %a : tensor<?xf32>
}

// Checkmate's ILP on the graph of recomputes-cheap-elementwise-chain.mlir
// (5 buffers: exp, mul, broadcast, sum, output; peak 40960 bytes in the
// ILP's model as in the estimator). At 0.9 of the peak the cheapest schedule
// recomputes exp and mul (1024 element operations each) before the add, as
// the heuristic does: gap 0. At 0.5 no schedule fits (the broadcast and the
// sum alone take 36864 bytes). CBC and GLPK prove the same. The IR is not
// changed.
// RUN: memopt-opt %s --print-remat-optimum="budget-ratio=0.9 solver=cbc" 2>&1 | FileCheck %s --check-prefix=FITS
// RUN: memopt-opt %s --print-remat-optimum="budget-ratio=0.9 solver=glpk" 2>&1 | FileCheck %s --check-prefix=FITS
// RUN: memopt-opt %s --print-remat-optimum="budget-ratio=0.5 solver=cbc" -o /dev/null 2>&1 | FileCheck %s --check-prefix=INFEASIBLE
// RUN: memopt-opt %s --print-remat-optimum="budget-ratio=0.5 solver=glpk" -o /dev/null 2>&1 | FileCheck %s --check-prefix=INFEASIBLE
// RUN: memopt-opt %s --print-remat-optimum="max-nodes=4" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LIMIT

// FITS: remark: print-remat-optimum: 5 buffers, ILP model peak 40960 bytes (estimator 40960); at budget-ratio 0.9: optimum recomputes 2048 element operations (proven optimal); heuristic: peak 40960 -> 36864 bytes (0.900 of the peak, budget met), recomputes 2048 element operations; gap 0 element operations (0.0% of the optimum's)
// FITS: func.func @elementwise_chain
// FITS-COUNT-1: math.exp
// FITS-NOT: math.exp
// INFEASIBLE: at budget-ratio 0.5: infeasible: no schedule fits the budget; heuristic: peak 40960 -> 36864 bytes (0.900 of the peak, budget not met), recomputes 2048 element operations; ILP at 0.900: optimum recomputes 2048 element operations (proven optimal); gap 0 element operations
// LIMIT: remark: print-remat-optimum: no ILP: 5 buffers, more than the ILP's limit of 4

#id = affine_map<(d0) -> (d0)>
func.func @elementwise_chain(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<1024xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<1024xf32>) outs(%e0 : tensor<1024xf32>) {
    ^bb0(%in: f32, %out: f32):
      %v = math.exp %in : f32
      linalg.yield %v : f32
  } -> tensor<1024xf32>
  %e1 = tensor.empty() : tensor<1024xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<1024xf32>) outs(%e1 : tensor<1024xf32>) {
    ^bb0(%in: f32, %out: f32):
      %v = arith.mulf %in, %in : f32
      linalg.yield %v : f32
  } -> tensor<1024xf32>
  %ep = tensor.empty() : tensor<8x1024xf32>
  %p = linalg.broadcast ins(%x : tensor<1024xf32>) outs(%ep : tensor<8x1024xf32>) dimensions = [0]
  %er = tensor.empty() : tensor<1024xf32>
  %zr = linalg.fill ins(%zero : f32) outs(%er : tensor<1024xf32>) -> tensor<1024xf32>
  %r = linalg.reduce ins(%p : tensor<8x1024xf32>) outs(%zr : tensor<1024xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %eo = tensor.empty() : tensor<1024xf32>
  %o = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%r, %b : tensor<1024xf32>, tensor<1024xf32>) outs(%eo : tensor<1024xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %v = arith.addf %in, %in2 : f32
      linalg.yield %v : f32
  } -> tensor<1024xf32>
  return %o : tensor<1024xf32>
}

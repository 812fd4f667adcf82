// A value live across the peak is recomputed from the function's input
// right before its later use, with the cheap elementwise chain it came from.
// %b = mul(exp(x)) is kept across the 32 KiB broadcast and reduction (peak
// 40960 bytes: b, the broadcast and the sum), only to be added at the end.
// exp and mul (2048 element operations) are cloned before the add, which
// reads the clone: the peak drops by b's 4096 bytes, meeting the budget.
// RUN: memopt-opt %s --remat=budget=36KiB 2>&1 | FileCheck %s
// RUN: memopt-opt %s --remat=budget=36KiB | mlir-opt --verify-each > /dev/null

// CHECK: remark: remat: estimated peak 40960 -> 36864 bytes (budget 36864 bytes): 1 values recomputed, 4 ops cloned, 2048 element operations recomputed
// CHECK-LABEL: func.func @elementwise_chain(
// CHECK:         %[[EXP:.+]] = linalg.generic {{.*}} ins(%arg0
// CHECK:           math.exp
// CHECK:         linalg.generic {{.*}} ins(%[[EXP]]
// CHECK:           arith.mulf
// CHECK:         %[[BCAST:.+]] = linalg.broadcast
// CHECK:         %[[SUM:.+]] = linalg.reduce ins(%[[BCAST]]
// CHECK:         %[[EXP2:.+]] = linalg.generic {{.*}} ins(%arg0
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      math.exp
// CHECK:         %[[EMPTY:.+]] = tensor.empty() : tensor<1024xf32>
// CHECK-NEXT:    %[[B2:.+]] = linalg.generic {{.*}} ins(%[[EXP2]] : tensor<1024xf32>) outs(%[[EMPTY]]
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      arith.mulf
// CHECK:         %[[OUT:.+]] = linalg.generic {{.*}} ins(%[[SUM]], %[[B2]] :
// CHECK:         return %[[OUT]]

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

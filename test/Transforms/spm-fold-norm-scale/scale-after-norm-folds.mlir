// A constant scale after a batch norm folds into the norm's gamma and beta:
// the scale's linalg.generic disappears and the norm's body multiplies gamma
// and beta by 0.3 where it reads them. Run against the original, the outputs
// agree within the default relative tolerance (the products are rounded in
// another order).
// RUN: memopt-opt %s --spm-fold-norm-scale | FileCheck %s
// RUN: memopt-opt %s --spm-fold-norm-scale | mlir-opt --verify-each -o /dev/null
// RUN: memopt-run %s --compare --pipeline='builtin.module(func.func(spm-fold-norm-scale))' | FileCheck %s --check-prefix=EXEC

// CHECK-LABEL: func.func @norm_then_scale
// CHECK: %[[SCALE:.*]] = arith.constant 3.000000e-01 : f32
// CHECK: %[[NORM:.*]] = linalg.generic
// CHECK: ^bb0(%[[X:.*]]: f32, %[[MEAN:.*]]: f32, %[[VAR:.*]]: f32, %[[GAMMA:.*]]: f32, %[[BETA:.*]]: f32, %{{.*}}: f32):
// CHECK: math.sqrt
// CHECK: %[[G:.*]] = arith.mulf %[[GAMMA]], %[[SCALE]] : f32
// CHECK: %[[B:.*]] = arith.mulf %[[BETA]], %[[SCALE]] : f32
// CHECK: %[[T:.*]] = arith.mulf %{{.*}}, %[[G]] : f32
// CHECK: %[[Y:.*]] = arith.addf %[[T]], %[[B]] : f32
// CHECK: linalg.yield %[[Y]] : f32
// CHECK-NOT: linalg.generic
// CHECK-NOT: tensor.empty
// CHECK: return %[[NORM]]

// EXEC: output 0 baseline: {{.*}} nonfinite=0
// EXEC: outputs: within tolerance

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @norm_then_scale(%x: tensor<1x4x4x8xf32>, %mean: tensor<8xf32>, %var: tensor<8xf32>,
                           %gamma: tensor<8xf32>, %beta: tensor<8xf32>) -> tensor<1x4x4x8xf32> {
  %eps = arith.constant 1.0e-05 : f32
  %one = arith.constant 1.0 : f32
  %scale = arith.constant 0.3 : f32
  %e0 = tensor.empty() : tensor<1x4x4x8xf32>
  %bn = linalg.generic {indexing_maps = [#id, #ch, #ch, #ch, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%x, %mean, %var, %gamma, %beta : tensor<1x4x4x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>)
    outs(%e0 : tensor<1x4x4x8xf32>) {
  ^bb0(%in: f32, %m: f32, %v: f32, %g: f32, %b: f32, %out: f32):
    %vv = arith.mulf %v, %v : f32
    %t0 = arith.addf %vv, %eps : f32
    %t1 = math.sqrt %t0 : f32
    %t2 = arith.divf %one, %t1 : f32
    %t3 = arith.subf %in, %m : f32
    %t4 = arith.mulf %t3, %t2 : f32
    %t5 = arith.mulf %t4, %g : f32
    %t6 = arith.addf %t5, %b : f32
    linalg.yield %t6 : f32
  } -> tensor<1x4x4x8xf32>
  %e1 = tensor.empty() : tensor<1x4x4x8xf32>
  %scaled = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%bn : tensor<1x4x4x8xf32>) outs(%e1 : tensor<1x4x4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = arith.mulf %in, %scale : f32
    linalg.yield %y : f32
  } -> tensor<1x4x4x8xf32>
  return %scaled : tensor<1x4x4x8xf32>
}

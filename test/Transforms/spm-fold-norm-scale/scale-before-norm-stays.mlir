// A constant scale before a batch norm is not folded: the norm divides by
// sqrt(var + eps), and eps does not scale with the input, so no change of
// gamma and beta gives the same result. The function is left as it is, and
// runs as before.
// RUN: memopt-opt %s --spm-fold-norm-scale | FileCheck %s
// RUN: memopt-run %s --compare --pipeline='builtin.module(func.func(spm-fold-norm-scale))' | FileCheck %s --check-prefix=EXEC

// CHECK-LABEL: func.func @scale_then_norm
// CHECK: %[[SCALED:.*]] = linalg.generic
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: linalg.generic {{.*}} ins(%[[SCALED]],
// CHECK: math.sqrt

// EXEC: outputs: bit-identical

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @scale_then_norm(%x: tensor<1x4x4x8xf32>, %mean: tensor<8xf32>, %var: tensor<8xf32>,
                           %gamma: tensor<8xf32>, %beta: tensor<8xf32>) -> tensor<1x4x4x8xf32> {
  %eps = arith.constant 1.0e-05 : f32
  %one = arith.constant 1.0 : f32
  %scale = arith.constant 0.3 : f32
  %e1 = tensor.empty() : tensor<1x4x4x8xf32>
  %scaled = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%x : tensor<1x4x4x8xf32>) outs(%e1 : tensor<1x4x4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = arith.mulf %in, %scale : f32
    linalg.yield %y : f32
  } -> tensor<1x4x4x8xf32>
  %e0 = tensor.empty() : tensor<1x4x4x8xf32>
  %bn = linalg.generic {indexing_maps = [#id, #ch, #ch, #ch, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%scaled, %mean, %var, %gamma, %beta : tensor<1x4x4x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>)
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
  return %bn : tensor<1x4x4x8xf32>
}

// A sum over the chunked rows that is used after the range only through a
// reshape (attention's dV = P^T dO, summed over the query rows as 1 x S x d,
// reaches the rest of the backward pass expanded to 1 x 1 x S x d) is still a
// combined output: the reshape of a sum of partial values is the sum of their
// reshapes, so the reshape runs inside the region on each chunk's partial sum
// and the region combines the reshaped value. Before, exp(x) (64 x 64 f32,
// 16384 bytes) is live whole beside the two 64-element results (16896 bytes);
// after, in chunks of 8 rows (2048 bytes each), 3104 bytes. The lowered
// program computes what the original computes, up to the order of the sums.
// RUN: memopt-opt %s --autochunk=budget=4000 2>%t.remarks | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK --input-file=%t.remarks
// RUN: memopt-opt %s --pass-pipeline='builtin.module(func.func(chunk-to-scf))' -o %t.original.mlir
// RUN: memopt-opt %s --pass-pipeline='builtin.module(autochunk{budget=4000},func.func(chunk-to-scf))' \
// RUN:   -o %t.chunked.mlir 2>/dev/null
// RUN: memopt-run %t.original.mlir --entry=main --compare --against=%t.chunked.mlir --runs=1 \
// RUN:   --tolerance=1e-6 2>&1 | FileCheck %s --check-prefix=EXEC

// EXEC: peak_bytes: 16896 3136 0.186
// EXEC: outputs: {{bit-identical|within tolerance}}

// REMARK: remark: autochunk: estimated peak 16896 -> 3104 bytes in 1 stages (budget 4000 bytes)

// CHECK-LABEL: func.func @main
// CHECK: %[[REGION:.*]]:2 = "chunk.region"(%arg0) ({
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<8x64xf32>):
// CHECK: %[[SUM:.*]] = linalg.reduce ins(%{{.*}} : tensor<8x64xf32>) outs(%{{.*}} : tensor<64xf32>) dimensions = [0]
// CHECK: %[[RESHAPED:.*]] = tensor.expand_shape %[[SUM]] {{\[\[}}0, 1]] output_shape [1, 64] : tensor<64xf32> into tensor<1x64xf32>
// CHECK: vector.yield %{{.*}}, %[[RESHAPED]] : tensor<8xf32>, tensor<1x64xf32>
// CHECK: combiners = ["concat", "add"]{{.*}}output_dims = array<i64: 0, -1>
// CHECK: return %[[REGION]]#0, %[[REGION]]#1
func.func @main(%x: tensor<64x64xf32>) -> (tensor<64xf32>, tensor<1x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<64x64xf32>
  %y = linalg.exp ins(%x : tensor<64x64xf32>) outs(%e0 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e1 = tensor.empty() : tensor<64xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
  %s = linalg.reduce ins(%y : tensor<64x64xf32>) outs(%z1 : tensor<64xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  %s2 = tensor.expand_shape %s [[0, 1]] output_shape [1, 64] : tensor<64xf32> into tensor<1x64xf32>
  %e2 = tensor.empty() : tensor<64xf32>
  %z2 = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<64xf32>) -> tensor<64xf32>
  %t = linalg.reduce ins(%y : tensor<64x64xf32>) outs(%z2 : tensor<64xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    }
  return %t, %s2 : tensor<64xf32>, tensor<1x64xf32>
}

// Concatenations and pads pass the dimensions they leave alone, so a chain
// that joins two activations along channels and pads the spatial dimension
// is chunked along its rows: the region holds the slices of the concat and
// the pad, and only the per-row sums stay whole. The lowered program runs
// with the same result bit for bit and a lower measured peak.
// RUN: memopt-opt %s --autochunk=budget=40000 2>&1 | FileCheck %s
// RUN: memopt-run %s --compare --runs=1 --tolerance=0 \
// RUN:   --pipeline='builtin.module(autochunk{budget=40000},func.func(chunk-to-scf))' \
// RUN:   | FileCheck %s --check-prefix=EXEC

// CHECK: remark: autochunk: estimated peak 540672 -> 34048 bytes in 1 stages (budget 40000 bytes)
// CHECK: remark: autochunk stage 1: 9 ops chunked along dimension 0 in 16 chunks of 4 (0 hoisted)
// CHECK: func.func @rows(%arg0
// CHECK: "chunk.region"(%arg0)
// CHECK: tensor.concat dim(2) {{.*}} : (tensor<4x32x16xf32>, tensor<4x32x16xf32>) -> tensor<4x32x32xf32>
// CHECK: tensor.pad {{.*}} low[0, 1, 0] high[0, 1, 0]
// CHECK: } : tensor<4x32x32xf32> to tensor<4x34x32xf32>
// CHECK: vector.yield {{.*}} : tensor<4xf32>
// CHECK: chunk_size = 4 : i64, input_dims = array<i64: 0>{{.*}}output_dims = array<i64: 0>

// EXEC: peak_bytes: 540672 {{[0-9]+}} 0.0
// EXEC: outputs: bit-identical

func.func @rows(%x: tensor<64x32x16xf32>) -> tensor<64xf32> {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %e0 = tensor.empty() : tensor<64x32x16xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(n, h, c) -> (n, h, c)>, affine_map<(n, h, c) -> (n, h, c)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<64x32x16xf32>) outs(%e0 : tensor<64x32x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<64x32x16xf32>
  %e1 = tensor.empty() : tensor<64x32x16xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(n, h, c) -> (n, h, c)>, affine_map<(n, h, c) -> (n, h, c)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<64x32x16xf32>) outs(%e1 : tensor<64x32x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.mulf %in, %two : f32
    linalg.yield %v : f32
  } -> tensor<64x32x16xf32>
  %c = tensor.concat dim(2) %a, %b : (tensor<64x32x16xf32>, tensor<64x32x16xf32>) -> tensor<64x32x32xf32>
  %p = tensor.pad %c low[0, 1, 0] high[0, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %zero : f32
  } : tensor<64x32x32xf32> to tensor<64x34x32xf32>
  %e2 = tensor.empty() : tensor<64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(n, h, c) -> (n, h, c)>, affine_map<(n, h, c) -> (n)>],
                         iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%p : tensor<64x34x32xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.addf %in, %out : f32
    linalg.yield %v : f32
  } -> tensor<64xf32>
  return %sum : tensor<64xf32>
}

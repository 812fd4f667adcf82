// place-to-shard puts a stage of tensor and data parallelism 1 on a 1x1
// grid and annotates nothing: the stage is a one-device program next to a
// shard.grid declaration, which memopt-run drops after lowering (mlir-runner
// cannot parse it), so it runs without --ranks.
// RUN: memopt-run %s | FileCheck %s
//
// Per call: the 8x8 f32 result, 256 bytes.
// CHECK: entry: stage0
// CHECK: peak_bytes: 256
// CHECK: output 0: tensor<8x8xf32>

shard.grid @stage0_grid(shape = 1x1)
func.func @stage0(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32
    linalg.yield %t : f32
  } -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

// The stage function and its grid are named <function>_stage<index> and
// <function>_stage<index>_grid; when a symbol of the module has that name
// already, the new one gets a fresh name the way upstream's SymbolTable
// renames (a _N suffix) and the references follow. Here both names are taken:
// the grid becomes @mlp_stage0_grid_0 and the function @mlp_stage0_1 (the
// table's uniquing counter counts on from the grid's 0), and the annotation
// (data_parallel 2 divides the batch of 4) names the new grid.
// RUN: memopt-opt %s --pass-pipeline="builtin.module(place-to-shard)" | FileCheck %s

// CHECK: func.func @mlp_stage0_grid()
// CHECK: func.func @mlp_stage0()
// CHECK: shard.grid @mlp_stage0_grid_0(shape = 2x1)
// CHECK-LABEL: func.func @mlp_stage0_1(%arg0: tensor<4xf32>) -> tensor<4xf32>
// CHECK: shard.sharding @mlp_stage0_grid_0 split_axes = {{\[}}[0]]
// CHECK: math.tanh

"place.cluster"() {sym_name = "pod", devices = 2 : i64, hbm_bytes = 1 : i64, link_bandwidth = 1 : i64} : () -> ()
func.func @mlp_stage0_grid() { return }
func.func @mlp_stage0() { return }
func.func @mlp(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = "place.stage"() ({
    %t = math.tanh %x : tensor<4xf32>
    vector.yield %t : tensor<4xf32>
  }) {cluster = @pod, index = 0 : i64, devices = 2 : i64, data_parallel = 2 : i64, tensor_parallel = 1 : i64, recompute = false, first_layer = 0 : i64, layers = 1 : i64, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : () -> tensor<4xf32>
  return %a : tensor<4xf32>
}

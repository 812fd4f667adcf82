// The pipeline driver runs each stage on one rank. A stage of a pipeline
// placed on 2 devices (tensor-parallel 2 here; data-parallel 2 alike) would
// need its own communicator: upstream convert-shard-to-mpi splits
// MPI_COMM_WORLD for each all-reduce, collectively over every rank, and
// numbers a stage's devices by their world rank. So it is an error at the
// stage, before anything changes; pipeline-driver=false outlines the stages
// alone, as before. A value passed between ranks must be a tensor of static
// shape: a scalar stage result read by the next stage is an error at the
// stage computing it.
// RUN: memopt-opt %s --split-input-file --pass-pipeline="builtin.module(place-to-shard)" --verify-diagnostics
// RUN: memopt-opt %s --split-input-file --pass-pipeline="builtin.module(place-to-shard{pipeline-driver=false})" | FileCheck %s --check-prefix=ALONE
// ALONE: func.func @f_stage0(
// ALONE: func.func @f_stage1(
// ALONE: func.func @g_stage0(
// ALONE: func.func @g_stage1(

"place.cluster"() {sym_name = "pod", devices = 3 : i64, hbm_bytes = 1073741824 : i64, link_bandwidth = 4294967296 : i64} : () -> ()
func.func @f(%x: tensor<2x4xf32>, %w: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{place-to-shard: this stage of a 2-stage pipeline runs on 2 devices (tensor-parallel 2 x data-parallel 1), but the pipeline driver runs one device per stage: upstream convert-shard-to-mpi splits MPI_COMM_WORLD (mpi.comm_split, collective over every rank) for each all-reduce and takes the process index from the world rank, so stages on separate ranks would deadlock or index outside their grid; per-stage communicators are not built (pipeline-driver=false outlines the stages alone)}}
  %s = "place.stage"() ({
    %a = arith.addf %x, %w : tensor<2x4xf32>
    vector.yield %a : tensor<2x4xf32>
  }) {cluster = @pod, index = 0 : i64, devices = 2 : i64, data_parallel = 1 : i64, tensor_parallel = 2 : i64, recompute = false, first_layer = 0 : i64, layers = 1 : i64, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : () -> tensor<2x4xf32>
  %t = "place.stage"() ({
    %m = arith.mulf %s, %w : tensor<2x4xf32>
    vector.yield %m : tensor<2x4xf32>
  }) {cluster = @pod, index = 1 : i64, devices = 1 : i64, data_parallel = 1 : i64, tensor_parallel = 1 : i64, recompute = false, first_layer = 1 : i64, layers = 1 : i64, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : () -> tensor<2x4xf32>
  return %t : tensor<2x4xf32>
}

// -----

"place.cluster"() {sym_name = "pod", devices = 2 : i64, hbm_bytes = 1073741824 : i64, link_bandwidth = 4294967296 : i64} : () -> ()
func.func @g(%x: f32, %w: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{place-to-shard: result 0 of this stage goes to a later stage, but the pipeline driver sends only tensors of static shape between ranks}}
  %s = "place.stage"() ({
    %a = arith.mulf %x, %x : f32
    vector.yield %a : f32
  }) {cluster = @pod, index = 0 : i64, devices = 1 : i64, data_parallel = 1 : i64, tensor_parallel = 1 : i64, recompute = false, first_layer = 0 : i64, layers = 1 : i64, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : () -> f32
  %t = "place.stage"() ({
    %e = tensor.empty() : tensor<4xf32>
    %b = linalg.fill ins(%s : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %m = arith.mulf %b, %w : tensor<4xf32>
    vector.yield %m : tensor<4xf32>
  }) {cluster = @pod, index = 1 : i64, devices = 1 : i64, data_parallel = 1 : i64, tensor_parallel = 1 : i64, recompute = false, first_layer = 1 : i64, layers = 1 : i64, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : () -> tensor<4xf32>
  return %t : tensor<4xf32>
}

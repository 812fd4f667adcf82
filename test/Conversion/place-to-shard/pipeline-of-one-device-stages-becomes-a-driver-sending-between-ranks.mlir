// A function placed in two stages of one device each keeps its name and
// type as the pipeline driver: rank 0 runs @f_stage0, rank 1 @f_stage1,
// dispatched on the rank in MPI_COMM_WORLD by an scf.index_switch whose
// default case (a rank beyond the stages) aborts. Tags are numbered in
// transfer order: s = x + w goes from rank 0 to rank 1 with tag 0; the
// results are t = s * w (stage 1's, sent back to rank 0 with tag 1), s
// (stage 0's, tag 2, which rank 1 already holds: nothing is sent) and the
// argument x (every rank's). Upstream's MPIToLLVM transfers as many
// elements as a buffer's first dimension, so the 2x4 tensors travel as 8
// elements: collapsed before to_buffer, expanded after to_tensor.
// RUN: memopt-opt %s --pass-pipeline="builtin.module(place-to-shard)" -o %t.mlir
// RUN: FileCheck %s --input-file=%t.mlir
// RUN: memopt-opt %s --pass-pipeline="builtin.module(place-to-shard{pipeline-driver=false})" | FileCheck %s --check-prefix=ALONE
// CHECK-NOT: place.
// CHECK-LABEL: func.func @f_stage0(%arg0: tensor<2x4xf32>, %arg1: tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-LABEL: func.func @f_stage1(%arg0: tensor<2x4xf32>, %arg1: tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-LABEL: func.func @f(%arg0: tensor<2x4xf32>, %arg1: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) attributes {place.pipeline_stages = 2 : i64}
// CHECK:      %[[WORLD:.*]] = mpi.comm_world : !mpi.comm
// CHECK-NEXT: %[[RANK:.*]] = mpi.comm_rank(%[[WORLD]]) : i32
// CHECK-NEXT: %[[INDEX:.*]] = arith.index_cast %[[RANK]] : i32 to index
// CHECK-NEXT: %[[R:.*]]:3 = scf.index_switch %[[INDEX]] -> tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
// CHECK-NEXT: case 0 {
// CHECK-NEXT:   %[[S:.*]] = func.call @f_stage0(%arg0, %arg1)
// CHECK-NEXT:   %[[SFLAT:.*]] = tensor.collapse_shape %[[S]] {{\[}}[0, 1]] : tensor<2x4xf32> into tensor<8xf32>
// CHECK-NEXT:   %[[SBUF:.*]] = bufferization.to_buffer %[[SFLAT]] read_only : tensor<8xf32> to memref<8xf32>
// CHECK-NEXT:   %[[TAG0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:   %[[TO1:.*]] = arith.constant 1 : i32
// CHECK-NEXT:   mpi.send(%[[SBUF]], %[[TAG0]], %[[TO1]], %[[WORLD]]) : memref<8xf32>, i32, i32
// CHECK-NEXT:   %[[TBUF:.*]] = memref.alloc() : memref<8xf32>
// CHECK-NEXT:   %[[TAG1:.*]] = arith.constant 1 : i32
// CHECK-NEXT:   %[[FROM1:.*]] = arith.constant 1 : i32
// CHECK-NEXT:   mpi.recv(%[[TBUF]], %[[TAG1]], %[[FROM1]], %[[WORLD]]) : memref<8xf32>, i32, i32
// CHECK-NEXT:   %[[TFLAT:.*]] = bufferization.to_tensor %[[TBUF]] restrict writable : memref<8xf32> to tensor<8xf32>
// CHECK-NEXT:   %[[T:.*]] = tensor.expand_shape %[[TFLAT]] {{\[}}[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
// CHECK-NEXT:   scf.yield %[[T]], %[[S]], %arg0 :
// CHECK-NEXT: }
// CHECK-NEXT: case 1 {
// CHECK-NEXT:   %[[SBUF1:.*]] = memref.alloc() : memref<8xf32>
// CHECK-NEXT:   %[[TAG0B:.*]] = arith.constant 0 : i32
// CHECK-NEXT:   %[[FROM0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:   mpi.recv(%[[SBUF1]], %[[TAG0B]], %[[FROM0]], %[[WORLD]]) : memref<8xf32>, i32, i32
// CHECK-NEXT:   %[[SFLAT1:.*]] = bufferization.to_tensor %[[SBUF1]] restrict writable : memref<8xf32> to tensor<8xf32>
// CHECK-NEXT:   %[[S1:.*]] = tensor.expand_shape %[[SFLAT1]] {{\[}}[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
// CHECK-NEXT:   %[[T1:.*]] = func.call @f_stage1(%[[S1]], %arg1)
// CHECK-NEXT:   %[[TFLAT1:.*]] = tensor.collapse_shape %[[T1]] {{\[}}[0, 1]] : tensor<2x4xf32> into tensor<8xf32>
// CHECK-NEXT:   %[[TBUF1:.*]] = bufferization.to_buffer %[[TFLAT1]] read_only : tensor<8xf32> to memref<8xf32>
// CHECK-NEXT:   %[[TAG1B:.*]] = arith.constant 1 : i32
// CHECK-NEXT:   %[[TO0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:   mpi.send(%[[TBUF1]], %[[TAG1B]], %[[TO0]], %[[WORLD]]) : memref<8xf32>, i32, i32
// CHECK-NEXT:   scf.yield %[[T1]], %[[S1]], %arg0 :
// CHECK-NEXT: }
// CHECK-NEXT: default {
// CHECK-NEXT:   %[[FALSE:.*]] = arith.constant false
// CHECK-NEXT:   cf.assert %[[FALSE]], "pipeline driver: this rank holds no stage (run it on as many ranks as it has stages)"
// CHECK-NEXT:   %[[E0:.*]] = tensor.empty() : tensor<2x4xf32>
// CHECK-NEXT:   %[[E1:.*]] = tensor.empty() : tensor<2x4xf32>
// CHECK-NEXT:   scf.yield %[[E0]], %[[E1]], %arg0 :
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]]#0, %[[R]]#1, %[[R]]#2 :
// ALONE-NOT: func.func @f(
// ALONE-NOT: mpi.

"place.cluster"() {sym_name = "pod", devices = 2 : i64, hbm_bytes = 1073741824 : i64, link_bandwidth = 4294967296 : i64} : () -> ()
func.func @f(%x: tensor<2x4xf32>, %w: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %s = "place.stage"() ({
    %a = arith.addf %x, %w : tensor<2x4xf32>
    vector.yield %a : tensor<2x4xf32>
  }) {cluster = @pod, index = 0 : i64, devices = 1 : i64, data_parallel = 1 : i64, tensor_parallel = 1 : i64, recompute = false, first_layer = 0 : i64, layers = 1 : i64, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : () -> tensor<2x4xf32>
  %t = "place.stage"() ({
    %m = arith.mulf %s, %w : tensor<2x4xf32>
    vector.yield %m : tensor<2x4xf32>
  }) {cluster = @pod, index = 1 : i64, devices = 1 : i64, data_parallel = 1 : i64, tensor_parallel = 1 : i64, recompute = false, first_layer = 1 : i64, layers = 1 : i64, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : () -> tensor<2x4xf32>
  return %t, %s, %x : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}

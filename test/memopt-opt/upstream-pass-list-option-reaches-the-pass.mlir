// An upstream pass's list option given on the command line reaches the pass
// intact and lives as long as it runs: one-shot-bufferize with
// dialect-filter=tensor bufferizes the tensor ops only (tensor.extract
// becomes memref.load; linalg.fill stays on tensors), in both spellings, with
// mlir-opt's output. The option's storage must outlive the pass manager's
// construction: the filter is read while the pass runs, op by op.
// RUN: memopt-opt %s --one-shot-bufferize=dialect-filter=tensor | FileCheck %s
// RUN: memopt-opt %s --pass-pipeline='builtin.module(one-shot-bufferize{dialect-filter=tensor,bufferization})' | FileCheck %s
// RUN: memopt-opt %s --one-shot-bufferize=dialect-filter=tensor > %t.memopt
// RUN: mlir-opt %s --one-shot-bufferize=dialect-filter=tensor > %t.upstream
// RUN: diff %t.upstream %t.memopt

// CHECK-LABEL: func.func @first_element
// CHECK: %[[BUFFER:.*]] = bufferization.to_buffer %{{.*}} : tensor<4xf32>
// CHECK: memref.load %[[BUFFER]]
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4xf32>) -> tensor<4xf32>
func.func @first_element(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %first = tensor.extract %a[%c0] : tensor<4xf32>
  %filled = linalg.fill ins(%first : f32) outs(%a : tensor<4xf32>) -> tensor<4xf32>
  return %filled : tensor<4xf32>
}

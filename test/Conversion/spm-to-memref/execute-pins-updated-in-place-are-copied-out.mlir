// A pinned value that a linalg op then updates in place (the pin is its
// init) is still in the arena when the function returns the op's result,
// so that result is copied out like a returned pin: tensor.empty +
// linalg.copy, counted as a store. Here x + y and x - y are pinned at
// offsets 0 and 256, multiplied in place by y and x, and both products
// returned: 2 x 8 x 8 x 4 B = 512 bytes stored. Without the copies the two
// results were views of one arena, which the caller freed twice (memopt_rt:
// "already freed"), and with memory-space=1 upstream bufferization rejected
// a function returning scratchpad memory. The lowered program computes what
// the unpinned one computes, bit for bit.
// RUN: split-file %s %t
// RUN: memopt-opt %t/pinned.mlir --spm-to-memref=report-copies 2>&1 | FileCheck %s
// RUN: memopt-opt %t/pinned.mlir --spm-to-memref 2>/dev/null \
// RUN:   | mlir-opt --one-shot-bufferize=bufferize-function-boundaries | FileCheck %s --check-prefix=BUFFERS
// RUN: memopt-run %t/unpinned.mlir --compare --runs=1 --tolerance=0 --against=%t/pinned.mlir \
// RUN:   --pipeline='builtin.module(func.func(spm-to-memref{memory-space=0}))' | FileCheck %s --check-prefix=EXECUTED

// CHECK: remark: spm-to-memref: @main: copies 512 feature-map bytes between off-chip memory and the scratchpad (0 loaded, halos included; 512 stored)
// CHECK: %[[SUM:.*]] = bufferization.materialize_in_destination
// CHECK: %[[DIFFERENCE:.*]] = bufferization.materialize_in_destination
// CHECK: %[[M:.*]] = linalg.mul ins(%[[SUM]], %{{.*}}) outs(%[[SUM]] :
// CHECK: %[[Q:.*]] = linalg.mul ins(%[[DIFFERENCE]], %{{.*}}) outs(%[[DIFFERENCE]] :
// CHECK: %[[MOUT:.*]] = linalg.copy ins(%[[M]] : tensor<8x8xf32>)
// CHECK: %[[QOUT:.*]] = linalg.copy ins(%[[Q]] : tensor<8x8xf32>)
// CHECK: return %[[MOUT]], %[[QOUT]]

// BUFFERS: linalg.copy ins(%{{.*}} : memref<8x8xf32, 1>) outs(%[[A:.*]] : memref<8x8xf32>)
// BUFFERS: linalg.copy ins(%{{.*}} : memref<8x8xf32, 1>) outs(%[[B:.*]] : memref<8x8xf32>)
// BUFFERS: return %[[A]], %[[B]] : memref<8x8xf32>, memref<8x8xf32>

// EXECUTED: outputs: bit-identical

//--- unpinned.mlir
func.func @main(%x: tensor<8x8xf32>, %y: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %e = tensor.empty() : tensor<8x8xf32>
  %s = linalg.add ins(%x, %y : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %e2 = tensor.empty() : tensor<8x8xf32>
  %d = linalg.sub ins(%x, %y : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e2 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m = linalg.mul ins(%s, %y : tensor<8x8xf32>, tensor<8x8xf32>) outs(%s : tensor<8x8xf32>) -> tensor<8x8xf32>
  %q = linalg.mul ins(%d, %x : tensor<8x8xf32>, tensor<8x8xf32>) outs(%d : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %m, %q : tensor<8x8xf32>, tensor<8x8xf32>
}

//--- pinned.mlir
func.func @main(%x: tensor<8x8xf32>, %y: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %e = tensor.empty() : tensor<8x8xf32>
  %s = linalg.add ins(%x, %y : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %ps = "spm.pin"(%s) {offset = 0 : i64, size = 256 : i64} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %e2 = tensor.empty() : tensor<8x8xf32>
  %d = linalg.sub ins(%x, %y : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e2 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %pd = "spm.pin"(%d) {offset = 256 : i64, size = 256 : i64} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %m = linalg.mul ins(%ps, %y : tensor<8x8xf32>, tensor<8x8xf32>) outs(%ps : tensor<8x8xf32>) -> tensor<8x8xf32>
  %q = linalg.mul ins(%pd, %x : tensor<8x8xf32>, tensor<8x8xf32>) outs(%pd : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %m, %q : tensor<8x8xf32>, tensor<8x8xf32>
}

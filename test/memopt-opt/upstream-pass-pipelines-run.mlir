// The pass pipelines upstream registers run through memopt-opt as flags and
// inside --pass-pipeline, with the same output as mlir-opt. The deallocation
// pipeline frees the buffer @consume allocates after its last use.
// RUN: memopt-opt %s --buffer-deallocation-pipeline | FileCheck %s
// RUN: memopt-opt %s --buffer-deallocation-pipeline > %t.memopt
// RUN: mlir-opt %s --buffer-deallocation-pipeline > %t.upstream
// RUN: diff %t.upstream %t.memopt
// RUN: memopt-opt %s --pass-pipeline='builtin.module(buffer-deallocation-pipeline{private-function-dynamic-ownership=true})' | FileCheck %s

// CHECK-LABEL: func.func @consume
// CHECK: %[[BUFFER:.*]] = memref.alloc() : memref<16xf32>
// CHECK: memref.copy %[[BUFFER]], %{{.*}}
// CHECK-NEXT: memref.dealloc %[[BUFFER]] : memref<16xf32>
// CHECK-NEXT: return
func.func @consume(%out: memref<16xf32>) {
  %buffer = memref.alloc() : memref<16xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%buffer : memref<16xf32>)
  memref.copy %buffer, %out : memref<16xf32> to memref<16xf32>
  return
}

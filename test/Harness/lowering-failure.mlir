// An entry the lowering pipeline cannot handle: MLIR's diagnostic at the
// model's line and column, then memopt-run's error, exit code 1.
// RUN: not memopt-run %s 2>&1 | FileCheck %s -DFILE=%s

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  gpu.barrier
  return %x : tensor<4xf32>
}
// CHECK: [[FILE]]:6:3: error: ops with unknown memory side effects are not supported
// CHECK-NEXT: {{^}}  gpu.barrier
// CHECK-NEXT: {{^}}  ^
// CHECK: memopt-run: error: lowering to the LLVM dialect failed

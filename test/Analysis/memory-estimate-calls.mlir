// Calls. By default the pass reads only the function it runs on (a function
// pass must not inspect its siblings, which other threads may be rewriting):
// a call is assumed to read and write its tensor arguments, its results are
// new buffers, and a remark says that the callee's own memory is not
// included. callees=true analyzes the callees, which requires threading off.
// RUN: memopt-opt %s --memory-estimate=per-op=true -o /dev/null 2>&1 | FileCheck %s --check-prefixes=COMMON,LOCAL
// RUN: memopt-opt %s --mlir-disable-threading --memory-estimate="per-op=true callees=true" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=COMMON,CALLEES
// RUN: not memopt-opt %s --memory-estimate=callees=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=THREADS
// THREADS: error: memory-estimate{callees=true} reads the called functions, which other threads may be changing: run with --mlir-disable-threading

// 256 x f32 = 1024 bytes per buffer. The callee keeps %a (1024) while it
// computes its result (1024): 2048.
// COMMON: :[[# @LINE + 1]]:1: remark: peak activation memory: 2048 bytes at 'tensor.empty' (position 2)
func.func @twice_exp(%x: tensor<256xf32>) -> tensor<256xf32> {
  %e = tensor.empty() : tensor<256xf32>
  %a = linalg.exp ins(%x : tensor<256xf32>) outs(%e : tensor<256xf32>) -> tensor<256xf32>
  %e2 = tensor.empty() : tensor<256xf32>
  %b = linalg.exp ins(%a : tensor<256xf32>) outs(%e2 : tensor<256xf32>) -> tensor<256xf32>
  return %b : tensor<256xf32>
}

// The caller's %a (1024) is live across the call and read after it.
// Analyzed, the callee only reads its argument, and the call costs the
// callee's peak: 1024 + 2048 = 3072.
// Not analyzed, the callee is assumed to write %a, which is read later: the
// call gets a copy of %a (2048 at the call).
// Either way the call's result comes from the callee: the deallocation
// pipeline cannot tell what it aliases, so it frees every buffer of the
// caller at the end (with a run-time alias check): after the call, %a, the
// result and %s (plus the copy when there is one) stay live to the return.
// LOCAL:   :[[# @LINE + 2]]:1: remark: peak activation memory: 4096 bytes at 'tensor.empty' (position 3)
// CALLEES: :[[# @LINE + 1]]:1: remark: peak activation memory: 3072 bytes at 'func.call' (position 2)
func.func @caller(%x: tensor<256xf32>) -> tensor<256xf32> {
  // COMMON: remark: live activation memory: 1024 bytes
  %e = tensor.empty() : tensor<256xf32>
  // COMMON: remark: live activation memory: 1024 bytes
  %a = linalg.exp ins(%x : tensor<256xf32>) outs(%e : tensor<256xf32>) -> tensor<256xf32>
  // LOCAL: :[[# @LINE + 4]]:8: remark: memory estimate: callee not analyzed: assumed to read and write its tensor arguments; its own memory is not included
  // CALLEES-NOT: callee not analyzed
  // LOCAL:   :[[# @LINE + 2]]:8: remark: live activation memory: 2048 bytes
  // CALLEES: :[[# @LINE + 1]]:8: remark: live activation memory: 3072 bytes
  %r = func.call @twice_exp(%a) : (tensor<256xf32>) -> tensor<256xf32>
  // LOCAL:   remark: live activation memory: 4096 bytes
  // CALLEES: remark: live activation memory: 3072 bytes
  %e2 = tensor.empty() : tensor<256xf32>
  // LOCAL:   remark: live activation memory: 4096 bytes
  // CALLEES: remark: live activation memory: 3072 bytes
  %s = linalg.add ins(%r, %a : tensor<256xf32>, tensor<256xf32>) outs(%e2 : tensor<256xf32>) -> tensor<256xf32>
  // LOCAL:   remark: live activation memory: 4096 bytes
  // CALLEES: remark: live activation memory: 3072 bytes
  return %s : tensor<256xf32>
}

// Sixteen functions without a linalg op, analyzed by every pass that builds
// the bufferization model of a function (lib/Analysis/FunctionIR.c) while the
// pass manager runs the functions on worker threads. The model once parsed
// "#linalg.iterator_type<parallel>" per function: the first parse loads the
// linalg dialect, which an input without linalg ops had not loaded, and two
// threads loading it at once crashed (SIGSEGV or abort in 2 to 15 of 40 runs
// of each pass on this input). Iterator types are now read from the
// attribute, without parsing or loading anything.
//
// The race is timing-dependent, so each pass runs ten times; every run must
// succeed. Each function keeps one 8 x f32 buffer (32 bytes) live.
// RUN: bash -c 'for i in 1 2 3 4 5 6 7 8 9 10; do memopt-opt %s --memory-estimate -o /dev/null || exit 1; done' 2>&1 | FileCheck %s --check-prefix=ESTIMATE
// RUN: bash -c 'for i in 1 2 3 4 5 6 7 8 9 10; do memopt-opt %s --memory-schedule -o /dev/null || exit 1; done'
// RUN: bash -c 'for i in 1 2 3 4 5 6 7 8 9 10; do memopt-opt %s --inplace-elementwise -o /dev/null || exit 1; done'
// RUN: bash -c 'for i in 1 2 3 4 5 6 7 8 9 10; do memopt-opt %s --remat -o /dev/null || exit 1; done'
// RUN: bash -c 'for i in 1 2 3 4 5 6 7 8 9 10; do memopt-opt %s --remat-dynamic -o /dev/null || exit 1; done'
// RUN: bash -c 'for i in 1 2 3 4 5 6 7 8 9 10; do memopt-opt %s --print-remat-optimum -o /dev/null || exit 1; done' > /dev/null 2>&1
// ESTIMATE-COUNT-160: remark: peak activation memory: 32 bytes at 'func.return'
// ESTIMATE-NOT: error
func.func @f1(%x: tensor<8xf32>) -> tensor<8xf32> {
  %m = math.tanh %x : tensor<8xf32>
  return %m : tensor<8xf32>
}
func.func @f2(%x: tensor<8xf32>) -> tensor<8xf32> {
  %m = math.tanh %x : tensor<8xf32>
  return %m : tensor<8xf32>
}
func.func @f3(%x: tensor<8xf32>) -> tensor<8xf32> {
  %m = math.tanh %x : tensor<8xf32>
  return %m : tensor<8xf32>
}
func.func @f4(%x: tensor<8xf32>) -> tensor<8xf32> {
  %m = math.tanh %x : tensor<8xf32>
  return %m : tensor<8xf32>
}
func.func @f5(%x: tensor<8xf32>) -> tensor<8xf32> {
  %m = math.tanh %x : tensor<8xf32>
  return %m : tensor<8xf32>
}
func.func @f6(%x: tensor<8xf32>) -> tensor<8xf32> {
  %m = math.tanh %x : tensor<8xf32>
  return %m : tensor<8xf32>
}
func.func @f7(%x: tensor<8xf32>) -> tensor<8xf32> {
  %m = math.tanh %x : tensor<8xf32>
  return %m : tensor<8xf32>
}
func.func @f8(%x: tensor<8xf32>) -> tensor<8xf32> {
  %m = math.tanh %x : tensor<8xf32>
  return %m : tensor<8xf32>
}
func.func @f9(%x: tensor<8xf32>) -> tensor<8xf32> {
  %m = math.tanh %x : tensor<8xf32>
  return %m : tensor<8xf32>
}
func.func @f10(%x: tensor<8xf32>) -> tensor<8xf32> {
  %m = math.tanh %x : tensor<8xf32>
  return %m : tensor<8xf32>
}
func.func @f11(%x: tensor<8xf32>) -> tensor<8xf32> {
  %m = math.tanh %x : tensor<8xf32>
  return %m : tensor<8xf32>
}
func.func @f12(%x: tensor<8xf32>) -> tensor<8xf32> {
  %m = math.tanh %x : tensor<8xf32>
  return %m : tensor<8xf32>
}
func.func @f13(%x: tensor<8xf32>) -> tensor<8xf32> {
  %m = math.tanh %x : tensor<8xf32>
  return %m : tensor<8xf32>
}
func.func @f14(%x: tensor<8xf32>) -> tensor<8xf32> {
  %m = math.tanh %x : tensor<8xf32>
  return %m : tensor<8xf32>
}
func.func @f15(%x: tensor<8xf32>) -> tensor<8xf32> {
  %m = math.tanh %x : tensor<8xf32>
  return %m : tensor<8xf32>
}
func.func @f16(%x: tensor<8xf32>) -> tensor<8xf32> {
  %m = math.tanh %x : tensor<8xf32>
  return %m : tensor<8xf32>
}

// The entry's arguments are read-only (bufferization.writable = false), so
// every run sees the same inputs and measures the same work: an entry that
// updates an argument in place copies it inside the call, and that copy
// counts in the peak of every run.
//
// Without it, one-shot bufferization would write into the input buffer and
// copy in the caller only when the input is read again: runs before the last
// would pay for a copy, the last would not, and --runs=1 would report less
// than --runs=4.
//
// Per call: the copy of x (16 x f32 = 64 bytes) and the 0-d f32 result (4
// bytes, rounded up to the 64-byte buffer alignment): peak 128, 2 allocations.
// The result is sum(x) + 1 whatever the number of runs.
// RUN: memopt-run %s --runs=1 > %t.one
// RUN: memopt-run %s --runs=4 > %t.four
// RUN: cat %t.one %t.four | FileCheck %s
// CHECK:      runs: 1
// CHECK:      peak_bytes: 128
// CHECK-NEXT: allocations_per_run: 2
// CHECK:      output 0: tensor<f32> hash=[[HASH:0x[0-9a-f]+]] sum=[[SUM:[-0-9.e+]+]] abs_sum
// CHECK:      runs: 4
// CHECK:      peak_bytes: 128
// CHECK-NEXT: allocations_per_run: 2
// CHECK:      output 0: tensor<f32> hash=[[HASH]] sum=[[SUM]] abs_sum

func.func @bump_then_sum(%x: tensor<16xf32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %first = tensor.extract %x[%c0] : tensor<16xf32>
  %bumped = arith.addf %first, %one : f32
  %y = tensor.insert %bumped into %x[%c0] : tensor<16xf32>
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %sum = linalg.reduce ins(%y : tensor<16xf32>) outs(%init : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %sum : tensor<f32>
}

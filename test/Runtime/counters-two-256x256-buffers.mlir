// memopt_rt counts exactly the bytes the lowered program asks for, through
// the allocation functions of finalize-memref-to-llvm{use-generic-functions}.
//
// Two 256x256 f32 buffers are live together: 256 * 256 * 4 = 262144 bytes
// each, so the peak is 2 * 262144 = 524288 and the live count returns to 0.
// RUN: mlir-opt %s --finalize-memref-to-llvm=use-generic-functions --convert-to-llvm \
// RUN:   --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%memopt_rt \
// RUN: | FileCheck %s --check-prefix=PLAIN
//
// With an alignment attribute and the default lowering, each allocation asks
// malloc for `alignment` extra bytes to align the pointer by hand:
// 2 * (262144 + 64) = 524416.
// RUN: mlir-opt %s --finalize-memref-to-llvm=use-generic-functions --convert-to-llvm \
// RUN:   --reconcile-unrealized-casts \
// RUN: | mlir-runner -e aligned -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%memopt_rt \
// RUN: | FileCheck %s --check-prefix=MANUAL
//
// With use-aligned-alloc (what memopt-run uses), the size goes to
// _mlir_memref_to_llvm_aligned_alloc rounded up to a multiple of the
// alignment: 262144 is one already, so 2 * 262144 = 524288 again; the
// 3 x f32 buffer (12 bytes) counts 64.
// RUN: mlir-opt %s "--finalize-memref-to-llvm=use-generic-functions use-aligned-alloc" \
// RUN:   --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e aligned -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%memopt_rt \
// RUN: | FileCheck %s --check-prefix=ALIGNED

func.func private @memoptRtPrintCounters()
func.func private @memoptRtResetPeak()
func.func private @memoptRtPeakBytes() -> i64
func.func private @memoptRtLiveBytes() -> i64

func.func @main() {
  %a = memref.alloc() : memref<256x256xf32>
  %b = memref.alloc() : memref<256x256xf32>
  call @memoptRtPrintCounters() : () -> ()
  memref.dealloc %a : memref<256x256xf32>
  memref.dealloc %b : memref<256x256xf32>
  call @memoptRtPrintCounters() : () -> ()
  // A reset brings the peak down to what is live (0); one more 256x256 f32
  // buffer then peaks at 262144.
  call @memoptRtResetPeak() : () -> ()
  %c = memref.alloc() : memref<256x256xf32>
  %peak = call @memoptRtPeakBytes() : () -> i64
  %live = call @memoptRtLiveBytes() : () -> i64
  vector.print %peak : i64
  vector.print %live : i64
  memref.dealloc %c : memref<256x256xf32>
  call @memoptRtPrintCounters() : () -> ()
  return
}
// PLAIN:      memopt-rt: counters live_bytes=524288 peak_bytes=524288 allocations=2 frees=0
// PLAIN-NEXT: memopt-rt: counters live_bytes=0 peak_bytes=524288 allocations=2 frees=2
// PLAIN-NEXT: 262144
// PLAIN-NEXT: 262144
// PLAIN-NEXT: memopt-rt: counters live_bytes=0 peak_bytes=262144 allocations=3 frees=3

func.func @aligned() {
  %a = memref.alloc() {alignment = 64 : i64} : memref<256x256xf32>
  %b = memref.alloc() {alignment = 64 : i64} : memref<256x256xf32>
  call @memoptRtPrintCounters() : () -> ()
  memref.dealloc %a : memref<256x256xf32>
  memref.dealloc %b : memref<256x256xf32>
  %small = memref.alloc() {alignment = 64 : i64} : memref<3xf32>
  call @memoptRtPrintCounters() : () -> ()
  memref.dealloc %small : memref<3xf32>
  return
}
// MANUAL:      memopt-rt: counters live_bytes=524416 peak_bytes=524416 allocations=2 frees=0
// MANUAL-NEXT: memopt-rt: counters live_bytes=76 peak_bytes=524416 allocations=3 frees=2
// ALIGNED:      memopt-rt: counters live_bytes=524288 peak_bytes=524288 allocations=2 frees=0
// ALIGNED-NEXT: memopt-rt: counters live_bytes=64 peak_bytes=524288 allocations=3 frees=2

// Output checksums called from IR through the _mlir_ciface_ convention:
// sums by hand, non-finite counting, and hashes that follow the logical
// element order whatever the strides.
// RUN: mlir-opt %s --expand-strided-metadata --lower-affine \
// RUN:   --finalize-memref-to-llvm=use-generic-functions --convert-to-llvm \
// RUN:   --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%memopt_rt \
// RUN: | FileCheck %s

memref.global "private" constant @rows : memref<2x3xf32> = dense<[[1.0, -2.0, 3.0], [4.0, -5.0, 6.0]]>
memref.global "private" constant @columns : memref<3x2xf32> = dense<[[1.0, 4.0], [-2.0, -5.0], [3.0, 6.0]]>
memref.global "private" constant @special : memref<4xf64> = dense<[1.5, 0x7FF8000000000000, 0xFFF0000000000000, -2.5]>
memref.global "private" constant @halves : memref<3xf16> = dense<[1.0, -0.5, 65504.0]>
memref.global "private" constant @flags : memref<4xi1> = dense<[true, false, true, true]>

func.func private @memoptRtChecksumF32(i64, memref<*xf32>) attributes {llvm.emit_c_interface}
func.func private @memoptRtChecksumF64(i64, memref<*xf64>) attributes {llvm.emit_c_interface}
func.func private @memoptRtChecksumF16(i64, memref<*xf16>) attributes {llvm.emit_c_interface}
func.func private @memoptRtChecksumI1(i64, memref<*xi1>) attributes {llvm.emit_c_interface}
func.func private @memoptRtPrintF32(i64, memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %i0 = arith.constant 0 : i64
  %i1 = arith.constant 1 : i64
  %i2 = arith.constant 2 : i64
  %i3 = arith.constant 3 : i64
  %i4 = arith.constant 4 : i64
  %i5 = arith.constant 5 : i64
  %i6 = arith.constant 6 : i64

  // sum = 1 - 2 + 3 + 4 - 5 + 6 = 7, abs_sum = 21.
  %rows = memref.get_global @rows : memref<2x3xf32>
  %u0 = memref.cast %rows : memref<2x3xf32> to memref<*xf32>
  call @memoptRtChecksumF32(%i0, %u0) : (i64, memref<*xf32>) -> ()
  // CHECK: memopt-rt: output index=0 element=f32 shape=2x3 count=6 hash=[[ROWS:0x[0-9a-f]+]] sum=7 abs_sum=21 nonfinite=0

  // The transpose of @rows as a strided view has the values of @columns in
  // the same logical order: same hash; the same values in the other order
  // (@rows) hash differently.
  %view = memref.transpose %rows (i, j) -> (j, i) : memref<2x3xf32> to memref<3x2xf32, strided<[1, 3]>>
  %u1 = memref.cast %view : memref<3x2xf32, strided<[1, 3]>> to memref<*xf32>
  call @memoptRtChecksumF32(%i1, %u1) : (i64, memref<*xf32>) -> ()
  %columns = memref.get_global @columns : memref<3x2xf32>
  %u2 = memref.cast %columns : memref<3x2xf32> to memref<*xf32>
  call @memoptRtChecksumF32(%i2, %u2) : (i64, memref<*xf32>) -> ()
  // CHECK-NEXT: memopt-rt: output index=1 element=f32 shape=3x2 count=6 hash=[[COLUMNS:0x[0-9a-f]+]] sum=7 abs_sum=21 nonfinite=0
  // CHECK-NOT: [[ROWS]]
  // CHECK-NEXT: memopt-rt: output index=2 element=f32 shape=3x2 count=6 hash=[[COLUMNS]] sum=7 abs_sum=21 nonfinite=0

  // An offset window: the second row [4, -5, 6].
  %row = memref.subview %rows[1, 0] [1, 3] [1, 1] : memref<2x3xf32> to memref<1x3xf32, strided<[3, 1], offset: 3>>
  %u3 = memref.cast %row : memref<1x3xf32, strided<[3, 1], offset: 3>> to memref<*xf32>
  call @memoptRtChecksumF32(%i3, %u3) : (i64, memref<*xf32>) -> ()
  // CHECK-NEXT: memopt-rt: output index=3 element=f32 shape=1x3 count=3 hash={{0x[0-9a-f]+}} sum=5 abs_sum=15 nonfinite=0

  // NaN and -inf are counted, not summed: sum = 1.5 - 2.5 = -1, abs_sum = 4.
  %special = memref.get_global @special : memref<4xf64>
  %u4 = memref.cast %special : memref<4xf64> to memref<*xf64>
  call @memoptRtChecksumF64(%i4, %u4) : (i64, memref<*xf64>) -> ()
  // CHECK-NEXT: memopt-rt: output index=4 element=f64 shape=4 count=4 hash={{0x[0-9a-f]+}} sum=-1 abs_sum=4 nonfinite=2

  // f16 decoded exactly: 1 - 0.5 + 65504 = 65504.5.
  %halves = memref.get_global @halves : memref<3xf16>
  %u5 = memref.cast %halves : memref<3xf16> to memref<*xf16>
  call @memoptRtChecksumF16(%i5, %u5) : (i64, memref<*xf16>) -> ()
  // CHECK-NEXT: memopt-rt: output index=5 element=f16 shape=3 count=3 hash={{0x[0-9a-f]+}} sum=65504.5 abs_sum=65505.5 nonfinite=0

  // i1, one byte per element: three true.
  %flags = memref.get_global @flags : memref<4xi1>
  %u6 = memref.cast %flags : memref<4xi1> to memref<*xi1>
  call @memoptRtChecksumI1(%i6, %u6) : (i64, memref<*xi1>) -> ()
  // CHECK-NEXT: memopt-rt: output index=6 element=i1 shape=4 count=4 hash={{0x[0-9a-f]+}} sum=3 abs_sum=3 nonfinite=0

  // Values print in logical order too.
  call @memoptRtPrintF32(%i1, %u1) : (i64, memref<*xf32>) -> ()
  // CHECK-NEXT: memopt-rt: values index=1 begin
  // CHECK-NEXT: {{^\[\[1, 4\],$}}
  // CHECK-NEXT: {{^ \[-2, -5\],$}}
  // CHECK-NEXT: {{^ \[3, 6\]\]$}}
  // CHECK-NEXT: memopt-rt: values index=1 end
  return
}

// Dynamic extents at run time: 10 rows passed as tensor<?x5xf32> to two
// chunked regions (chunks of 4: two full chunks and a remainder of 2, found
// with tensor.dim and arith at run time), one with static slices (shifted last
// window) and one with '?' slices (exact remainder). The program written with
// plain upstream ops and the chunked one lowered by chunk-to-scf both run
// under mlir-runner and print the same values and bit patterns.
// RUN: split-file %s %t
// RUN: cat %t/main.mlir %t/reference.mlir | %lower_to_llvm | %run_main | %strip_addresses > %t/reference.out
// RUN: cat %t/main.mlir %t/chunked.mlir | memopt-opt - --chunk-to-scf | %lower_to_llvm | %run_main | %strip_addresses > %t/chunked.out
// RUN: diff %t/reference.out %t/chunked.out
// RUN: FileCheck %s < %t/chunked.out

// The last two rows come from the remainders.
// CHECK:      sizes = [10, 5] strides = [5, 1] data =
// CHECK-NEXT: {{\[\[}}1,   6.78135,   4.09301,   -3.1266,   -4.30073],
// CHECK:      [-2.7876,   4.47064,   6.64438,   0.549093,   -4.88562],
// CHECK-NEXT: [1.10088,   6.80752,   4.00613,   -3.19925,   -4.25271]]
// CHECK:      sizes = [10, 5] strides = [5, 1] data =

//--- main.mlir
// Fills a 10x5 input with 3 sin(0.7 i + 1.3 j), passes it as tensor<?x5xf32>
// to @scale_then_shift and prints the result twice: as numbers, and as bit
// patterns (each f32 bitcast to i32), so that equal output means bit-identical
// results.
func.func @main() {
  %empty = tensor.empty() : tensor<10x5xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]} outs(%empty : tensor<10x5xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i64
    %jj = arith.index_cast %j : index to i64
    %fi = arith.sitofp %ii : i64 to f32
    %fj = arith.sitofp %jj : i64 to f32
    %a = arith.constant 0.7 : f32
    %b = arith.constant 1.3 : f32
    %s = arith.constant 3.0 : f32
    %ai = arith.mulf %fi, %a : f32
    %bj = arith.mulf %fj, %b : f32
    %t = arith.addf %ai, %bj : f32
    %sin = math.sin %t : f32
    %v = arith.mulf %sin, %s : f32
    linalg.yield %v : f32
  } -> tensor<10x5xf32>
  %dynamic = tensor.cast %x : tensor<10x5xf32> to tensor<?x5xf32>
  %y = call @scale_then_shift(%dynamic) : (tensor<?x5xf32>) -> tensor<?x5xf32>
  %yStatic = tensor.cast %y : tensor<?x5xf32> to tensor<10x5xf32>
  %yBuffer = bufferization.to_buffer %yStatic : tensor<10x5xf32> to memref<10x5xf32>
  %printable = memref.cast %yBuffer : memref<10x5xf32> to memref<*xf32>
  call @printMemrefF32(%printable) : (memref<*xf32>) -> ()
  %bitsEmpty = tensor.empty() : tensor<10x5xi32>
  %bits = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                          iterator_types = ["parallel", "parallel"]}
      ins(%yStatic : tensor<10x5xf32>) outs(%bitsEmpty : tensor<10x5xi32>) {
  ^bb0(%in: f32, %out: i32):
    %c = arith.bitcast %in : f32 to i32
    linalg.yield %c : i32
  } -> tensor<10x5xi32>
  %bitsBuffer = bufferization.to_buffer %bits : tensor<10x5xi32> to memref<10x5xi32>
  %printableBits = memref.cast %bitsBuffer : memref<10x5xi32> to memref<*xi32>
  call @printMemrefI32(%printableBits) : (memref<*xi32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>)
func.func private @printMemrefI32(memref<*xi32>)

//--- reference.mlir
// x * 2, then + 1.
func.func @scale_then_shift(%x: tensor<?x5xf32>) -> tensor<?x5xf32> {
  %two = arith.constant 2.0 : f32
  %one = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x5xf32>
  %empty = tensor.empty(%n) : tensor<?x5xf32>
  %scaled = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x5xf32>) outs(%empty : tensor<?x5xf32>) {
  ^bb1(%in: f32, %out: f32):
    %r = arith.mulf %in, %two : f32
    linalg.yield %r : f32
  } -> tensor<?x5xf32>
  %shifted = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%scaled : tensor<?x5xf32>) outs(%empty : tensor<?x5xf32>) {
  ^bb1(%in: f32, %out: f32):
    %r = arith.addf %in, %one : f32
    linalg.yield %r : f32
  } -> tensor<?x5xf32>
  return %shifted : tensor<?x5xf32>
}

//--- chunked.mlir
// The same, as two regions over the dynamic rows, by 4: the first with static
// 4-row slices (its remainder is the shifted last window, guarded by a
// run-time check that at least 4 rows exist), the second with '?' slices (an
// exact remainder).
func.func @scale_then_shift(%x: tensor<?x5xf32>) -> tensor<?x5xf32> {
  %two = arith.constant 2.0 : f32
  %one = arith.constant 1.0 : f32
  %scaled = "chunk.region"(%x) ({
  ^bb0(%rows: tensor<4x5xf32>):
    %empty = tensor.empty() : tensor<4x5xf32>
    %chunk = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                           iterator_types = ["parallel", "parallel"]}
        ins(%rows : tensor<4x5xf32>) outs(%empty : tensor<4x5xf32>) {
    ^bb1(%in: f32, %out: f32):
      %r = arith.mulf %in, %two : f32
      linalg.yield %r : f32
    } -> tensor<4x5xf32>
    vector.yield %chunk : tensor<4x5xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 4 : i64,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<?x5xf32>) -> tensor<?x5xf32>
  %shifted = "chunk.region"(%scaled) ({
  ^bb0(%rows: tensor<?x5xf32>):
    %c0 = arith.constant 0 : index
    %n = tensor.dim %rows, %c0 : tensor<?x5xf32>
    %empty = tensor.empty(%n) : tensor<?x5xf32>
    %chunk = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                           iterator_types = ["parallel", "parallel"]}
        ins(%rows : tensor<?x5xf32>) outs(%empty : tensor<?x5xf32>) {
    ^bb1(%in: f32, %out: f32):
      %r = arith.addf %in, %one : f32
      linalg.yield %r : f32
    } -> tensor<?x5xf32>
    vector.yield %chunk : tensor<?x5xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 4 : i64,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<?x5xf32>) -> tensor<?x5xf32>
  return %shifted : tensor<?x5xf32>
}

// Softmax over the rows of a 10x7 tensor, chunked by 4 rows with '?' slices
// (two full chunks, then an exact remainder of 2 rows). The program written
// with plain upstream ops and the chunked one lowered by chunk-to-scf both run
// under mlir-runner; chunking rows keeps each row's arithmetic in the same
// order, so the outputs (values, and their bit patterns as i32) are identical.
// RUN: split-file %s %t
// RUN: cat %t/main.mlir %t/reference.mlir | %lower_to_llvm | %run_main | %strip_addresses > %t/reference.out
// RUN: cat %t/main.mlir %t/chunked.mlir | memopt-opt - --chunk-to-scf | %lower_to_llvm | %run_main | %strip_addresses > %t/chunked.out
// RUN: diff %t/reference.out %t/chunked.out
// RUN: FileCheck %s < %t/chunked.out

// Rows sum to 1; the last row comes from the remainder.
// CHECK:      sizes = [10, 7] strides = [7, 1] data =
// CHECK-NEXT: {{\[\[}}0.0218327,   0.393108,   0.102505,   0.00277351,   0.00154195,   0.0416279,   0.43661],
// CHECK:      [0.0228482,   0.396308,   0.0976604,   0.00266129,   0.00157157,   0.0435087,   0.435442]]
// CHECK:      sizes = [10, 7] strides = [7, 1] data =
// CHECK-NEXT: {{\[\[}}1018354324,

//--- main.mlir
// Fills the input with 3 sin(0.7 i + 1.3 j), runs @softmax_rows and prints the
// result twice: as numbers, and as bit patterns (each f32 bitcast to i32), so
// that equal output means bit-identical results.
func.func @main() {
  %empty = tensor.empty() : tensor<10x7xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]} outs(%empty : tensor<10x7xf32>) {
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
  } -> tensor<10x7xf32>
  %y = call @softmax_rows(%x) : (tensor<10x7xf32>) -> tensor<10x7xf32>
  %yBuffer = bufferization.to_buffer %y : tensor<10x7xf32> to memref<10x7xf32>
  %printable = memref.cast %yBuffer : memref<10x7xf32> to memref<*xf32>
  call @printMemrefF32(%printable) : (memref<*xf32>) -> ()
  %bitsEmpty = tensor.empty() : tensor<10x7xi32>
  %bits = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                          iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<10x7xf32>) outs(%bitsEmpty : tensor<10x7xi32>) {
  ^bb0(%in: f32, %out: i32):
    %c = arith.bitcast %in : f32 to i32
    linalg.yield %c : i32
  } -> tensor<10x7xi32>
  %bitsBuffer = bufferization.to_buffer %bits : tensor<10x7xi32> to memref<10x7xi32>
  %printableBits = memref.cast %bitsBuffer : memref<10x7xi32> to memref<*xi32>
  call @printMemrefI32(%printableBits) : (memref<*xi32>) -> ()
  return
}
func.func private @printMemrefF32(memref<*xf32>)
func.func private @printMemrefI32(memref<*xi32>)

//--- reference.mlir
func.func @softmax_rows(%x: tensor<10x7xf32>) -> tensor<10x7xf32> {
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %rowsEmpty = tensor.empty() : tensor<10xf32>
  %maxInit = linalg.fill ins(%lowest : f32) outs(%rowsEmpty : tensor<10xf32>) -> tensor<10xf32>
  %max = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<10x7xf32>) outs(%maxInit : tensor<10xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %in, %acc : f32
    linalg.yield %m : f32
  } -> tensor<10xf32>
  %empty = tensor.empty() : tensor<10x7xf32>
  %exp = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<10x7xf32>, tensor<10xf32>) outs(%empty : tensor<10x7xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<10x7xf32>
  %sumInit = linalg.fill ins(%zero : f32) outs(%rowsEmpty : tensor<10xf32>) -> tensor<10xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<10x7xf32>) outs(%sumInit : tensor<10xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<10xf32>
  %out = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<10x7xf32>, tensor<10xf32>) outs(%empty : tensor<10x7xf32>) {
  ^bb0(%e: f32, %s: f32, %o: f32):
    %q = arith.divf %e, %s : f32
    linalg.yield %q : f32
  } -> tensor<10x7xf32>
  return %out : tensor<10x7xf32>
}

//--- chunked.mlir
func.func @softmax_rows(%x: tensor<10x7xf32>) -> tensor<10x7xf32> {
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %out = "chunk.region"(%x) ({
  ^bb0(%rows: tensor<?x7xf32>):
    %c0 = arith.constant 0 : index
    %n = tensor.dim %rows, %c0 : tensor<?x7xf32>
    %rowsEmpty = tensor.empty(%n) : tensor<?xf32>
    %maxInit = linalg.fill ins(%lowest : f32) outs(%rowsEmpty : tensor<?xf32>) -> tensor<?xf32>
    %max = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                           iterator_types = ["parallel", "reduction"]}
        ins(%rows : tensor<?x7xf32>) outs(%maxInit : tensor<?xf32>) {
    ^bb1(%in: f32, %acc: f32):
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    } -> tensor<?xf32>
    %empty = tensor.empty(%n) : tensor<?x7xf32>
    %exp = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                           iterator_types = ["parallel", "parallel"]}
        ins(%rows, %max : tensor<?x7xf32>, tensor<?xf32>) outs(%empty : tensor<?x7xf32>) {
    ^bb1(%in: f32, %m: f32, %o: f32):
      %d = arith.subf %in, %m : f32
      %e = math.exp %d : f32
      linalg.yield %e : f32
    } -> tensor<?x7xf32>
    %sumInit = linalg.fill ins(%zero : f32) outs(%rowsEmpty : tensor<?xf32>) -> tensor<?xf32>
    %sum = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                           iterator_types = ["parallel", "reduction"]}
        ins(%exp : tensor<?x7xf32>) outs(%sumInit : tensor<?xf32>) {
    ^bb1(%in: f32, %acc: f32):
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    } -> tensor<?xf32>
    %probs = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                             iterator_types = ["parallel", "parallel"]}
        ins(%exp, %sum : tensor<?x7xf32>, tensor<?xf32>) outs(%empty : tensor<?x7xf32>) {
    ^bb1(%e: f32, %s: f32, %o: f32):
      %q = arith.divf %e, %s : f32
      linalg.yield %q : f32
    } -> tensor<?x7xf32>
    vector.yield %probs : tensor<?x7xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 4 : i64,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<10x7xf32>) -> tensor<10x7xf32>
  return %out : tensor<10x7xf32>
}

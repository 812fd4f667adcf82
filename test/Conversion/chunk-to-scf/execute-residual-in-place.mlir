// A residual update z + softmax(z) over the rows of a 10x7 tensor, chunked
// by 4 rows (two full chunks and an exact remainder of 2 rows): z dies at the
// region, so chunk-to-scf writes the result into z's buffer, each chunk
// reading its rows of z before overwriting them. The program written with
// plain upstream ops and the chunked one both run under mlir-runner and print
// the same values and bit patterns (chunking rows keeps each row's arithmetic
// in the same order). The lowered program holds one 10x7 buffer fewer.
// RUN: split-file %s %t
// RUN: cat %t/main.mlir %t/reference.mlir | %lower_to_llvm | %run_main | %strip_addresses > %t/reference.out
// RUN: cat %t/main.mlir %t/chunked.mlir | memopt-opt - --chunk-to-scf | %lower_to_llvm | %run_main | %strip_addresses > %t/chunked.out
// RUN: diff %t/reference.out %t/chunked.out
// RUN: FileCheck %s < %t/chunked.out
// RUN: cat %t/main.mlir %t/chunked.mlir | memopt-opt - --chunk-to-scf | FileCheck %s --check-prefix=IN-PLACE

// IN-PLACE-LABEL: func.func @residual_softmax(
// IN-PLACE:         %[[Z:.*]] = linalg.generic
// IN-PLACE-NOT:     tensor.empty() : tensor<10x7xf32>
// IN-PLACE:         %[[FULL:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[Z]])
// IN-PLACE-NEXT:      tensor.extract_slice %[[ACC]]
// IN-PLACE:         scf.for {{.*}} iter_args(%[[ACC2:.*]] = %[[FULL]])
// IN-PLACE-NEXT:      tensor.extract_slice %[[ACC2]]

// The last row comes from the remainder.
// CHECK:      sizes = [10, 7] strides = [7, 1] data =
// CHECK-NEXT: {{\[\[}}0.0720202,   1.75094,   0.929306,   -1.00598,   -1.30604,   0.422127,   1.81988],
// CHECK:      [0.0988514,   1.75853,   0.903759,   -1.02468,   -1.29387,   0.44887,   1.8204]]
// CHECK:      sizes = [10, 7] strides = [7, 1] data =
// CHECK-NEXT: {{\[\[}}1033076567,

//--- main.mlir
// Fills the input with 3 sin(0.7 i + 1.3 j), runs @residual_softmax and prints the
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
  %y = call @residual_softmax(%x) : (tensor<10x7xf32>) -> tensor<10x7xf32>
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
func.func @residual_softmax(%x: tensor<10x7xf32>) -> tensor<10x7xf32> {
  %halfEmpty = tensor.empty() : tensor<10x7xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<10x7xf32>) outs(%halfEmpty : tensor<10x7xf32>) {
  ^bb0(%in: f32, %o: f32):
    %half = arith.constant 0.5 : f32
    %h = arith.mulf %in, %half : f32
    linalg.yield %h : f32
  } -> tensor<10x7xf32>
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %rowsEmpty = tensor.empty() : tensor<10xf32>
  %maxInit = linalg.fill ins(%lowest : f32) outs(%rowsEmpty : tensor<10xf32>) -> tensor<10xf32>
  %max = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%z : tensor<10x7xf32>) outs(%maxInit : tensor<10xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %in, %acc : f32
    linalg.yield %m : f32
  } -> tensor<10xf32>
  %empty = tensor.empty() : tensor<10x7xf32>
  %exp = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%z, %max : tensor<10x7xf32>, tensor<10xf32>) outs(%empty : tensor<10x7xf32>) {
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
  %sumEmpty = tensor.empty() : tensor<10x7xf32>
  %updated = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                             iterator_types = ["parallel", "parallel"]}
      ins(%z, %out : tensor<10x7xf32>, tensor<10x7xf32>) outs(%sumEmpty : tensor<10x7xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<10x7xf32>
  return %updated : tensor<10x7xf32>
}

//--- chunked.mlir
func.func @residual_softmax(%x: tensor<10x7xf32>) -> tensor<10x7xf32> {
  %halfEmpty = tensor.empty() : tensor<10x7xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<10x7xf32>) outs(%halfEmpty : tensor<10x7xf32>) {
  ^bb0(%in: f32, %o: f32):
    %half = arith.constant 0.5 : f32
    %h = arith.mulf %in, %half : f32
    linalg.yield %h : f32
  } -> tensor<10x7xf32>
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %out = "chunk.region"(%z) ({
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
    %sumEmpty = tensor.empty(%n) : tensor<?x7xf32>
    %updated = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                               iterator_types = ["parallel", "parallel"]}
        ins(%rows, %probs : tensor<?x7xf32>, tensor<?x7xf32>) outs(%sumEmpty : tensor<?x7xf32>) {
    ^bb1(%a: f32, %b: f32, %o: f32):
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    } -> tensor<?x7xf32>
    vector.yield %updated : tensor<?x7xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 4 : i64,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<10x7xf32>) -> tensor<10x7xf32>
  return %out : tensor<10x7xf32>
}

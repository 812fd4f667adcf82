// Nested regions: a linear layer with tanh, chunked by rows of its input
// (12 rows by 5, '?' slices: an exact remainder of 2) and, inside, by columns
// of its weight (8 by 4; the inner output's row count is dynamic, so its first
// chunk is peeled to size its destination). The program written with plain
// upstream ops and the chunked one lowered by chunk-to-scf both run under
// mlir-runner; every output element is the same dot product in the same
// order, so the outputs (values, and their bit patterns) are identical.
// RUN: split-file %s %t
// RUN: cat %t/main.mlir %t/reference.mlir | %lower_to_llvm | %run_main | %strip_addresses > %t/reference.out
// RUN: cat %t/main.mlir %t/chunked.mlir | memopt-opt - --chunk-to-scf | %lower_to_llvm | %run_main | %strip_addresses > %t/chunked.out
// RUN: diff %t/reference.out %t/chunked.out
// RUN: FileCheck %s < %t/chunked.out

// The last two rows come from the outer remainder.
// CHECK:      sizes = [12, 8] strides = [8, 1] data =
// CHECK-NEXT: {{\[\[}}0.744137,   0.769578,   0.298178,   -0.562839,   -0.800292,   -0.622971,   0.189736,   0.748099],
// CHECK:      [0.547864,   0.621657,   0.281555,   -0.352198,   -0.633245,   -0.508351,   0.0499439,   0.552968],
// CHECK-NEXT: [-0.0155289,   0.0947648,   0.132907,   0.0710465,   -0.045192,   -0.126704,   -0.112668,   -0.0132796]]
// CHECK:      sizes = [12, 8] strides = [8, 1] data =

//--- main.mlir
// Fills X (12x6) and W (6x8) with sin(a i + b j + phase), runs @layer and
// prints the result twice: as numbers, and as bit patterns (each f32 bitcast
// to i32), so that equal output means bit-identical results.
func.func @main() {
  %xa = arith.constant 0.7 : f32
  %xb = arith.constant 1.3 : f32
  %xp = arith.constant 0.0 : f32
  %wa = arith.constant -0.4 : f32
  %wb = arith.constant 0.9 : f32
  %wp = arith.constant 0.5 : f32
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %c12 = arith.constant 12 : index
  %xFilled = call @fill(%c12, %c6, %xa, %xb, %xp) : (index, index, f32, f32, f32) -> tensor<?x?xf32>
  %x = tensor.cast %xFilled : tensor<?x?xf32> to tensor<12x6xf32>
  %wFilled = call @fill(%c6, %c8, %wa, %wb, %wp) : (index, index, f32, f32, f32) -> tensor<?x?xf32>
  %w = tensor.cast %wFilled : tensor<?x?xf32> to tensor<6x8xf32>
  %y = call @layer(%x, %w) : (tensor<12x6xf32>, tensor<6x8xf32>) -> tensor<12x8xf32>
  %yBuffer = bufferization.to_buffer %y : tensor<12x8xf32> to memref<12x8xf32>
  %printable = memref.cast %yBuffer : memref<12x8xf32> to memref<*xf32>
  call @printMemrefF32(%printable) : (memref<*xf32>) -> ()
  %bitsEmpty = tensor.empty() : tensor<12x8xi32>
  %bits = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                          iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<12x8xf32>) outs(%bitsEmpty : tensor<12x8xi32>) {
  ^bb0(%in: f32, %out: i32):
    %c = arith.bitcast %in : f32 to i32
    linalg.yield %c : i32
  } -> tensor<12x8xi32>
  %bitsBuffer = bufferization.to_buffer %bits : tensor<12x8xi32> to memref<12x8xi32>
  %printableBits = memref.cast %bitsBuffer : memref<12x8xi32> to memref<*xi32>
  call @printMemrefI32(%printableBits) : (memref<*xi32>) -> ()
  return
}

func.func @fill(%rows: index, %cols: index, %a: f32, %b: f32, %phase: f32) -> tensor<?x?xf32> {
  %empty = tensor.empty(%rows, %cols) : tensor<?x?xf32>
  %filled = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>],
                            iterator_types = ["parallel", "parallel"]} outs(%empty : tensor<?x?xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i64
    %jj = arith.index_cast %j : index to i64
    %fi = arith.sitofp %ii : i64 to f32
    %fj = arith.sitofp %jj : i64 to f32
    %ai = arith.mulf %fi, %a : f32
    %bj = arith.mulf %fj, %b : f32
    %t = arith.addf %ai, %bj : f32
    %u = arith.addf %t, %phase : f32
    %sin = math.sin %u : f32
    linalg.yield %sin : f32
  } -> tensor<?x?xf32>
  return %filled : tensor<?x?xf32>
}

func.func private @printMemrefF32(memref<*xf32>)
func.func private @printMemrefI32(memref<*xi32>)

//--- reference.mlir
// tanh(X W): a linear layer and its activation.
func.func @layer(%x: tensor<12x6xf32>, %w: tensor<6x8xf32>) -> tensor<12x8xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<12x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<12x8xf32>) -> tensor<12x8xf32>
  %product = linalg.matmul ins(%x, %w : tensor<12x6xf32>, tensor<6x8xf32>)
                           outs(%init : tensor<12x8xf32>) -> tensor<12x8xf32>
  %activated = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                               iterator_types = ["parallel", "parallel"]}
      ins(%product : tensor<12x8xf32>) outs(%empty : tensor<12x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32
    linalg.yield %t : f32
  } -> tensor<12x8xf32>
  return %activated : tensor<12x8xf32>
}

//--- chunked.mlir
// The same layer, by rows of X (chunks of 5 as '?' slices: an exact
// remainder of 2) and, inside, by columns of W (chunks of 4). The row slice
// is used whole by the inner region, from above it.
func.func @layer(%x: tensor<12x6xf32>, %w: tensor<6x8xf32>) -> tensor<12x8xf32> {
  %zero = arith.constant 0.0 : f32
  %out = "chunk.region"(%x) ({
  ^bb0(%rows: tensor<?x6xf32>):
    %block = "chunk.region"(%w) ({
    ^bb1(%cols: tensor<6x4xf32>):
      %c0 = arith.constant 0 : index
      %n = tensor.dim %rows, %c0 : tensor<?x6xf32>
      %empty = tensor.empty(%n) : tensor<?x4xf32>
      %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<?x4xf32>) -> tensor<?x4xf32>
      %product = linalg.matmul ins(%rows, %cols : tensor<?x6xf32>, tensor<6x4xf32>)
                               outs(%init : tensor<?x4xf32>) -> tensor<?x4xf32>
      %activated = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                                   iterator_types = ["parallel", "parallel"]}
          ins(%product : tensor<?x4xf32>) outs(%empty : tensor<?x4xf32>) {
      ^bb2(%in: f32, %o: f32):
        %t = math.tanh %in : f32
        linalg.yield %t : f32
      } -> tensor<?x4xf32>
      vector.yield %activated : tensor<?x4xf32>
    }) {input_dims = array<i64: 1>, output_dims = array<i64: 1>, chunk_size = 4 : i64,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
       : (tensor<6x8xf32>) -> tensor<?x8xf32>
    vector.yield %block : tensor<?x8xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 5 : i64,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<12x6xf32>) -> tensor<12x8xf32>
  return %out : tensor<12x8xf32>
}

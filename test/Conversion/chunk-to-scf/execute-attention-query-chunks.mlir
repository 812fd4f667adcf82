// A small attention block (sequence 10, head dimension 4) chunked along the
// query dimension by 4 with static 4-row slices: two full chunks, then the
// shifted last window (queries 6..9, of which 8 and 9 are kept). K and V are
// used whole from above the region. The program written with plain upstream
// ops and the chunked one lowered by chunk-to-scf both run under mlir-runner;
// each query row's arithmetic is unchanged by chunking, so the outputs
// (values, and their bit patterns) are identical.
// RUN: split-file %s %t
// RUN: cat %t/main.mlir %t/reference.mlir | %lower_to_llvm | %run_main | %strip_addresses > %t/reference.out
// RUN: cat %t/main.mlir %t/chunked.mlir | memopt-opt - --chunk-to-scf | %lower_to_llvm | %run_main | %strip_addresses > %t/chunked.out
// RUN: diff %t/reference.out %t/chunked.out
// RUN: FileCheck %s < %t/chunked.out

// The last two rows come from the shifted window.
// CHECK:      sizes = [10, 4] strides = [4, 1] data =
// CHECK-NEXT: {{\[\[}}0.0426094,   0.0526391,   0.0579666,   0.0581163],
// CHECK:      [0.129027,   0.143438,   0.145036,   0.133679],
// CHECK-NEXT: [0.0423244,   0.0520897,   0.0572019,   0.0572045]]
// CHECK:      sizes = [10, 4] strides = [4, 1] data =

//--- main.mlir
// Fills Q, K and V with sin(a i + b j + phase) for three (a, b, phase), runs
// @attention and prints the result twice: as numbers, and as bit patterns
// (each f32 bitcast to i32), so that equal output means bit-identical results.
func.func @main() {
  %qa = arith.constant 0.7 : f32
  %qb = arith.constant 1.3 : f32
  %qp = arith.constant 0.0 : f32
  %ka = arith.constant 0.4 : f32
  %kb = arith.constant -0.9 : f32
  %kp = arith.constant 0.5 : f32
  %va = arith.constant 1.1 : f32
  %vb = arith.constant 0.3 : f32
  %vp = arith.constant -1.0 : f32
  %q = call @fill(%qa, %qb, %qp) : (f32, f32, f32) -> tensor<10x4xf32>
  %k = call @fill(%ka, %kb, %kp) : (f32, f32, f32) -> tensor<10x4xf32>
  %v = call @fill(%va, %vb, %vp) : (f32, f32, f32) -> tensor<10x4xf32>
  %y = call @attention(%q, %k, %v) : (tensor<10x4xf32>, tensor<10x4xf32>, tensor<10x4xf32>) -> tensor<10x4xf32>
  %yBuffer = bufferization.to_buffer %y : tensor<10x4xf32> to memref<10x4xf32>
  %printable = memref.cast %yBuffer : memref<10x4xf32> to memref<*xf32>
  call @printMemrefF32(%printable) : (memref<*xf32>) -> ()
  %bitsEmpty = tensor.empty() : tensor<10x4xi32>
  %bits = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                          iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<10x4xf32>) outs(%bitsEmpty : tensor<10x4xi32>) {
  ^bb0(%in: f32, %out: i32):
    %c = arith.bitcast %in : f32 to i32
    linalg.yield %c : i32
  } -> tensor<10x4xi32>
  %bitsBuffer = bufferization.to_buffer %bits : tensor<10x4xi32> to memref<10x4xi32>
  %printableBits = memref.cast %bitsBuffer : memref<10x4xi32> to memref<*xi32>
  call @printMemrefI32(%printableBits) : (memref<*xi32>) -> ()
  return
}

func.func @fill(%a: f32, %b: f32, %phase: f32) -> tensor<10x4xf32> {
  %empty = tensor.empty() : tensor<10x4xf32>
  %filled = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>],
                            iterator_types = ["parallel", "parallel"]} outs(%empty : tensor<10x4xf32>) {
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
  } -> tensor<10x4xf32>
  return %filled : tensor<10x4xf32>
}

func.func private @printMemrefF32(memref<*xf32>)
func.func private @printMemrefI32(memref<*xi32>)

//--- reference.mlir
func.func @attention(%q: tensor<10x4xf32>, %k: tensor<10x4xf32>, %v: tensor<10x4xf32>) -> tensor<10x4xf32> {
  %zero = arith.constant 0.0 : f32
  %lowest = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.5 : f32
  %scoresEmpty = tensor.empty() : tensor<10x10xf32>
  %scoresInit = linalg.fill ins(%zero : f32) outs(%scoresEmpty : tensor<10x10xf32>) -> tensor<10x10xf32>
  %scores = linalg.generic {indexing_maps = [affine_map<(i, j, d) -> (i, d)>, affine_map<(i, j, d) -> (j, d)>, affine_map<(i, j, d) -> (i, j)>],
                            iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<10x4xf32>, tensor<10x4xf32>) outs(%scoresInit : tensor<10x10xf32>) {
  ^bb1(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<10x10xf32>
  %rowsEmpty = tensor.empty() : tensor<10xf32>
  %maxInit = linalg.fill ins(%lowest : f32) outs(%rowsEmpty : tensor<10xf32>) -> tensor<10xf32>
  %max = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%scores : tensor<10x10xf32>) outs(%maxInit : tensor<10xf32>) {
  ^bb1(%in: f32, %acc: f32):
    %m = arith.maximumf %in, %acc : f32
    linalg.yield %m : f32
  } -> tensor<10xf32>
  %exp = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%scores, %max : tensor<10x10xf32>, tensor<10xf32>) outs(%scoresEmpty : tensor<10x10xf32>) {
  ^bb1(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %scaled = arith.mulf %d, %scale : f32
    %e = math.exp %scaled : f32
    linalg.yield %e : f32
  } -> tensor<10x10xf32>
  %sumInit = linalg.fill ins(%zero : f32) outs(%rowsEmpty : tensor<10xf32>) -> tensor<10xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<10x10xf32>) outs(%sumInit : tensor<10xf32>) {
  ^bb1(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<10xf32>
  %probs = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                           iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<10x10xf32>, tensor<10xf32>) outs(%scoresEmpty : tensor<10x10xf32>) {
  ^bb1(%e: f32, %s: f32, %out: f32):
    %ratio = arith.divf %e, %s : f32
    linalg.yield %ratio : f32
  } -> tensor<10x10xf32>
  %outEmpty = tensor.empty() : tensor<10x4xf32>
  %outInit = linalg.fill ins(%zero : f32) outs(%outEmpty : tensor<10x4xf32>) -> tensor<10x4xf32>
  %attended = linalg.generic {indexing_maps = [affine_map<(i, d, j) -> (i, j)>, affine_map<(i, d, j) -> (j, d)>, affine_map<(i, d, j) -> (i, d)>],
                              iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%probs, %v : tensor<10x10xf32>, tensor<10x4xf32>) outs(%outInit : tensor<10x4xf32>) {
  ^bb1(%p: f32, %b: f32, %acc: f32):
    %m = arith.mulf %p, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<10x4xf32>
  return %attended : tensor<10x4xf32>
}

//--- chunked.mlir
func.func @attention(%q: tensor<10x4xf32>, %k: tensor<10x4xf32>, %v: tensor<10x4xf32>) -> tensor<10x4xf32> {
  %out = "chunk.region"(%q) ({
  ^bb0(%queries: tensor<4x4xf32>):
    %zero = arith.constant 0.0 : f32
    %lowest = arith.constant 0xFF800000 : f32
    %scale = arith.constant 0.5 : f32
    %scoresEmpty = tensor.empty() : tensor<4x10xf32>
    %scoresInit = linalg.fill ins(%zero : f32) outs(%scoresEmpty : tensor<4x10xf32>) -> tensor<4x10xf32>
    %scores = linalg.generic {indexing_maps = [affine_map<(i, j, d) -> (i, d)>, affine_map<(i, j, d) -> (j, d)>, affine_map<(i, j, d) -> (i, j)>],
                              iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%queries, %k : tensor<4x4xf32>, tensor<10x4xf32>) outs(%scoresInit : tensor<4x10xf32>) {
    ^bb1(%a: f32, %b: f32, %acc: f32):
      %p = arith.mulf %a, %b : f32
      %s = arith.addf %acc, %p : f32
      linalg.yield %s : f32
    } -> tensor<4x10xf32>
    %rowsEmpty = tensor.empty() : tensor<4xf32>
    %maxInit = linalg.fill ins(%lowest : f32) outs(%rowsEmpty : tensor<4xf32>) -> tensor<4xf32>
    %max = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                           iterator_types = ["parallel", "reduction"]}
        ins(%scores : tensor<4x10xf32>) outs(%maxInit : tensor<4xf32>) {
    ^bb1(%in: f32, %acc: f32):
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    } -> tensor<4xf32>
    %exp = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                           iterator_types = ["parallel", "parallel"]}
        ins(%scores, %max : tensor<4x10xf32>, tensor<4xf32>) outs(%scoresEmpty : tensor<4x10xf32>) {
    ^bb1(%in: f32, %m: f32, %out: f32):
      %d = arith.subf %in, %m : f32
      %scaled = arith.mulf %d, %scale : f32
      %e = math.exp %scaled : f32
      linalg.yield %e : f32
    } -> tensor<4x10xf32>
    %sumInit = linalg.fill ins(%zero : f32) outs(%rowsEmpty : tensor<4xf32>) -> tensor<4xf32>
    %sum = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                           iterator_types = ["parallel", "reduction"]}
        ins(%exp : tensor<4x10xf32>) outs(%sumInit : tensor<4xf32>) {
    ^bb1(%in: f32, %acc: f32):
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    } -> tensor<4xf32>
    %probs = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                             iterator_types = ["parallel", "parallel"]}
        ins(%exp, %sum : tensor<4x10xf32>, tensor<4xf32>) outs(%scoresEmpty : tensor<4x10xf32>) {
    ^bb1(%e: f32, %s: f32, %out: f32):
      %ratio = arith.divf %e, %s : f32
      linalg.yield %ratio : f32
    } -> tensor<4x10xf32>
    %outEmpty = tensor.empty() : tensor<4x4xf32>
    %outInit = linalg.fill ins(%zero : f32) outs(%outEmpty : tensor<4x4xf32>) -> tensor<4x4xf32>
    %attended = linalg.generic {indexing_maps = [affine_map<(i, d, j) -> (i, j)>, affine_map<(i, d, j) -> (j, d)>, affine_map<(i, d, j) -> (i, d)>],
                                iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%probs, %v : tensor<4x10xf32>, tensor<10x4xf32>) outs(%outInit : tensor<4x4xf32>) {
    ^bb1(%p: f32, %b: f32, %acc: f32):
      %m = arith.mulf %p, %b : f32
      %s = arith.addf %acc, %m : f32
      linalg.yield %s : f32
    } -> tensor<4x4xf32>
    vector.yield %attended : tensor<4x4xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 4 : i64,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<10x4xf32>) -> tensor<10x4xf32>
  return %out : tensor<10x4xf32>
}

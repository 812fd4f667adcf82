// Rows 0..99 get their row number added, computed 32 rows at a time with the
// chunk's offset (the last window starts at row 68 and keeps its last 4 rows).
// The chunked program, lowered by chunk-to-scf, and the unchunked one run
// under the harness with bit-identical results; without the offset every
// chunk would number its rows from 0.
// RUN: split-file %s %t
// RUN: memopt-run %t/reference.mlir --compare --runs=1 --tolerance=0 --against=%t/chunked.mlir \
// RUN:   --pipeline='builtin.module(func.func(chunk-to-scf))' | FileCheck %s

// CHECK: outputs: bit-identical

//--- reference.mlir
#id = affine_map<(i, j) -> (i, j)>
func.func @row_numbers(%x: tensor<100x8xf32>) -> tensor<100x8xf32> {
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<100x8xf32>) outs(%x : tensor<100x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %i = linalg.index 0 : index
    %n = arith.index_cast %i : index to i64
    %f = arith.sitofp %n : i64 to f32
    %r = arith.addf %in, %f : f32
    linalg.yield %r : f32
  } -> tensor<100x8xf32>
  return %g : tensor<100x8xf32>
}

//--- chunked.mlir
#id = affine_map<(i, j) -> (i, j)>
func.func @row_numbers(%x: tensor<100x8xf32>) -> tensor<100x8xf32> {
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<32x8xf32>, %offset: index):
    %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%s : tensor<32x8xf32>) outs(%s : tensor<32x8xf32>) {
    ^bb1(%in: f32, %o: f32):
      %i = linalg.index 0 : index
      %row = arith.addi %i, %offset : index
      %n = arith.index_cast %row : index to i64
      %f = arith.sitofp %n : i64 to f32
      %r = arith.addf %in, %f : f32
      linalg.yield %r : f32
    } -> tensor<32x8xf32>
    vector.yield %g : tensor<32x8xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 32 : i64,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<100x8xf32>) -> tensor<100x8xf32>
  return %0 : tensor<100x8xf32>
}

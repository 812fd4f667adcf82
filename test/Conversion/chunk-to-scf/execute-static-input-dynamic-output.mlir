// A region whose input is static (16 rows) and whose output is '?' along the
// chunked dimension: the extent, 16, comes from the input, and chunk_size 4
// divides it, so there is no remainder loop. The destination is then
// tensor.empty(16) : tensor<?x8xf32>, sized with the extent as a constant
// (before, the lowering read an extent value it had not built, and crashed).
// Four chunks of 4 rows compute exp; the chunked program, lowered by
// chunk-to-scf, and the unchunked one run under the harness with
// bit-identical results.
// RUN: split-file %s %t
// RUN: memopt-opt %t/chunked.mlir --chunk-to-scf | FileCheck %s --check-prefix=IR
// RUN: memopt-run %t/reference.mlir --compare --runs=1 --tolerance=0 --against=%t/chunked.mlir \
// RUN:   --pipeline='builtin.module(func.func(chunk-to-scf))' | FileCheck %s

// IR:      %[[C16:.*]] = arith.constant 16 : index
// IR:      %[[DEST:.*]] = tensor.empty(%[[C16]]) : tensor<?x8xf32>
// IR-NEXT: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[DEST]]) -> (tensor<?x8xf32>)
// IR-NOT:  scf.for

// CHECK: outputs: bit-identical

//--- reference.mlir
#id = affine_map<(i, j) -> (i, j)>
func.func @f(%x: tensor<16x8xf32>) -> tensor<?x8xf32> {
  %e = tensor.empty() : tensor<16x8xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<16x8xf32>) outs(%e : tensor<16x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<16x8xf32>
  %d = tensor.cast %g : tensor<16x8xf32> to tensor<?x8xf32>
  return %d : tensor<?x8xf32>
}

//--- chunked.mlir
#id = affine_map<(i, j) -> (i, j)>
func.func @f(%x: tensor<16x8xf32>) -> tensor<?x8xf32> {
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<4x8xf32>):
    %e = tensor.empty() : tensor<4x8xf32>
    %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%s : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
    ^bb0(%in: f32, %o: f32):
      %r = math.exp %in : f32
      linalg.yield %r : f32
    } -> tensor<4x8xf32>
    %d = tensor.cast %g : tensor<4x8xf32> to tensor<?x8xf32>
    vector.yield %d : tensor<?x8xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 4 : i64,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<16x8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

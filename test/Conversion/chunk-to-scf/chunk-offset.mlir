// A body that reads the index of the chunked loop takes the chunk's offset as
// a trailing index argument. The full-chunk loop passes its induction
// variable; the shifted last window (rows 68..99) passes its start, 68, since
// the body computes the window's rows, not only the 4 it keeps.
// RUN: memopt-opt %s --chunk-to-scf | mlir-opt --verify-each | FileCheck %s --implicit-check-not='"chunk.region"'

// CHECK-LABEL: func.func @row_numbers(
// CHECK:         scf.for %[[IV:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(
// CHECK:           linalg.generic
// CHECK:             %[[ROW:.*]] = linalg.index 0 : index
// CHECK-NEXT:        arith.addi %[[ROW]], %[[IV]] : index
// CHECK:         scf.for
// CHECK:           %[[START:.*]] = arith.constant 68 : index
// CHECK:           linalg.generic
// CHECK:             %[[ROW2:.*]] = linalg.index 0 : index
// CHECK-NEXT:        arith.addi %[[ROW2]], %[[START]] : index
#id = affine_map<(i, j) -> (i, j)>
func.func @row_numbers(%x: tensor<100x8xf32>) -> tensor<100x8xf32> {
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<32x8xf32>, %offset: index):
    %g = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
        outs(%s : tensor<32x8xf32>) {
    ^bb1(%o: f32):
      %i = linalg.index 0 : index
      %row = arith.addi %i, %offset : index
      %n = arith.index_cast %row : index to i64
      %f = arith.sitofp %n : i64 to f32
      %r = arith.addf %o, %f : f32
      linalg.yield %r : f32
    } -> tensor<32x8xf32>
    vector.yield %g : tensor<32x8xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 32 : i64,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<100x8xf32>) -> tensor<100x8xf32>
  return %0 : tensor<100x8xf32>
}

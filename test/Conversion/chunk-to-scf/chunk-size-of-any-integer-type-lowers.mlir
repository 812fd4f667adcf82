// chunk_size is read by value whatever its integer type: 3 as an i128 gives
// chunks of 3 (8 rows: loops 0..6 and 6..8 step 3), and 200 as a ui8 chunks
// of 200 (256 rows: 0..200 and 200..256 step 200), not the signed reading of
// its 8 bits, -56.
// RUN: memopt-opt %s --chunk-to-scf | FileCheck %s

// CHECK-LABEL: func.func @i128
// CHECK-DAG:   %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG:   %[[C6:.*]] = arith.constant 6 : index
// CHECK-DAG:   %[[C8:.*]] = arith.constant 8 : index
// CHECK:       scf.for %{{.*}} = %{{.*}} to %[[C6]] step %[[C3]]
// CHECK:       scf.for %{{.*}} = %[[C6]] to %[[C8]] step %[[C3]]
func.func @i128(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<?x8xf32>):
    %e = math.exp %s : tensor<?x8xf32>
    vector.yield %e : tensor<?x8xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 3 : i128,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// CHECK-LABEL: func.func @ui8
// CHECK:       %[[STEP:.*]] = arith.constant 200 : index
// CHECK-NEXT:  %[[N:.*]] = arith.constant 256 : index
// CHECK-NEXT:  %[[END:.*]] = arith.constant 200 : index
// CHECK:       scf.for %{{.*}} = %{{.*}} to %[[END]] step %[[STEP]]
// CHECK:       scf.for %{{.*}} = %[[END]] to %[[N]] step %[[STEP]]
func.func @ui8(%x: tensor<256xf32>) -> tensor<256xf32> {
  %0 = "chunk.region"(%x) ({
  ^bb0(%s: tensor<?xf32>):
    %e = math.exp %s : tensor<?xf32>
    vector.yield %e : tensor<?xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: 0>, chunk_size = 200 : ui8,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<256xf32>) -> tensor<256xf32>
  return %0 : tensor<256xf32>
}

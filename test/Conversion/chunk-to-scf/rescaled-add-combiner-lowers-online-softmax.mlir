// Online softmax over a dynamic number of key rows, 4 per chunk: each chunk
// yields its maximum m_c (6 columns), a sum l_c and an output O_c (6x2)
// computed relative to m_c. m is "max"; l and O are "rescaled-add" by m
// (rescale_by = [-1, 0, 0]). The three are iter_args starting at -inf, 0
// and 0; per chunk, before m is updated in place, each rescaled sum R gets
//   R_new = (m_old == -inf ? 0 : R_old * exp(m_old - m_new))
//         + (m_c == -inf ? 0 : R_c * exp(m_c - m_new)),  m_new = max(m_old, m_c)
// with m broadcast along O's trailing dimension (map (d0, d1) -> (d0)). The
// extent N is dynamic: full chunks run to N - N mod 4, and the remainder loop
// runs the body once more on the N - %iv last rows.
// RUN: memopt-opt %s --chunk-to-scf --allow-unregistered-dialect | mlir-opt --verify-each --allow-unregistered-dialect | FileCheck %s --implicit-check-not='"chunk.region"'

// CHECK-DAG:   #[[ROW:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG:   #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[BCAST:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @online_softmax(
// CHECK-SAME:      %[[S:.*]]: tensor<?x6xf32>)
// CHECK:         %[[N:.*]] = tensor.dim %[[S]]
// CHECK:         %[[FULLEND:.*]] = arith.subi %[[N]], %{{.*}} : index
// CHECK:         %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT:    %[[ME:.*]] = tensor.empty() : tensor<6xf32>
// CHECK-NEXT:    %[[M0:.*]] = linalg.fill ins(%[[NINF]] : f32) outs(%[[ME]] : tensor<6xf32>)
// CHECK-NEXT:    %[[Z1:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[LE:.*]] = tensor.empty() : tensor<6xf32>
// CHECK-NEXT:    %[[L0:.*]] = linalg.fill ins(%[[Z1]] : f32) outs(%[[LE]] : tensor<6xf32>)
// CHECK-NEXT:    %[[Z2:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[OE:.*]] = tensor.empty() : tensor<6x2xf32>
// CHECK-NEXT:    %[[O0:.*]] = linalg.fill ins(%[[Z2]] : f32) outs(%[[OE]] : tensor<6x2xf32>)
// CHECK-NEXT:    %[[FULL:.*]]:3 = scf.for %{{.*}} = %{{.*}} to %[[FULLEND]] step %{{.*}} iter_args(%[[M:.*]] = %[[M0]], %[[L:.*]] = %[[L0]], %[[O:.*]] = %[[O0]])
// CHECK:           %[[MC:.*]] = "test.max"
// CHECK-NEXT:      %[[LC:.*]] = "test.sum"
// CHECK-NEXT:      %[[OC:.*]] = "test.weighted"
// CHECK-NEXT:      %[[LN:.*]] = linalg.generic {indexing_maps = [#[[ROW]], #[[ROW]], #[[ROW]], #[[ROW]]], iterator_types = ["parallel"]} ins(%[[LC]], %[[M]], %[[MC]] : {{.*}}) outs(%[[L]] : tensor<6xf32>)
// CHECK-NEXT:      ^bb0(%[[Y:.*]]: f32, %[[MOLD:.*]]: f32, %[[MCHUNK:.*]]: f32, %[[R:.*]]: f32):
// CHECK-NEXT:        %[[INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT:        %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:        %[[MNEW:.*]] = arith.maximumf %[[MOLD]], %[[MCHUNK]] : f32
// CHECK-NEXT:        %[[OLDMASKED:.*]] = arith.cmpf oeq, %[[MOLD]], %[[INF]] : f32
// CHECK-NEXT:        %[[D1:.*]] = arith.subf %[[MOLD]], %[[MNEW]] : f32
// CHECK-NEXT:        %[[S1:.*]] = math.exp %[[D1]] : f32
// CHECK-NEXT:        %[[T1:.*]] = arith.mulf %[[R]], %[[S1]] : f32
// CHECK-NEXT:        %[[OLD:.*]] = arith.select %[[OLDMASKED]], %[[ZERO]], %[[T1]] : f32
// CHECK-NEXT:        %[[NEWMASKED:.*]] = arith.cmpf oeq, %[[MCHUNK]], %[[INF]] : f32
// CHECK-NEXT:        %[[D2:.*]] = arith.subf %[[MCHUNK]], %[[MNEW]] : f32
// CHECK-NEXT:        %[[S2:.*]] = math.exp %[[D2]] : f32
// CHECK-NEXT:        %[[T2:.*]] = arith.mulf %[[Y]], %[[S2]] : f32
// CHECK-NEXT:        %[[NEW:.*]] = arith.select %[[NEWMASKED]], %[[ZERO]], %[[T2]] : f32
// CHECK-NEXT:        %[[SUM:.*]] = arith.addf %[[OLD]], %[[NEW]] : f32
// CHECK-NEXT:        linalg.yield %[[SUM]] : f32
// CHECK:           %[[ON:.*]] = linalg.generic {indexing_maps = [#[[ID2]], #[[BCAST]], #[[BCAST]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[OC]], %[[M]], %[[MC]] : {{.*}}) outs(%[[O]] : tensor<6x2xf32>)
// CHECK:           %[[MN:.*]] = linalg.generic {indexing_maps = [#[[ROW]], #[[ROW]]], iterator_types = ["parallel"]} ins(%[[MC]] : tensor<6xf32>) outs(%[[M]] : tensor<6xf32>)
// CHECK:             arith.maximumf
// CHECK:           scf.yield %[[MN]], %[[LN]], %[[ON]]
// CHECK:         %[[LAST:.*]]:3 = scf.for %[[IV:.*]] = %[[FULLEND]] to %[[N]] step %{{.*}} iter_args(%[[M2:.*]] = %[[FULL]]#0, %[[L2:.*]] = %[[FULL]]#1, %[[O2:.*]] = %[[FULL]]#2)
// CHECK-NEXT:      %[[REST:.*]] = arith.subi %[[N]], %[[IV]] : index
// CHECK-NEXT:      tensor.extract_slice %[[S]][%[[IV]], 0] [%[[REST]], 6] [1, 1]
// CHECK:           %[[MC2:.*]] = "test.max"
// CHECK:           %[[LN2:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[M2]], %[[MC2]] : {{.*}}) outs(%[[L2]] : tensor<6xf32>)
// CHECK:           %[[ON2:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[M2]], %[[MC2]] : {{.*}}) outs(%[[O2]] : tensor<6x2xf32>)
// CHECK:           %[[MN2:.*]] = linalg.generic {{.*}} ins(%[[MC2]] : tensor<6xf32>) outs(%[[M2]] : tensor<6xf32>)
// CHECK:           scf.yield %[[MN2]], %[[LN2]], %[[ON2]]
// CHECK:         return %[[LAST]]#0, %[[LAST]]#1, %[[LAST]]#2
func.func @online_softmax(%s: tensor<?x6xf32>) -> (tensor<6xf32>, tensor<6xf32>, tensor<6x2xf32>) {
  %0, %1, %2 = "chunk.region"(%s) ({
  ^bb0(%c: tensor<?x6xf32>):
    %m = "test.max"(%c) : (tensor<?x6xf32>) -> tensor<6xf32>
    %l = "test.sum"(%c, %m) : (tensor<?x6xf32>, tensor<6xf32>) -> tensor<6xf32>
    %o = "test.weighted"(%c, %m) : (tensor<?x6xf32>, tensor<6xf32>) -> tensor<6x2xf32>
    vector.yield %m, %l, %o : tensor<6xf32>, tensor<6xf32>, tensor<6x2xf32>
  }) {input_dims = array<i64: 0>, output_dims = array<i64: -1, -1, -1>, chunk_size = 4 : i64,
      combiners = ["max", "rescaled-add", "rescaled-add"], rescale_by = array<i64: -1, 0, 0>,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0>}
     : (tensor<?x6xf32>) -> (tensor<6xf32>, tensor<6xf32>, tensor<6x2xf32>)
  return %0, %1, %2 : tensor<6xf32>, tensor<6xf32>, tensor<6x2xf32>
}

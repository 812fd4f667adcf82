// A tensor.concat of parts of different extents (2x4 and 2x2 into 2x6) is
// not rewritten: with affine indexing maps alone a generic cannot read a
// part at an offset that depends on the part. place-to-shard leaves it as
// it is, so upstream sharding-propagation stops at it ("sharding interface
// is not implemented"); the collapse and the generic over a part loop that
// equal parts get (concat-of-equal-parts-becomes-a-generic-over-a-part-loop)
// do not appear.
// RUN: memopt-opt %s --pass-pipeline="builtin.module(place-to-shard)" | FileCheck %s
// CHECK-LABEL: func.func @f_stage0
// CHECK-NOT: linalg.index
// CHECK: tensor.concat dim(1) %{{.*}}, %{{.*}} : (tensor<2x4xf32>, tensor<2x2xf32>) -> tensor<2x6xf32>
// CHECK-NOT: linalg.index

"place.cluster"() {sym_name = "pod", devices = 2 : i64, hbm_bytes = 1073741824 : i64, link_bandwidth = 4294967296 : i64} : () -> ()
func.func @f(%x: tensor<2x4xf32>, %y: tensor<2x2xf32>) -> tensor<2x6xf32> {
  %r = "place.stage"() ({
    %c = tensor.concat dim(1) %x, %y : (tensor<2x4xf32>, tensor<2x2xf32>) -> tensor<2x6xf32>
    vector.yield %c : tensor<2x6xf32>
  }) {cluster = @pod, index = 0 : i64, devices = 2 : i64, data_parallel = 2 : i64, tensor_parallel = 1 : i64, recompute = false, first_layer = 0 : i64, layers = 1 : i64, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : () -> tensor<2x6xf32>
  return %r : tensor<2x6xf32>
}

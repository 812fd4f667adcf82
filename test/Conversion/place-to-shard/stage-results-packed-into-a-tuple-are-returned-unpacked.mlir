// A stage passing on more values than its 8 result slots yields them packed
// into one tuple (place-search packs them, phaze.md), and the function
// unpacks the tuple after the stage. The stage's function returns the nine
// values themselves, in the order they were packed (x + 1, ..., x + 9), and
// neither cast is left: the packing stays with the removed stage, the
// unpacking with the removed function.
// RUN: memopt-opt %s --pass-pipeline="builtin.module(place-to-shard)" -o %t.mlir
// RUN: FileCheck %s --input-file=%t.mlir
// CHECK-LABEL: func.func @f_stage0(%arg0: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK-NOT: unrealized_conversion_cast
// CHECK: %[[C9:.*]] = arith.constant dense<9.000000e+00>
// CHECK: %[[R9:.*]] = arith.addf %arg0, %[[C9]] :
// CHECK: return %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[R9]] :
// CHECK-NOT: unrealized_conversion_cast
// CHECK-NOT: func.func @f(

!t = tuple<tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>>
"place.cluster"() {sym_name = "pod", devices = 1 : i64, hbm_bytes = 1073741824 : i64, link_bandwidth = 4294967296 : i64} : () -> ()
func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %c1 = arith.constant dense<1.0> : tensor<4xf32>
  %c2 = arith.constant dense<2.0> : tensor<4xf32>
  %c3 = arith.constant dense<3.0> : tensor<4xf32>
  %c4 = arith.constant dense<4.0> : tensor<4xf32>
  %c5 = arith.constant dense<5.0> : tensor<4xf32>
  %c6 = arith.constant dense<6.0> : tensor<4xf32>
  %c7 = arith.constant dense<7.0> : tensor<4xf32>
  %c8 = arith.constant dense<8.0> : tensor<4xf32>
  %c9 = arith.constant dense<9.0> : tensor<4xf32>
  %s = "place.stage"() ({
    %r1 = arith.addf %x, %c1 : tensor<4xf32>
    %r2 = arith.addf %x, %c2 : tensor<4xf32>
    %r3 = arith.addf %x, %c3 : tensor<4xf32>
    %r4 = arith.addf %x, %c4 : tensor<4xf32>
    %r5 = arith.addf %x, %c5 : tensor<4xf32>
    %r6 = arith.addf %x, %c6 : tensor<4xf32>
    %r7 = arith.addf %x, %c7 : tensor<4xf32>
    %r8 = arith.addf %x, %c8 : tensor<4xf32>
    %r9 = arith.addf %x, %c9 : tensor<4xf32>
    %p = builtin.unrealized_conversion_cast %r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32> to !t
    vector.yield %p : !t
  }) {cluster = @pod, index = 0 : i64, devices = 1 : i64, data_parallel = 1 : i64, tensor_parallel = 1 : i64, recompute = false, first_layer = 0 : i64, layers = 1 : i64, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : () -> !t
  %u:9 = builtin.unrealized_conversion_cast %s : !t to tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return %u#0, %u#1, %u#2, %u#3, %u#4, %u#5, %u#6, %u#7, %u#8 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

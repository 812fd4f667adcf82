// remat.evict's optional second operand, the bytes resident while its
// regenerate runs (remat-dynamic states it), reaches memopt_rt as the last
// argument of memoptRtEvictable, as an i64; without it the call passes -1
// (unknown: the runtime takes the restoration to fit its limit).
// RUN: memopt-opt %s --remat-to-runtime | FileCheck %s

func.func @stated(%v: tensor<?xf32>, %bytes: index) -> tensor<?xf32> {
  "remat.evict"(%v, %bytes) : (tensor<?xf32>, index) -> ()
  %r = "remat.regenerate"(%v) ({
    %c0 = arith.constant 0 : index
    %n = tensor.dim %v, %c0 : tensor<?xf32>
    %e = tensor.empty(%n) : tensor<?xf32>
    vector.yield %e : tensor<?xf32>
  }) : (tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// CHECK-LABEL: func.func @stated(
// CHECK-SAME: %{{[-0-9A-Za-z_.$]+}}: tensor<?xf32>, %[[BYTES:[-0-9A-Za-z_.$]+]]: index
// CHECK: %[[BYTES_I64:[-0-9A-Za-z_.$]+]] = arith.index_cast %[[BYTES]] : index to i64
// CHECK-NEXT: call @memoptRtEvictable(%{{[-0-9A-Za-z_.$]+}}, %{{[-0-9A-Za-z_.$]+}}, %{{[-0-9A-Za-z_.$]+}}, %{{[-0-9A-Za-z_.$]+}}, %[[BYTES_I64]]) : (i64, i64, i64, i64, i64) -> ()

func.func @unstated(%v: tensor<?xf32>) -> tensor<?xf32> {
  "remat.evict"(%v) : (tensor<?xf32>) -> ()
  %r = "remat.regenerate"(%v) ({
    %c0 = arith.constant 0 : index
    %n = tensor.dim %v, %c0 : tensor<?xf32>
    %e = tensor.empty(%n) : tensor<?xf32>
    vector.yield %e : tensor<?xf32>
  }) : (tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// CHECK-LABEL: func.func @unstated(
// CHECK: %[[UNKNOWN:[-0-9A-Za-z_.$]+]] = arith.constant -1 : i64
// CHECK-NOT: arith.constant -1
// CHECK: call @memoptRtEvictable(%{{[-0-9A-Za-z_.$]+}}, %{{[-0-9A-Za-z_.$]+}}, %{{[-0-9A-Za-z_.$]+}}, %{{[-0-9A-Za-z_.$]+}}, %[[UNKNOWN]])

// The list-scheduling example (after XLA's hlo_memory_scheduler tests, sizes
// in bytes): two branches from the entry, a (4 bytes) reduced to a2 (1 byte)
// and b (3 bytes) reduced to b2 (1 byte), joined by o (1 byte). The input
// computes b first: b, b2 (3 + 1), then a, a2 while b2 is live (1 + 4 + 1):
// peak 6. XLA's top-down list scheduler prefers the op allocating least
// (b before a) and keeps that order: peak 6. Scheduling bottom-up from the
// return places b's reduction last and the larger branch first: a, a2
// (4 + 1), then b, b2 (1 + 3 + 1): peak 5.
// RUN: memopt-opt %s --memory-schedule 2>&1 | FileCheck %s --check-prefix=BOTTOMUP
// RUN: memopt-opt %s --memory-schedule=strategy=top-down 2>&1 | FileCheck %s --check-prefix=TOPDOWN
// RUN: memopt-opt %s --memory-schedule | mlir-opt --verify-each | FileCheck %s --check-prefix=VALID

// BOTTOMUP: remark: memory-schedule: peak 6 bytes -> 5 bytes (8 of 11 ops moved)
// BOTTOMUP-LABEL: func.func @two_branches(%arg0
// BOTTOMUP:      linalg.fill {{.*}} tensor<1x4xi8>
// BOTTOMUP:      linalg.reduce ins({{.*}} : tensor<1x4xi8>)
// BOTTOMUP:      linalg.fill {{.*}} tensor<1x3xi8>
// BOTTOMUP:      linalg.reduce ins({{.*}} : tensor<1x3xi8>)
// BOTTOMUP:      linalg.add
// BOTTOMUP-NEXT: return

// TOPDOWN: remark: memory-schedule: peak 6 bytes; the order is kept (no other schedule found)
// TOPDOWN-LABEL: func.func @two_branches(%arg0
// TOPDOWN:      linalg.fill {{.*}} tensor<1x3xi8>
// TOPDOWN:      linalg.fill {{.*}} tensor<1x4xi8>

// VALID-LABEL: func.func @two_branches(%arg0
func.func @two_branches(%x: tensor<1xi8>) -> tensor<1xi8> {
  %one = arith.constant 1 : i8
  %eb = tensor.empty() : tensor<1x3xi8>
  %b = linalg.fill ins(%one : i8) outs(%eb : tensor<1x3xi8>) -> tensor<1x3xi8>
  %eb2 = tensor.empty() : tensor<1xi8>
  %b2 = linalg.reduce ins(%b : tensor<1x3xi8>) outs(%eb2 : tensor<1xi8>) dimensions = [1]
    (%in: i8, %acc: i8) {
      %s = arith.addi %in, %acc : i8
      linalg.yield %s : i8
    }
  %ea = tensor.empty() : tensor<1x4xi8>
  %a = linalg.fill ins(%one : i8) outs(%ea : tensor<1x4xi8>) -> tensor<1x4xi8>
  %ea2 = tensor.empty() : tensor<1xi8>
  %a2 = linalg.reduce ins(%a : tensor<1x4xi8>) outs(%ea2 : tensor<1xi8>) dimensions = [1]
    (%in: i8, %acc: i8) {
      %s = arith.addi %in, %acc : i8
      linalg.yield %s : i8
    }
  %eo = tensor.empty() : tensor<1xi8>
  %o = linalg.add ins(%a2, %b2 : tensor<1xi8>, tensor<1xi8>) outs(%eo : tensor<1xi8>) -> tensor<1xi8>
  return %o : tensor<1xi8>
}

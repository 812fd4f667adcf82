// With dynamic shapes the scheduler compares symbolic sizes: in @rows the
// branches are 4*s0 and 3*s0 bytes, so the larger one surely goes first and
// the peak drops from 6*s0 to 5*s0 for every s0. In @unknown_relation the
// second branch is s0*s1 bytes: which branch to start with depends on s1,
// so the order is kept.
// RUN: memopt-opt %s --split-input-file --memory-schedule 2>&1 | FileCheck %s

// CHECK: remark: memory-schedule: peak 6*s0 bytes -> 5*s0 bytes
// CHECK: remark: memory-schedule: peak max(s0*s1 + s0, 6*s0) bytes; the order is kept
// CHECK-LABEL: func.func @rows(%arg0
// CHECK:      linalg.fill {{.*}} tensor<?x4xi8>
// CHECK:      linalg.fill {{.*}} tensor<?x3xi8>
func.func @rows(%x: tensor<?xi8>) -> tensor<?xi8> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xi8>
  %one = arith.constant 1 : i8
  %eb = tensor.empty(%n) : tensor<?x3xi8>
  %b = linalg.fill ins(%one : i8) outs(%eb : tensor<?x3xi8>) -> tensor<?x3xi8>
  %eb2 = tensor.empty(%n) : tensor<?xi8>
  %b2 = linalg.reduce ins(%b : tensor<?x3xi8>) outs(%eb2 : tensor<?xi8>) dimensions = [1]
    (%in: i8, %acc: i8) {
      %s = arith.addi %in, %acc : i8
      linalg.yield %s : i8
    }
  %ea = tensor.empty(%n) : tensor<?x4xi8>
  %a = linalg.fill ins(%one : i8) outs(%ea : tensor<?x4xi8>) -> tensor<?x4xi8>
  %ea2 = tensor.empty(%n) : tensor<?xi8>
  %a2 = linalg.reduce ins(%a : tensor<?x4xi8>) outs(%ea2 : tensor<?xi8>) dimensions = [1]
    (%in: i8, %acc: i8) {
      %s = arith.addi %in, %acc : i8
      linalg.yield %s : i8
    }
  %eo = tensor.empty(%n) : tensor<?xi8>
  %o = linalg.add ins(%a2, %b2 : tensor<?xi8>, tensor<?xi8>) outs(%eo : tensor<?xi8>) -> tensor<?xi8>
  return %o : tensor<?xi8>
}

// -----

// CHECK-LABEL: func.func @unknown_relation(%arg0
// CHECK:      linalg.fill {{.*}} tensor<?x?xi8>
// CHECK:      linalg.fill {{.*}} tensor<?x4xi8>
func.func @unknown_relation(%x: tensor<?xi8>, %m: index) -> tensor<?xi8> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xi8>
  %one = arith.constant 1 : i8
  %eb = tensor.empty(%n, %m) : tensor<?x?xi8>
  %b = linalg.fill ins(%one : i8) outs(%eb : tensor<?x?xi8>) -> tensor<?x?xi8>
  %eb2 = tensor.empty(%n) : tensor<?xi8>
  %b2 = linalg.reduce ins(%b : tensor<?x?xi8>) outs(%eb2 : tensor<?xi8>) dimensions = [1]
    (%in: i8, %acc: i8) {
      %s = arith.addi %in, %acc : i8
      linalg.yield %s : i8
    }
  %ea = tensor.empty(%n) : tensor<?x4xi8>
  %a = linalg.fill ins(%one : i8) outs(%ea : tensor<?x4xi8>) -> tensor<?x4xi8>
  %ea2 = tensor.empty(%n) : tensor<?xi8>
  %a2 = linalg.reduce ins(%a : tensor<?x4xi8>) outs(%ea2 : tensor<?xi8>) dimensions = [1]
    (%in: i8, %acc: i8) {
      %s = arith.addi %in, %acc : i8
      linalg.yield %s : i8
    }
  %eo = tensor.empty(%n) : tensor<?xi8>
  %o = linalg.add ins(%a2, %b2 : tensor<?xi8>, tensor<?xi8>) outs(%eo : tensor<?xi8>) -> tensor<?xi8>
  return %o : tensor<?xi8>
}

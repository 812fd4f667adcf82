// Ops that may have side effects (here calls) keep their relative order, and
// every op stays after the ops it uses: the larger branch moves first as in
// list-scheduler-example.mlir (pure ops may pass a call), but @observe still
// sees b2 before a2.
// RUN: memopt-opt %s --memory-schedule 2>&1 | FileCheck %s

func.func private @observe(tensor<1xi8>)

// CHECK: remark: memory-schedule: peak 6 bytes -> 5 bytes (9 of 13 ops moved)
// CHECK-LABEL: func.func @observed_branches(%arg0
// CHECK:      linalg.fill {{.*}} tensor<1x4xi8>
// CHECK:      %[[A2:.*]] = linalg.reduce ins({{.*}} : tensor<1x4xi8>)
// CHECK:      linalg.fill {{.*}} tensor<1x3xi8>
// CHECK:      %[[B2:.*]] = linalg.reduce ins({{.*}} : tensor<1x3xi8>)
// CHECK:      call @observe(%[[B2]])
// CHECK:      call @observe(%[[A2]])
// CHECK:      linalg.add ins(%[[A2]], %[[B2]]
// CHECK-NEXT: return
func.func @observed_branches(%x: tensor<1xi8>) -> tensor<1xi8> {
  %one = arith.constant 1 : i8
  %eb = tensor.empty() : tensor<1x3xi8>
  %b = linalg.fill ins(%one : i8) outs(%eb : tensor<1x3xi8>) -> tensor<1x3xi8>
  %eb2 = tensor.empty() : tensor<1xi8>
  %b2 = linalg.reduce ins(%b : tensor<1x3xi8>) outs(%eb2 : tensor<1xi8>) dimensions = [1]
    (%in: i8, %acc: i8) {
      %s = arith.addi %in, %acc : i8
      linalg.yield %s : i8
    }
  call @observe(%b2) : (tensor<1xi8>) -> ()
  %ea = tensor.empty() : tensor<1x4xi8>
  %a = linalg.fill ins(%one : i8) outs(%ea : tensor<1x4xi8>) -> tensor<1x4xi8>
  %ea2 = tensor.empty() : tensor<1xi8>
  %a2 = linalg.reduce ins(%a : tensor<1x4xi8>) outs(%ea2 : tensor<1xi8>) dimensions = [1]
    (%in: i8, %acc: i8) {
      %s = arith.addi %in, %acc : i8
      linalg.yield %s : i8
    }
  call @observe(%a2) : (tensor<1xi8>) -> ()
  %eo = tensor.empty() : tensor<1xi8>
  %o = linalg.add ins(%a2, %b2 : tensor<1xi8>, tensor<1xi8>) outs(%eo : tensor<1xi8>) -> tensor<1xi8>
  return %o : tensor<1xi8>
}

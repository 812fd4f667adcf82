// Round trip of remat ops through memopt-opt and upstream mlir-opt.
// RUN: memopt-opt %s | FileCheck %s
// RUN: memopt-opt %s | mlir-opt --irdl-file=%memopt_irdl | FileCheck %s

// CHECK-LABEL: func.func @evict_and_regenerate
func.func @evict_and_regenerate(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  // CHECK: "remat.dim_symbol"(%{{.*}}) {dim = 0 : i64, symbol = "seq"} : (tensor<?x64xf32>) -> ()
  "remat.dim_symbol"(%x) {dim = 0 : i64, symbol = "seq"} : (tensor<?x64xf32>) -> ()
  %a = math.exp %x : tensor<?x64xf32>
  // CHECK: "remat.evict"(%[[A:.*]]) : (tensor<?x64xf32>) -> ()
  "remat.evict"(%a) : (tensor<?x64xf32>) -> ()
  %b = math.tanh %x : tensor<?x64xf32>
  // CHECK: "remat.regenerate"(%[[A]]) ({
  // CHECK: math.exp
  // CHECK: vector.yield
  %r = "remat.regenerate"(%a) ({
    %again = math.exp %x : tensor<?x64xf32>
    vector.yield %again : tensor<?x64xf32>
  }) : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %s = arith.addf %r, %b : tensor<?x64xf32>
  return %s : tensor<?x64xf32>
}

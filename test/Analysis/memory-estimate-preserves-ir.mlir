// memory-estimate is an analysis: the IR it prints is the IR it was given,
// in every mode (the report, per-op remarks, callee analysis).
// RUN: memopt-opt %s -o %t.before
// RUN: memopt-opt %s --memory-estimate="per-op=true report=%t.json" -o %t.after 2>/dev/null
// RUN: diff %t.before %t.after
// RUN: memopt-opt %s --mlir-disable-threading --memory-estimate="callees=true" -o %t.callees 2>/dev/null
// RUN: diff %t.before %t.callees

func.func private @inner(%x: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %a = linalg.exp ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  return %a : tensor<64xf32>
}

func.func @outer(%x: tensor<64xf32>, %n: index) -> tensor<8x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<64xf32>) {
    %t = func.call @inner(%acc) : (tensor<64xf32>) -> tensor<64xf32>
    scf.yield %t : tensor<64xf32>
  }
  %v = tensor.expand_shape %r [[0, 1]] output_shape [8, 8] : tensor<64xf32> into tensor<8x8xf32>
  return %v : tensor<8x8xf32>
}

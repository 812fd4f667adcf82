// With callees=true, a recursive call is not followed (its memory is not
// included, with a remark), and a caller of a function whose own profile
// is approximate says so at the call.
// RUN: memopt-opt %s --verify-diagnostics --mlir-disable-threading --memory-estimate=callees=true -o /dev/null

func.func private @external(tensor<4xf32>) -> tensor<4xf32>

// The external callee's result (16 bytes) counts from the op after the call:
// the scf.if position holds the heavier branch's call result, 16.
// expected-remark @+1 {{peak activation memory: 16 bytes at 'scf.if' (position 0)}}
func.func @self(%x: tensor<4xf32>, %again: i1) -> tensor<4xf32> {
  %r = scf.if %again -> tensor<4xf32> {
    // expected-remark @+1 {{memory estimate: recursive call: callee memory not included}}
    %y = func.call @self(%x, %again) : (tensor<4xf32>, i1) -> tensor<4xf32>
    scf.yield %y : tensor<4xf32>
  } else {
    %z = func.call @external(%x) : (tensor<4xf32>) -> tensor<4xf32>
    scf.yield %z : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// Mutual recursion: analyzing @ping analyzes @pong, whose call back to @ping
// is recursion; @ping learns that @pong's profile is approximate (and the
// other way round when the pass runs on @pong).
// expected-remark @+1 {{peak activation memory: 16 bytes at 'func.call' (position 0)}}
func.func @ping(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-remark @+1 {{memory estimate: the callee's own profile is an approximation (see the remarks on the callee)}}
  %y = func.call @pong(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// expected-remark @+1 {{peak activation memory: 16 bytes at 'func.call' (position 0)}}
func.func @pong(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-remark @+1 {{memory estimate: the callee's own profile is an approximation (see the remarks on the callee)}}
  %y = func.call @ping(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

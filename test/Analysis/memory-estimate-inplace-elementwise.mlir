// Elementwise ops whose init is their own input bufferize in place: a chain
// of them needs one buffer. An in-place write is refused when the value it
// would overwrite is read later: bufferization then copies the init first.
// RUN: memopt-opt %s --split-input-file --verify-diagnostics --memory-estimate=per-op=true -o /dev/null

#map = affine_map<(d0) -> (d0)>
// One 1024 x f32 buffer (4096 bytes) from the tensor.empty on: exp, square
// and add all write into it, each reading the previous value element by
// element (elementwise access makes reading and writing one buffer safe).
// expected-remark @+1 {{peak activation memory: 4096 bytes at 'tensor.empty' (position 0)}}
func.func @chain(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %e = tensor.empty() : tensor<1024xf32> // expected-remark {{live activation memory: 4096 bytes}}
  %a = linalg.exp ins(%x : tensor<1024xf32>) outs(%e : tensor<1024xf32>) -> tensor<1024xf32> // expected-remark {{live activation memory: 4096 bytes}}
  %b = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%a : tensor<1024xf32>) outs(%a : tensor<1024xf32>) { // expected-remark {{live activation memory: 4096 bytes}}
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %in : f32
    linalg.yield %m : f32
  } -> tensor<1024xf32>
  %c = linalg.add ins(%b, %b : tensor<1024xf32>, tensor<1024xf32>) outs(%b : tensor<1024xf32>) -> tensor<1024xf32> // expected-remark {{live activation memory: 4096 bytes}}
  return %c : tensor<1024xf32> // expected-remark {{live activation memory: 4096 bytes}}
}

// -----

// %a is returned, so writing %b into its buffer would destroy it: the add
// gets a copy of %a (4096 more) instead.
// expected-remark @+1 {{peak activation memory: 8192 bytes at 'linalg.add' (position 2)}}
func.func @init_read_later(%x: tensor<1024xf32>) -> (tensor<1024xf32>, tensor<1024xf32>) {
  %e = tensor.empty() : tensor<1024xf32> // expected-remark {{live activation memory: 4096 bytes}}
  %a = linalg.exp ins(%x : tensor<1024xf32>) outs(%e : tensor<1024xf32>) -> tensor<1024xf32> // expected-remark {{live activation memory: 4096 bytes}}
  %b = linalg.add ins(%a, %a : tensor<1024xf32>, tensor<1024xf32>) outs(%a : tensor<1024xf32>) -> tensor<1024xf32> // expected-remark {{live activation memory: 8192 bytes}}
  return %a, %b : tensor<1024xf32>, tensor<1024xf32> // expected-remark {{live activation memory: 8192 bytes}}
}

// -----

// A transpose reads other elements than it writes: not elementwise, so it
// cannot overwrite its own input. Its init gets a copy (64 x f32 = 256).
// expected-remark @+1 {{peak activation memory: 512 bytes at 'linalg.transpose' (position 2)}}
func.func @transpose_not_in_place(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32> // expected-remark {{live activation memory: 256 bytes}}
  %a = linalg.exp ins(%x : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32> // expected-remark {{live activation memory: 256 bytes}}
  %t = linalg.transpose ins(%a : tensor<8x8xf32>) outs(%a : tensor<8x8xf32>) permutation = [1, 0] // expected-remark {{live activation memory: 512 bytes}}
  return %t : tensor<8x8xf32> // expected-remark {{live activation memory: 256 bytes}}
}

// -----

// Arith and math ops on tensors bufferize after convert-elementwise-to-linalg,
// which makes the first operand of the result's type the init: exp and add
// then write into %a's buffer in place. The compare has no operand of its
// result type (i1): it gets a new 1024 x i1 buffer (1024 bytes, one per
// element), live with %a's while it reads it.
// expected-remark @+1 {{peak activation memory: 5120 bytes at 'arith.cmpf' (position 4)}}
func.func @arith_on_tensors(%x: tensor<1024xf32>) -> tensor<1024xi1> {
  %e = tensor.empty() : tensor<1024xf32> // expected-remark {{live activation memory: 4096 bytes}}
  %a = linalg.copy ins(%x : tensor<1024xf32>) outs(%e : tensor<1024xf32>) -> tensor<1024xf32> // expected-remark {{live activation memory: 4096 bytes}}
  %b = math.exp %a : tensor<1024xf32> // expected-remark {{live activation memory: 4096 bytes}}
  %c = arith.addf %b, %b : tensor<1024xf32> // expected-remark {{live activation memory: 4096 bytes}}
  %d = arith.cmpf ogt, %c, %x : tensor<1024xf32> // expected-remark {{live activation memory: 5120 bytes}}
  return %d : tensor<1024xi1> // expected-remark {{live activation memory: 1024 bytes}}
}

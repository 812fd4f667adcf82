// What allocates: ops that materialize a new tensor (tensor.empty, pad,
// concat, ...) and the copies bufferization inserts where it cannot write in
// place: into a constant (read-only), into an init still read later, and
// into a tensor.empty that another op already writes in place.
// RUN: memopt-opt %s --split-input-file --verify-diagnostics --memory-estimate=per-op=true -o /dev/null

// tensor.pad allocates its result (10x18 f32 = 720 bytes) and copies the
// source in; the filled 4x16 (256) is inserted into it in place and freed
// after the insert.
// expected-remark @+1 {{peak activation memory: 976 bytes at 'tensor.empty' (position 2)}}
func.func @pad_then_insert(%x: tensor<8x16xf32>) -> tensor<10x18xf32> {
  %zero = arith.constant 0.0 : f32 // expected-remark {{live activation memory: 0 bytes}}
  %p = tensor.pad %x low[1, 1] high[1, 1] { // expected-remark {{live activation memory: 720 bytes}}
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<8x16xf32> to tensor<10x18xf32>
  %e = tensor.empty() : tensor<4x16xf32> // expected-remark {{live activation memory: 976 bytes}}
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32> // expected-remark {{live activation memory: 976 bytes}}
  %i = tensor.insert_slice %f into %p[0, 0] [4, 16] [1, 1] : tensor<4x16xf32> into tensor<10x18xf32> // expected-remark {{live activation memory: 976 bytes}}
  return %i : tensor<10x18xf32> // expected-remark {{live activation memory: 720 bytes}}
}

// -----

// Inserting into %b while %b is returned as well: the insert_slice works on
// a copy of %b (512).
// expected-remark @+1 {{peak activation memory: 1280 bytes at 'tensor.insert_slice' (position 5)}}
func.func @insert_into_live_value(%x: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %zero = arith.constant 0.0 : f32 // expected-remark {{live activation memory: 0 bytes}}
  %e0 = tensor.empty() : tensor<8x16xf32> // expected-remark {{live activation memory: 512 bytes}}
  %b = linalg.copy ins(%x : tensor<8x16xf32>) outs(%e0 : tensor<8x16xf32>) -> tensor<8x16xf32> // expected-remark {{live activation memory: 512 bytes}}
  %e = tensor.empty() : tensor<4x16xf32> // expected-remark {{live activation memory: 768 bytes}}
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32> // expected-remark {{live activation memory: 768 bytes}}
  %i = tensor.insert_slice %f into %b[0, 0] [4, 16] [1, 1] : tensor<4x16xf32> into tensor<8x16xf32> // expected-remark {{live activation memory: 1280 bytes}}
  return %i, %b : tensor<8x16xf32>, tensor<8x16xf32> // expected-remark {{live activation memory: 1024 bytes}}
}

// -----

// A constant is a read-only global: the add writes a copy (16 bytes). The
// concat allocates its 8 x f32 result (32).
// expected-remark @+1 {{peak activation memory: 48 bytes at 'tensor.concat' (position 2)}}
func.func @constant_init_and_concat(%x: tensor<4xf32>) -> tensor<8xf32> {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32> // expected-remark {{live activation memory: 0 bytes}}
  %s = linalg.add ins(%x, %c : tensor<4xf32>, tensor<4xf32>) outs(%c : tensor<4xf32>) -> tensor<4xf32> // expected-remark {{live activation memory: 16 bytes}}
  %j = tensor.concat dim(0) %s, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32> // expected-remark {{live activation memory: 48 bytes}}
  return %j : tensor<8xf32> // expected-remark {{live activation memory: 32 bytes}}
}

// -----

// Two ops write the same tensor.empty and both results are returned: the
// later one (analyzed first) gets the empty's buffer, the earlier one a new
// buffer where it runs; the empty's buffer is allocated at the tensor.empty.
// expected-remark @+1 {{peak activation memory: 32 bytes at 'linalg.add' (position 1)}}
func.func @empty_written_twice(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32> // expected-remark {{live activation memory: 16 bytes}}
  %r = linalg.add ins(%x, %x : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32> // expected-remark {{live activation memory: 32 bytes}}
  %s = linalg.mul ins(%x, %x : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32> // expected-remark {{live activation memory: 32 bytes}}
  return %r, %s : tensor<4xf32>, tensor<4xf32> // expected-remark {{live activation memory: 32 bytes}}
}

// -----

// A tensor.empty nothing uses is erased by bufferization: no buffer.
// expected-remark @+1 {{peak activation memory: 0 bytes at 'tensor.empty' (position 0)}}
func.func @unused_empty() {
  %e = tensor.empty() : tensor<1024xf32> // expected-remark {{live activation memory: 0 bytes}}
  return // expected-remark {{live activation memory: 0 bytes}}
}

// Buffers of dynamic shape have no static size: the estimate flags every
// position where one is live instead of guessing, and counts only the
// buffers of known size in the bytes.
// RUN: memopt-opt %s --split-input-file --verify-diagnostics --memory-estimate=per-op=true -o /dev/null

// The two ?x64 buffers are unknown; the 16 x f32 buffer (64 bytes) is known.
// expected-remark @+1 {{peak activation memory: unknown (dynamic shapes); at least 64 bytes at 'tensor.empty' (position 4)}}
func.func @dynamic(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %c0 = arith.constant 0 : index // expected-remark {{live activation memory: 0 bytes}}
  %n = tensor.dim %x, %c0 : tensor<?x64xf32> // expected-remark {{live activation memory: 0 bytes}}
  %e = tensor.empty(%n) : tensor<?x64xf32> // expected-remark {{live activation memory: 0 bytes and buffers of unknown size}}
  %a = linalg.exp ins(%x : tensor<?x64xf32>) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32> // expected-remark {{live activation memory: 0 bytes and buffers of unknown size}}
  %e2 = tensor.empty() : tensor<16xf32> // expected-remark {{live activation memory: 64 bytes and buffers of unknown size}}
  %zero = arith.constant 0.0 : f32 // expected-remark {{live activation memory: 64 bytes and buffers of unknown size}}
  %f = linalg.fill ins(%zero : f32) outs(%e2 : tensor<16xf32>) -> tensor<16xf32> // expected-remark {{live activation memory: 64 bytes and buffers of unknown size}}
  %e3 = tensor.empty(%n) : tensor<?x64xf32> // expected-remark {{live activation memory: 0 bytes and buffers of unknown size}}
  %c = linalg.add ins(%a, %a : tensor<?x64xf32>, tensor<?x64xf32>) outs(%e3 : tensor<?x64xf32>) -> tensor<?x64xf32> // expected-remark {{live activation memory: 0 bytes and buffers of unknown size}}
  return %c : tensor<?x64xf32> // expected-remark {{live activation memory: 0 bytes and buffers of unknown size}}
}

// -----

// Static shapes around a dynamic slice: only the positions where the slice's
// copy is live are flagged. The slice of %a has a dynamic size; writing into
// it while %a is read later makes bufferization copy it (unknown size).
// expected-remark @+1 {{peak activation memory: unknown (dynamic shapes); at least 512 bytes at 'tensor.empty' (position 1)}}
func.func @dynamic_slice(%x: tensor<128xf32>, %n: index) -> (tensor<128xf32>, tensor<?xf32>) {
  %zero = arith.constant 0.0 : f32 // expected-remark {{live activation memory: 0 bytes}}
  %e = tensor.empty() : tensor<128xf32> // expected-remark {{live activation memory: 512 bytes}}
  %a = linalg.copy ins(%x : tensor<128xf32>) outs(%e : tensor<128xf32>) -> tensor<128xf32> // expected-remark {{live activation memory: 512 bytes}}
  %s = tensor.extract_slice %a[0] [%n] [1] : tensor<128xf32> to tensor<?xf32> // expected-remark {{live activation memory: 512 bytes and buffers of unknown size}}
  %f = linalg.fill ins(%zero : f32) outs(%s : tensor<?xf32>) -> tensor<?xf32> // expected-remark {{live activation memory: 512 bytes and buffers of unknown size}}
  return %a, %f : tensor<128xf32>, tensor<?xf32> // expected-remark {{live activation memory: 512 bytes and buffers of unknown size}}
}

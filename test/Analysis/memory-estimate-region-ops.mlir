// An op with regions is one position; its live bytes are those of the
// buffers live across it plus its own temporaries at their peak (for scf.if,
// the heavier branch). Results of a region op count from the next position.
// RUN: memopt-opt %s --split-input-file --verify-diagnostics --memory-estimate=per-op=true -o /dev/null

// 64 x f32 = 256 bytes per buffer. The loop carries %init's buffer in place
// (the add writes into %acc); each iteration allocates and frees %t: at the
// loop's position, 256 (carried) + 256 (temporary).
// expected-remark @+1 {{peak activation memory: 512 bytes at 'scf.for' (position 5)}}
func.func @loop(%x: tensor<64xf32>, %n: index) -> tensor<64xf32> {
  %c0 = arith.constant 0 : index // expected-remark {{live activation memory: 0 bytes}}
  %c1 = arith.constant 1 : index // expected-remark {{live activation memory: 0 bytes}}
  %e = tensor.empty() : tensor<64xf32> // expected-remark {{live activation memory: 256 bytes}}
  %init = linalg.copy ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32> // expected-remark {{live activation memory: 256 bytes}}
  %zero = arith.constant 0.0 : f32 // expected-remark {{live activation memory: 256 bytes}}
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<64xf32>) { // expected-remark {{live activation memory: 512 bytes}}
    %t = tensor.empty() : tensor<64xf32>
    %m = linalg.mul ins(%acc, %acc : tensor<64xf32>, tensor<64xf32>) outs(%t : tensor<64xf32>) -> tensor<64xf32>
    %next = linalg.add ins(%m, %acc : tensor<64xf32>, tensor<64xf32>) outs(%acc : tensor<64xf32>) -> tensor<64xf32>
    scf.yield %next : tensor<64xf32>
  }
  %e2 = tensor.empty() : tensor<64xf32> // expected-remark {{live activation memory: 512 bytes}}
  %s = linalg.exp ins(%r : tensor<64xf32>) outs(%e2 : tensor<64xf32>) -> tensor<64xf32> // expected-remark {{live activation memory: 512 bytes}}
  return %s : tensor<64xf32> // expected-remark {{live activation memory: 256 bytes}}
}

// -----

// The then branch needs %t1 (yielded, 256) and %t2 (128 x f32, 512) at once:
// 768; the else branch 256. At the scf.if: 768. The result is one of the
// yielded buffers: 256 from the next op on, until the end of the block (its
// dealloc depends on which branch ran, so it cannot move up).
// expected-remark @+1 {{peak activation memory: 768 bytes at 'scf.if' (position 0)}}
func.func @branches(%x: tensor<64xf32>, %c: i1) -> tensor<64xf32> {
  %r = scf.if %c -> (tensor<64xf32>) { // expected-remark {{live activation memory: 768 bytes}}
    %t1 = tensor.empty() : tensor<64xf32>
    %t2 = tensor.empty() : tensor<128xf32>
    %zero = arith.constant 0.0 : f32
    %f = linalg.fill ins(%zero : f32) outs(%t2 : tensor<128xf32>) -> tensor<128xf32>
    %s = tensor.extract_slice %f[0] [64] [1] : tensor<128xf32> to tensor<64xf32>
    %a = linalg.add ins(%x, %s : tensor<64xf32>, tensor<64xf32>) outs(%t1 : tensor<64xf32>) -> tensor<64xf32>
    scf.yield %a : tensor<64xf32>
  } else {
    %t = tensor.empty() : tensor<64xf32>
    %a = linalg.exp ins(%x : tensor<64xf32>) outs(%t : tensor<64xf32>) -> tensor<64xf32>
    scf.yield %a : tensor<64xf32>
  }
  %e = tensor.empty() : tensor<64xf32> // expected-remark {{live activation memory: 512 bytes}}
  %s = linalg.exp ins(%r : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32> // expected-remark {{live activation memory: 512 bytes}}
  return %s : tensor<64xf32> // expected-remark {{live activation memory: 512 bytes}}
}

// -----

// A loop over memrefs (no tensors carried) uses a buffer allocated before
// it: the buffer is live across the whole loop, which is its last user.
// expected-remark @+1 {{peak activation memory: 1024 bytes at 'memref.alloc' (position 3)}}
func.func @memref_loop(%x: tensor<64xf32>) -> f32 {
  %c0 = arith.constant 0 : index // expected-remark {{live activation memory: 0 bytes}}
  %c1 = arith.constant 1 : index // expected-remark {{live activation memory: 0 bytes}}
  %c64 = arith.constant 64 : index // expected-remark {{live activation memory: 0 bytes}}
  %buffer = memref.alloc() : memref<256xf32> // expected-remark {{live activation memory: 1024 bytes}}
  scf.for %i = %c0 to %c64 step %c1 { // expected-remark {{live activation memory: 1024 bytes}}
    %v = tensor.extract %x[%i] : tensor<64xf32>
    memref.store %v, %buffer[%i] : memref<256xf32>
  }
  %r = memref.load %buffer[%c0] : memref<256xf32> // expected-remark {{live activation memory: 1024 bytes}}
  return %r : f32 // expected-remark {{live activation memory: 0 bytes}}
}

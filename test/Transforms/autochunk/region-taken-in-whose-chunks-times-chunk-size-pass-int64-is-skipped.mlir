// A later stage may take an earlier chunk region into a wider one when the
// wider chunks hold whole chunks of the inner region: chunks x chunk_size of
// the inner region must divide the extent. Here the extent is 2^61 halves
// (2^62 bytes a tensor) and the inner region's chunk_size is 2^58 (8 chunks).
// The candidate chunk sizes are the divisors 2^k of 2^61, that is 2^(61-k)
// chunks, and the product 2^(61-k) x 2^58 = 2^(119-k) is past int64_t for
// k <= 56: it wrapped to 0 for k <= 55 (SIGFPE dividing the extent by it;
// UBSan: signed integer overflow in ChunkRegion.c). Such a size is not
// buildable, since no extent is a multiple of more than 2^63 - 1; the sizes
// with at most 8 chunks (k >= 58) are. The peak, %r#0, %r#1 and %t
// whole (3 x 2^62 = 13835058055282163712 bytes), halves to
// 6917529027641081856 bytes, the budget, with the largest size that meets
// it: 8 chunks of 2^58 = 288230376151711744 halves, in each of which the
// inner region runs once.
// RUN: memopt-opt %s --autochunk=budget=6917529027641081856 2>&1 | FileCheck %s

// CHECK: remark: autochunk: estimated peak 13835058055282163712 -> 6917529027641081856 bytes in 1 stages
// CHECK: remark: autochunk stage 1: 3 ops chunked along dimension 0 in 8 chunks of 288230376151711744
// CHECK: %[[OUTER:.*]] = "chunk.region"(%arg0) ({
// CHECK: "chunk.region"
// CHECK: chunk_size = 288230376151711744 : i64{{.*}} : (tensor<288230376151711744xf16>) -> (tensor<288230376151711744xf16>, tensor<288230376151711744xf16>)
// CHECK: linalg.add
// CHECK: chunk_size = 288230376151711744 : i64{{.*}} : (tensor<2305843009213693952xf16>) -> tensor<2305843009213693952xf16>
// CHECK: return %[[OUTER]]
func.func @main(%x: tensor<2305843009213693952xf16>) -> tensor<2305843009213693952xf16> {
  %r:2 = "chunk.region"(%x) ({
  ^bb0(%xs: tensor<288230376151711744xf16>):
    %e0 = tensor.empty() : tensor<288230376151711744xf16>
    %a = linalg.negf ins(%xs : tensor<288230376151711744xf16>) outs(%e0 : tensor<288230376151711744xf16>) -> tensor<288230376151711744xf16>
    %e1 = tensor.empty() : tensor<288230376151711744xf16>
    %b = linalg.negf ins(%a : tensor<288230376151711744xf16>) outs(%e1 : tensor<288230376151711744xf16>) -> tensor<288230376151711744xf16>
    vector.yield %a, %b : tensor<288230376151711744xf16>, tensor<288230376151711744xf16>
  }) {chunk_size = 288230376151711744 : i64, input_dims = array<i64: 0>, output_dims = array<i64: 0, 0>,
      operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>,
      resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>}
      : (tensor<2305843009213693952xf16>) -> (tensor<2305843009213693952xf16>, tensor<2305843009213693952xf16>)
  %e2 = tensor.empty() : tensor<2305843009213693952xf16>
  %t = linalg.add ins(%r#0, %r#1 : tensor<2305843009213693952xf16>, tensor<2305843009213693952xf16>) outs(%e2 : tensor<2305843009213693952xf16>) -> tensor<2305843009213693952xf16>
  return %t : tensor<2305843009213693952xf16>
}

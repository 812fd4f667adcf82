// dV = P^T dO of an attention backward pass, summed over query chunks: P is
// 12x12 (queries x keys), dO 12x8, and dV[k, d] = sum over the 12 queries q
// of P[q, k] dO[q, d]. Chunked by 5 queries, the region's "add" result takes
// the partial products of queries 0..4 and 5..9 (loop 0 to 12 - 12 mod 5 =
// 10), then of the remainder 10..11 (second loop, one iteration of 2 rows),
// each a full 12x8 partial dV, and sums them from 0. The chunked program,
// lowered by chunk-to-scf, and the unchunked one run under the harness on
// the same inputs. Adding three partial sums instead of twelve products in
// one row changes the rounding only: measured with --print-outputs, the
// largest difference is 1.2e-7 of the largest |dV| (8.9e-6 of the element's
// own value), the checksums differ by 1.1e-9 (sum) and 5.6e-9 (abs_sum)
// relative, so a tolerance of 1e-6 holds them with margin and catches a
// partial sum counted twice or lost.
// RUN: split-file %s %t
// RUN: memopt-run %t/reference.mlir --compare --runs=1 --tolerance=1e-6 --against=%t/chunked.mlir \
// RUN:   --pipeline='builtin.module(func.func(chunk-to-scf))' | FileCheck %s

// CHECK: output 0 baseline:  tensor<12x8xf32> {{.*}} nonfinite=0
// CHECK: output 0 candidate: tensor<12x8xf32> {{.*}} nonfinite=0
// CHECK: outputs: within tolerance

//--- reference.mlir
#p = affine_map<(q, k, d) -> (q, k)>
#o = affine_map<(q, k, d) -> (q, d)>
#v = affine_map<(q, k, d) -> (k, d)>
func.func @dv(%p: tensor<12x12xf32>, %do: tensor<12x8xf32>) -> tensor<12x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<12x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<12x8xf32>) -> tensor<12x8xf32>
  %g = linalg.generic {indexing_maps = [#p, #o, #v], iterator_types = ["reduction", "parallel", "parallel"]}
      ins(%p, %do : tensor<12x12xf32>, tensor<12x8xf32>) outs(%z : tensor<12x8xf32>) {
  ^bb1(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<12x8xf32>
  return %g : tensor<12x8xf32>
}

//--- chunked.mlir
#p = affine_map<(q, k, d) -> (q, k)>
#o = affine_map<(q, k, d) -> (q, d)>
#v = affine_map<(q, k, d) -> (k, d)>
func.func @dv(%p: tensor<12x12xf32>, %do: tensor<12x8xf32>) -> tensor<12x8xf32> {
  %zero = arith.constant 0.0 : f32
  %0 = "chunk.region"(%p, %do) ({
  ^bb0(%pc: tensor<?x12xf32>, %doc: tensor<?x8xf32>):
    %e = tensor.empty() : tensor<12x8xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<12x8xf32>) -> tensor<12x8xf32>
    %g = linalg.generic {indexing_maps = [#p, #o, #v], iterator_types = ["reduction", "parallel", "parallel"]}
        ins(%pc, %doc : tensor<?x12xf32>, tensor<?x8xf32>) outs(%z : tensor<12x8xf32>) {
    ^bb1(%a: f32, %b: f32, %acc: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %acc, %m : f32
      linalg.yield %s : f32
    } -> tensor<12x8xf32>
    vector.yield %g : tensor<12x8xf32>
  }) {input_dims = array<i64: 0, 0>, output_dims = array<i64: -1>, chunk_size = 5 : i64,
      combiners = ["add"],
      operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
     : (tensor<12x12xf32>, tensor<12x8xf32>) -> tensor<12x8xf32>
  return %0 : tensor<12x8xf32>
}

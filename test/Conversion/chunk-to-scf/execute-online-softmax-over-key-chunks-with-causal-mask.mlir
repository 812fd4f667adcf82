// softmax(S) V for 10 queries and 12 keys with a causal sliding-window mask
// (query i sees keys i - 2 .. i + 2: two keys ahead of it, as with a
// 2-token prefix, and at most 4 behind), computed chunked along the KEYS by
// 5 with online softmax: per chunk the body yields the row maximum m_c of
// its masked scores, l_c = sum exp(s - m_c) and O_c = exp(s - m_c) V_c; the
// region combines m with "max" and l, O with "rescaled-add" by m, and O / l
// after the region normalizes. The chunks are keys 0..4, 5..9 (full) and
// 10..11 (the remainder loop). Some chunks of some rows are all -inf:
//   keys 0..4   for queries 7, 8, 9 (i - 2 > 4): the first chunk, so m stays
//               -inf after it (a masked prefix);
//   keys 5..9   for queries 0, 1, 2 (i + 2 < 5);
//   keys 10..11 for queries 0..7 (i + 2 < 10), in the remainder loop.
// There the body's own l_c and O_c are NaN (exp(-inf - -inf)); the combine
// selects 0 for a term whose maximum is -inf, so no NaN reaches the result.
// Every row sees at least its own key, so the plain softmax program (the
// reference) is finite too. Rescaling changes the rounding: measured with
// --print-outputs, the largest difference is 1.7e-7 of the largest |output|
// (2.6e-6 of the element's own value), the checksums differ by 4.4e-8 (sum)
// and 2.0e-8 (abs_sum) relative; tolerance 1e-6.
// RUN: split-file %s %t
// RUN: memopt-run %t/reference.mlir --compare --runs=1 --tolerance=1e-6 --against=%t/chunked.mlir \
// RUN:   --pipeline='builtin.module(func.func(chunk-to-scf))' | FileCheck %s

// CHECK: output 0 baseline:  tensor<10x4xf32> {{.*}} nonfinite=0
// CHECK: output 0 candidate: tensor<10x4xf32> {{.*}} nonfinite=0
// CHECK: outputs: within tolerance

//--- reference.mlir
#qk = affine_map<(q, k) -> (q, k)>
#q = affine_map<(q, k) -> (q)>
#pv_p = affine_map<(q, k, d) -> (q, k)>
#pv_v = affine_map<(q, k, d) -> (k, d)>
#pv_o = affine_map<(q, k, d) -> (q, d)>
func.func @attention(%s: tensor<10x12xf32>, %v: tensor<12x4xf32>) -> tensor<10x4xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %c2 = arith.constant 2 : index
  %scoresEmpty = tensor.empty() : tensor<10x12xf32>
  %masked = linalg.generic {indexing_maps = [#qk, #qk], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<10x12xf32>) outs(%scoresEmpty : tensor<10x12xf32>) {
  ^bb0(%x: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %last = arith.addi %i, %c2 : index
    %first = arith.subi %i, %c2 : index
    %notLater = arith.cmpi sle, %j, %last : index
    %notEarlier = arith.cmpi sge, %j, %first : index
    %keep = arith.andi %notLater, %notEarlier : i1
    %r = arith.select %keep, %x, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<10x12xf32>
  %rowsEmpty = tensor.empty() : tensor<10xf32>
  %maxInit = linalg.fill ins(%ninf : f32) outs(%rowsEmpty : tensor<10xf32>) -> tensor<10xf32>
  %max = linalg.generic {indexing_maps = [#qk, #q], iterator_types = ["parallel", "reduction"]}
      ins(%masked : tensor<10x12xf32>) outs(%maxInit : tensor<10xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.maximumf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<10xf32>
  %exp = linalg.generic {indexing_maps = [#qk, #q, #qk], iterator_types = ["parallel", "parallel"]}
      ins(%masked, %max : tensor<10x12xf32>, tensor<10xf32>) outs(%scoresEmpty : tensor<10x12xf32>) {
  ^bb0(%x: f32, %m: f32, %o: f32):
    %d = arith.subf %x, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<10x12xf32>
  %sumInit = linalg.fill ins(%zero : f32) outs(%rowsEmpty : tensor<10xf32>) -> tensor<10xf32>
  %sum = linalg.generic {indexing_maps = [#qk, #q], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<10x12xf32>) outs(%sumInit : tensor<10xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<10xf32>
  %probs = linalg.generic {indexing_maps = [#qk, #q, #qk], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<10x12xf32>, tensor<10xf32>) outs(%scoresEmpty : tensor<10x12xf32>) {
  ^bb0(%e: f32, %l: f32, %o: f32):
    %r = arith.divf %e, %l : f32
    linalg.yield %r : f32
  } -> tensor<10x12xf32>
  %outEmpty = tensor.empty() : tensor<10x4xf32>
  %outInit = linalg.fill ins(%zero : f32) outs(%outEmpty : tensor<10x4xf32>) -> tensor<10x4xf32>
  %out = linalg.generic {indexing_maps = [#pv_p, #pv_v, #pv_o], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%probs, %v : tensor<10x12xf32>, tensor<12x4xf32>) outs(%outInit : tensor<10x4xf32>) {
  ^bb0(%p: f32, %x: f32, %acc: f32):
    %t = arith.mulf %p, %x : f32
    %r = arith.addf %acc, %t : f32
    linalg.yield %r : f32
  } -> tensor<10x4xf32>
  return %out : tensor<10x4xf32>
}

//--- chunked.mlir
#qk = affine_map<(q, k) -> (q, k)>
#q = affine_map<(q, k) -> (q)>
#qd = affine_map<(q, d) -> (q, d)>
#qd_q = affine_map<(q, d) -> (q)>
#pv_p = affine_map<(q, k, d) -> (q, k)>
#pv_v = affine_map<(q, k, d) -> (k, d)>
#pv_o = affine_map<(q, k, d) -> (q, d)>
func.func @attention(%s: tensor<10x12xf32>, %v: tensor<12x4xf32>) -> tensor<10x4xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %c2 = arith.constant 2 : index
  %m, %l, %o = "chunk.region"(%s, %v) ({
  ^bb0(%sc: tensor<10x?xf32>, %vc: tensor<?x4xf32>, %offset: index):
    %c1 = arith.constant 1 : index
    %n = tensor.dim %sc, %c1 : tensor<10x?xf32>
    %scoresEmpty = tensor.empty(%n) : tensor<10x?xf32>
    %masked = linalg.generic {indexing_maps = [#qk, #qk], iterator_types = ["parallel", "parallel"]}
        ins(%sc : tensor<10x?xf32>) outs(%scoresEmpty : tensor<10x?xf32>) {
    ^bb1(%x: f32, %out: f32):
      %i = linalg.index 0 : index
      %jc = linalg.index 1 : index
      %j = arith.addi %jc, %offset : index
      %last = arith.addi %i, %c2 : index
      %first = arith.subi %i, %c2 : index
      %notLater = arith.cmpi sle, %j, %last : index
      %notEarlier = arith.cmpi sge, %j, %first : index
      %keep = arith.andi %notLater, %notEarlier : i1
      %r = arith.select %keep, %x, %ninf : f32
      linalg.yield %r : f32
    } -> tensor<10x?xf32>
    %rowsEmpty = tensor.empty() : tensor<10xf32>
    %maxInit = linalg.fill ins(%ninf : f32) outs(%rowsEmpty : tensor<10xf32>) -> tensor<10xf32>
    %max = linalg.generic {indexing_maps = [#qk, #q], iterator_types = ["parallel", "reduction"]}
        ins(%masked : tensor<10x?xf32>) outs(%maxInit : tensor<10xf32>) {
    ^bb1(%x: f32, %acc: f32):
      %r = arith.maximumf %x, %acc : f32
      linalg.yield %r : f32
    } -> tensor<10xf32>
    %exp = linalg.generic {indexing_maps = [#qk, #q, #qk], iterator_types = ["parallel", "parallel"]}
        ins(%masked, %max : tensor<10x?xf32>, tensor<10xf32>) outs(%scoresEmpty : tensor<10x?xf32>) {
    ^bb1(%x: f32, %mx: f32, %out: f32):
      %d = arith.subf %x, %mx : f32
      %e = math.exp %d : f32
      linalg.yield %e : f32
    } -> tensor<10x?xf32>
    %sumInit = linalg.fill ins(%zero : f32) outs(%rowsEmpty : tensor<10xf32>) -> tensor<10xf32>
    %sum = linalg.generic {indexing_maps = [#qk, #q], iterator_types = ["parallel", "reduction"]}
        ins(%exp : tensor<10x?xf32>) outs(%sumInit : tensor<10xf32>) {
    ^bb1(%x: f32, %acc: f32):
      %r = arith.addf %x, %acc : f32
      linalg.yield %r : f32
    } -> tensor<10xf32>
    %outEmpty = tensor.empty() : tensor<10x4xf32>
    %outInit = linalg.fill ins(%zero : f32) outs(%outEmpty : tensor<10x4xf32>) -> tensor<10x4xf32>
    %weighted = linalg.generic {indexing_maps = [#pv_p, #pv_v, #pv_o], iterator_types = ["parallel", "reduction", "parallel"]}
        ins(%exp, %vc : tensor<10x?xf32>, tensor<?x4xf32>) outs(%outInit : tensor<10x4xf32>) {
    ^bb1(%p: f32, %x: f32, %acc: f32):
      %t = arith.mulf %p, %x : f32
      %r = arith.addf %acc, %t : f32
      linalg.yield %r : f32
    } -> tensor<10x4xf32>
    vector.yield %max, %sum, %weighted : tensor<10xf32>, tensor<10xf32>, tensor<10x4xf32>
  }) {input_dims = array<i64: 1, 0>, output_dims = array<i64: -1, -1, -1>, chunk_size = 5 : i64,
      combiners = ["max", "rescaled-add", "rescaled-add"], rescale_by = array<i64: -1, 0, 0>,
      operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0>}
     : (tensor<10x12xf32>, tensor<12x4xf32>) -> (tensor<10xf32>, tensor<10xf32>, tensor<10x4xf32>)
  %outEmpty = tensor.empty() : tensor<10x4xf32>
  %out = linalg.generic {indexing_maps = [#qd, #qd_q, #qd], iterator_types = ["parallel", "parallel"]}
      ins(%o, %l : tensor<10x4xf32>, tensor<10xf32>) outs(%outEmpty : tensor<10x4xf32>) {
  ^bb0(%x: f32, %sum: f32, %out0: f32):
    %r = arith.divf %x, %sum : f32
    linalg.yield %r : f32
  } -> tensor<10x4xf32>
  return %out : tensor<10x4xf32>
}

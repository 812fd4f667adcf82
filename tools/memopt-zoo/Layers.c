/* Arguments and the dense building blocks of the transformer models. */
#include "Layers.h"

#include <math.h>
#include <string.h>

ZooFill zooFillWave(double scale, double offset) {
  ZooFill fill = {ZOO_FILL_WAVE, scale, offset, 0};
  return fill;
}

ZooFill zooFillWeight(long long fanIn) { return zooFillWave(1.0 / sqrt((double)fanIn), 0.0); }

ZooFill zooFillGain(void) { return zooFillWave(0.1, 1.0); }

ZooFill zooFillBias(void) { return zooFillWave(0.02, 0.0); }

ZooFill zooFillInteger(long long modulus) {
  ZooFill fill = {ZOO_FILL_INTEGER, 0.0, 0.0, modulus};
  return fill;
}

ZooValue zooParameter(ZooEmitter *e, const char *name, int rank, const long long *dims, ZooFill fill) {
  ZooSize sizes[ZOO_MAX_RANK];
  for (int i = 0; i < rank; ++i)
    sizes[i] = zooSizeStatic(dims[i]);
  return zooArgument(e, name, e->floatType, rank, sizes, true, fill);
}

ZooValue zooInput(ZooEmitter *e, const char *name, ZooElementType type, int rank,
                  const ZooSize *dims, ZooFill fill) {
  return zooArgument(e, name, type, rank, dims, false, fill);
}

ZooSize zooModelSize(ZooEmitter *e, bool dynamic, const char *name, long long nominal) {
  if (!dynamic)
    return zooSizeStatic(nominal);
  return zooSizeSymbol(zooDeclareSymbol(e, name, nominal));
}

ZooValue zooProject(ZooEmitter *e, ZooValue x, ZooValue w, bool transposeW) {
  int last = x.rank - 1;
  ZooSize outFeatures = transposeW ? w.dims[0] : w.dims[1];
  if (x.rank == 2)
    return zooContraction(e, ZOO_MATMUL, x, false, w, transposeW);
  int dynamicLeading = 0;
  for (int i = 0; i < last; ++i)
    dynamicLeading += !zooSizeIsStatic(x.dims[i]);
  if (dynamicLeading > 1 && x.rank == 3)
    return zooContraction(e, ZOO_BATCH_MATMUL_SHARED_RHS, x, false, w, transposeW);
  if (dynamicLeading > 1)
    zooFail(e, "internal: projection of a rank-%d tensor with several dynamic dims", x.rank);
  ZooSize rows = zooSizeOfAxes(x, (1u << last) - 1); /* every dim but the last */
  ZooSize flatDims[2] = {rows, x.dims[last]};
  ZooValue y = zooContraction(e, ZOO_MATMUL, zooReshape(e, x, 2, flatDims), false, w, transposeW);
  ZooSize outDims[ZOO_MAX_RANK];
  memcpy(outDims, x.dims, sizeof(ZooSize) * (size_t)last);
  outDims[last] = outFeatures;
  return zooReshape(e, y, x.rank, outDims);
}

ZooValue zooLinear(ZooEmitter *e, const char *name, ZooValue x, long long outFeatures, bool bias) {
  long long inFeatures = x.dims[x.rank - 1].factor;
  long long weightDims[2] = {inFeatures, outFeatures};
  ZooValue weight = zooParameter(e, zooFormat(e, "%s_w", name), 2, weightDims, zooFillWeight(inFeatures));
  ZooValue y = zooProject(e, x, weight, false);
  if (bias) {
    long long biasDims[1] = {outFeatures};
    y = zooAdd(e, y, zooParameter(e, zooFormat(e, "%s_b", name), 1, biasDims, zooFillBias()));
  }
  return y;
}

static ZooValue lastDimNorm(ZooEmitter *e, const char *name, ZooValue x, double epsilon,
                            bool centered) {
  int last = x.rank - 1;
  long long dims[1] = {x.dims[last].factor};
  ZooValue gamma = zooParameter(e, zooFormat(e, "%s_g", name), 1, dims, zooFillGain());
  ZooValue beta = centered ? zooParameter(e, zooFormat(e, "%s_b", name), 1, dims, zooFillBias())
                           : zooNoValue();
  ZooNormSpec spec;
  memset(&spec, 0, sizeof spec);
  spec.axes = 1u << last;
  spec.centered = centered;
  spec.epsilon = epsilon;
  spec.affineRank = 1;
  spec.affineDims[0] = last;
  return zooNormalize(e, x, &spec, gamma, beta);
}

ZooValue zooLayerNorm(ZooEmitter *e, const char *name, ZooValue x, double epsilon) {
  return lastDimNorm(e, name, x, epsilon, true);
}

ZooValue zooRmsNorm(ZooEmitter *e, const char *name, ZooValue x, double epsilon) {
  return lastDimNorm(e, name, x, epsilon, false);
}

ZooValue zooSplitHeads(ZooEmitter *e, ZooValue x, long long heads) {
  long long headDim = x.dims[2].factor / heads;
  ZooSize split[4] = {x.dims[0], x.dims[1], zooSizeStatic(heads), zooSizeStatic(headDim)};
  static const int perm[4] = {0, 2, 1, 3};
  return zooTranspose(e, zooReshape(e, x, 4, split), perm);
}

ZooValue zooMergeHeads(ZooEmitter *e, ZooValue x) {
  static const int perm[4] = {0, 2, 1, 3};
  ZooValue t = zooTranspose(e, x, perm);
  ZooSize merged[3] = {t.dims[0], t.dims[1], zooSizeMul(t.dims[2], t.dims[3])};
  return zooReshape(e, t, 3, merged);
}

ZooValue zooAttention(ZooEmitter *e, ZooValue q, ZooValue k, ZooValue v,
                      const ZooAttentionOptions *options) {
  ZooSize batchHeads = zooSizeMul(q.dims[0], q.dims[1]);
  ZooSize queries = q.dims[2], keys = k.dims[2], headDim = q.dims[3];
  ZooSize q3Dims[3] = {batchHeads, queries, headDim};
  ZooValue q3 = zooReshape(e, q, 3, q3Dims);
  ZooSize k3Dims[3] = {batchHeads, keys, headDim};
  ZooValue k3 = zooReshape(e, k, 3, k3Dims);
  ZooValue scores = zooContraction(e, ZOO_BATCH_MATMUL, q3, false, k3, true); /* q k^T */
  ZooSize s4Dims[4] = {q.dims[0], q.dims[1], queries, keys};
  ZooValue s4 = zooReshape(e, scores, 4, s4Dims);
  s4 = zooScale(e, s4, 1.0 / sqrt((double)headDim.factor));
  if (options && zooHasValue(options->bias))
    s4 = zooBinary(e, ZOO_BINARY_ADD, s4, options->bias, options->biasDims);
  if (options && options->causal)
    s4 = zooCausalMask(e, s4);
  ZooValue probs = zooSoftmax(e, s4);
  ZooSize p3Dims[3] = {batchHeads, queries, keys};
  ZooValue p3 = zooReshape(e, probs, 3, p3Dims);
  ZooSize v3Dims[3] = {batchHeads, keys, headDim};
  ZooValue v3 = zooReshape(e, v, 3, v3Dims);
  ZooValue context = zooBatchMatmul(e, p3, v3);
  ZooSize outDims[4] = {q.dims[0], q.dims[1], queries, headDim};
  return zooReshape(e, context, 4, outDims);
}

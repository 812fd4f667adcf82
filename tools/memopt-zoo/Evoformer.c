/* AlphaFold-2 Evoformer blocks (Jumper et al. 2021, supplementary
 * Algorithms 6-15), the workload where activation chunking matters most: the
 * triangle attention scores are [residues, heads, residues, residues].
 *
 * MSA representation m: [msa, residues, c_m]; pair representation z:
 * [residues, residues, c_z]. No batch dim (one protein at a time, as in
 * AlphaFold); with --dynamic the MSA depth and the residue count are `?`.
 * Dropout is omitted (inference-style numerics; training shapes unchanged). */
#include "Models.h"

#include <string.h>

bool zooConfigureEvoformer(ZooOptions *o, MemoptStringBuffer *error) {
  return zooCheckDivides(o->heads, "--heads", o->hidden, "--hidden", error) &&
         zooCheckDivides(o->pairHeads, "--pair-heads", o->pairChannels, "--pair-channels", error);
}

static const double kEpsilon = 1e-5;

static const char *name(ZooEmitter *e, const char *prefix, const char *what) {
  return zooFormat(e, "%s_%s", prefix, what);
}

/* Gated multi-head self-attention over dim 1 of x [B, S, c] (Algorithm 7/8/13),
 * with an optional score bias [heads, S, S]; returns the [B, S, outChannels] update. */
static ZooValue gatedSelfAttention(ZooEmitter *e, const char *prefix, ZooValue x, long long heads,
                                   long long headDim, long long outChannels, ZooValue bias) {
  long long width = heads * headDim;
  ZooValue q = zooSplitHeads(e, zooLinear(e, name(e, prefix, "q"), x, width, false), heads);
  ZooValue k = zooSplitHeads(e, zooLinear(e, name(e, prefix, "k"), x, width, false), heads);
  ZooValue v = zooSplitHeads(e, zooLinear(e, name(e, prefix, "v"), x, width, false), heads);
  ZooValue gate = zooPointwise(e, ZOO_SIGMOID, zooLinear(e, name(e, prefix, "gate"), x, width, true));
  ZooAttentionOptions attention = {false, bias, {1, 2, 3}};
  ZooValue context = zooMergeHeads(e, zooAttention(e, q, k, v, &attention));
  return zooLinear(e, name(e, prefix, "out"), zooMul(e, context, gate), outChannels, true);
}

/* [R, R, c] -> per-head bias [heads, R, R] (a bias-free linear of the normalized pair). */
static ZooValue pairBias(ZooEmitter *e, const char *prefix, ZooValue pairNormalized, long long heads) {
  static const int toHeadsFirst[3] = {2, 0, 1};
  return zooTranspose(e, zooLinear(e, name(e, prefix, "bias"), pairNormalized, heads, false),
                      toHeadsFirst);
}

static ZooValue transposeFirstTwo(ZooEmitter *e, ZooValue x) {
  static const int swap[3] = {1, 0, 2};
  return zooTranspose(e, x, swap);
}

static ZooValue transition(ZooEmitter *e, const char *prefix, ZooValue x) {
  long long channels = x.dims[2].factor;
  ZooValue h = zooLayerNorm(e, name(e, prefix, "norm"), x, kEpsilon);
  h = zooPointwise(e, ZOO_RELU, zooLinear(e, name(e, prefix, "in"), h, 4 * channels, true));
  return zooLinear(e, name(e, prefix, "out"), h, channels, true);
}

/* Algorithm 10: z[i, j] += Linear(mean_s a[s, i] (x) b[s, j]). */
static ZooValue outerProductMean(ZooEmitter *e, const char *prefix, ZooValue m, long long channels,
                                 long long pairChannels) {
  ZooSize msa = m.dims[0], residues = m.dims[1], c = zooSizeStatic(channels);
  ZooValue mn = zooLayerNorm(e, name(e, prefix, "norm"), m, kEpsilon);
  ZooValue a = zooLinear(e, name(e, prefix, "a"), mn, channels, true);
  ZooValue b = zooLinear(e, name(e, prefix, "b"), mn, channels, true);
  static const int msaLast[3] = {1, 2, 0};
  ZooSize aDims[2] = {zooSizeMul(residues, c), msa};
  ZooValue a2 = zooReshape(e, zooTranspose(e, a, msaLast), 2, aDims);
  ZooSize bDims[2] = {msa, zooSizeMul(residues, c)};
  ZooValue b2 = zooReshape(e, b, 2, bDims);
  ZooValue outer = zooMatmul(e, a2, b2); /* [(i, c1), (j, c2)], summed over s */
  ZooSize split[4] = {residues, c, residues, c};
  static const int pairFirst[4] = {0, 2, 1, 3};
  ZooValue paired = zooTranspose(e, zooReshape(e, outer, 4, split), pairFirst);
  ZooSize flat[3] = {residues, residues, zooSizeMul(c, c)};
  ZooValue mean = zooScaleBy(e, zooReshape(e, paired, 3, flat), zooReciprocalOfSize(e, msa, m.type));
  return zooLinear(e, name(e, prefix, "out"), mean, pairChannels, true);
}

/* Algorithms 11 and 12: x[i, j] = sum_k a[i, k] * b[j, k] (outgoing) or
 * sum_k a[k, i] * b[k, j] (incoming), per channel, as one batch_matmul. */
static ZooValue triangleMultiplication(ZooEmitter *e, const char *prefix, ZooValue z, bool outgoing) {
  long long channels = z.dims[2].factor;
  ZooValue zn = zooLayerNorm(e, name(e, prefix, "norm_in"), z, kEpsilon);
  ZooValue a = zooMul(e, zooPointwise(e, ZOO_SIGMOID, zooLinear(e, name(e, prefix, "a_gate"), zn, channels, true)),
                      zooLinear(e, name(e, prefix, "a_proj"), zn, channels, true));
  ZooValue b = zooMul(e, zooPointwise(e, ZOO_SIGMOID, zooLinear(e, name(e, prefix, "b_gate"), zn, channels, true)),
                      zooLinear(e, name(e, prefix, "b_proj"), zn, channels, true));
  ZooValue gate = zooPointwise(e, ZOO_SIGMOID, zooLinear(e, name(e, prefix, "gate"), zn, channels, true));
  static const int rowsFirst[3] = {2, 0, 1}, columnsFirst[3] = {2, 1, 0};
  /* lhs [c, i, k] and rhs [c, k, j] */
  ZooValue lhs = zooTranspose(e, a, outgoing ? rowsFirst : columnsFirst);
  ZooValue rhs = zooTranspose(e, b, outgoing ? columnsFirst : rowsFirst);
  static const int channelsLast[3] = {1, 2, 0};
  ZooValue x = zooTranspose(e, zooBatchMatmul(e, lhs, rhs), channelsLast);
  x = zooLinear(e, name(e, prefix, "out"), zooLayerNorm(e, name(e, prefix, "norm_out"), x, kEpsilon),
                channels, true);
  return zooMul(e, gate, x);
}

/* Algorithm 13 (starting node): attention along rows with a pair bias. The
 * ending node (Algorithm 14) is the same on the transposed pair. */
static ZooValue triangleAttention(ZooEmitter *e, const char *prefix, ZooValue z, long long heads,
                                  bool endingNode) {
  long long channels = z.dims[2].factor;
  ZooValue x = endingNode ? transposeFirstTwo(e, z) : z;
  ZooValue zn = zooLayerNorm(e, name(e, prefix, "norm"), x, kEpsilon);
  ZooValue update = gatedSelfAttention(e, prefix, zn, heads, channels / heads, channels,
                                       pairBias(e, prefix, zn, heads));
  return endingNode ? transposeFirstTwo(e, update) : update;
}

static void evoformerBlock(ZooEmitter *e, const ZooOptions *o, const char *prefix, ZooValue *m, ZooValue *z) {
  long long heads = o->heads, headDim = o->hidden / o->heads;
  /* MSA stack */
  {
    const char *p = name(e, prefix, "row_attn");
    ZooValue mn = zooLayerNorm(e, name(e, p, "norm_msa"), *m, kEpsilon);
    ZooValue zn = zooLayerNorm(e, name(e, p, "norm_pair"), *z, kEpsilon);
    *m = zooAdd(e, *m, gatedSelfAttention(e, p, mn, heads, headDim, o->hidden, pairBias(e, p, zn, heads)));
  }
  {
    const char *p = name(e, prefix, "col_attn");
    ZooValue mt = zooLayerNorm(e, name(e, p, "norm"), transposeFirstTwo(e, *m), kEpsilon);
    ZooValue update = gatedSelfAttention(e, p, mt, heads, headDim, o->hidden, zooNoValue());
    *m = zooAdd(e, *m, transposeFirstTwo(e, update));
  }
  *m = zooAdd(e, *m, transition(e, name(e, prefix, "msa_transition"), *m));
  /* Communication and pair stack */
  *z = zooAdd(e, *z, outerProductMean(e, name(e, prefix, "outer"), *m, o->outerChannels, o->pairChannels));
  *z = zooAdd(e, *z, triangleMultiplication(e, name(e, prefix, "tri_mul_out"), *z, true));
  *z = zooAdd(e, *z, triangleMultiplication(e, name(e, prefix, "tri_mul_in"), *z, false));
  *z = zooAdd(e, *z, triangleAttention(e, name(e, prefix, "tri_attn_start"), *z, o->pairHeads, false));
  *z = zooAdd(e, *z, triangleAttention(e, name(e, prefix, "tri_attn_end"), *z, o->pairHeads, true));
  *z = zooAdd(e, *z, transition(e, name(e, prefix, "pair_transition"), *z));
}

void zooBuildEvoformer(ZooEmitter *e, const ZooOptions *o, ZooModelOutputs *out) {
  ZooSize msa = zooModelSize(e, o->dynamic, "msa", o->msa);
  ZooSize residues = zooModelSize(e, o->dynamic, "residues", o->residues);
  ZooSize msaDims[3] = {msa, residues, zooSizeStatic(o->hidden)};
  ZooSize pairDims[3] = {residues, residues, zooSizeStatic(o->pairChannels)};
  ZooValue m = zooInput(e, "msa", e->floatType, 3, msaDims, zooFillWave(1.0, 0.0));
  ZooValue z = zooInput(e, "pair", e->floatType, 3, pairDims, zooFillWave(1.0, 0.0));
  for (long long block = 0; block < o->layers; ++block)
    evoformerBlock(e, o, zooFormat(e, "b%lld", block), &m, &z);
  out->count = 2;
  out->values[0] = m;
  out->values[1] = z;
  if (o->train)
    out->loss = zooRegressionLoss(e, out);
}

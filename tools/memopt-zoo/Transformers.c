/* Transformer models: multi-head attention, GPT-2 (block and full model),
 * a BERT encoder and a LLaMA block. Activations are [batch, seq, hidden];
 * with --dynamic batch and seq are `?`. */
#include "Models.h"

#include <string.h>

/* ln(10000): rotary frequencies are 10000^(-2j/d) = exp(-2j ln(10000) / d). */
static const double kLogTenThousand = 9.210340371976184;

static ZooSize batchSize(ZooEmitter *e, const ZooOptions *o) {
  return zooModelSize(e, o->dynamic, "batch", o->batch);
}

static ZooSize seqSize(ZooEmitter *e, const ZooOptions *o) {
  return zooModelSize(e, o->dynamic, "seq", o->seq);
}

static ZooValue hiddenInput(ZooEmitter *e, const ZooOptions *o, const char *name) {
  ZooSize batch = batchSize(e, o), seq = seqSize(e, o);
  ZooSize dims[3] = {batch, seq, zooSizeStatic(o->hidden)};
  return zooInput(e, name, e->floatType, 3, dims, zooFillWave(1.0, 0.0));
}

static bool checkHeads(const ZooOptions *o, MemoptStringBuffer *error) {
  return zooCheckDivides(o->heads, "--heads", o->hidden, "--hidden", error);
}

/*===------------------------------------------------------------------===*
 * mha
 *===------------------------------------------------------------------===*/

bool zooConfigureMha(ZooOptions *o, MemoptStringBuffer *error) { return checkHeads(o, error); }

void zooBuildMha(ZooEmitter *e, const ZooOptions *o, ZooModelOutputs *out) {
  ZooValue x = hiddenInput(e, o, "x");
  ZooValue q = zooSplitHeads(e, zooLinear(e, "q", x, o->hidden, true), o->heads);
  ZooValue k = zooSplitHeads(e, zooLinear(e, "k", x, o->hidden, true), o->heads);
  ZooValue v = zooSplitHeads(e, zooLinear(e, "v", x, o->hidden, true), o->heads);
  ZooAttentionOptions attention = {o->causal, zooNoValue(), {0}};
  ZooValue context = zooMergeHeads(e, zooAttention(e, q, k, v, &attention));
  out->count = 1;
  out->values[0] = zooLinear(e, "o", context, o->hidden, true);
  if (o->train)
    out->loss = zooRegressionLoss(e, out);
}

/*===------------------------------------------------------------------===*
 * GPT-2: pre-LayerNorm blocks, fused QKV projection, tanh GELU, tied LM head
 *===------------------------------------------------------------------===*/

bool zooConfigureGpt2(ZooOptions *o, MemoptStringBuffer *error) {
  if (!o->intermediate)
    o->intermediate = 4 * o->hidden;
  if (o->positions && o->seq > o->positions) {
    memoptStringBufferAppendFormat(error, "--seq=%lld exceeds --positions=%lld (GPT-2 has one "
                                          "learned embedding per position)",
                                   o->seq, o->positions);
    return false;
  }
  return checkHeads(o, error);
}

static ZooValue sliceLastDim(ZooEmitter *e, ZooValue x, long long offset, long long extent) {
  long long offsets[ZOO_MAX_RANK] = {0};
  ZooSize sizes[ZOO_MAX_RANK];
  memcpy(sizes, x.dims, sizeof(ZooSize) * (size_t)x.rank);
  offsets[x.rank - 1] = offset;
  sizes[x.rank - 1] = zooSizeStatic(extent);
  return zooSlice(e, x, offsets, sizes);
}

static ZooValue gpt2Block(ZooEmitter *e, const ZooOptions *o, const char *prefix, ZooValue x) {
  long long hidden = o->hidden;
  ZooValue h = zooLayerNorm(e, zooFormat(e, "%s_ln1", prefix), x, 1e-5);
  ZooValue qkv = zooLinear(e, zooFormat(e, "%s_attn_qkv", prefix), h, 3 * hidden, true);
  ZooValue q = zooSplitHeads(e, sliceLastDim(e, qkv, 0, hidden), o->heads);
  ZooValue k = zooSplitHeads(e, sliceLastDim(e, qkv, hidden, hidden), o->heads);
  ZooValue v = zooSplitHeads(e, sliceLastDim(e, qkv, 2 * hidden, hidden), o->heads);
  ZooAttentionOptions attention = {true, zooNoValue(), {0}};
  ZooValue context = zooMergeHeads(e, zooAttention(e, q, k, v, &attention));
  x = zooAdd(e, x, zooLinear(e, zooFormat(e, "%s_attn_proj", prefix), context, hidden, true));
  h = zooLayerNorm(e, zooFormat(e, "%s_ln2", prefix), x, 1e-5);
  h = zooLinear(e, zooFormat(e, "%s_mlp_fc", prefix), h, o->intermediate, true);
  h = zooPointwise(e, ZOO_GELU_TANH, h);
  h = zooLinear(e, zooFormat(e, "%s_mlp_proj", prefix), h, hidden, true);
  return zooAdd(e, x, h);
}

void zooBuildGpt2Block(ZooEmitter *e, const ZooOptions *o, ZooModelOutputs *out) {
  ZooValue x = hiddenInput(e, o, "x");
  out->count = 1;
  out->values[0] = gpt2Block(e, o, "h0", x);
  if (o->train)
    out->loss = zooRegressionLoss(e, out);
}

void zooBuildGpt2(ZooEmitter *e, const ZooOptions *o, ZooModelOutputs *out) {
  ZooSize batch = batchSize(e, o), seq = seqSize(e, o);
  ZooSize tokenDims[2] = {batch, seq};
  ZooValue tokens = zooInput(e, "tokens", ZOO_I64, 2, tokenDims, zooFillInteger(o->vocab));
  long long wteDims[2] = {o->vocab, o->hidden}, wpeDims[2] = {o->positions, o->hidden};
  ZooValue wte = zooParameter(e, "wte", 2, wteDims, zooFillWave(0.02, 0.0));
  ZooValue wpe = zooParameter(e, "wpe", 2, wpeDims, zooFillWave(0.01, 0.0));
  ZooValue x = zooEmbedding(e, wte, tokens);
  long long origin[2] = {0, 0};
  ZooSize positionDims[2] = {seq, zooSizeStatic(o->hidden)};
  static const int positionMap[2] = {1, 2};
  x = zooBinary(e, ZOO_BINARY_ADD, x, zooSlice(e, wpe, origin, positionDims), positionMap);
  for (long long layer = 0; layer < o->layers; ++layer)
    x = gpt2Block(e, o, zooFormat(e, "h%lld", layer), x);
  x = zooLayerNorm(e, "ln_f", x, 1e-5);

  /* LM head tied to the token embedding: logits = x @ wte^T. */
  out->count = 1;
  out->values[0] = zooProject(e, x, wte, true);
  if (o->train) {
    ZooValue labels = zooInput(e, "labels", ZOO_I64, 2, tokenDims, zooFillInteger(o->vocab));
    out->loss = zooCrossEntropy(e, out->values[0], labels);
  }
}

/*===------------------------------------------------------------------===*
 * BERT encoder: post-LayerNorm layers, additive attention mask, erf GELU
 *===------------------------------------------------------------------===*/

bool zooConfigureBert(ZooOptions *o, MemoptStringBuffer *error) {
  if (!o->intermediate)
    o->intermediate = 4 * o->hidden;
  return checkHeads(o, error);
}

void zooBuildBertEncoder(ZooEmitter *e, const ZooOptions *o, ZooModelOutputs *out) {
  ZooValue x = hiddenInput(e, o, "x");
  /* The additive padding mask [batch, key]: 0 keeps a key, large negative drops it. */
  ZooSize maskDims[2] = {x.dims[0], x.dims[1]};
  ZooValue mask = zooInput(e, "attention_mask", e->floatType, 2, maskDims, zooFillWave(0.5, -0.5));
  ZooAttentionOptions attention = {false, mask, {0, 3}};
  /* 1e-12 is BERT's epsilon; it underflows in half precision, where 1e-5 is used. */
  double epsilon = (e->floatType == ZOO_F32 || e->floatType == ZOO_F64) ? 1e-12 : 1e-5;
  for (long long layer = 0; layer < o->layers; ++layer) {
    const char *prefix = zooFormat(e, "l%lld", layer);
    ZooValue q = zooSplitHeads(e, zooLinear(e, zooFormat(e, "%s_q", prefix), x, o->hidden, true), o->heads);
    ZooValue k = zooSplitHeads(e, zooLinear(e, zooFormat(e, "%s_k", prefix), x, o->hidden, true), o->heads);
    ZooValue v = zooSplitHeads(e, zooLinear(e, zooFormat(e, "%s_v", prefix), x, o->hidden, true), o->heads);
    ZooValue context = zooMergeHeads(e, zooAttention(e, q, k, v, &attention));
    ZooValue a = zooLinear(e, zooFormat(e, "%s_attn_out", prefix), context, o->hidden, true);
    x = zooLayerNorm(e, zooFormat(e, "%s_ln1", prefix), zooAdd(e, x, a), epsilon);
    ZooValue h = zooLinear(e, zooFormat(e, "%s_ffn_in", prefix), x, o->intermediate, true);
    h = zooPointwise(e, ZOO_GELU_ERF, h);
    h = zooLinear(e, zooFormat(e, "%s_ffn_out", prefix), h, o->hidden, true);
    x = zooLayerNorm(e, zooFormat(e, "%s_ln2", prefix), zooAdd(e, x, h), epsilon);
  }
  out->count = 1;
  out->values[0] = x;
  if (o->train)
    out->loss = zooRegressionLoss(e, out);
}

/*===------------------------------------------------------------------===*
 * LLaMA block: RMSNorm, rotary embedding, grouped-query attention, SwiGLU
 *===------------------------------------------------------------------===*/

bool zooConfigureLlama(ZooOptions *o, MemoptStringBuffer *error) {
  if (!o->kvHeads)
    o->kvHeads = o->heads;
  if (!o->intermediate) {
    /* LLaMA: int(8 * hidden / 3) rounded up to a multiple of 256 (11008 for 4096). */
    long long multiple = o->hidden >= 1024 ? 256 : 8;
    long long base = 8 * o->hidden / 3;
    o->intermediate = (base + multiple - 1) / multiple * multiple;
  }
  if (!checkHeads(o, error) ||
      !zooCheckDivides(o->kvHeads, "--kv-heads", o->heads, "--heads", error))
    return false;
  if ((o->hidden / o->heads) % 2 != 0) {
    memoptStringBufferAppendFormat(error, "the head dimension --hidden/--heads = %lld must be even "
                                          "for the rotary embedding",
                                   o->hidden / o->heads);
    return false;
  }
  return true;
}

/* cos and sin of position * 10000^(-2j/headDim), [seq, headDim/2], computed in the IR. */
static void rotaryTables(ZooEmitter *e, ZooSize seq, long long headDim, ZooValue *cosTable,
                         ZooValue *sinTable) {
  ZooElementType type = e->floatType;
  const char *t = zooElementTypeName(type);
  ZooSize dims[2] = {seq, zooSizeStatic(headDim / 2)};
  ZooGeneric g;
  zooGenericBegin(&g, e, "rope", "pp");
  zooGenericOutput(&g, zooEmitEmpty(e, "empty", type, 2, dims), "d0, d1");
  zooGenericOutput(&g, zooEmitEmpty(e, "empty", type, 2, dims), "d0, d1");
  const char *position = zooGenericOp(&g, "arith.index_cast %s : index to i64", zooGenericIndex(&g, 0));
  const char *pair = zooGenericOp(&g, "arith.index_cast %s : index to i64", zooGenericIndex(&g, 1));
  const char *positionF = zooGenericOp(&g, "arith.sitofp %s : i64 to %s", position, t);
  const char *pairF = zooGenericOp(&g, "arith.sitofp %s : i64 to %s", pair, t);
  /* 10000^(-2j/d) = exp(j * (-2 ln(10000) / d)) */
  const char *exponent = zooGenericOp(&g, "arith.mulf %s, %s : %s", pairF,
                                      zooConstant(e, type, -2.0 * kLogTenThousand / (double)headDim), t);
  const char *frequency = zooGenericOp(&g, "math.exp %s : %s", exponent, t);
  const char *angle = zooGenericOp(&g, "arith.mulf %s, %s : %s", positionF, frequency, t);
  const char *values[2] = {zooGenericOp(&g, "math.cos %s : %s", angle, t),
                           zooGenericOp(&g, "math.sin %s : %s", angle, t)};
  ZooValue results[2];
  zooGenericEnd(&g, values, results);
  *cosTable = results[0];
  *sinTable = results[1];
}

/* Rotates the halves of x [B, heads, S, d]: (x1 cos - x2 sin, x2 cos + x1 sin). */
static ZooValue applyRotary(ZooEmitter *e, ZooValue x, ZooValue cosTable, ZooValue sinTable) {
  long long half = x.dims[3].factor / 2;
  ZooSize halfDims[4] = {x.dims[0], x.dims[1], x.dims[2], zooSizeStatic(half)};
  long long firstOffsets[4] = {0, 0, 0, 0}, secondOffsets[4] = {0, 0, 0, half};
  ZooValue x1 = zooSlice(e, x, firstOffsets, halfDims);
  ZooValue x2 = zooSlice(e, x, secondOffsets, halfDims);
  static const int tableDims[2] = {2, 3};
  ZooValue r1 = zooBinary(e, ZOO_BINARY_SUB, zooBinary(e, ZOO_BINARY_MUL, x1, cosTable, tableDims),
                          zooBinary(e, ZOO_BINARY_MUL, x2, sinTable, tableDims), NULL);
  ZooValue r2 = zooBinary(e, ZOO_BINARY_ADD, zooBinary(e, ZOO_BINARY_MUL, x2, cosTable, tableDims),
                          zooBinary(e, ZOO_BINARY_MUL, x1, sinTable, tableDims), NULL);
  return zooConcat(e, 3, r1, r2);
}

/* [B, kvHeads, S, d] -> [B, kvHeads * groups, S, d], each kv head shared by `groups` query heads. */
static ZooValue repeatKeyValueHeads(ZooEmitter *e, ZooValue x, long long groups) {
  if (groups == 1)
    return x;
  ZooSize wide[5] = {x.dims[0], x.dims[1], zooSizeStatic(groups), x.dims[2], x.dims[3]};
  static const int map[4] = {0, 1, 3, 4};
  ZooValue repeated = zooBroadcast(e, x, 5, wide, map);
  ZooSize merged[4] = {x.dims[0], zooSizeMul(x.dims[1], zooSizeStatic(groups)), x.dims[2], x.dims[3]};
  return zooReshape(e, repeated, 4, merged);
}

void zooBuildLlamaBlock(ZooEmitter *e, const ZooOptions *o, ZooModelOutputs *out) {
  ZooValue x = hiddenInput(e, o, "x");
  long long headDim = o->hidden / o->heads;
  ZooValue h = zooRmsNorm(e, "attention_norm", x, 1e-6);
  ZooValue q = zooSplitHeads(e, zooLinear(e, "wq", h, o->hidden, false), o->heads);
  ZooValue k = zooSplitHeads(e, zooLinear(e, "wk", h, o->kvHeads * headDim, false), o->kvHeads);
  ZooValue v = zooSplitHeads(e, zooLinear(e, "wv", h, o->kvHeads * headDim, false), o->kvHeads);
  ZooValue cosTable, sinTable;
  rotaryTables(e, x.dims[1], headDim, &cosTable, &sinTable);
  q = applyRotary(e, q, cosTable, sinTable);
  k = applyRotary(e, k, cosTable, sinTable);
  k = repeatKeyValueHeads(e, k, o->heads / o->kvHeads);
  v = repeatKeyValueHeads(e, v, o->heads / o->kvHeads);
  ZooAttentionOptions attention = {true, zooNoValue(), {0}};
  ZooValue context = zooMergeHeads(e, zooAttention(e, q, k, v, &attention));
  x = zooAdd(e, x, zooLinear(e, "wo", context, o->hidden, false));
  h = zooRmsNorm(e, "ffn_norm", x, 1e-6);
  ZooValue gate = zooPointwise(e, ZOO_SILU, zooLinear(e, "w1", h, o->intermediate, false));
  ZooValue up = zooLinear(e, "w3", h, o->intermediate, false);
  ZooValue down = zooLinear(e, "w2", zooMul(e, gate, up), o->hidden, false);
  out->count = 1;
  out->values[0] = zooAdd(e, x, down);
  if (o->train)
    out->loss = zooRegressionLoss(e, out);
}

/* A small diffusion UNet in the style of DDPM (Ho et al. 2020, the CIFAR-10
 * model): --levels resolution levels with channel multipliers (1, 2, 2, 2, ...),
 * --layers residual blocks per level, self-attention at half the input
 * resolution (level 1) and in the middle,
 * skip connections by channel concatenation, nearest-neighbour upsampling.
 * NHWC throughout; with --dynamic the batch is `?`. The network predicts the
 * noise, so the training loss is the mean squared error against a target.
 * `unet-attention` is the network's self-attention block alone, on a feature
 * map of --resolution x --resolution x --hidden. */
#include "Models.h"

#include <stdlib.h>

enum { kMaxLevels = 8 };
/* ln(10000), the base of the sinusoidal timestep embedding's frequencies. */
static const double kLogTenThousand = 9.210340371976184;
static const int kAttentionLevel = 1; /* resolution / 2, i.e. 16x16 at 32x32 */

/* Channel multiplier of a level: 1 at full resolution, 2 below (DDPM CIFAR-10: 1, 2, 2, 2). */
static long long multiplier(int level) { return level == 0 ? 1 : 2; }

bool zooConfigureUNet(ZooOptions *o, MemoptStringBuffer *error) {
  if (o->levels > kMaxLevels) {
    memoptStringBufferAppendFormat(error, "--levels=%lld is too large (at most %d)", o->levels, kMaxLevels);
    return false;
  }
  if (o->resolution % (1LL << (o->levels - 1)) != 0) {
    memoptStringBufferAppendFormat(error, "--resolution=%lld must be a multiple of %lld (the UNet "
                                          "downsamples %lld times)",
                                   o->resolution, 1LL << (o->levels - 1), o->levels - 1);
    return false;
  }
  if (o->hidden % 2 != 0) {
    memoptStringBufferAppendFormat(error, "--hidden=%lld must be even (sinusoidal timestep embedding)",
                                   o->hidden);
    return false;
  }
  return zooConfigureUNetAttention(o, error);
}

bool zooConfigureUNetAttention(ZooOptions *o, MemoptStringBuffer *error) {
  return zooCheckDivides(o->groups, "--groups", o->hidden, "--hidden", error) &&
         zooCheckDivides(o->heads, "--heads", o->hidden, "--hidden", error);
}

static const char *name(ZooEmitter *e, const char *prefix, const char *what) {
  return zooFormat(e, "%s_%s", prefix, what);
}

/* DDPM's sinusoidal embedding of t [N] -> [N, width]: sin in the first half,
 * cos in the second, frequencies exp(-ln(10000) k / (half - 1)). */
static ZooValue timestepEmbedding(ZooEmitter *e, ZooValue timesteps, long long width) {
  ZooElementType type = timesteps.type;
  const char *t = zooElementTypeName(type);
  long long half = width / 2;
  ZooSize dims[2] = {timesteps.dims[0], zooSizeStatic(width)};
  ZooGeneric g;
  zooGenericBegin(&g, e, "temb", "pp");
  const char *time = zooGenericInput(&g, timesteps, "d0");
  zooGenericOutput(&g, zooEmitEmpty(e, "empty", type, 2, dims), "d0, d1");
  const char *column = zooGenericIndex(&g, 1);
  const char *halfIndex = zooIndexConstant(e, half);
  const char *frequencyIndex = zooGenericOp(&g, "arith.remui %s, %s : index", column, halfIndex);
  const char *asInteger = zooGenericOp(&g, "arith.index_cast %s : index to i64", frequencyIndex);
  const char *asFloat = zooGenericOp(&g, "arith.sitofp %s : i64 to %s", asInteger, t);
  double step = -kLogTenThousand / (double)(half > 1 ? half - 1 : 1);
  const char *exponent = zooGenericOp(&g, "arith.mulf %s, %s : %s", asFloat, zooConstant(e, type, step), t);
  const char *frequency = zooGenericOp(&g, "math.exp %s : %s", exponent, t);
  const char *angle = zooGenericOp(&g, "arith.mulf %s, %s : %s", time, frequency, t);
  const char *sine = zooGenericOp(&g, "math.sin %s : %s", angle, t);
  const char *cosine = zooGenericOp(&g, "math.cos %s : %s", angle, t);
  const char *firstHalf = zooGenericOp(&g, "arith.cmpi ult, %s, %s : index", column, halfIndex);
  const char *value = zooGenericOp(&g, "arith.select %s, %s, %s : %s", firstHalf, sine, cosine, t);
  ZooValue embedding;
  zooGenericEnd(&g, &value, &embedding);
  return embedding;
}

static ZooValue residualBlock(ZooEmitter *e, const ZooOptions *o, const char *prefix, ZooValue x,
                              ZooValue timeEmbedding, long long outChannels) {
  ZooValue h = zooPointwise(e, ZOO_SILU, zooGroupNorm(e, name(e, prefix, "norm1"), x, o->groups));
  h = zooConvolution(e, name(e, prefix, "conv1"), h, outChannels, 3, 1, true);
  ZooValue projected = zooLinear(e, name(e, prefix, "temb_proj"),
                                 zooPointwise(e, ZOO_SILU, timeEmbedding), outChannels, true);
  static const int batchAndChannel[2] = {0, 3};
  h = zooBinary(e, ZOO_BINARY_ADD, h, projected, batchAndChannel);
  h = zooPointwise(e, ZOO_SILU, zooGroupNorm(e, name(e, prefix, "norm2"), h, o->groups));
  h = zooConvolution(e, name(e, prefix, "conv2"), h, outChannels, 3, 1, true);
  ZooValue skip = x.dims[3].factor == outChannels
                      ? x
                      : zooConvolution(e, name(e, prefix, "shortcut"), x, outChannels, 1, 1, true);
  return zooAdd(e, skip, h);
}

/* Self-attention over the H*W positions of x [N, H, W, C]. */
static ZooValue attentionBlock(ZooEmitter *e, const ZooOptions *o, const char *prefix, ZooValue x) {
  long long channels = x.dims[3].factor;
  ZooValue h = zooGroupNorm(e, name(e, prefix, "norm"), x, o->groups);
  ZooSize tokens[3] = {x.dims[0], zooSizeMul(x.dims[1], x.dims[2]), x.dims[3]};
  h = zooReshape(e, h, 3, tokens);
  ZooValue q = zooSplitHeads(e, zooLinear(e, name(e, prefix, "q"), h, channels, true), o->heads);
  ZooValue k = zooSplitHeads(e, zooLinear(e, name(e, prefix, "k"), h, channels, true), o->heads);
  ZooValue v = zooSplitHeads(e, zooLinear(e, name(e, prefix, "v"), h, channels, true), o->heads);
  ZooValue context = zooMergeHeads(e, zooAttention(e, q, k, v, NULL));
  h = zooLinear(e, name(e, prefix, "proj_out"), context, channels, true);
  return zooAdd(e, x, zooReshape(e, h, 4, x.dims));
}

/* Nearest-neighbour 2x upsampling as a broadcast and a reshape, then a 3x3 conv. */
static ZooValue upsample(ZooEmitter *e, const char *prefix, ZooValue x) {
  ZooSize wide[6] = {x.dims[0], x.dims[1], zooSizeStatic(2), x.dims[2], zooSizeStatic(2), x.dims[3]};
  static const int map[4] = {0, 1, 3, 5};
  ZooValue repeated = zooBroadcast(e, x, 6, wide, map);
  ZooSize doubled[4] = {x.dims[0], zooSizeStatic(2 * x.dims[1].factor),
                        zooSizeStatic(2 * x.dims[2].factor), x.dims[3]};
  return zooConvolution(e, name(e, prefix, "conv"), zooReshape(e, repeated, 4, doubled),
                        x.dims[3].factor, 3, 1, true);
}

void zooBuildUNet(ZooEmitter *e, const ZooOptions *o, ZooModelOutputs *out) {
  ZooSize batch = zooModelSize(e, o->dynamic, "batch", o->batch);
  ZooSize imageDims[4] = {batch, zooSizeStatic(o->resolution), zooSizeStatic(o->resolution),
                          zooSizeStatic(o->channels)};
  ZooSize timeDims[1] = {batch};
  ZooValue x = zooInput(e, "x", e->floatType, 4, imageDims, zooFillWave(1.0, 0.0));
  ZooValue timesteps = zooInput(e, "timesteps", e->floatType, 1, timeDims, zooFillWave(400.0, 500.0));
  long long base = o->hidden;

  ZooValue temb = timestepEmbedding(e, timesteps, base);
  temb = zooLinear(e, "temb_dense0", temb, 4 * base, true);
  temb = zooLinear(e, "temb_dense1", zooPointwise(e, ZOO_SILU, temb), 4 * base, true);

  /* Skip connections, pushed on the way down and popped on the way up. */
  ZooValue *skips =
      memoptAllocateZeroed((size_t)(1 + (int)o->levels * (o->layers + 1)), sizeof(ZooValue));
  int skipCount = 0;
  ZooValue h = zooConvolution(e, "conv_in", x, base, 3, 1, true);
  skips[skipCount++] = h;
  int levels = (int)o->levels;
  for (int level = 0; level < levels; ++level) {
    for (long long block = 0; block < o->layers; ++block) {
      const char *prefix = zooFormat(e, "down%d_block%lld", level, block);
      h = residualBlock(e, o, prefix, h, temb, base * multiplier(level));
      if (level == kAttentionLevel)
        h = attentionBlock(e, o, zooFormat(e, "down%d_attn%lld", level, block), h);
      skips[skipCount++] = h;
    }
    if (level != levels - 1) {
      h = zooConvolution(e, zooFormat(e, "down%d_downsample", level), h, h.dims[3].factor, 3, 2, true);
      skips[skipCount++] = h;
    }
  }
  long long deepest = base * multiplier(levels - 1);
  h = residualBlock(e, o, "mid_block1", h, temb, deepest);
  h = attentionBlock(e, o, "mid_attn", h);
  h = residualBlock(e, o, "mid_block2", h, temb, deepest);
  for (int level = levels - 1; level >= 0; --level) {
    for (long long block = 0; block <= o->layers; ++block) {
      h = zooConcat(e, 3, h, skips[--skipCount]);
      h = residualBlock(e, o, zooFormat(e, "up%d_block%lld", level, block), h, temb,
                        base * multiplier(level));
      if (level == kAttentionLevel)
        h = attentionBlock(e, o, zooFormat(e, "up%d_attn%lld", level, block), h);
    }
    if (level != 0)
      h = upsample(e, zooFormat(e, "up%d_upsample", level), h);
  }
  free(skips);
  h = zooPointwise(e, ZOO_SILU, zooGroupNorm(e, "norm_out", h, o->groups));
  out->count = 1;
  out->values[0] = zooConvolution(e, "conv_out", h, o->channels, 3, 1, true);
  if (o->train)
    out->loss = zooRegressionLoss(e, out);
}

void zooBuildUNetAttention(ZooEmitter *e, const ZooOptions *o, ZooModelOutputs *out) {
  ZooSize dims[4] = {zooModelSize(e, o->dynamic, "batch", o->batch), zooSizeStatic(o->resolution),
                     zooSizeStatic(o->resolution), zooSizeStatic(o->hidden)};
  ZooValue x = zooInput(e, "x", e->floatType, 4, dims, zooFillWave(1.0, 0.0));
  out->count = 1;
  out->values[0] = attentionBlock(e, o, "attn", x);
  if (o->train)
    out->loss = zooRegressionLoss(e, out);
}

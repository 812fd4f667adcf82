/* The convolutional building blocks (NHWC activations, HWCF filters). Padding
 * is symmetric k/2 as in PyTorch, written as an explicit tensor.pad so that
 * the convolution ops themselves are unpadded upstream named ops. */
#include "Layers.h"

#include <string.h>

static ZooValue padSpatial(ZooEmitter *e, ZooValue x, int window, ZooPadValue value) {
  long long amount = window / 2;
  if (amount == 0)
    return x;
  long long low[4] = {0, amount, amount, 0};
  long long high[4] = {0, amount, amount, 0};
  return zooPad(e, x, low, high, value);
}

ZooValue zooConvolution(ZooEmitter *e, const char *name, ZooValue x, long long outChannels,
                        int window, int stride, bool bias) {
  long long inChannels = x.dims[3].factor;
  long long dims[4] = {window, window, inChannels, outChannels};
  ZooValue filter = zooParameter(e, zooFormat(e, "%s_w", name), 4, dims,
                                 zooFillWeight((long long)window * window * inChannels));
  ZooValue y = zooConv2d(e, padSpatial(e, x, window, ZOO_PAD_ZERO), filter, stride);
  if (bias) {
    long long biasDims[1] = {outChannels};
    y = zooAdd(e, y, zooParameter(e, zooFormat(e, "%s_b", name), 1, biasDims, zooFillBias()));
  }
  return y;
}

ZooValue zooDepthwiseConvolution(ZooEmitter *e, const char *name, ZooValue x, int window, int stride) {
  long long dims[3] = {window, window, x.dims[3].factor};
  ZooValue filter = zooParameter(e, zooFormat(e, "%s_w", name), 3, dims,
                                 zooFillWeight((long long)window * window));
  return zooDepthwiseConv2d(e, padSpatial(e, x, window, ZOO_PAD_ZERO), filter, stride);
}

/* Inference batch norm with running statistics, one fused generic:
 * (x - mean) / sqrt(var + eps) * gamma + beta. */
static ZooValue runningBatchNorm(ZooEmitter *e, const char *name, ZooValue x) {
  long long channels[1] = {x.dims[3].factor};
  ZooSize channelSize[1] = {x.dims[3]};
  ZooValue gamma = zooParameter(e, zooFormat(e, "%s_g", name), 1, channels, zooFillGain());
  ZooValue beta = zooParameter(e, zooFormat(e, "%s_b", name), 1, channels, zooFillBias());
  ZooValue mean = zooInput(e, zooFormat(e, "%s_running_mean", name), e->floatType, 1, channelSize,
                           zooFillWave(0.1, 0.0));
  ZooValue variance = zooInput(e, zooFormat(e, "%s_running_var", name), e->floatType, 1,
                               channelSize, zooFillWave(0.1, 1.0));
  const char *t = zooElementName(x);
  ZooGeneric g;
  zooGenericBegin(&g, e, "bn", "pppp");
  const char *in = zooGenericInput(&g, x, "d0, d1, d2, d3");
  const char *meanIn = zooGenericInput(&g, mean, "d3");
  const char *varIn = zooGenericInput(&g, variance, "d3");
  const char *gammaIn = zooGenericInput(&g, gamma, "d3");
  const char *betaIn = zooGenericInput(&g, beta, "d3");
  zooGenericOutput(&g, zooEmitEmpty(e, "empty", x.type, 4, x.dims), "d0, d1, d2, d3");
  const char *shifted = zooGenericOp(&g, "arith.addf %s, %s : %s", varIn, zooConstant(e, x.type, 1e-5), t);
  const char *deviationScale = zooGenericOp(&g, "math.sqrt %s : %s", shifted, t);
  const char *rstd = zooGenericOp(&g, "arith.divf %s, %s : %s", zooConstant(e, x.type, 1.0), deviationScale, t);
  const char *deviation = zooGenericOp(&g, "arith.subf %s, %s : %s", in, meanIn, t);
  const char *normalized = zooGenericOp(&g, "arith.mulf %s, %s : %s", deviation, rstd, t);
  const char *scaled = zooGenericOp(&g, "arith.mulf %s, %s : %s", normalized, gammaIn, t);
  const char *value = zooGenericOp(&g, "arith.addf %s, %s : %s", scaled, betaIn, t);
  ZooValue result;
  zooGenericEnd(&g, &value, &result);
  return result;
}

ZooValue zooChannelNorm(ZooEmitter *e, const char *name, ZooValue x, ZooNormKind kind, bool training) {
  long long channels[1] = {x.dims[3].factor};
  if (kind == ZOO_NORM_NONE)
    return zooAdd(e, x, zooParameter(e, zooFormat(e, "%s_b", name), 1, channels, zooFillBias()));
  if (kind == ZOO_NORM_BATCH && !training)
    return runningBatchNorm(e, name, x);
  ZooValue gamma = zooParameter(e, zooFormat(e, "%s_g", name), 1, channels, zooFillGain());
  ZooValue beta = zooParameter(e, zooFormat(e, "%s_b", name), 1, channels, zooFillBias());
  ZooNormSpec spec;
  memset(&spec, 0, sizeof spec);
  /* Batch norm normalizes each channel over N, H, W; instance norm over H, W. */
  spec.axes = kind == ZOO_NORM_BATCH ? 0x7u : 0x6u;
  spec.centered = true;
  spec.epsilon = 1e-5;
  spec.affineRank = 1;
  spec.affineDims[0] = 3;
  return zooNormalize(e, x, &spec, gamma, beta);
}

ZooValue zooGroupNorm(ZooEmitter *e, const char *name, ZooValue x, long long groups) {
  long long channels = x.dims[3].factor;
  long long dims[1] = {channels};
  ZooValue gamma = zooParameter(e, zooFormat(e, "%s_g", name), 1, dims, zooFillGain());
  ZooValue beta = zooParameter(e, zooFormat(e, "%s_b", name), 1, dims, zooFillBias());
  ZooSize grouped[5] = {x.dims[0], x.dims[1], x.dims[2], zooSizeStatic(groups),
                        zooSizeStatic(channels / groups)};
  ZooSize affineDims[2] = {grouped[3], grouped[4]};
  ZooNormSpec spec;
  memset(&spec, 0, sizeof spec);
  spec.axes = (1u << 1) | (1u << 2) | (1u << 4);
  spec.centered = true;
  spec.epsilon = 1e-5;
  spec.affineRank = 2;
  spec.affineDims[0] = 3;
  spec.affineDims[1] = 4;
  ZooValue y = zooNormalize(e, zooReshape(e, x, 5, grouped), &spec, zooReshape(e, gamma, 2, affineDims),
                            zooReshape(e, beta, 2, affineDims));
  return zooReshape(e, y, 4, x.dims);
}

ZooValue zooGlobalAveragePool(ZooEmitter *e, ZooValue x) {
  return zooMean(e, x, (1u << 1) | (1u << 2));
}

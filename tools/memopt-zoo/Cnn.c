/* Image classifiers: MobileNet v1 and v2, EfficientNet-B0, ResNet-50.
 * NHWC activations, HWCF filters (depthwise HWC), symmetric k/2 padding as in
 * torchvision. --norm picks batch norm (running statistics in @forward, batch
 * statistics in @train_step), instance norm, or none (a per-channel bias).
 * With --dynamic the batch is `?`. Training uses cross-entropy on i64 labels.
 * --blocks=N keeps the stem, the first N blocks and the head, for small
 * instances that still contain every kind of layer. */
#include "Models.h"

#include <string.h>

enum {
  kMobileNetV1Blocks = 13,
  kMobileNetV2Blocks = 17,
  kEfficientNetB0Blocks = 16,
  kResNet50Blocks = 16,
};

/* --blocks keeps the first N blocks (stem and head always stay). */
static bool configureBlocks(ZooOptions *o, int total, MemoptStringBuffer *error) {
  if (!o->blocks)
    o->blocks = total;
  if (o->blocks > total) {
    memoptStringBufferAppendFormat(error, "--blocks=%lld exceeds the %d blocks of %s", o->blocks,
                                   total, o->model);
    return false;
  }
  return true;
}

bool zooConfigureMobileNetV1(ZooOptions *o, MemoptStringBuffer *error) {
  return configureBlocks(o, kMobileNetV1Blocks, error);
}

bool zooConfigureMobileNetV2(ZooOptions *o, MemoptStringBuffer *error) {
  return configureBlocks(o, kMobileNetV2Blocks, error);
}

bool zooConfigureEfficientNetB0(ZooOptions *o, MemoptStringBuffer *error) {
  return configureBlocks(o, kEfficientNetB0Blocks, error);
}

bool zooConfigureResNet50(ZooOptions *o, MemoptStringBuffer *error) {
  return configureBlocks(o, kResNet50Blocks, error);
}

typedef enum Activation { ACT_NONE, ACT_RELU, ACT_RELU6, ACT_SILU } Activation;

static ZooValue activate(ZooEmitter *e, ZooValue x, Activation activation) {
  switch (activation) {
  case ACT_NONE: return x;
  case ACT_RELU: return zooPointwise(e, ZOO_RELU, x);
  case ACT_RELU6: return zooPointwise(e, ZOO_RELU6, x);
  case ACT_SILU: return zooPointwise(e, ZOO_SILU, x);
  }
  return x;
}

/* conv (no bias) -> norm -> activation */
static ZooValue convNormAct(ZooEmitter *e, const ZooOptions *o, const char *prefix, ZooValue x,
                            long long outChannels, int window, int stride, Activation activation) {
  ZooValue y = zooConvolution(e, zooFormat(e, "%s_conv", prefix), x, outChannels, window, stride, false);
  y = zooChannelNorm(e, zooFormat(e, "%s_bn", prefix), y, o->norm, o->train);
  return activate(e, y, activation);
}

static ZooValue depthwiseNormAct(ZooEmitter *e, const ZooOptions *o, const char *prefix, ZooValue x,
                                 int window, int stride, Activation activation) {
  ZooValue y = zooDepthwiseConvolution(e, zooFormat(e, "%s_dwconv", prefix), x, window, stride);
  y = zooChannelNorm(e, zooFormat(e, "%s_bn", prefix), y, o->norm, o->train);
  return activate(e, y, activation);
}

static ZooValue imageInput(ZooEmitter *e, const ZooOptions *o) {
  ZooSize batch = zooModelSize(e, o->dynamic, "batch", o->batch);
  ZooSize dims[4] = {batch, zooSizeStatic(o->resolution), zooSizeStatic(o->resolution),
                     zooSizeStatic(o->channels)};
  return zooInput(e, "image", e->floatType, 4, dims, zooFillWave(1.0, 0.0));
}

/* Global average pool, classifier, and the cross-entropy loss when training. */
static void classify(ZooEmitter *e, const ZooOptions *o, ZooValue features, ZooModelOutputs *out) {
  ZooValue pooled = zooGlobalAveragePool(e, features);
  ZooValue logits = zooLinear(e, "fc", pooled, o->classes, true);
  out->count = 1;
  out->values[0] = logits;
  if (o->train) {
    ZooSize labelDims[1] = {features.dims[0]};
    ZooValue labels = zooInput(e, "labels", ZOO_I64, 1, labelDims, zooFillInteger(o->classes));
    out->loss = zooCrossEntropy(e, logits, labels);
  }
}

/*===------------------------------------------------------------------===*
 * MobileNet v1 (Howard et al. 2017): depthwise-separable convolutions
 *===------------------------------------------------------------------===*/

void zooBuildMobileNetV1(ZooEmitter *e, const ZooOptions *o, ZooModelOutputs *out) {
  static const struct {
    int stride;
    long long channels;
  } kBlocks[] = {{1, 64},  {2, 128}, {1, 128}, {2, 256}, {1, 256}, {2, 512},  {1, 512},
                 {1, 512}, {1, 512}, {1, 512}, {1, 512}, {2, 1024}, {1, 1024}};
  ZooValue x = convNormAct(e, o, "stem", imageInput(e, o), 32, 3, 2, ACT_RELU6);
  for (size_t i = 0; i < sizeof kBlocks / sizeof kBlocks[0] && (long long)i < o->blocks; ++i) {
    const char *prefix = zooFormat(e, "block%zu", i);
    x = depthwiseNormAct(e, o, zooFormat(e, "%s_dw", prefix), x, 3, kBlocks[i].stride, ACT_RELU6);
    x = convNormAct(e, o, zooFormat(e, "%s_pw", prefix), x, kBlocks[i].channels, 1, 1, ACT_RELU6);
  }
  classify(e, o, x, out);
}

/*===------------------------------------------------------------------===*
 * MobileNet v2 (Sandler et al. 2018): inverted residuals, linear bottlenecks
 *===------------------------------------------------------------------===*/

static ZooValue invertedResidual(ZooEmitter *e, const ZooOptions *o, const char *prefix, ZooValue x,
                                 long long outChannels, int stride, long long expansion) {
  long long inChannels = x.dims[3].factor;
  ZooValue h = x;
  if (expansion != 1)
    h = convNormAct(e, o, zooFormat(e, "%s_expand", prefix), h, inChannels * expansion, 1, 1, ACT_RELU6);
  h = depthwiseNormAct(e, o, zooFormat(e, "%s_dw", prefix), h, 3, stride, ACT_RELU6);
  h = convNormAct(e, o, zooFormat(e, "%s_project", prefix), h, outChannels, 1, 1, ACT_NONE);
  return stride == 1 && inChannels == outChannels ? zooAdd(e, x, h) : h;
}

void zooBuildMobileNetV2(ZooEmitter *e, const ZooOptions *o, ZooModelOutputs *out) {
  static const struct {
    long long expansion, channels;
    int repeats, stride;
  } kStages[] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                 {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  ZooValue x = convNormAct(e, o, "stem", imageInput(e, o), 32, 3, 2, ACT_RELU6);
  int block = 0;
  for (size_t s = 0; s < sizeof kStages / sizeof kStages[0]; ++s)
    for (int r = 0; r < kStages[s].repeats && block < o->blocks; ++r, ++block)
      x = invertedResidual(e, o, zooFormat(e, "block%d", block), x, kStages[s].channels,
                           r == 0 ? kStages[s].stride : 1, kStages[s].expansion);
  x = convNormAct(e, o, "head", x, 1280, 1, 1, ACT_RELU6);
  classify(e, o, x, out);
}

/*===------------------------------------------------------------------===*
 * EfficientNet-B0 (Tan & Le 2019): MBConv with squeeze-and-excitation, SiLU
 *===------------------------------------------------------------------===*/

/* Channel attention: x * sigmoid(W2 silu(W1 mean_hw(x))), the squeeze
 * width a quarter of the block's input channels. */
static ZooValue squeezeExcite(ZooEmitter *e, const char *prefix, ZooValue x, long long squeezed) {
  ZooValue pooled = zooGlobalAveragePool(e, x);
  ZooValue s = zooPointwise(e, ZOO_SILU, zooLinear(e, zooFormat(e, "%s_reduce", prefix), pooled, squeezed, true));
  s = zooPointwise(e, ZOO_SIGMOID, zooLinear(e, zooFormat(e, "%s_expand", prefix), s, x.dims[3].factor, true));
  static const int batchAndChannel[2] = {0, 3};
  return zooBinary(e, ZOO_BINARY_MUL, x, s, batchAndChannel);
}

static ZooValue mobileInvertedBottleneck(ZooEmitter *e, const ZooOptions *o, const char *prefix, ZooValue x,
                                         long long outChannels, int window, int stride, long long expansion) {
  long long inChannels = x.dims[3].factor;
  ZooValue h = x;
  if (expansion != 1)
    h = convNormAct(e, o, zooFormat(e, "%s_expand", prefix), h, inChannels * expansion, 1, 1, ACT_SILU);
  h = depthwiseNormAct(e, o, zooFormat(e, "%s_dw", prefix), h, window, stride, ACT_SILU);
  long long squeezed = inChannels / 4 > 0 ? inChannels / 4 : 1;
  h = squeezeExcite(e, zooFormat(e, "%s_se", prefix), h, squeezed);
  h = convNormAct(e, o, zooFormat(e, "%s_project", prefix), h, outChannels, 1, 1, ACT_NONE);
  return stride == 1 && inChannels == outChannels ? zooAdd(e, x, h) : h;
}

void zooBuildEfficientNetB0(ZooEmitter *e, const ZooOptions *o, ZooModelOutputs *out) {
  static const struct {
    long long expansion;
    int window, stride;
    long long channels;
    int repeats;
  } kStages[] = {{1, 3, 1, 16, 1},  {6, 3, 2, 24, 2},  {6, 5, 2, 40, 2}, {6, 3, 2, 80, 3},
                 {6, 5, 1, 112, 3}, {6, 5, 2, 192, 4}, {6, 3, 1, 320, 1}};
  ZooValue x = convNormAct(e, o, "stem", imageInput(e, o), 32, 3, 2, ACT_SILU);
  int block = 0;
  for (size_t s = 0; s < sizeof kStages / sizeof kStages[0]; ++s)
    for (int r = 0; r < kStages[s].repeats && block < o->blocks; ++r, ++block)
      x = mobileInvertedBottleneck(e, o, zooFormat(e, "block%d", block), x, kStages[s].channels,
                                   kStages[s].window, r == 0 ? kStages[s].stride : 1,
                                   kStages[s].expansion);
  x = convNormAct(e, o, "head", x, 1280, 1, 1, ACT_SILU);
  classify(e, o, x, out);
}

/*===------------------------------------------------------------------===*
 * ResNet-50 (He et al. 2016), v1.5: the stride sits in the 3x3 convolution
 *===------------------------------------------------------------------===*/

static ZooValue bottleneck(ZooEmitter *e, const ZooOptions *o, const char *prefix, ZooValue x,
                           long long width, int stride) {
  long long outChannels = 4 * width;
  ZooValue h = convNormAct(e, o, zooFormat(e, "%s_conv1", prefix), x, width, 1, 1, ACT_RELU);
  h = convNormAct(e, o, zooFormat(e, "%s_conv2", prefix), h, width, 3, stride, ACT_RELU);
  h = convNormAct(e, o, zooFormat(e, "%s_conv3", prefix), h, outChannels, 1, 1, ACT_NONE);
  ZooValue shortcut = x;
  if (stride != 1 || x.dims[3].factor != outChannels)
    shortcut = convNormAct(e, o, zooFormat(e, "%s_downsample", prefix), x, outChannels, 1, stride, ACT_NONE);
  return zooPointwise(e, ZOO_RELU, zooAdd(e, shortcut, h));
}

void zooBuildResNet50(ZooEmitter *e, const ZooOptions *o, ZooModelOutputs *out) {
  static const struct {
    long long width;
    int blocks, stride;
  } kStages[] = {{64, 3, 1}, {128, 4, 2}, {256, 6, 2}, {512, 3, 2}};
  ZooValue x = convNormAct(e, o, "stem", imageInput(e, o), 64, 7, 2, ACT_RELU);
  long long low[4] = {0, 1, 1, 0}, high[4] = {0, 1, 1, 0};
  x = zooMaxPool(e, zooPad(e, x, low, high, ZOO_PAD_NEGATIVE_INFINITY), 3, 2);
  int block = 0;
  for (size_t s = 0; s < sizeof kStages / sizeof kStages[0]; ++s)
    for (int b = 0; b < kStages[s].blocks && block < o->blocks; ++b, ++block)
      x = bottleneck(e, o, zooFormat(e, "layer%zu_%d", s + 1, b), x, kStages[s].width,
                     b == 0 ? kStages[s].stride : 1);
  classify(e, o, x, out);
}

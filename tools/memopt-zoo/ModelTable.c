/* The model registry: names, summaries, options with defaults, builders. */
#include "Models.h"

#include <string.h>

#define TRANSFORMER_OPTIONS "batch=1 hidden=768 heads=12"
#define CNN_OPTIONS "batch=1 resolution=224 channels=3 classes=1000 norm=batch blocks=auto"

static const ZooModelInfo kModels[] = {
    {"mha", "multi-head self-attention layer (BERT-base sizes): QKV projections, softmax attention, output projection",
     TRANSFORMER_OPTIONS " seq=512 causal", zooConfigureMha, zooBuildMha},
    {"gpt2-block", "one GPT-2 transformer block: pre-LayerNorm causal attention + GELU MLP, residuals",
     TRANSFORMER_OPTIONS " seq=1024 intermediate=auto", zooConfigureGpt2, zooBuildGpt2Block},
    {"gpt2", "GPT-2 small: token + position embedding, n blocks, final LayerNorm, tied LM head",
     TRANSFORMER_OPTIONS " seq=1024 intermediate=auto layers=12 vocab=50257 positions=1024",
     zooConfigureGpt2, zooBuildGpt2},
    {"bert-encoder", "BERT-base encoder stack: post-LayerNorm attention with padding mask + GELU FFN",
     TRANSFORMER_OPTIONS " seq=512 intermediate=auto layers=12", zooConfigureBert,
     zooBuildBertEncoder},
    {"llama-block", "one LLaMA-7B block: RMSNorm, rotary embedding, causal (grouped-query) attention, SwiGLU",
     "batch=1 seq=2048 hidden=4096 heads=32 kv-heads=auto intermediate=auto", zooConfigureLlama,
     zooBuildLlamaBlock},
    {"evoformer-block", "AlphaFold-2 Evoformer: MSA row/column attention, transitions, outer product mean, "
     "triangle multiplication and attention",
     "msa=512 residues=256 hidden=256 heads=8 pair-channels=128 pair-heads=4 outer-channels=32 layers=1",
     zooConfigureEvoformer, zooBuildEvoformer},
    {"unet", "DDPM-style diffusion UNet: timestep embedding, GroupNorm+SiLU res blocks, attention at 1/2 "
     "resolution, skip concatenation",
     "batch=1 resolution=32 channels=3 hidden=128 groups=32 layers=2 heads=1 levels=4", zooConfigureUNet,
     zooBuildUNet},
    {"unet-attention",
     "the UNet's self-attention block alone: GroupNorm, q/k/v projections, softmax "
     "attention over the H*W positions, output projection, residual",
     "batch=1 resolution=16 hidden=256 groups=32 heads=1", zooConfigureUNetAttention,
     zooBuildUNetAttention},
    {"mobilenet-v1", "MobileNet v1: 13 depthwise-separable blocks, ReLU6, global pool, classifier",
     CNN_OPTIONS, zooConfigureMobileNetV1, zooBuildMobileNetV1},
    {"mobilenet-v2", "MobileNet v2: 17 inverted residual blocks (expand, depthwise, project), ReLU6",
     CNN_OPTIONS, zooConfigureMobileNetV2, zooBuildMobileNetV2},
    {"efficientnet-b0", "EfficientNet-B0: 16 MBConv blocks with squeeze-and-excitation, SiLU, 3x3/5x5 depthwise",
     CNN_OPTIONS, zooConfigureEfficientNetB0, zooBuildEfficientNetB0},
    {"resnet50", "ResNet-50 (v1.5): 7x7 stem, max pool, 16 bottleneck blocks, global pool, classifier",
     CNN_OPTIONS, zooConfigureResNet50, zooBuildResNet50},
};

const ZooModelInfo *zooModelTable(int *count) {
  *count = (int)(sizeof kModels / sizeof kModels[0]);
  return kModels;
}

const ZooModelInfo *zooFindModel(const char *name) {
  for (size_t i = 0; i < sizeof kModels / sizeof kModels[0]; ++i)
    if (strcmp(kModels[i].name, name) == 0)
      return &kModels[i];
  return NULL;
}

const char *zooClosestModelName(const char *name) {
  const char *best = kModels[0].name;
  size_t bestDistance = (size_t)-1;
  for (size_t i = 0; i < sizeof kModels / sizeof kModels[0]; ++i) {
    size_t distance = memoptEditDistance(name, kModels[i].name);
    if (distance < bestDistance) {
      bestDistance = distance;
      best = kModels[i].name;
    }
  }
  return best;
}

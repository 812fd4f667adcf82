/* memopt-zoo model registry and the model builders, one source file per family:
 * Transformers.c, Evoformer.c, UNet.c, Cnn.c. */
#ifndef MEMOPT_ZOO_MODELS_H
#define MEMOPT_ZOO_MODELS_H

#include "Options.h"

#define ZOO_MAX_OUTPUTS 4

typedef struct ZooModelOutputs {
  int count;
  ZooValue values[ZOO_MAX_OUTPUTS]; /* results of @forward */
  ZooValue loss;                    /* rank-0 loss, built when options->train */
} ZooModelOutputs;

typedef struct ZooModelInfo {
  const char *name;
  const char *summary;
  /* The options the model uses with their defaults ("auto": derived by configure). */
  const char *options;
  /// Derives the "auto" options and checks the combination; false with `error`.
  bool (*configure)(ZooOptions *options, MemoptStringBuffer *error);
  /// Declares the arguments and writes the forward pass (and the loss when training).
  void (*build)(ZooEmitter *e, const ZooOptions *options, ZooModelOutputs *outputs);
} ZooModelInfo;

/// Returns the table of models and its length.
const ZooModelInfo *zooModelTable(int *count);

/// Returns the model called `name`, or NULL.
const ZooModelInfo *zooFindModel(const char *name);

/// Returns the model name closest to `name` (edit distance).
const char *zooClosestModelName(const char *name);

/// Writes `error` and returns false unless `divisor` divides `value`.
bool zooCheckDivides(long long divisor, const char *divisorName, long long value,
                     const char *valueName, MemoptStringBuffer *error);

/// The loss of a model without labels: mean squared error of each output
/// against a new `target` argument, summed.
ZooValue zooRegressionLoss(ZooEmitter *e, const ZooModelOutputs *outputs);

/* Transformers.c */
bool zooConfigureMha(ZooOptions *options, MemoptStringBuffer *error);
void zooBuildMha(ZooEmitter *e, const ZooOptions *options, ZooModelOutputs *outputs);
bool zooConfigureGpt2(ZooOptions *options, MemoptStringBuffer *error);
void zooBuildGpt2Block(ZooEmitter *e, const ZooOptions *options, ZooModelOutputs *outputs);
void zooBuildGpt2(ZooEmitter *e, const ZooOptions *options, ZooModelOutputs *outputs);
bool zooConfigureBert(ZooOptions *options, MemoptStringBuffer *error);
void zooBuildBertEncoder(ZooEmitter *e, const ZooOptions *options, ZooModelOutputs *outputs);
bool zooConfigureLlama(ZooOptions *options, MemoptStringBuffer *error);
void zooBuildLlamaBlock(ZooEmitter *e, const ZooOptions *options, ZooModelOutputs *outputs);

/* Evoformer.c */
bool zooConfigureEvoformer(ZooOptions *options, MemoptStringBuffer *error);
void zooBuildEvoformer(ZooEmitter *e, const ZooOptions *options, ZooModelOutputs *outputs);

/* UNet.c */
bool zooConfigureUNet(ZooOptions *options, MemoptStringBuffer *error);
void zooBuildUNet(ZooEmitter *e, const ZooOptions *options, ZooModelOutputs *outputs);
bool zooConfigureUNetAttention(ZooOptions *options, MemoptStringBuffer *error);
void zooBuildUNetAttention(ZooEmitter *e, const ZooOptions *options, ZooModelOutputs *outputs);

/* Cnn.c */
bool zooConfigureMobileNetV1(ZooOptions *options, MemoptStringBuffer *error);
bool zooConfigureMobileNetV2(ZooOptions *options, MemoptStringBuffer *error);
bool zooConfigureEfficientNetB0(ZooOptions *options, MemoptStringBuffer *error);
bool zooConfigureResNet50(ZooOptions *options, MemoptStringBuffer *error);
void zooBuildMobileNetV1(ZooEmitter *e, const ZooOptions *options, ZooModelOutputs *outputs);
void zooBuildMobileNetV2(ZooEmitter *e, const ZooOptions *options, ZooModelOutputs *outputs);
void zooBuildEfficientNetB0(ZooEmitter *e, const ZooOptions *options, ZooModelOutputs *outputs);
void zooBuildResNet50(ZooEmitter *e, const ZooOptions *options, ZooModelOutputs *outputs);

/* Generate.c */

/// Writes the whole module for `model` (entry function and, with --with-main,
/// @main) to `module`; false with `error` (nothing usable in `module`).
bool zooGenerate(const ZooOptions *options, const ZooModelInfo *model, const char *commandLine,
                 MemoptStringBuffer *module, MemoptStringBuffer *error);

#endif /* MEMOPT_ZOO_MODELS_H */

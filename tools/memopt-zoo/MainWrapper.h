/* memopt-zoo --with-main: a @main that makes a generated model runnable
 * under mlir-runner. */
#ifndef MEMOPT_ZOO_MAIN_WRAPPER_H
#define MEMOPT_ZOO_MAIN_WRAPPER_H

#include "Emitter.h"

typedef struct ZooEntrySignature {
  const char *name;            /* "forward" or "train_step" */
  const ZooArgument *arguments; /* with the entry's (possibly dynamic) types */
  int argumentCount;
  const ZooValue *results;
  int resultCount;
  const long long *symbolValues; /* concrete size of each dynamic symbol */
  bool isTrainStep;             /* results are (loss, one gradient per parameter) */
} ZooEntrySignature;

/// Appends @main and the printMemrefF32 declaration to `module`. @main fills
/// every argument deterministically, calls the entry and prints its results
/// (a training step instead prints the loss and a directional-derivative check:
/// (L(p + eps g) - L(p - eps g)) / (2 eps |g|^2), which is 1 when the gradient is right).
void zooEmitMain(ZooEmitter *e, MemoptStringBuffer *module, const ZooEntrySignature *entry);

#endif /* MEMOPT_ZOO_MAIN_WRAPPER_H */

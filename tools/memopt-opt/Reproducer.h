/* --run-reproducer: the pipeline and flags an MLIR reproducer file carries in
 * its metadata, {-# external_resources: { mlir_reproducer: {...} } #-}. */
#ifndef MEMOPT_OPT_REPRODUCER_H
#define MEMOPT_OPT_REPRODUCER_H

#include "mlir-c/IR.h"

#include <stdbool.h>

/// What the mlir_reproducer resource gives; each part may be absent.
typedef struct Reproducer {
  char *pipeline; /* owned; NULL when the resource names none */
  bool hasDisableThreading;
  bool disableThreading;
  bool hasVerifyEach;
  bool verifyEach;
} Reproducer;

/// Reads the mlir_reproducer resource of the file metadata in `source` (a
/// buffer that parsed) into `reproducer`, which stays empty when there is
/// none. A key other than pipeline, disable_threading and verify_each, or a
/// value of the wrong kind, is an error emitted at it in `sourceName`.
MlirLogicalResult reproducerRead(MlirContext context, MlirStringRef source,
                                 const char *sourceName, Reproducer *reproducer);

/// Frees what reproducerRead allocated.
void reproducerDestroy(Reproducer *reproducer);

#endif /* MEMOPT_OPT_REPRODUCER_H */

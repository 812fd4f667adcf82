/* remat-dynamic: the pass (RematDynamic.h has the model). It reads the
 * options, builds the memory profile and shape symbols of one function,
 * runs the search (RematDynamicSearch.c) and the rewrite
 * (RematDynamicRewrite.c), and reports the values made evictable in a
 * remark on the function. */
#include "Remat/RematDynamic.h"

#include "Analysis/Analysis.h"
#include "Remat/Remat.h"

#include "mlir-c/Dialect/Vector.h"

#include <stdlib.h>

/* Appends to `message` the remark's description of each accepted candidate:
 * its gap, bytes, chain length, nested regenerates and restore footprint. */
static void describeEvictable(const MemoptShapeSymbols *symbols, EvictionCandidate *const *accepted,
                              size_t acceptedCount, MemoptStringBuffer *message) {
  const char *const *names = memoptShapeSymbolsGetNames(symbols);
  size_t symbolCount = memoptShapeSymbolsGetNumSymbols(symbols);
  for (size_t i = 0; i < acceptedCount; ++i) {
    const EvictionCandidate *candidate = accepted[i];
    memoptStringBufferAppendFormat(message, "%s ops %zu..%zu, ", i ? ";" : ":",
                                   candidate->gapStart, candidate->gapEnd);
    memoptPolynomialPrint(candidate->bytes, names, symbolCount, message);
    memoptStringBufferAppendFormat(message, " bytes, %zu op%s recomputed", candidate->chainCount,
                                   candidate->chainCount == 1 ? "" : "s");
    size_t nested = 0;
    for (size_t j = 0; j < acceptedCount; ++j)
      nested += j != i && rematDynamicReadsWhileEvicted(candidate, candidate->gapEnd, accepted[j]);
    if (nested)
      memoptStringBufferAppendFormat(message, ", %zu evictable input%s regenerated inside", nested,
                                     nested == 1 ? "" : "s");
    if (candidate->restoreBytes) {
      memoptStringBufferAppendFormat(message, ", restored beside ");
      memoptPolynomialPrint(candidate->restoreBytes, names, symbolCount, message);
      memoptStringBufferAppendFormat(message, " resident bytes");
    }
  }
}

static MlirLogicalResult runRematDynamic(MlirOperation func, const MemoptPassOptions *options) {
  MlirRegion bodyRegion = mlirOperationGetRegion(func, 0);
  MlirBlock entry = mlirRegionGetFirstBlock(bodyRegion);
  if (mlirBlockIsNull(entry) || !mlirBlockIsNull(mlirBlockGetNextInRegion(entry)))
    return mlirLogicalResultSuccess(); /* a declaration, or control flow the profile does not model */
  MemoptShapeSymbols *symbols = memoptPassCreateShapeSymbols(func);
  if (!symbols)
    return mlirLogicalResultFailure();
  MemoptStringBuffer error = memoptStringBufferCreate();
  MemoptMemoryProfile *profile = memoptMemoryProfileCreate(func, false, &error);
  if (!profile) {
    memoptEmitDiagnostic(mlirOperationGetLocation(func), MlirDiagnosticError, error.data);
    memoptStringBufferDestroy(&error);
    memoptShapeSymbolsDestroy(symbols);
    return mlirLogicalResultFailure();
  }
  memoptStringBufferDestroy(&error);

  RematDynamicContext context = {
      .profile = profile,
      .symbols = symbols,
      .positionCount = memoptMemoryProfileGetNumPositions(profile),
      .bufferCount = memoptMemoryProfileGetNumBuffers(profile),
      .minGap = memoptPassOptionsGetInteger(options, "min-gap"),
      .maxChain = memoptPassOptionsGetInteger(options, "max-chain"),
      .maxOps = memoptPassOptionsGetInteger(options, "max-ops"),
      .maxNested = memoptPassOptionsGetInteger(options, "max-nested"),
      .minBytes = (uint64_t)memoptPassOptionsGetInteger(options, "min-bytes"),
      .everywhere = memoptPassOptionsGetBool(options, "everywhere"),
      .restoreFootprints = memoptPassOptionsGetBool(options, "restore-footprints"),
  };
  rematDynamicContextAnalyse(&context);

  size_t candidateCount;
  EvictionCandidate *candidates = rematDynamicFindCandidates(&context, &candidateCount);
  rematDynamicOrderCandidates(symbols, candidates, candidateCount);
  size_t acceptedCount;
  EvictionCandidate **accepted =
      rematDynamicAcceptCandidates(&context, candidates, candidateCount, &acceptedCount);
  size_t *regenerateAt = rematDynamicRegenerationPositions(accepted, acceptedCount);
  if (context.restoreFootprints)
    rematDynamicMeasureRestoreFootprints(&context, accepted, acceptedCount, regenerateAt);

  MemoptStringBuffer message = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&message, "remat-dynamic: %zu value%s made evictable",
                                 acceptedCount, acceptedCount == 1 ? "" : "s");
  describeEvictable(symbols, accepted, acceptedCount, &message);
  rematDynamicBuildRestoreFootprints(&context, entry, accepted, acceptedCount);
  for (size_t i = 0; i < acceptedCount; ++i)
    rematDynamicRewrite(&context, accepted[i], accepted, acceptedCount, regenerateAt[i]);
  free(regenerateAt);
  memoptEmitDiagnostic(mlirOperationGetLocation(func), MlirDiagnosticRemark, message.data);
  memoptStringBufferDestroy(&message);

  for (size_t i = 0; i < candidateCount; ++i)
    rematDynamicCandidateDestroy(&candidates[i]);
  free(candidates);
  free(accepted);
  rematDynamicContextDestroy(&context);
  memoptMemoryProfileDestroy(profile);
  memoptShapeSymbolsDestroy(symbols);
  return mlirLogicalResultSuccess();
}

static const MemoptPassOptionInfo rematDynamicOptions[] = {
    {"min-gap", MemoptOptionInteger, "4",
     "fewest ops between the last use before a gap and the regenerate", NULL, 1, 1e9},
    {"max-chain", MemoptOptionInteger, "2",
     "most contractions (matmul-like ops) recomputed to regenerate one value", NULL, 0, 64},
    {"max-ops", MemoptOptionInteger, "32", "most ops recomputed to regenerate one value", NULL, 1,
     1000},
    {"max-nested", MemoptOptionInteger, "16",
     "most regenerates nested in one regeneration, at any depth (for its inputs that may be "
     "evicted there)",
     NULL, 0, 1000},
    {"min-bytes", MemoptOptionBytes, "0", "smallest size (surely) worth evicting", NULL, 0, 9e18},
    {"everywhere", MemoptOptionBool, "false",
     "also gaps that span no candidate peak of the symbolic live bytes", NULL, 0, 0},
    {"restore-footprints", MemoptOptionBool, "true",
     "state on each evict the bytes resident while its regenerate runs (the runtime evicts a "
     "buffer whose restoration cannot fit its limit last, and only when that lowers the peak)",
     NULL, 0, 0},
};

static MlirDialectHandle (*const rematDynamicDialects[])(void) = {
    mlirGetDialectHandle__vector__,
};

const MemoptPassInfo memoptRematDynamicPass = {
    .argument = "remat-dynamic",
    .summary =
        "Insert remat.evict / remat.regenerate around long gaps of dynamically sized tensors "
        "whose producers are cheap to recompute (eviction decided at run time)",
    .anchor = "func.func",
    .options = rematDynamicOptions,
    .optionCount = sizeof rematDynamicOptions / sizeof *rematDynamicOptions,
    .dependentDialects = rematDynamicDialects,
    .dependentDialectCount = sizeof rematDynamicDialects / sizeof *rematDynamicDialects,
    .run = runRematDynamic,
};

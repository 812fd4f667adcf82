/* The registry of memopt passes, the table of upstream pass names, and the
 * bridge from a MemoptPassInfo to an MLIR external pass. */
#include "IR/IR.h"
#include "Pass/Pass.h"

#include <stdlib.h>
#include <string.h>

/* Filled once at startup by memoptRegisterAllPasses (lib/InitAllPasses.c),
 * before any lookup: the framework itself knows no pass. */
static const MemoptPassInfo **passes;
static size_t passCount, passCapacity;

void memoptPassRegister(const MemoptPassInfo *pass) {
  if (memoptPassLookup(pass->argument, strlen(pass->argument)))
    return;
  passes = memoptGrowArray(passes, &passCapacity, passCount + 1, sizeof *passes);
  passes[passCount++] = pass;
}

extern const struct {
  const char *name;
  const char *summary;
  bool pipeline;
} memoptUpstreamPasses[];
extern const size_t memoptUpstreamPassesCount;

size_t memoptPassCount(void) { return passCount; }

const MemoptPassInfo *memoptPassAt(size_t index) { return passes[index]; }

const MemoptPassInfo *memoptPassLookup(const char *argument, size_t length) {
  for (size_t i = 0; i < memoptPassCount(); ++i)
    if (strlen(passes[i]->argument) == length && memcmp(passes[i]->argument, argument, length) == 0)
      return passes[i];
  return NULL;
}

size_t memoptUpstreamPassCount(void) { return memoptUpstreamPassesCount; }

const char *memoptUpstreamPassName(size_t index) { return memoptUpstreamPasses[index].name; }

bool memoptUpstreamPassIsPipeline(size_t index) { return memoptUpstreamPasses[index].pipeline; }

const char *memoptUpstreamPassSummary(size_t index) { return memoptUpstreamPasses[index].summary; }

typedef struct Suggestion {
  const char *name;
  size_t distance;
} Suggestion;

static void consider(Suggestion best[3], const char *typed, const char *candidate) {
  size_t distance = memoptEditDistance(typed, candidate);
  /* Close means at most a third of the candidate's letters differ. */
  if (distance > (strlen(candidate) + 2) / 3)
    return;
  for (int i = 0; i < 3; ++i)
    if (!best[i].name || distance < best[i].distance) {
      for (int j = 2; j > i; --j)
        best[j] = best[j - 1];
      best[i] = (Suggestion){candidate, distance};
      return;
    }
}

void memoptPassSuggest(const char *name, MemoptStringBuffer *out) {
  Suggestion best[3] = {{NULL, 0}, {NULL, 0}, {NULL, 0}};
  for (size_t i = 0; i < memoptPassCount(); ++i)
    consider(best, name, passes[i]->argument);
  for (size_t i = 0; i < memoptUpstreamPassCount(); ++i)
    consider(best, name, memoptUpstreamPassName(i));
  for (int i = 0; i < 3 && best[i].name; ++i)
    memoptStringBufferAppendFormat(out, "%s'%s'", i ? ", " : "", best[i].name);
}

/* One instance of a memopt pass inside a pass manager. */
typedef struct PassInstance {
  const MemoptPassInfo *info;
  MemoptPassOptions *options;
} PassInstance;

static PassInstance *createInstance(const MemoptPassInfo *info, const MemoptPassOptions *options) {
  PassInstance *instance = memoptAllocateZeroed(1, sizeof *instance);
  instance->info = info;
  instance->options = memoptPassOptionsClone(options);
  return instance;
}

static void constructInstance(void *userData) {}

static void destructInstance(void *userData) {
  PassInstance *instance = userData;
  memoptPassOptionsDestroy(instance->options);
  free(instance);
}

static MlirLogicalResult initializeInstance(MlirContext context, void *userData) {
  return mlirLogicalResultSuccess();
}

/* The pass manager clones passes to run them on several ops in parallel. */
static void *cloneInstance(void *userData) {
  PassInstance *instance = userData;
  return createInstance(instance->info, instance->options);
}

static void runInstance(MlirOperation op, MlirExternalPass pass, void *userData) {
  PassInstance *instance = userData;
  /* memopt ops a pass creates must satisfy the checks IRDL cannot express. */
  if (mlirLogicalResultIsFailure(instance->info->run(op, instance->options)) ||
      mlirLogicalResultIsFailure(memoptVerifyOps(op)))
    mlirExternalPassSignalFailure(pass);
}

MlirPass memoptPassCreate(const MemoptPassInfo *pass, const MemoptPassOptions *options) {
  MlirDialectHandle dialects[16];
  size_t dialectCount = pass->dependentDialectCount;
  if (dialectCount > sizeof dialects / sizeof *dialects)
    abort();
  for (size_t i = 0; i < dialectCount; ++i)
    dialects[i] = pass->dependentDialects[i]();
  MlirExternalPassCallbacks callbacks = {constructInstance, destructInstance, initializeInstance,
                                         cloneInstance, runInstance};
  MlirStringRef argument = mlirStringRefCreateFromCString(pass->argument);
  return mlirCreateExternalPass(mlirTypeIDCreate(pass), argument, argument,
                                mlirStringRefCreateFromCString(pass->summary),
                                mlirStringRefCreateFromCString(pass->anchor),
                                (intptr_t)dialectCount, dialects, callbacks,
                                createInstance(pass, options));
}

/* autochunk: activation chunking (Zhao et al., ICLR 2024). Stage by stage:
 * estimate the activation peak, search the legal chunk regions around it,
 * wrap the best in a chunk.region, until the budget is met or nothing legal
 * lowers the peak any more (a remark then says how far it got). */
#include "Analysis/Analysis.h"
#include "IR/IR.h"
#include "Chunk/AutoChunk.h"
#include "Chunk/AutoChunkReport.h"
#include "Chunk/Chunk.h"
#include "Chunk/ChunkRegion.h"

#include "mlir-c/Dialect/Vector.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Returns the profile of `func`, or NULL after a remark saying why not. */
static MemoptMemoryProfile *profileOf(MlirOperation func) {
  MemoptStringBuffer error = memoptStringBufferCreate();
  MemoptMemoryProfile *profile = memoptMemoryProfileCreate(func, /*analyzeCallees=*/true, &error);
  if (!profile)
    memoptEmitOpDiagnostic(func, MlirDiagnosticRemark,
                           "autochunk: cannot estimate the memory of the function: %s", error.data);
  memoptStringBufferDestroy(&error);
  return profile;
}

/* The stages run on one working copy of a function. */
typedef struct Attempt {
  MlirOperation work; /* the copy beside the function, chunked */
  uint64_t peak;      /* its estimated peak after the stages */
  long long stages;
  AutoChunkChoice *choices;  /* per stage */
  uint64_t *peaksBefore;     /* per stage */
  char **messages;           /* per stage: its remark, emitted once the stages are kept */
  MlirLocation *locations;   /* per stage: where the remark goes */
  MemoptStringBuffer reason; /* why the stages stopped short of the budget */
  intptr_t expandedClones;   /* ops recomputing larger values before the stages */
} Attempt;

/* Runs up to `maxStages` stages on a copy of `func` (which keeps its place
 * and name) until `limits` are met or nothing lowers the peak any more. */
static Attempt runStages(MlirOperation func, const AutoChunkLimits *limits, uint64_t initialPeak,
                         long long maxStages) {
  Attempt attempt = {.work = mlirOperationClone(func),
                     .peak = initialPeak,
                     .choices = memoptAllocateZeroed((size_t)maxStages, sizeof(AutoChunkChoice)),
                     .peaksBefore = memoptAllocateZeroed((size_t)maxStages, sizeof(uint64_t)),
                     .messages = memoptAllocateZeroed((size_t)maxStages, sizeof(char *)),
                     .locations = memoptAllocateZeroed((size_t)maxStages, sizeof(MlirLocation)),
                     .reason = memoptStringBufferCreate()};
  mlirBlockInsertOwnedOperationAfter(mlirOperationGetBlock(func), func, attempt.work);
  for (; attempt.stages < maxStages && attempt.peak > limits->budget; ++attempt.stages) {
    AutoChunkChoice choice;
    memoptStringBufferClear(&attempt.reason);
    if (!autoChunkSearch(attempt.work, limits, &choice, &attempt.reason))
      break;
    MlirOperation region = autoChunkApply(attempt.work, &choice);
    MemoptStringBuffer message = memoptStringBufferCreate();
    memoptStringBufferAppendFormat(
        &message,
        "autochunk stage %lld: %ld ops chunked along %s %lld in %lld chunks of %lld "
        "(%ld hoisted); estimated peak %llu -> %llu bytes",
        attempt.stages + 1, (long)choice.chunkedOps,
        choice.combining ? "reduced loop" : "dimension",
        (long long)choice.dim, (long long)(choice.extent / choice.chunkSize),
        (long long)choice.chunkSize,
        (long)choice.hoistedOps, (unsigned long long)attempt.peak,
        (unsigned long long)choice.peakBytes);
    if (choice.recomputedOps)
      memoptStringBufferAppendFormat(
          &message, "; %ld of the ops recompute inputs from values live across the region",
          (long)choice.recomputedOps);
    attempt.choices[attempt.stages] = choice;
    attempt.peaksBefore[attempt.stages] = attempt.peak;
    attempt.peak = choice.peakBytes;
    /* The region has the location of the last op it took in. */
    attempt.locations[attempt.stages] = mlirOperationGetLocation(region);
    attempt.messages[attempt.stages] = memoptStringBufferRelease(&message);
  }
  return attempt;
}

/* Runs the stages on a copy of `func` whose values larger than their inputs
 * are recomputed before their later readers (ChunkRecomputeExpanded.c): the
 * gap must be wider than a region, and the chain fit in one. Returns false,
 * running nothing, when no value qualifies or the copy cannot be estimated. */
static bool runStagesRecomputingExpanded(MlirOperation func, const AutoChunkLimits *limits,
                                         long long maxStages, Attempt *attempt) {
  MlirOperation copy = mlirOperationClone(func);
  mlirBlockInsertOwnedOperationAfter(mlirOperationGetBlock(func), func, copy);
  intptr_t clones = memoptChunkRecomputeExpandedValues(
      mlirRegionGetFirstBlock(mlirOperationGetRegion(copy, 0)), limits->maxRegionOps,
      limits->maxRegionOps);
  MemoptMemoryProfile *profile = clones ? profileOf(copy) : NULL;
  if (profile) {
    *attempt = runStages(copy, limits, memoptMemoryProfileGetPeakBytes(profile), maxStages);
    attempt->expandedClones = clones;
    memoptMemoryProfileDestroy(profile);
  }
  mlirOperationDestroy(copy);
  return profile != NULL;
}

/* Frees what `attempt` holds; erases its copy unless `keepWork`. */
static void attemptDestroy(Attempt *attempt, bool keepWork) {
  if (!keepWork)
    mlirOperationDestroy(attempt->work);
  for (long long i = 0; i < attempt->stages; ++i)
    free(attempt->messages[i]);
  free(attempt->choices);
  free(attempt->peaksBefore);
  free(attempt->messages);
  free(attempt->locations);
  memoptStringBufferDestroy(&attempt->reason);
}

/* Keeps in `*best` the lower of it and `other`, and frees the other. */
static void keepLower(Attempt *best, Attempt other) {
  bool lower = other.peak < best->peak;
  attemptDestroy(lower ? best : &other, false);
  if (lower)
    *best = other;
}

/* Chunks a working copy of `func` (which keeps its place and name until the
 * outcome is known); records what it did in `report`. Returns the function
 * that now stands where `func` stood. */
static MlirOperation chunkFunction(MlirOperation func, const MemoptPassOptions *options,
                                   AutoChunkReport *report) {
  MemoptMemoryProfile *profile = profileOf(func);
  if (!profile)
    return func;
  for (size_t position = 0; position < memoptMemoryProfileGetNumPositions(profile); ++position)
    if (memoptMemoryProfileHasUnknownSize(profile, position)) {
      memoptEmitOpDiagnostic(
          func, MlirDiagnosticRemark,
          "autochunk: the function holds tensors of dynamic size, so its peak is not a number "
          "of bytes; chunking needs static sizes");
      memoptMemoryProfileDestroy(profile);
      return func;
    }
  uint64_t initialPeak = memoptMemoryProfileGetPeakBytes(profile);
  AutoChunkLimits limits = {
      .budget = memoptPassOptionsIsSet(options, "budget")
                    ? (uint64_t)memoptPassOptionsGetInteger(options, "budget")
                    : (uint64_t)floor((double)initialPeak *
                                      memoptPassOptionsGetFloat(options, "budget-ratio")),
      .maxRegionOps = memoptPassOptionsGetInteger(options, "max-region-ops"),
      .launchCost = (uint64_t)memoptPassOptionsGetInteger(options, "launch-cost"),
      .minInnerChunk = memoptPassOptionsGetInteger(options, "min-inner-chunk"),
      .wholeFunction = memoptPassOptionsGetBool(options, "whole-function-evaluation"),
      .recomputeInputs = false,
  };
  AutoChunkReportFunction *entry = autoChunkReportAddFunction(report, func, limits.budget, profile);
  memoptMemoryProfileDestroy(profile);

  /* Stages run on a copy beside the function, so the function stays as it
   * was when the budget cannot be met (unless allow-partial). Recomputing
   * inputs costs speed and changes which regions the stages build, so it is
   * tried only when plain chunking misses the budget, and kept only when it
   * gets lower. */
  long long maxStages = memoptPassOptionsGetInteger(options, "max-stages");
  Attempt attempt = runStages(func, &limits, initialPeak, maxStages);
  if (attempt.peak > limits.budget && memoptPassOptionsGetBool(options, "recompute-inputs")) {
    limits.recomputeInputs = true;
    keepLower(&attempt, runStages(func, &limits, initialPeak, maxStages));
  }
  Attempt expanded;
  if (attempt.peak > limits.budget && memoptPassOptionsGetBool(options, "recompute-expanded") &&
      runStagesRecomputingExpanded(func, &limits, maxStages, &expanded))
    keepLower(&attempt, expanded);
  uint64_t peak = attempt.peak;
  long long stage = attempt.stages;
  bool met = peak <= limits.budget;
  bool keep = stage > 0 && (met || memoptPassOptionsGetBool(options, "allow-partial"));
  for (long long i = 0; i < stage && keep; ++i) {
    memoptEmitDiagnostic(attempt.locations[i], MlirDiagnosticRemark, attempt.messages[i]);
    autoChunkReportAddStage(entry, &attempt.choices[i], attempt.peaksBefore[i]);
  }
  MlirOperation result = func;
  if (keep) {
    mlirOperationDestroy(func);
    result = attempt.work;
    if (attempt.expandedClones)
      memoptEmitOpDiagnostic(result, MlirDiagnosticRemark,
                             "autochunk: %ld ops recompute values larger than their inputs (the "
                             "attention probabilities of a training step, say) before their "
                             "readers after a gap wider than a region",
                             (long)attempt.expandedClones);
  }
  profile = profileOf(result);
  if (profile)
    autoChunkReportFinish(entry, profile);
  memoptMemoryProfileDestroy(profile);
  if (met)
    memoptEmitOpDiagnostic(
        result, MlirDiagnosticRemark,
        "autochunk: estimated peak %llu -> %llu bytes in %lld stages (budget %llu bytes)",
        (unsigned long long)initialPeak, (unsigned long long)peak, stage,
        (unsigned long long)limits.budget);
  else
    memoptEmitOpDiagnostic(
        result, MlirDiagnosticRemark,
        "autochunk: the budget of %llu bytes is out of reach: the best is %llu bytes (from "
        "%llu) after %lld stages, then %s; %s",
        (unsigned long long)limits.budget, (unsigned long long)peak,
        (unsigned long long)initialPeak, stage,
        stage == maxStages ? "max-stages was reached" : memoptStringBufferGet(&attempt.reason),
        keep ? "the stages are kept (allow-partial)" : "the function is left unchanged");
  attemptDestroy(&attempt, keep);
  return result;
}

static MlirLogicalResult runAutoChunk(MlirOperation module, const MemoptPassOptions *options) {
  AutoChunkReport *report = autoChunkReportCreate();
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  MlirLogicalResult result = mlirLogicalResultSuccess();
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (memoptOperationIsA(op, "func.func") && !mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0))))
      op = chunkFunction(op, options, report);
  const char *reportPath = memoptPassOptionsGetString(options, "report");
  const char *timelinePath = memoptPassOptionsGetString(options, "timeline");
  MemoptStringBuffer error = memoptStringBufferCreate();
  if ((*reportPath && !autoChunkReportWriteJson(report, reportPath, &error)) ||
      (*timelinePath && !autoChunkReportWriteTimeline(report, timelinePath, &error))) {
    mlirEmitError(mlirOperationGetLocation(module), error.data);
    result = mlirLogicalResultFailure();
  }
  memoptStringBufferDestroy(&error);
  autoChunkReportDestroy(report);
  return result;
}

static const MemoptPassOptionInfo autoChunkOptions[] = {
    {"budget", MemoptOptionBytes, "0",
     "activation-memory budget in bytes per function (overrides budget-ratio)", NULL, 0, 9e18},
    {"budget-ratio", MemoptOptionFloat, "0.2",
     "budget as a fraction of the function's unchunked peak", NULL, 0, 1},
    {"max-stages", MemoptOptionInteger, "8", "most chunk regions created per function", NULL, 1,
     10000},
    {"max-region-ops", MemoptOptionInteger, "32", "most ops in one candidate region", NULL, 1,
     1000},
    {"launch-cost", MemoptOptionBytes, "4KiB",
     "cost of running one op once more per chunk, as bytes of memory traffic", NULL, 0, 9e18},
    {"min-inner-chunk", MemoptOptionInteger, "16",
     "smallest slice of a value's innermost dimension (keeps loops vectorizable)", NULL, 1, 1e9},
    {"whole-function-evaluation", MemoptOptionBool, "false",
     "measure each candidate on the whole function instead of a window around the peak (slower; "
     "the choices are the same)",
     NULL, 0, 0},
    {"recompute-inputs", MemoptOptionBool, "true",
     "when plain chunking misses the budget, run the stages again letting a region recompute, "
     "chunk by chunk, inputs that cheap ops (elementwise, norms, linear layers) computed from "
     "values live across it anyway, and keep the lower peak",
     NULL, 0, 0},
    {"recompute-expanded", MemoptOptionBool, "true",
     "when chunking misses the budget, run the stages again on the function with its values "
     "larger than their inputs (attention probabilities from q and k) recomputed before their "
     "readers after a gap wider than a region, from values live there anyway, and keep the "
     "lower peak",
     NULL, 0, 0},
    {"allow-partial", MemoptOptionBool, "false",
     "keep the stages that lower the peak even when the budget stays out of reach", NULL, 0, 0},
    {"report", MemoptOptionOutputFile, "", "write a JSON report of the decisions to this file", NULL, 0,
     0},
    {"timeline", MemoptOptionOutputFile, "",
     "write an SVG picture of live bytes by op position, before and after", NULL, 0, 0},
};

/* vector for the regions' vector.yield terminators. */
static MlirDialectHandle (*const autoChunkDialects[])(void) = {mlirGetDialectHandle__vector__};

const MemoptPassInfo memoptAutoChunkPass = {
    .argument = "autochunk",
    .summary = "Chunk the ops around the activation-memory peak into chunk.region ops until "
               "the budget is met",
    .anchor = "builtin.module",
    .options = autoChunkOptions,
    .optionCount = sizeof autoChunkOptions / sizeof *autoChunkOptions,
    .dependentDialects = autoChunkDialects,
    .dependentDialectCount = sizeof autoChunkDialects / sizeof *autoChunkDialects,
    .run = runAutoChunk,
};

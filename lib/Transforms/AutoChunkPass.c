/* autochunk: activation chunking (Zhao et al., ICLR 2024). Stage by stage:
 * estimate the activation peak, search the legal chunk regions around it,
 * wrap the best in a chunk.region, until the budget is met or nothing legal
 * lowers the peak any more (a remark then says how far it got). */
#include "Analysis/Analysis.h"
#include "IR/IR.h"
#include "Transforms/AutoChunk.h"
#include "Transforms/AutoChunkReport.h"
#include "Transforms/PassList.h"

#include "mlir-c/Dialect/Vector.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static bool isFunction(MlirOperation op) {
  return mlirStringRefEqual(mlirIdentifierStr(mlirOperationGetName(op)),
                            mlirStringRefCreateFromCString("func.func"));
}

static void remark(MlirOperation op, MlirDiagnosticSeverity severity, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
static void remark(MlirOperation op, MlirDiagnosticSeverity severity, const char *format, ...) {
  MemoptStringBuffer message = memoptStringBufferCreate();
  va_list args;
  va_start(args, format);
  memoptStringBufferAppendFormatV(&message, format, args);
  va_end(args);
  memoptEmitDiagnostic(mlirOperationGetLocation(op), severity, message.data);
  memoptStringBufferDestroy(&message);
}

/* Returns the profile of `func`, or NULL after a remark saying why not. */
static MemoptMemoryProfile *profileOf(MlirOperation func) {
  MemoptStringBuffer error = memoptStringBufferCreate();
  MemoptMemoryProfile *profile = memoptMemoryProfileCreate(func, /*analyzeCallees=*/true, &error);
  if (!profile)
    remark(func, MlirDiagnosticRemark, "autochunk: cannot estimate the memory of the function: %s",
           error.data);
  memoptStringBufferDestroy(&error);
  return profile;
}

/* Chunks one function; records what it did in `report`. */
static MlirLogicalResult chunkFunction(MlirOperation func, const MemoptPassOptions *options,
                                       AutoChunkReport *report) {
  MemoptMemoryProfile *profile = profileOf(func);
  if (!profile)
    return mlirLogicalResultSuccess();
  size_t peakPosition = memoptMemoryProfileGetPeakPosition(profile);
  if (memoptMemoryProfileHasUnknownSize(profile, peakPosition)) {
    remark(func, MlirDiagnosticRemark,
           "autochunk: the peak holds tensors of dynamic size; chunking needs static sizes");
    memoptMemoryProfileDestroy(profile);
    return mlirLogicalResultSuccess();
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
  };
  AutoChunkReportFunction *entry = autoChunkReportAddFunction(report, func, limits.budget, profile);
  memoptMemoryProfileDestroy(profile);

  uint64_t peak = initialPeak;
  long long maxStages = memoptPassOptionsGetInteger(options, "max-stages");
  long long stage = 0;
  MemoptStringBuffer reason = memoptStringBufferCreate();
  for (; stage < maxStages && peak > limits.budget; ++stage) {
    AutoChunkChoice choice;
    memoptStringBufferClear(&reason);
    if (!autoChunkSearch(func, &limits, peak, &choice, &reason))
      break;
    MlirOperation region = autoChunkApply(func, &choice);
    remark(region, MlirDiagnosticRemark,
           "autochunk stage %lld: %ld ops chunked along dimension %lld in %lld chunks of %lld "
           "(%ld hoisted); estimated peak %llu -> %llu bytes",
           stage + 1, (long)choice.chunkedOps, (long long)choice.dim,
           (long long)(choice.extent / choice.chunkSize), (long long)choice.chunkSize,
           (long)choice.hoistedOps, (unsigned long long)peak,
           (unsigned long long)choice.peakBytes);
    autoChunkReportAddStage(entry, &choice, peak);
    peak = choice.peakBytes;
  }
  profile = profileOf(func);
  if (profile)
    autoChunkReportFinish(entry, profile);
  memoptMemoryProfileDestroy(profile);
  if (peak > limits.budget)
    remark(func, MlirDiagnosticRemark,
           "autochunk: estimated peak %llu bytes after %lld stages is above the budget of %llu "
           "bytes (from %llu): %s",
           (unsigned long long)peak, stage, (unsigned long long)limits.budget,
           (unsigned long long)initialPeak,
           stage == maxStages ? "max-stages reached" : memoptStringBufferGet(&reason));
  else
    remark(func, MlirDiagnosticRemark,
           "autochunk: estimated peak %llu -> %llu bytes in %lld stages (budget %llu bytes)",
           (unsigned long long)initialPeak, (unsigned long long)peak, stage,
           (unsigned long long)limits.budget);
  memoptStringBufferDestroy(&reason);
  return mlirLogicalResultSuccess();
}

static MlirLogicalResult runAutoChunk(MlirOperation module, const MemoptPassOptions *options) {
  AutoChunkReport *report = autoChunkReportCreate();
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  MlirLogicalResult result = mlirLogicalResultSuccess();
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op) && mlirLogicalResultIsSuccess(result);
       op = mlirOperationGetNextInBlock(op))
    if (isFunction(op) && !mlirRegionIsNull(mlirOperationGetRegion(op, 0)) &&
        !mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0))))
      result = chunkFunction(op, options, report);
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
     1000},
    {"max-region-ops", MemoptOptionInteger, "16", "most ops in one candidate region", NULL, 1,
     1000},
    {"launch-cost", MemoptOptionBytes, "4KiB",
     "cost of running one op once more per chunk, as bytes of memory traffic", NULL, 0, 9e18},
    {"min-inner-chunk", MemoptOptionInteger, "16",
     "smallest slice of a value's innermost dimension (keeps loops vectorizable)", NULL, 1, 1e9},
    {"report", MemoptOptionString, "", "write a JSON report of the decisions to this file", NULL,
     0, 0},
    {"timeline", MemoptOptionString, "",
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

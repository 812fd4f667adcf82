/* spm-pin-fuse: Pin or Fuse (Jeong et al., CGO 2023). For every function of
 * a CNN, chooses fusion groups, tile sizes and pinned feature maps under the
 * scratchpad capacity (SpmPinFuseSearch.c), places the pinned
 * ones by interval packing, and rewrites the function into spm ops. The
 * module receives the totals as `spm.offchip_bytes` and `spm.cycles`. */
#include "IR/IR.h"
#include "Spm/Spm.h"
#include "Spm/Transforms/SpmPinFuse.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/Vector.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec time;
  clock_gettime(CLOCK_MONOTONIC, &time);
  return (double)time.tv_sec + 1e-9 * (double)time.tv_nsec;
}

/* The options that override one field of the target each; the first three
 * (capacity, bandwidth, throughput) divide or bound everything, so given,
 * they must be positive. */
static const char *const targetOverrides[] = {"spm-bytes", "dram-bandwidth", "macs-per-cycle",
                                              "element-bytes", "dma-setup"};
enum { PositiveTargetOverrides = 3 };

/* Checked when the pipeline is parsed: a known preset, positive overrides. */
static bool checkSpmPinFuseOptions(const MemoptPassOptions *options, MemoptStringBuffer *error) {
  const char *preset = memoptPassOptionsGetString(options, "target");
  MemoptSpmTarget target;
  if (*preset && !memoptSpmTargetPreset(preset, &target)) {
    memoptStringBufferAppendFormat(error, "option 'target': unknown target '%s' (", preset);
    for (size_t i = 0; i < memoptSpmTargetPresetCount(); ++i)
      memoptStringBufferAppendFormat(error, "%s%s", i ? ", " : "", memoptSpmTargetPresetName(i));
    memoptStringBufferAppendCString(error, ")");
    return false;
  }
  for (size_t i = 0; i < PositiveTargetOverrides; ++i)
    if (memoptPassOptionsIsSet(options, targetOverrides[i]) &&
        memoptPassOptionsGetInteger(options, targetOverrides[i]) == 0) {
      memoptStringBufferAppendFormat(
          error, "option '%s' must be positive (leave it out to use the target's)",
          targetOverrides[i]);
      return false;
    }
  return true;
}

/* The target: the preset named by the `target` option, else the module's
 * `spm.target` attribute, else spm-2m; then the options that override one
 * field each. */
static bool resolveTarget(MlirOperation module, const MemoptPassOptions *options,
                          MemoptSpmTarget *target) {
  memoptSpmTargetPreset("spm-2m", target);
  MemoptStringBuffer error = memoptStringBufferCreate();
  bool ok = true;
  const char *preset = memoptPassOptionsGetString(options, "target");
  if (*preset) {
    memoptSpmTargetPreset(preset, target); /* known: checkSpmPinFuseOptions */
  } else if (!memoptSpmTargetFromModule(module, target, &error)) {
    MemoptStringBuffer message = memoptStringBufferCreate();
    memoptStringBufferAppendFormat(&message, "spm-pin-fuse: %s", error.data);
    memoptStringBufferClear(&error);
    memoptStringBufferAppendCString(&error, message.data);
    memoptStringBufferDestroy(&message);
    ok = false;
  }
  if (!ok)
    mlirEmitError(mlirOperationGetLocation(module), error.data);
  memoptStringBufferDestroy(&error);
  uint64_t *fields[] = {&target->spmBytes, &target->dramBytesPerCycle, &target->macsPerCycle,
                        &target->elementBytes, &target->dmaSetupCycles};
  for (size_t i = 0; i < sizeof targetOverrides / sizeof *targetOverrides; ++i)
    if (memoptPassOptionsIsSet(options, targetOverrides[i]))
      *fields[i] = (uint64_t)memoptPassOptionsGetInteger(options, targetOverrides[i]);
  return ok;
}

static SpmStrategy strategyNamed(const char *name) {
  if (strcmp(name, "fuse-only") == 0)
    return SpmStrategyFuseOnly;
  if (strcmp(name, "pin-only") == 0)
    return SpmStrategyPinOnly;
  if (strcmp(name, "ilp") == 0)
    return SpmStrategyILP;
  return SpmStrategyDP;
}

static void setIntegerAttribute(MlirOperation op, const char *name, uint64_t value) {
  MlirContext context = mlirOperationGetContext(op);
  mlirOperationSetDiscardableAttributeByName(
      op, mlirStringRefCreateFromCString(name),
      mlirIntegerAttrGet(mlirIntegerTypeGet(context, 64), (int64_t)value));
}

typedef struct Totals {
  uint64_t offchipBytes, cycles;
} Totals;

/* Plans and rewrites one function. Returns false after an error. */
static bool planFunction(MlirOperation func, const MemoptSpmTarget *target,
                         const MemoptPassOptions *options, SpmReport *report, Totals *totals) {
  MemoptStringBuffer error = memoptStringBufferCreate();
  MlirAttribute nameAttribute = mlirOperationGetAttributeByName(
      func, mlirStringRefCreateFromCString("sym_name"));
  MlirStringRef name = mlirStringAttrGetValue(nameAttribute);
  double start = now();
  MemoptLayerGraph *graph = memoptLayerGraphCreate(func, &error);
  if (!graph) {
    memoptEmitOpDiagnostic(func, MlirDiagnosticRemark,
                           "spm-pin-fuse: function @%.*s is not modelled: %s", (int)name.length,
                           name.data, error.data);
    memoptStringBufferDestroy(&error);
    return true;
  }
  if (memoptLayerGraphCount(graph) == 0) {
    memoptLayerGraphDestroy(graph);
    memoptStringBufferDestroy(&error);
    return true;
  }
  if (target->elementBytes)
    for (size_t l = 0; l < memoptLayerGraphCount(graph); ++l)
      if (memoptLayerGraphAt(graph, l)->irElementBytes != target->elementBytes) {
        memoptEmitOpDiagnostic(
            memoptLayerGraphAt(graph, l)->op, MlirDiagnosticError,
            "spm-pin-fuse: the target holds %llu-byte elements but this layer's output has "
            "%llu-byte elements",
            (unsigned long long)target->elementBytes,
            (unsigned long long)memoptLayerGraphAt(graph, l)->irElementBytes);
        memoptLayerGraphDestroy(graph);
        memoptStringBufferDestroy(&error);
        return false;
      }
  const char *strategyName = memoptPassOptionsGetString(options, "strategy");
  SpmSearchOptions search = {
      .strategy = strategyNamed(strategyName),
      .objective = strcmp(memoptPassOptionsGetString(options, "objective"), "transfer") == 0
                       ? SpmObjectiveTransfer
                       : SpmObjectiveLatency,
      .maxGroupLayers = (size_t)memoptPassOptionsGetInteger(options, "max-group"),
      .ilpTimeLimitSeconds = memoptPassOptionsGetFloat(options, "ilp-time-limit"),
  };
  SpmPlan plan;
  intptr_t failedLayer;
  if (!spmPlanCreate(graph, target, &search, &plan, &failedLayer, &error)) {
    MlirOperation at = failedLayer >= 0 ? memoptLayerGraphAt(graph, (size_t)failedLayer)->op : func;
    memoptEmitOpDiagnostic(at, MlirDiagnosticError, "spm-pin-fuse: %s", error.data);
    memoptLayerGraphDestroy(graph);
    memoptStringBufferDestroy(&error);
    return false;
  }
  double seconds = now() - start;

  /* The baselines (and, for ilp, the DP) beside the chosen plan. */
  SpmPlan baselinePlans[3];
  const SpmPlan *baselines[3] = {NULL, NULL, NULL};
  static const SpmStrategy baselineStrategies[3] = {SpmStrategyFuseOnly, SpmStrategyPinOnly,
                                                    SpmStrategyDP};
  /* The report compares all three; ilp needs the DP for its gap. */
  bool reporting = *memoptPassOptionsGetString(options, "report");
  for (int i = 0; i < 3; ++i) {
    if (baselineStrategies[i] == search.strategy) {
      baselines[i] = &plan;
      continue;
    }
    bool dpForGap = search.strategy == SpmStrategyILP && baselineStrategies[i] == SpmStrategyDP;
    if (!reporting && !dpForGap)
      continue;
    SpmSearchOptions other = search;
    other.strategy = baselineStrategies[i];
    intptr_t ignored;
    memoptStringBufferClear(&error);
    if (spmPlanCreate(graph, target, &other, &baselinePlans[i], &ignored, &error))
      baselines[i] = &baselinePlans[i];
  }

  size_t pinnedCount = 0;
  for (size_t l = 0; l < memoptLayerGraphCount(graph); ++l)
    pinnedCount += plan.pinned[l];
  memoptEmitOpDiagnostic(func, MlirDiagnosticRemark,
                         "spm-pin-fuse (%s): @%.*s: %zu layers in %zu groups, %zu pinned; off-chip "
                         "feature-map bytes %llu, cycles %llu%s",
                         strategyName, (int)name.length, name.data, memoptLayerGraphCount(graph),
                         plan.groupCount, pinnedCount, (unsigned long long)plan.offchipBytes,
                         (unsigned long long)plan.cycles,
                         plan.packingRetries ? " (packed at a reduced capacity)" : "");
  if (search.strategy == SpmStrategyILP && baselines[2]) {
    uint64_t dp = baselines[2]->cycles, optimum = plan.cycles;
    if (search.objective == SpmObjectiveTransfer) {
      dp = baselines[2]->offchipBytes;
      optimum = plan.offchipBytes;
    }
    memoptEmitOpDiagnostic(func, MlirDiagnosticRemark,
                           "spm-pin-fuse: dp reaches %llu against the ilp optimum %llu: gap %.3f%%",
                           (unsigned long long)dp, (unsigned long long)optimum,
                           optimum ? 100.0 * ((double)dp - (double)optimum) / (double)optimum
                                   : 0.0);
  }
  if (report) {
    char functionName[256];
    snprintf(functionName, sizeof functionName, "%.*s", (int)name.length, name.data);
    spmReportAddFunction(report, functionName, strategyName, graph, &plan, baselines, seconds);
  }
  totals->offchipBytes += plan.offchipBytes;
  totals->cycles += plan.cycles;
  size_t built = spmEmitPlan(graph, &plan, func);
  if (built < plan.groupCount)
    memoptEmitOpDiagnostic(func, MlirDiagnosticRemark,
                           "spm-pin-fuse: %zu groups have more than %d outputs and stay plain ops",
                           plan.groupCount - built, MEMOPT_MAX_SLOTS);
  for (int i = 0; i < 3; ++i)
    if (baselines[i] && baselines[i] != &plan)
      spmPlanDestroy(&baselinePlans[i]);
  spmPlanDestroy(&plan);
  memoptLayerGraphDestroy(graph);
  memoptStringBufferDestroy(&error);
  return true;
}

static MlirLogicalResult runSpmPinFuse(MlirOperation module, const MemoptPassOptions *options) {
  MemoptSpmTarget target;
  if (!resolveTarget(module, options, &target))
    return mlirLogicalResultFailure();
  const char *reportPath = memoptPassOptionsGetString(options, "report");
  SpmReport *report = *reportPath ? spmReportCreate(&target) : NULL;
  Totals totals = {0, 0};
  bool ok = true;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); ok && !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (memoptOperationIsA(op, "func.func") &&
        !mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0))))
      ok = planFunction(op, &target, options, report, &totals);
  if (ok) {
    setIntegerAttribute(module, "spm.offchip_bytes", totals.offchipBytes);
    setIntegerAttribute(module, "spm.cycles", totals.cycles);
  }
  MemoptStringBuffer error = memoptStringBufferCreate();
  if (ok && report && !spmReportWrite(report, reportPath, &error)) {
    mlirEmitError(mlirOperationGetLocation(module), error.data);
    ok = false;
  }
  memoptStringBufferDestroy(&error);
  spmReportDestroy(report);
  return ok ? mlirLogicalResultSuccess() : mlirLogicalResultFailure();
}

static const MemoptPassOptionInfo spmPinFuseOptions[] = {
    {"strategy", MemoptOptionChoice, "dp", "how groups and pins are chosen",
     "dp|fuse-only|pin-only|ilp", 0, 0},
    {"objective", MemoptOptionChoice, "latency",
     "what the plan minimizes first (then the other)", "latency|transfer", 0, 0},
    {"target", MemoptOptionString, "",
     "target preset: spm-512k, spm-2m or spm-8m (default: the module's spm.target, else spm-2m)",
     NULL, 0, 0},
    {"spm-bytes", MemoptOptionBytes, "0", "scratchpad capacity (overrides the target)", NULL, 0,
     9e18},
    {"dram-bandwidth", MemoptOptionInteger, "0",
     "off-chip bytes per cycle (overrides the target)", NULL, 0, 1e12},
    {"macs-per-cycle", MemoptOptionInteger, "0", "MACs per cycle (overrides the target)", NULL,
     0, 1e12},
    {"element-bytes", MemoptOptionInteger, "0",
     "bytes per element; 0 uses the IR's element types (overrides the target)", NULL, 0, 16},
    {"dma-setup", MemoptOptionInteger, "0",
     "cycles of fixed latency per DMA transfer (overrides the target)", NULL, 0, 1e9},
    {"max-group", MemoptOptionInteger, "8", "most layers in one fused group", NULL, 1, 256},
    {"ilp-time-limit", MemoptOptionFloat, "20", "seconds GLPK may take (strategy=ilp)", NULL,
     0.1, 3600},
    {"report", MemoptOptionOutputFile, "",
     "write a JSON report (groups, pins, baselines) to this file", NULL, 0, 0},
};

/* vector for the groups' vector.yield terminators. */
static MlirDialectHandle (*const spmPinFuseDialects[])(void) = {mlirGetDialectHandle__vector__};

const MemoptPassInfo memoptSpmPinFusePass = {
    .argument = "spm-pin-fuse",
    .summary = "Choose fusion groups, tile sizes and scratchpad-pinned feature maps together "
               "(Pin or Fuse) and emit spm ops",
    .anchor = "builtin.module",
    .options = spmPinFuseOptions,
    .optionCount = sizeof spmPinFuseOptions / sizeof *spmPinFuseOptions,
    .dependentDialects = spmPinFuseDialects,
    .dependentDialectCount = sizeof spmPinFuseDialects / sizeof *spmPinFuseDialects,
    .checkOptions = checkSpmPinFuseOptions,
    .run = runSpmPinFuse,
};

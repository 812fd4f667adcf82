/* place-search: chooses a training placement of a transformer function on a
 * cluster (PHAZE): recognizes the repeated layers, costs one layer (and the
 * prologue and epilogue around the layers) on the accelerator for each
 * candidate microbatch, runs the DP of lib/Analysis/PlacementSearch.c, and
 * writes the plan as a place.cluster op and one place.stage op per pipeline
 * stage, plus a remark and, on request, a JSON report. */
#include "IR/IR.h"
#include "Place/Place.h"
#include "Place/Place.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/Vector.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const MemoptPassOptionInfo options[] = {
    {"preset", MemoptOptionChoice, "phaze-80",
     "Cluster preset: PHAZE's 1024 accelerators, 4 GiB/s links, global batch 4096 with 32, 64 "
     "or 80 GiB HBM",
     "phaze-32|phaze-64|phaze-80", 0, 0},
    {"devices", MemoptOptionInteger, "0", "Accelerators (0: the preset's; at most 65536)", NULL, 0,
     65536},
    {"hbm", MemoptOptionBytes, "0", "HBM per accelerator (0: the preset's)", NULL, 0, 1e18},
    {"link-bandwidth", MemoptOptionBytes, "0", "Link bytes per second (0: the preset's)", NULL, 0,
     1e18},
    {"global-batch", MemoptOptionInteger, "0", "Samples per training step (0: the preset's)", NULL,
     0, 1e12},
    {"layers", MemoptOptionInteger, "0",
     "Layers of the model (0: as recognized; at most 1024); a count other than the recognized one "
     "repeats the recognized layer",
     NULL, 0, 1024},
    {"batch", MemoptOptionInteger, "0",
     "Samples in the IR (0: the leading dimension of the first argument)", NULL, 0, 1e9},
    {"heads", MemoptOptionInteger, "0", "Tensor-parallel degrees must divide this (0: any)", NULL,
     0, 1e9},
    {"max-tensor-parallel", MemoptOptionInteger, "8", "Largest tensor-parallel degree", NULL, 1,
     1e6},
    {"max-microbatch", MemoptOptionInteger, "16", "Largest microbatch (powers of two up to it)",
     NULL, 1, 1e6},
    {"state-per-parameter-byte", MemoptOptionFloat, "7",
     "Gradient and optimizer bytes per parameter byte (mixed-precision Adam: 14 per 2)", NULL, 0,
     1e3},
    {"backward-factor", MemoptOptionFloat, "2", "Backward time as a multiple of forward", NULL, 0,
     100},
    {"baseline", MemoptOptionString, "",
     "A fixed configuration 'p,t,d' to evaluate beside the search (Megatron-style even split)",
     NULL, 0, 0},
    {"brute-force", MemoptOptionBool, "false",
     "Also enumerate every split and recompute choice, and fail if the DP differs", NULL, 0, 0},
    {"report", MemoptOptionOutputFile, "", "Write the plan as JSON to this file", NULL, 0, 0},
    {"schedule", MemoptOptionChoice, "ilp",
     "Layer time: ops one after the other (sequential), list-scheduled on the tensor and vector "
     "units (list), or the ILP's makespan (ilp)",
     "sequential|list|ilp", 0, 0},
    {"ilp-time-limit", MemoptOptionFloat, "2", "Seconds each layer's ILP may take", NULL, 0, 1e6},
    {"ilp-gap", MemoptOptionFloat, "0.01", "Relative optimality gap of the ILP", NULL, 0, 1},
    {"architecture-search", MemoptOptionBool, "false",
     "Also choose the accelerator configuration under the area budget (PHAZE's space of "
     "powers of two)",
     NULL, 0, 0},
    {"area-budget", MemoptOptionFloat, "0",
     "Area budget in mm^2 (0: the area of the accelerator the options describe)", NULL, 0, 1e9},
    {"architecture-candidates", MemoptOptionInteger, "3",
     "Configurations with the fastest layer that get the whole placement search", NULL, 1, 1000},
    {"mac-area", MemoptOptionFloat, "0.001", "mm^2 per systolic-array MAC cell", NULL, 0, 1e3},
    {"lane-area", MemoptOptionFloat, "0.002", "mm^2 per vector lane", NULL, 0, 1e3},
    {"buffer-area", MemoptOptionFloat, "0.3", "mm^2 per MiB of on-chip buffer", NULL, 0, 1e3},
    MEMOPT_PLACE_ACCELERATOR_OPTIONS,
};

/* The cluster: a preset, with any option given explicitly taking over. */
typedef struct Cluster {
  int64_t devices;
  double hbmBytes;
  double linkBandwidth;
  int64_t globalBatch;
} Cluster;

static Cluster clusterOf(const MemoptPassOptions *options) {
  const char *preset = memoptPassOptionsGetString(options, "preset");
  double gib = 1024.0 * 1024.0 * 1024.0;
  Cluster cluster = {1024, 80 * gib, 4 * gib, 4096};
  if (strcmp(preset, "phaze-32") == 0)
    cluster.hbmBytes = 32 * gib;
  else if (strcmp(preset, "phaze-64") == 0)
    cluster.hbmBytes = 64 * gib;
  if (memoptPassOptionsGetInteger(options, "devices"))
    cluster.devices = memoptPassOptionsGetInteger(options, "devices");
  if (memoptPassOptionsGetInteger(options, "hbm"))
    cluster.hbmBytes = (double)memoptPassOptionsGetInteger(options, "hbm");
  if (memoptPassOptionsGetInteger(options, "link-bandwidth"))
    cluster.linkBandwidth = (double)memoptPassOptionsGetInteger(options, "link-bandwidth");
  if (memoptPassOptionsGetInteger(options, "global-batch"))
    cluster.globalBatch = memoptPassOptionsGetInteger(options, "global-batch");
  return cluster;
}

/* The model as place-search sees it: segments of top-level ops. */
typedef struct Model {
  MlirOperation func;
  MemoptLayerStructure structure;
  size_t layers;          /* transformer layers of the model */
  bool hasPrologue, hasEpilogue;
  size_t problemLayers;   /* prologue + layers + epilogue */
  double irBatch;
} Model;

/* The first function with a body and at least one op. */
static MlirOperation findFunction(MlirOperation module) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (memoptOperationIsA(op, "func.func") &&
        !mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0))))
      return op;
  return (MlirOperation){NULL};
}

static double leadingDimension(MlirOperation func) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  if (mlirBlockGetNumArguments(body) == 0)
    return 1;
  MlirType type = mlirValueGetType(mlirBlockGetArgument(body, 0));
  if (!mlirTypeIsARankedTensor(type) || mlirShapedTypeGetRank(type) == 0 ||
      mlirShapedTypeIsDynamicDim(type, 0))
    return 1;
  return (double)mlirShapedTypeGetDimSize(type, 0);
}

/* Which segment problem layer `index` is: 0 prologue, 1 layer, 2 epilogue. */
static int segmentOf(const Model *model, size_t index) {
  if (model->hasPrologue && index == 0)
    return 0;
  if (model->hasEpilogue && index + 1 == model->problemLayers)
    return 2;
  return 1;
}

/* Op range [first, end) of problem layer `index` in the materialized function. */
static void opRangeOf(const Model *model, size_t index, size_t *first, size_t *end) {
  const MemoptLayerStructure *s = &model->structure;
  int segment = segmentOf(model, index);
  if (segment == 0) {
    *first = 0;
    *end = s->bounds[0];
  } else if (segment == 2) {
    *first = s->bounds[s->count];
    *end = s->numOps;
  } else {
    size_t layer = index - (model->hasPrologue ? 1 : 0);
    *first = s->bounds[layer];
    *end = s->bounds[layer + 1];
  }
}

/* Everything the problem points at. */
typedef struct ProblemStorage {
  MemoptPlacementProblem problem;
  MemoptPlacementLayer *layers;
  double *seconds; /* [segment][microbatch] */
  int64_t *microbatches;
  MemoptSegmentCost segments[3];
} ProblemStorage;

static void problemStorageDestroy(ProblemStorage *storage) {
  free(storage->layers);
  free(storage->seconds);
  free(storage->microbatches);
}

/* Replaces `seconds` (ops in sequence) by the makespan the schedule option asks for. */
static bool scheduleSegment(MlirOperation func, size_t first, size_t count, size_t dataArguments,
                            const MemoptAcceleratorConfig *accelerator, double scale,
                            const MemoptPassOptions *options, double *seconds,
                            MemoptStringBuffer *reason) {
  const char *schedule = memoptPassOptionsGetString(options, "schedule");
  if (strcmp(schedule, "sequential") == 0)
    return true;
  MemoptScheduleProblem problem;
  if (!memoptSegmentScheduleProblem(func, first, count, dataArguments, accelerator, scale,
                                    &problem, reason))
    return false;
  double *starts = memoptAllocateZeroed(problem.count + 1, sizeof *starts);
  MemoptScheduleStatus status;
  *seconds = strcmp(schedule, "list") == 0
                 ? memoptScheduleList(&problem, starts)
                 : memoptScheduleSolve(&problem, memoptPassOptionsGetFloat(options, "ilp-time-limit"),
                                       memoptPassOptionsGetFloat(options, "ilp-gap"), starts, &status);
  free(starts);
  memoptScheduleProblemDestroy(&problem);
  return true;
}

static bool buildProblem(const Model *model, const Cluster *cluster,
                         const MemoptAcceleratorConfig *accelerator,
                         const MemoptPassOptions *options, ProblemStorage *storage) {
  memset(storage, 0, sizeof *storage);
  size_t dataArguments = (size_t)memoptPassOptionsGetInteger(options, "data-arguments");
  int64_t maxMicrobatch = memoptPassOptionsGetInteger(options, "max-microbatch");
  size_t count = 0;
  for (int64_t m = 1; m <= maxMicrobatch; m *= 2)
    ++count;
  storage->microbatches = memoptAllocateZeroed(count, sizeof *storage->microbatches);
  storage->seconds = memoptAllocateZeroed(3 * count, sizeof *storage->seconds);
  storage->layers = memoptAllocateZeroed(model->problemLayers, sizeof *storage->layers);
  count = 0;
  for (int64_t m = 1; m <= maxMicrobatch; m *= 2)
    storage->microbatches[count++] = m;
  const MemoptLayerStructure *s = &model->structure;
  size_t firsts[3] = {0, s->bounds[0], s->bounds[s->count]};
  size_t lengths[3] = {s->bounds[0], s->bounds[1] - s->bounds[0], s->numOps - firsts[2]};
  MemoptStringBuffer reason = memoptStringBufferCreate();
  bool ok = true;
  for (int segment = 0; segment < 3 && ok; ++segment) {
    if (lengths[segment] == 0)
      continue;
    for (size_t mb = 0; mb < count && ok; ++mb) {
      MemoptSegmentCost cost;
      double scale = (double)storage->microbatches[mb] / model->irBatch;
      ok = memoptSegmentCostEstimate(model->func, firsts[segment], lengths[segment], dataArguments,
                                     accelerator, scale, &cost, &reason) &&
           scheduleSegment(model->func, firsts[segment], lengths[segment], dataArguments,
                           accelerator, scale, options, &cost.forwardSeconds, &reason);
      storage->seconds[segment * count + mb] = cost.forwardSeconds;
      if (mb == 0)
        storage->segments[segment] = cost;
    }
  }
  if (!ok) {
    memoptEmitOpDiagnostic(model->func, MlirDiagnosticError,
                           "place-search cannot cost the function: %s", reason.data);
    memoptStringBufferDestroy(&reason);
    return false;
  }
  memoptStringBufferDestroy(&reason);
  double element = (double)accelerator->bytesPerElement;
  for (size_t l = 0; l < model->problemLayers; ++l) {
    int segment = segmentOf(model, l);
    const MemoptSegmentCost *cost = &storage->segments[segment];
    /* The cost at microbatch 1 was computed with scale 1 / irBatch: per sample. */
    storage->layers[l] = (MemoptPlacementLayer){
        &storage->seconds[segment * count], cost->parameterElements * element,
        cost->activationElements / model->irBatch * element,
        cost->boundaryElements / model->irBatch * element};
  }
  storage->problem = (MemoptPlacementProblem){
      storage->layers,
      model->problemLayers,
      storage->microbatches,
      count,
      cluster->devices,
      cluster->hbmBytes,
      cluster->linkBandwidth,
      cluster->globalBatch,
      memoptPassOptionsGetFloat(options, "state-per-parameter-byte"),
      memoptPassOptionsGetInteger(options, "max-tensor-parallel"),
      memoptPassOptionsGetInteger(options, "heads"),
      memoptPassOptionsGetFloat(options, "backward-factor"),
  };
  return true;
}

/*===------------------------------------------------------------------===*
 * IR
 *===------------------------------------------------------------------===*/

static MlirNamedAttribute named(MlirContext context, const char *name, MlirAttribute value) {
  return mlirNamedAttributeGet(mlirIdentifierGet(context, mlirStringRefCreateFromCString(name)), value);
}

static MlirAttribute i64(MlirContext context, int64_t value) {
  return mlirIntegerAttrGet(mlirIntegerTypeGet(context, 64), value);
}

static void createCluster(MlirOperation module, const Cluster *cluster, const char *name) {
  MlirContext context = mlirOperationGetContext(module);
  MlirLocation location = mlirOperationGetLocation(module);
  MlirOperationState state =
      mlirOperationStateGet(mlirStringRefCreateFromCString("place.cluster"), location);
  MlirNamedAttribute attributes[] = {
      named(context, "sym_name", mlirStringAttrGet(context, mlirStringRefCreateFromCString(name))),
      named(context, "devices", i64(context, cluster->devices)),
      named(context, "hbm_bytes", i64(context, (int64_t)cluster->hbmBytes)),
      named(context, "link_bandwidth", i64(context, (int64_t)cluster->linkBandwidth)),
  };
  mlirOperationStateAddAttributes(&state, 4, attributes);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  mlirBlockInsertOwnedOperation(body, 0, mlirOperationCreate(&state));
}

/* Constants stay outside the stages: any stage may use them (weights
 * folded into constants are defined once, before the layers, in some models). */
static bool isConstant(MlirOperation op) { return memoptOperationIsA(op, "arith.constant"); }

/* The results of ops[first, end) used by an op outside the range; -1 when
 * more than the slots hold. ops[end] must exist (ops[numOps] is the
 * terminator); a use is inside when its ancestor in the body is neither
 * before ops[first] nor at or after ops[end] (the block's cached order). */
static intptr_t escaping(MlirOperation *ops, size_t first, size_t end, MlirValue *values) {
  intptr_t count = 0;
  for (size_t i = first; i < end; ++i)
    for (intptr_t r = 0; r < mlirOperationGetNumResults(ops[i]) && !isConstant(ops[i]); ++r) {
      MlirValue value = mlirOperationGetResult(ops[i], r);
      bool outside = false;
      for (MlirOpOperand use = mlirValueGetFirstUse(value); !mlirOpOperandIsNull(use) && !outside;
           use = mlirOpOperandGetNextUse(use)) {
        MlirOperation user = memoptOperationAncestorInBlock(mlirOpOperandGetOwner(use),
                                                            mlirOperationGetBlock(ops[first]));
        outside = mlirOperationIsNull(user) || mlirOperationIsBeforeInBlock(user, ops[first]) ||
                  !mlirOperationIsBeforeInBlock(user, ops[end]);
      }
      if (!outside)
        continue;
      if (count == MEMOPT_MAX_SLOTS)
        return -1;
      values[count++] = value;
    }
  return count;
}

/* Creates place.stage `index` before `before` (or at the end of the
 * function body before its terminator), moving ops[first, end) into it. */
static void createStage(MlirOperation func, const char *clusterName, const MemoptPlacementPlan *plan,
                        size_t index, MlirOperation *ops, size_t first, size_t end,
                        MlirOperation before) {
  MlirContext context = mlirOperationGetContext(func);
  MlirLocation location = first < end ? mlirOperationGetLocation(ops[first])
                                      : mlirOperationGetLocation(func);
  const MemoptPlacementStage *stage = &plan->stages[index];
  MlirValue values[MEMOPT_MAX_SLOTS];
  MlirType types[MEMOPT_MAX_SLOTS];
  intptr_t results = escaping(ops, first, end, values);
  for (intptr_t i = 0; i < results; ++i)
    types[i] = mlirValueGetType(values[i]);
  MlirOperationState state =
      mlirOperationStateGet(mlirStringRefCreateFromCString("place.stage"), location);
  mlirOperationStateAddResults(&state, results, types);
  MlirNamedAttribute attributes[] = {
      named(context, "cluster",
            mlirFlatSymbolRefAttrGet(context, mlirStringRefCreateFromCString(clusterName))),
      named(context, "index", i64(context, (int64_t)index)),
      named(context, "devices", i64(context, plan->tensorParallel * plan->dataParallel)),
      named(context, "data_parallel", i64(context, plan->dataParallel)),
      named(context, "tensor_parallel", i64(context, plan->tensorParallel)),
      named(context, "recompute", mlirBoolAttrGet(context, stage->recompute)),
      named(context, "first_layer", i64(context, (int64_t)stage->firstLayer)),
      named(context, "layers", i64(context, (int64_t)stage->layerCount)),
      memoptSlotSegments(context, "resultSegmentSizes", results),
  };
  mlirOperationStateAddAttributes(&state, sizeof attributes / sizeof *attributes, attributes);
  MlirRegion region = mlirRegionCreate();
  MlirBlock body = mlirBlockCreate(0, NULL, NULL);
  mlirRegionAppendOwnedBlock(region, body);
  mlirOperationStateAddOwnedRegions(&state, 1, &region);
  MlirOperation stageOp = mlirOperationCreate(&state);
  MlirBlock funcBody = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  mlirBlockInsertOwnedOperationBefore(funcBody, before, stageOp);
  MlirOperationState yield = mlirOperationStateGet(
      mlirStringRefCreateFromCString(MEMOPT_REGION_TERMINATOR), location);
  mlirOperationStateAddOperands(&yield, results, values);
  MlirOperation yieldOp = mlirOperationCreate(&yield);
  mlirBlockAppendOwnedOperation(body, yieldOp);
  /* Constants stay before the stage: later stages may use them too. */
  for (size_t i = first; i < end; ++i)
    if (!isConstant(ops[i]))
      mlirOperationMoveBefore(ops[i], yieldOp);
  for (intptr_t i = 0; i < results; ++i)
    memoptValueReplaceUsesByScope(values[i], mlirOperationGetResult(stageOp, i), stageOp, false);
}

/* Wraps each stage's ops into its place.stage when the function holds every
 * layer and no stage passes more values on than a stage has result slots;
 * otherwise the stages are emitted with empty bodies. Returns true when wrapped. */
static bool emitStages(const Model *model, const MemoptPlacementPlan *plan, const char *clusterName) {
  MlirOperation func = model->func;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  size_t numOps = model->structure.numOps;
  MlirOperation *ops = memoptAllocateZeroed(numOps + 1, sizeof *ops);
  MlirOperation op = mlirBlockGetFirstOperation(body);
  for (size_t i = 0; i <= numOps; ++i, op = mlirOperationGetNextInBlock(op))
    ops[i] = op; /* ops[numOps] is the terminator */
  bool materialized = model->layers == model->structure.count;
  size_t *firsts = memoptAllocateZeroed(plan->stageCount + 1, sizeof *firsts);
  for (size_t s = 0; s < plan->stageCount && materialized; ++s) {
    size_t first, end, unused;
    opRangeOf(model, plan->stages[s].firstLayer, &first, &unused);
    opRangeOf(model, plan->stages[s].firstLayer + plan->stages[s].layerCount - 1, &unused, &end);
    firsts[s] = first;
    firsts[s + 1] = end;
    MlirValue values[MEMOPT_MAX_SLOTS];
    materialized = escaping(ops, first, end, values) >= 0;
  }
  if (materialized)
    for (size_t s = 0; s < plan->stageCount; ++s)
      createStage(func, clusterName, plan, s, ops, firsts[s], firsts[s + 1], ops[firsts[s + 1]]);
  else
    for (size_t s = 0; s < plan->stageCount; ++s)
      createStage(func, clusterName, plan, s, ops, 0, 0, ops[numOps]);
  free(firsts);
  free(ops);
  return materialized;
}

/*===------------------------------------------------------------------===*
 * Report
 *===------------------------------------------------------------------===*/

static json_t *describePlan(const MemoptPlacementPlan *plan, const Cluster *cluster) {
  json_t *object = json_object();
  json_object_set_new(object, "pipeline", json_integer(plan->pipeline));
  json_object_set_new(object, "tensor_parallel", json_integer(plan->tensorParallel));
  json_object_set_new(object, "data_parallel", json_integer(plan->dataParallel));
  json_object_set_new(object, "microbatch", json_integer(plan->microbatch));
  json_object_set_new(object, "microbatches", json_integer(plan->microbatchCount));
  json_object_set_new(object, "batch_seconds", json_real(plan->batchSeconds));
  json_object_set_new(object, "samples_per_second",
                      json_real((double)cluster->globalBatch / plan->batchSeconds));
  json_t *stages = json_array();
  for (size_t s = 0; s < plan->stageCount; ++s) {
    const MemoptPlacementStage *stage = &plan->stages[s];
    json_t *entry = json_object();
    json_object_set_new(entry, "first_layer", json_integer((json_int_t)stage->firstLayer));
    json_object_set_new(entry, "layers", json_integer((json_int_t)stage->layerCount));
    json_object_set_new(entry, "recompute", json_boolean(stage->recompute));
    json_object_set_new(entry, "stashed_microbatches", json_integer(stage->stashedMicrobatches));
    json_object_set_new(entry, "microbatch_seconds", json_real(stage->seconds));
    json_object_set_new(entry, "memory_bytes_per_device", json_real(stage->memoryBytes));
    json_object_set_new(entry, "all_reduce_seconds", json_real(stage->allReduceSeconds));
    json_array_append_new(stages, entry);
  }
  json_object_set_new(object, "stages", stages);
  return object;
}

static double secondsSince(const struct timespec *start) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) * 1e-9;
}

/*===------------------------------------------------------------------===*
 * Pass
 *===------------------------------------------------------------------===*/

/* Writes `bytes` with a binary unit that keeps the figure readable. */
static const char *formatBytes(double bytes, char *text, size_t size) {
  static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  size_t unit = 0;
  while (bytes >= 1024 && unit + 1 < sizeof units / sizeof *units) {
    bytes /= 1024;
    ++unit;
  }
  snprintf(text, size, "%.3g %s", bytes, units[unit]);
  return text;
}

static void describeFailure(MlirOperation func, const Cluster *cluster, const Model *model,
                            const MemoptPlacementFailure *failure) {
  const char *what = segmentOf(model, failure->firstLayer) == 0   ? "the prologue"
                     : segmentOf(model, failure->firstLayer) == 2 ? "the epilogue"
                                                                  : "a layer";
  char hbm[32], needed[32], state[32], activations[32];
  formatBytes(cluster->hbmBytes, hbm, sizeof hbm);
  if (failure->smallestMemoryBytes > cluster->hbmBytes)
    memoptEmitOpDiagnostic(
        func, MlirDiagnosticError,
        "place-search: nothing fits in %s of HBM: %s alone needs %s per device at the "
        "largest tensor-parallel degree, microbatch 1 and recompute (%s of parameters, "
        "gradients and optimizer state, %s of activations)",
        hbm, what, formatBytes(failure->smallestMemoryBytes, needed, sizeof needed),
        formatBytes(failure->parameterStateBytes, state, sizeof state),
        formatBytes(failure->activationBytes, activations, sizeof activations));
  else
    memoptEmitOpDiagnostic(
        func, MlirDiagnosticError,
        "place-search: no split of the %zu layers over %lld devices fits in %s of HBM per "
        "device (every pipeline depth the devices allow is too shallow)",
        model->problemLayers, (long long)cluster->devices, hbm);
}

static bool parseBaseline(const char *text, int64_t degrees[3]) {
  long long p, t, d;
  char extra;
  if (sscanf(text, "%lld,%lld,%lld%c", &p, &t, &d, &extra) != 3 || p < 1 || t < 1 || d < 1)
    return false;
  degrees[0] = p;
  degrees[1] = t;
  degrees[2] = d;
  return true;
}

static bool checkPlaceSearchOptions(const MemoptPassOptions *options, MemoptStringBuffer *error) {
  int64_t layers = memoptPassOptionsGetInteger(options, "layers");
  if (memoptPassOptionsGetBool(options, "brute-force") &&
      layers > MEMOPT_PLACEMENT_BRUTE_FORCE_MAX_LAYERS) {
    memoptStringBufferAppendFormat(
        error, "option 'brute-force' enumerates at most %d layers, got layers=%lld",
        MEMOPT_PLACEMENT_BRUTE_FORCE_MAX_LAYERS, (long long)layers);
    return false;
  }
  int64_t degrees[3];
  const char *baseline = memoptPassOptionsGetString(options, "baseline");
  if (!*baseline || parseBaseline(baseline, degrees))
    return true;
  memoptStringBufferAppendFormat(
      error, "option 'baseline' must be 'pipeline,tensor,data' (positive integers), got '%s'",
      baseline);
  return false;
}

/*===------------------------------------------------------------------===*
 * Architecture search
 *===------------------------------------------------------------------===*/

/* A configuration and the list-scheduled time of the first layer on it. */
typedef struct Candidate {
  MemoptAcceleratorConfig config;
  double layerSeconds;
  double area;
} Candidate;

static int byLayerSeconds(const void *a, const void *b) {
  const Candidate *x = a, *y = b;
  return x->layerSeconds < y->layerSeconds ? -1 : x->layerSeconds > y->layerSeconds;
}

/* PHAZE's space: tensor and vector cores 1..64, array width and depth
 * 8..256 (vector width = array width), buffer 8..128 MiB, all powers of two,
 * with an area between 30% of the budget (any area when a core count is 1)
 * and the budget. Returns the candidates sorted by the first layer's
 * list-scheduled time at microbatch 1; `count` receives their number. */
static Candidate *architectureCandidates(const Model *model, const MemoptAcceleratorConfig *base,
                                         const MemoptAreaModel *areaModel, double budget,
                                         size_t dataArguments, size_t *count) {
  const MemoptLayerStructure *s = &model->structure;
  size_t capacity = 64, found = 0;
  Candidate *candidates = memoptAllocateZeroed(capacity, sizeof *candidates);
  MemoptStringBuffer reason = memoptStringBufferCreate();
  for (int64_t tensorCores = 1; tensorCores <= 64; tensorCores *= 2)
    for (int64_t vectorCores = 1; vectorCores <= 64; vectorCores *= 2)
      for (int64_t width = 8; width <= 256; width *= 2)
        for (int64_t depth = 8; depth <= 256; depth *= 2)
          for (uint64_t mib = 8; mib <= 128; mib *= 2) {
            MemoptAcceleratorConfig config = *base;
            config.tensorCores = tensorCores;
            config.vectorCores = vectorCores;
            config.width = width;
            config.depth = depth;
            config.vectorWidth = width;
            config.bufferBytes = mib * 1024 * 1024;
            double area = memoptAcceleratorArea(&config, areaModel);
            double floor = tensorCores == 1 || vectorCores == 1 ? 0 : 0.3 * budget;
            if (area > budget || area < floor)
              continue;
            MemoptScheduleProblem problem;
            memoptStringBufferClear(&reason);
            if (!memoptSegmentScheduleProblem(model->func, s->bounds[0], s->bounds[1] - s->bounds[0],
                                              dataArguments, &config, 1 / model->irBatch, &problem,
                                              &reason))
              continue;
            double *starts = memoptAllocateZeroed(problem.count + 1, sizeof *starts);
            double seconds = memoptScheduleList(&problem, starts);
            free(starts);
            memoptScheduleProblemDestroy(&problem);
            if (found == capacity) {
              capacity *= 2;
              candidates = memoptReallocArray(candidates, capacity, sizeof *candidates);
            }
            candidates[found++] = (Candidate){config, seconds, area};
          }
  memoptStringBufferDestroy(&reason);
  qsort(candidates, found, sizeof *candidates, byLayerSeconds);
  *count = found;
  return candidates;
}

static json_t *describeAccelerator(const MemoptAcceleratorConfig *config, double area) {
  json_t *object = json_object();
  json_object_set_new(object, "tensor_cores", json_integer(config->tensorCores));
  json_object_set_new(object, "width", json_integer(config->width));
  json_object_set_new(object, "depth", json_integer(config->depth));
  json_object_set_new(object, "vector_cores", json_integer(config->vectorCores));
  json_object_set_new(object, "vector_width", json_integer(config->vectorWidth));
  json_object_set_new(object, "buffer_bytes", json_integer((json_int_t)config->bufferBytes));
  json_object_set_new(object, "area_mm2", json_real(area));
  return object;
}

static MlirLogicalResult runPlaceSearch(MlirOperation module, const MemoptPassOptions *passOptions) {
  Model model = {0};
  model.func = findFunction(module);
  if (mlirOperationIsNull(model.func)) {
    memoptEmitOpDiagnostic(module, MlirDiagnosticError,
                           "place-search: the module has no function with a body");
    return mlirLogicalResultFailure();
  }
  int64_t baselineDegrees[3] = {0, 0, 0};
  const char *baselineText = memoptPassOptionsGetString(passOptions, "baseline");
  /* Checked when the pipeline was parsed (checkPlaceSearchOptions). */
  if (*baselineText)
    parseBaseline(baselineText, baselineDegrees);
  memoptLayerRecognize(model.func, &model.structure);
  const MemoptLayerStructure *s = &model.structure;
  model.layers = memoptPassOptionsGetInteger(passOptions, "layers")
                     ? (size_t)memoptPassOptionsGetInteger(passOptions, "layers")
                     : s->count;
  model.hasPrologue = s->bounds[0] > 0;
  model.hasEpilogue = s->bounds[s->count] < s->numOps;
  model.problemLayers = model.layers + model.hasPrologue + model.hasEpilogue;
  model.irBatch = memoptPassOptionsGetInteger(passOptions, "batch")
                      ? (double)memoptPassOptionsGetInteger(passOptions, "batch")
                      : leadingDimension(model.func);
  if (memoptPassOptionsGetBool(passOptions, "brute-force") &&
      model.problemLayers > MEMOPT_PLACEMENT_BRUTE_FORCE_MAX_LAYERS) {
    memoptEmitOpDiagnostic(model.func, MlirDiagnosticError,
                           "place-search: brute force enumerates at most %d layers; the model "
                           "has %zu (prologue and epilogue included)",
                           MEMOPT_PLACEMENT_BRUTE_FORCE_MAX_LAYERS, model.problemLayers);
    memoptLayerStructureDestroy(&model.structure);
    return mlirLogicalResultFailure();
  }
  Cluster cluster = clusterOf(passOptions);
  MemoptAcceleratorConfig accelerator = memoptPlaceAccelerator(passOptions);
  MemoptAreaModel areaModel = {memoptPassOptionsGetFloat(passOptions, "mac-area"),
                               memoptPassOptionsGetFloat(passOptions, "lane-area"),
                               memoptPassOptionsGetFloat(passOptions, "buffer-area")};
  double budget = memoptPassOptionsGetFloat(passOptions, "area-budget");
  if (budget == 0)
    budget = memoptAcceleratorArea(&accelerator, &areaModel);
  json_t *architecture = NULL;
  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  if (memoptPassOptionsGetBool(passOptions, "architecture-search")) {
    size_t candidateCount;
    Candidate *candidates = architectureCandidates(
        &model, &accelerator, &areaModel, budget,
        (size_t)memoptPassOptionsGetInteger(passOptions, "data-arguments"), &candidateCount);
    size_t tried = (size_t)memoptPassOptionsGetInteger(passOptions, "architecture-candidates");
    if (tried > candidateCount)
      tried = candidateCount;
    double bestSeconds = INFINITY;
    size_t best = candidateCount;
    json_t *tries = json_array();
    for (size_t c = 0; c < tried; ++c) {
      ProblemStorage trial;
      MemoptPlacementPlan trialPlan;
      MemoptPlacementFailure trialFailure;
      if (!buildProblem(&model, &cluster, &candidates[c].config, passOptions, &trial)) {
        problemStorageDestroy(&trial);
        continue;
      }
      json_t *entry = describeAccelerator(&candidates[c].config, candidates[c].area);
      json_object_set_new(entry, "layer_seconds", json_real(candidates[c].layerSeconds));
      if (memoptPlacementSearch(&trial.problem, &trialPlan, &trialFailure)) {
        json_object_set_new(entry, "batch_seconds", json_real(trialPlan.batchSeconds));
        if (trialPlan.batchSeconds < bestSeconds) {
          bestSeconds = trialPlan.batchSeconds;
          best = c;
        }
        memoptPlacementPlanDestroy(&trialPlan);
      }
      json_array_append_new(tries, entry);
      problemStorageDestroy(&trial);
    }
    if (best < candidateCount)
      accelerator = candidates[best].config;
    architecture = json_object();
    json_object_set_new(architecture, "area_budget_mm2", json_real(budget));
    json_object_set_new(architecture, "configurations_in_budget", json_integer((json_int_t)candidateCount));
    json_object_set_new(architecture, "searched", tries);
    json_object_set_new(architecture, "chosen",
                        describeAccelerator(&accelerator, memoptAcceleratorArea(&accelerator, &areaModel)));
    json_object_set_new(architecture, "search_seconds", json_real(secondsSince(&start)));
    memoptEmitOpDiagnostic(
        model.func, MlirDiagnosticRemark,
        "place-search: architecture: %zu configurations within %.4g mm^2; chose %lld tensor "
        "cores of %lldx%lld, %lld vector cores of %lld lanes, %llu MiB buffer (%.4g mm^2)",
        candidateCount, budget, (long long)accelerator.tensorCores, (long long)accelerator.width,
        (long long)accelerator.depth, (long long)accelerator.vectorCores,
        (long long)accelerator.vectorWidth,
        (unsigned long long)(accelerator.bufferBytes / (1024 * 1024)),
        memoptAcceleratorArea(&accelerator, &areaModel));
    free(candidates);
  }
  ProblemStorage storage;
  if (!buildProblem(&model, &cluster, &accelerator, passOptions, &storage)) {
    json_decref(architecture);
    problemStorageDestroy(&storage);
    memoptLayerStructureDestroy(&model.structure);
    return mlirLogicalResultFailure();
  }

  clock_gettime(CLOCK_MONOTONIC, &start);
  MemoptPlacementPlan plan;
  MemoptPlacementFailure failure;
  bool found = memoptPlacementSearch(&storage.problem, &plan, &failure);
  double searchSeconds = secondsSince(&start);
  if (!found) {
    json_decref(architecture);
    describeFailure(model.func, &cluster, &model, &failure);
    problemStorageDestroy(&storage);
    memoptLayerStructureDestroy(&model.structure);
    return mlirLogicalResultFailure();
  }

  json_t *root = json_object();
  json_t *modelJson = json_object();
  MlirAttribute name = mlirOperationGetAttributeByName(model.func, mlirStringRefCreateFromCString("sym_name"));
  MlirStringRef nameText = mlirStringAttrGetValue(name);
  json_object_set_new(modelJson, "function", json_stringn(nameText.data, nameText.length));
  json_object_set_new(modelJson, "layers", json_integer((json_int_t)model.layers));
  json_object_set_new(modelJson, "recognized_layers", json_integer((json_int_t)s->count));
  json_object_set_new(modelJson, "first_layer_ops",
                      json_integer((json_int_t)(s->bounds[1] - s->bounds[0])));
  json_object_set_new(modelJson, "prologue_ops", json_integer((json_int_t)s->bounds[0]));
  json_object_set_new(modelJson, "epilogue_ops",
                      json_integer((json_int_t)(s->numOps - s->bounds[s->count])));
  json_object_set_new(modelJson, "layer_parameter_elements", json_real(storage.segments[1].parameterElements));
  json_object_set_new(modelJson, "layer_forward_flops", json_real(storage.segments[1].flops));
  json_object_set_new(root, "model", modelJson);
  json_t *clusterJson = json_object();
  json_object_set_new(clusterJson, "devices", json_integer(cluster.devices));
  json_object_set_new(clusterJson, "hbm_bytes", json_real(cluster.hbmBytes));
  json_object_set_new(clusterJson, "link_bandwidth", json_real(cluster.linkBandwidth));
  json_object_set_new(clusterJson, "global_batch", json_integer(cluster.globalBatch));
  json_object_set_new(root, "cluster", clusterJson);
  json_object_set_new(root, "plan", describePlan(&plan, &cluster));
  json_object_set_new(root, "search_seconds", json_real(searchSeconds));
  if (architecture)
    json_object_set_new(root, "architecture", architecture);
  json_object_set_new(root, "accelerator",
                      describeAccelerator(&accelerator, memoptAcceleratorArea(&accelerator, &areaModel)));
  json_object_set_new(root, "search_transitions", json_integer((json_int_t)plan.evaluated));

  bool ok = true;
  if (memoptPassOptionsGetBool(passOptions, "brute-force")) {
    MemoptPlacementPlan brute;
    clock_gettime(CLOCK_MONOTONIC, &start);
    memoptPlacementBruteForce(&storage.problem, &brute);
    double bruteSeconds = secondsSince(&start);
    json_t *bruteJson = describePlan(&brute, &cluster);
    json_object_set_new(bruteJson, "search_seconds", json_real(bruteSeconds));
    json_object_set_new(bruteJson, "candidates", json_integer((json_int_t)brute.evaluated));
    json_object_set_new(root, "brute_force", bruteJson);
    /* Equal up to rounding of the same sums in another order. */
    if (brute.batchSeconds < plan.batchSeconds * (1 - 1e-12)) {
      memoptEmitOpDiagnostic(model.func, MlirDiagnosticError,
                             "place-search: brute force finds %.9g s per batch, the DP %.9g s",
                             brute.batchSeconds, plan.batchSeconds);
      ok = false;
    } else {
      memoptEmitOpDiagnostic(
          model.func, MlirDiagnosticRemark,
          "place-search: brute force agrees: %.9g s per batch over %llu candidates",
          brute.batchSeconds, (unsigned long long)brute.evaluated);
    }
    memoptPlacementPlanDestroy(&brute);
  }
  if (baselineDegrees[0]) {
    MemoptPlacementPlan baseline;
    if (memoptPlacementEvaluateFixed(&storage.problem, baselineDegrees[0], baselineDegrees[1],
                                     baselineDegrees[2], &baseline)) {
      json_object_set_new(root, "baseline", describePlan(&baseline, &cluster));
      memoptEmitOpDiagnostic(
          model.func, MlirDiagnosticRemark,
          "place-search: baseline p=%lld t=%lld d=%lld takes %.6g s per batch; the plan "
          "is %.3fx faster",
          (long long)baselineDegrees[0], (long long)baselineDegrees[1],
          (long long)baselineDegrees[2], baseline.batchSeconds,
          baseline.batchSeconds / plan.batchSeconds);
      memoptPlacementPlanDestroy(&baseline);
    } else {
      json_object_set_new(root, "baseline", json_null());
      memoptEmitOpDiagnostic(model.func, MlirDiagnosticRemark,
                             "place-search: baseline p=%lld t=%lld d=%lld does not fit or is not a "
                             "configuration of the cluster",
                             (long long)baselineDegrees[0], (long long)baselineDegrees[1],
                             (long long)baselineDegrees[2]);
    }
  }

  const char *reportPath = memoptPassOptionsGetString(passOptions, "report");
  if (ok && *reportPath) {
    MemoptStringBuffer error = memoptStringBufferCreate();
    if (!memoptJsonWriteFile(root, reportPath, JSON_INDENT(2) | JSON_REAL_PRECISION(9), &error)) {
      memoptEmitOpDiagnostic(module, MlirDiagnosticError, "place-search: %s", error.data);
      ok = false;
    }
    memoptStringBufferDestroy(&error);
  }
  json_decref(root);
  if (ok) {
    const char *clusterName = "cluster";
    createCluster(module, &cluster, clusterName);
    bool wrapped = emitStages(&model, &plan, clusterName);
    const char *how = wrapped ? "stages hold their ops"
                      : model.layers != s->count
                          ? "stages describe layer ranges (one layer stands for all)"
                          : "stages describe layer ranges (a stage would pass more values on than "
                            "its 8 result slots)";
    memoptEmitOpDiagnostic(
        model.func, MlirDiagnosticRemark,
        "place-search: %zu layers on %lld devices: pipeline %lld, tensor-parallel %lld, "
        "data-parallel %lld, microbatch %lld (%lld per replica), %.6g s per batch, %.6g "
        "samples/s; %s",
        model.problemLayers, (long long)cluster.devices, (long long)plan.pipeline,
        (long long)plan.tensorParallel, (long long)plan.dataParallel, (long long)plan.microbatch,
        (long long)plan.microbatchCount, plan.batchSeconds,
        (double)cluster.globalBatch / plan.batchSeconds, how);
  }
  memoptPlacementPlanDestroy(&plan);
  problemStorageDestroy(&storage);
    memoptLayerStructureDestroy(&model.structure);
  return ok ? mlirLogicalResultSuccess() : mlirLogicalResultFailure();
}

/* vector for the stages' vector.yield terminators. */
static MlirDialectHandle (*const placeDialects[])(void) = {mlirGetDialectHandle__vector__};

const MemoptPassInfo memoptPlaceSearchPass = {
    .argument = "place-search",
    .summary = "Choose pipeline stages, tensor/data parallelism, microbatch and recompute for "
               "training a transformer on a cluster (PHAZE)",
    .anchor = "builtin.module",
    .options = options,
    .optionCount = sizeof options / sizeof *options,
    .dependentDialects = placeDialects,
    .dependentDialectCount = sizeof placeDialects / sizeof *placeDialects,
    .checkOptions = checkPlaceSearchOptions,
    .run = runPlaceSearch,
};

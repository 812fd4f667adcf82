/* The placement problem place-search solves, built from a recognized
 * transformer function: the model (prologue, repeated layers, epilogue as
 * ranges of top-level ops) and, per segment and candidate microbatch, the
 * accelerator time, parameter, activation and boundary bytes of one layer
 * (AcceleratorCost.c), with the time optionally replaced by a list or ILP
 * schedule of the segment's ops (OperatorSchedule.c). */
#include "Place/PlaceSearch.h"

#include "mlir-c/BuiltinTypes.h"

#include <stdlib.h>
#include <string.h>

/* The first function with a body and at least one op. */
MlirOperation memoptPlaceFindFunction(MlirOperation module) {
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
int memoptPlaceSegmentOf(const MemoptPlaceModel *model, size_t index) {
  if (model->hasPrologue && index == 0)
    return 0;
  if (model->hasEpilogue && index + 1 == model->problemLayers)
    return 2;
  return 1;
}

/* Op range [first, end) of problem layer `index` in the materialized function. */
void memoptPlaceOpRangeOf(const MemoptPlaceModel *model, size_t index, size_t *first, size_t *end) {
  const MemoptLayerStructure *s = &model->structure;
  int segment = memoptPlaceSegmentOf(model, index);
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

bool memoptPlaceModelRecognize(MlirOperation func, const MemoptPassOptions *options,
                               MemoptPlaceModel *model) {
  memset(model, 0, sizeof *model);
  model->func = func;
  memoptLayerRecognize(func, &model->structure);
  const MemoptLayerStructure *s = &model->structure;
  model->layers = memoptPassOptionsGetInteger(options, "layers")
                      ? (size_t)memoptPassOptionsGetInteger(options, "layers")
                      : s->count;
  model->hasPrologue = s->bounds[0] > 0;
  model->hasEpilogue = s->bounds[s->count] < s->numOps;
  model->problemLayers = model->layers + model->hasPrologue + model->hasEpilogue;
  model->irBatch = memoptPassOptionsGetInteger(options, "batch")
                       ? (double)memoptPassOptionsGetInteger(options, "batch")
                       : leadingDimension(func);
  if (strcmp(memoptPassOptionsGetString(options, "memory"), "program") != 0)
    return true;
  if (model->layers != s->count) {
    memoptEmitOpDiagnostic(func, MlirDiagnosticError,
                           "place-search: memory=program prices the function as written, which "
                           "holds %zu layers, not layers=%zu",
                           s->count, model->layers);
    return false;
  }
  /* What the function holds does not depend on the accelerator: priced
   * once, whatever architecture-search tries. */
  MemoptStringBuffer error = memoptStringBufferCreate();
  bool ok = memoptPlaceProgramMemoryCompute(
      func, (size_t)memoptPassOptionsGetInteger(options, "data-arguments"),
      (size_t)memoptPassOptionsGetInteger(options, "trailing-data-arguments"), model->irBatch,
      &model->program, &error);
  if (!ok)
    memoptEmitOpDiagnostic(func, MlirDiagnosticError,
                           "place-search cannot estimate what the function holds: %s", error.data);
  memoptStringBufferDestroy(&error);
  return ok;
}

void memoptPlaceModelDestroy(MemoptPlaceModel *model) {
  memoptLayerStructureDestroy(&model->structure);
  memoptPlaceProgramMemoryDestroy(&model->program);
}
void memoptPlaceProblemStorageDestroy(MemoptPlaceProblemStorage *storage) {
  free(storage->layers);
  free(storage->seconds);
  free(storage->stageParameterBytes);
  free(storage->stageHeldBytes);
  free(storage->microbatches);
}

/* memory=program: per stage of problem layers [first, end), what the
 * parameters its ops read and the most its ops hold at once take per
 * device, per tensor degree (1, 2, 4, ... `degrees` of them) and, for the
 * latter, microbatch candidate (`count`). */
static void programStageFigures(const MemoptPlaceModel *model, size_t count, size_t degrees,
                                MemoptPlaceProblemStorage *storage) {
  size_t layers = model->problemLayers, stages = layers * (layers + 1) / 2;
  storage->stageParameterBytes =
      memoptAllocateZeroed(stages * degrees, sizeof *storage->stageParameterBytes);
  storage->stageHeldBytes =
      memoptAllocateZeroed(stages * degrees * count, sizeof *storage->stageHeldBytes);
  size_t *ends = memoptAllocateZeroed(layers, sizeof *ends);
  for (size_t first = 0; first < layers; ++first) {
    size_t start, unused;
    memoptPlaceOpRangeOf(model, first, &start, &unused);
    for (size_t l = first; l < layers; ++l)
      memoptPlaceOpRangeOf(model, l, &unused, &ends[l - first]);
    size_t stage = memoptPlacementStageIndex(layers, first, first + 1);
    memoptPlaceProgramMemoryStageParameters(&model->program, start, ends, layers - first, degrees,
                                            &storage->stageParameterBytes[stage * degrees]);
    memoptPlaceProgramMemoryStageHeld(&model->program, start, ends, layers - first,
                                      storage->microbatches, count, degrees,
                                      &storage->stageHeldBytes[stage * degrees * count]);
  }
  free(ends);
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

bool memoptPlaceProblemBuild(const MemoptPlaceModel *model, const MemoptPlaceCluster *cluster,
                         const MemoptAcceleratorConfig *accelerator,
                         const MemoptPassOptions *options, MemoptPlaceProblemStorage *storage) {
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
  bool program = strcmp(memoptPassOptionsGetString(options, "memory"), "program") == 0;
  size_t degrees =
      memoptPlacementTensorDegrees(memoptPassOptionsGetInteger(options, "max-tensor-parallel"));
  if (program)
    programStageFigures(model, count, degrees, storage);
  double element = (double)accelerator->bytesPerElement;
  for (size_t l = 0; l < model->problemLayers; ++l) {
    int segment = memoptPlaceSegmentOf(model, l);
    const MemoptSegmentCost *cost = &storage->segments[segment];
    /* The cost at microbatch 1 was computed with scale 1 / irBatch: per sample. */
    storage->layers[l] = (MemoptPlacementLayer){
        &storage->seconds[segment * count],
        cost->parameterElements * element,
        cost->activationElements / model->irBatch * element,
        cost->boundaryElements / model->irBatch * element,
    };
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
      program ? MemoptPlacementProgram : MemoptPlacementTraining,
      storage->stageParameterBytes,
      storage->stageHeldBytes,
  };
  return true;
}

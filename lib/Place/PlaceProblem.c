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
  /* What the function holds does not depend on the accelerator: priced
   * once, whatever architecture-search tries. */
  MemoptStringBuffer error = memoptStringBufferCreate();
  /* Later stages start at a layer (the first's start stands for all) or at the epilogue. */
  size_t starts[2] = {s->bounds[0], s->bounds[s->count]};
  bool ok = memoptPlaceProgramMemoryCompute(
      func, (size_t)memoptPassOptionsGetInteger(options, "data-arguments"), model->irBatch, starts,
      2, &model->program, &error);
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
  free(storage->heldBytes);
  free(storage->microbatches);
}

/* memory=program: the most each segment's ops hold at once, per stage
 * start (from op 0, from a layer, from the epilogue), tensor degree (1, 2,
 * 4, ... `degrees` of them) and microbatch candidate
 * (`storage->heldBytes`). */
static void programHeldBytes(const MemoptPlaceModel *model, const size_t firsts[3],
                             const size_t lengths[3], size_t count, size_t degrees,
                             MemoptPlaceProblemStorage *storage) {
  storage->heldBytes = memoptAllocateZeroed(3 * 3 * degrees * count, sizeof *storage->heldBytes);
  for (int segment = 0; segment < 3; ++segment)
    for (size_t start = 0; start < 3; ++start)
      for (size_t t = 0; t < degrees; ++t)
        for (size_t mb = 0; mb < count; ++mb)
          storage->heldBytes[((segment * 3 + start) * degrees + t) * count + mb] =
              memoptPlaceProgramMemoryPeak(
                  &model->program, start, firsts[segment], firsts[segment] + lengths[segment],
                  (double)storage->microbatches[mb], (double)((int64_t)1 << t));
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
    programHeldBytes(model, firsts, lengths, count, degrees, storage);
  /* What a stage holds once of the parameters two of its segments read:
   * the prologue's with a layer's or the epilogue's (without a prologue,
   * layer 0 is a layer), and a layer's with the epilogue's. */
  MemoptParameterBytes withFirst[3] = {{0, 0}, {0, 0}, {0, 0}},
                       perEarlier[3] = {{0, 0}, {0, 0}, {0, 0}};
  if (program) {
    int first = model->hasPrologue ? 0 : 1;
    for (int segment = first + 1; segment < 3; ++segment)
      if (lengths[first] > 0 && lengths[segment] > 0)
        withFirst[segment] =
            memoptSegmentSharedParameterBytes(model->func, firsts[first], lengths[first],
                                              firsts[segment], lengths[segment], dataArguments);
    if (lengths[1] > 0 && lengths[2] > 0)
      perEarlier[2] = memoptSegmentSharedParameterBytes(model->func, firsts[1], lengths[1],
                                                        firsts[2], lengths[2], dataArguments);
  }
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
        cost->parameterBytes - cost->splitParameterBytes,
        cost->splitParameterBytes,
        program ? &storage->heldBytes[segment * 3 * degrees * count] : NULL,
        {program ? &storage->heldBytes[(segment * 3 + 1) * degrees * count] : NULL,
         program ? &storage->heldBytes[(segment * 3 + 2) * degrees * count] : NULL},
        l == 0         ? -1
        : segment == 2 ? 1
                       : 0,
        l > 0 ? withFirst[segment] : (MemoptParameterBytes){0, 0},
        perEarlier[segment]};
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
  };
  return true;
}

/* The IR place-search writes: a place.cluster op at the top of the module
 * and one place.stage op per pipeline stage, holding the stage's ops when
 * every layer is in the function, else with an empty body describing the
 * stage's layer range; and the recognition of a stage's packed results
 * (more than its slots, in a tuple), which place-to-shard unpacks. */
#include "Place/PlaceSearch.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <math.h>
#include <stdlib.h>

static MlirNamedAttribute named(MlirContext context, const char *name, MlirAttribute value) {
  return mlirNamedAttributeGet(mlirIdentifierGet(context, mlirStringRefCreateFromCString(name)), value);
}

static MlirAttribute i64(MlirContext context, int64_t value) {
  return mlirIntegerAttrGet(mlirIntegerTypeGet(context, 64), value);
}

static void createCluster(MlirOperation module, const MemoptPlaceCluster *cluster, const char *name) {
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

/* The results of ops[first, end) used by an op outside the range, in a new
 * array (the caller frees it) of *count values. ops[end] must exist
 * (ops[numOps] is the terminator); a use is inside when its ancestor in the
 * body is neither before ops[first] nor at or after ops[end] (the block's
 * cached order). */
static MlirValue *escaping(MlirOperation *ops, size_t first, size_t end, intptr_t *count) {
  MlirValue *values = NULL;
  size_t capacity = 0;
  *count = 0;
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
      values = memoptGrowArray(values, &capacity, (size_t)*count + 1, sizeof *values);
      values[(*count)++] = value;
    }
  return values;
}

/* A builtin.unrealized_conversion_cast of `values` to `types` at the end of
 * `block` (before `before` when not null). */
static MlirOperation createCast(MlirBlock block, MlirOperation before, MlirLocation location,
                                intptr_t count, MlirValue *values, intptr_t typeCount,
                                MlirType *types) {
  MlirOperationState state = mlirOperationStateGet(
      mlirStringRefCreateFromCString("builtin.unrealized_conversion_cast"), location);
  mlirOperationStateAddOperands(&state, count, values);
  mlirOperationStateAddResults(&state, typeCount, types);
  MlirOperation cast = mlirOperationCreate(&state);
  mlirBlockInsertOwnedOperationBefore(block, before, cast);
  return cast;
}

/* Creates place.stage `index` before `before` (or at the end of the
 * function body before its terminator), moving ops[first, end) into it.
 * The values used after the stage are its results, one per slot; when they
 * outnumber the slots (a training step returns every gradient), they are
 * packed into one tuple, the stage's only result, by an
 * unrealized_conversion_cast before its yield, and unpacked after it by
 * another (place-to-shard returns the packed values from the stage's
 * function). */
static void createStage(MlirOperation func, const char *clusterName, const MemoptPlacementPlan *plan,
                        size_t index, MlirOperation *ops, size_t first, size_t end,
                        MlirOperation before) {
  MlirContext context = mlirOperationGetContext(func);
  MlirLocation location = first < end ? mlirOperationGetLocation(ops[first])
                                      : mlirOperationGetLocation(func);
  const MemoptPlacementStage *stage = &plan->stages[index];
  intptr_t count = 0;
  MlirValue *values = first < end ? escaping(ops, first, end, &count) : NULL;
  MlirType *types = memoptAllocateZeroed((size_t)count + 1, sizeof *types);
  for (intptr_t i = 0; i < count; ++i)
    types[i] = mlirValueGetType(values[i]);
  bool packed = count > MEMOPT_MAX_SLOTS;
  MlirType tuple = mlirTupleTypeGet(context, count, types);
  intptr_t results = packed ? 1 : count;
  MlirOperationState state =
      mlirOperationStateGet(mlirStringRefCreateFromCString("place.stage"), location);
  mlirOperationStateAddResults(&state, results, packed ? &tuple : types);
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
      named(context, "memory_bytes_per_device", i64(context, (int64_t)ceil(stage->memoryBytes))),
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
  MlirOperation yieldOp = mlirOperationCreate(&yield);
  mlirBlockAppendOwnedOperation(body, yieldOp);
  /* Constants stay before the stage: later stages may use them too. */
  for (size_t i = first; i < end; ++i)
    if (!isConstant(ops[i]))
      mlirOperationMoveBefore(ops[i], yieldOp);
  if (packed) {
    MlirOperation pack = createCast(body, yieldOp, location, count, values, 1, &tuple);
    MlirValue packedValue = mlirOperationGetResult(pack, 0);
    mlirOperationSetOperands(yieldOp, 1, &packedValue);
    MlirValue stageResult = mlirOperationGetResult(stageOp, 0);
    MlirOperation unpack = createCast(funcBody, before, location, 1, &stageResult, count, types);
    for (intptr_t i = 0; i < count; ++i)
      memoptValueReplaceUsesByScope(values[i], mlirOperationGetResult(unpack, i), stageOp, false);
  } else {
    mlirOperationSetOperands(yieldOp, count, values);
    for (intptr_t i = 0; i < count; ++i)
      memoptValueReplaceUsesByScope(values[i], mlirOperationGetResult(stageOp, i), stageOp, false);
  }
  free(types);
  free(values);
}

/* Wraps each stage's ops into its place.stage when the function holds every
 * layer; otherwise the stages are emitted with empty bodies. Returns true
 * when wrapped. */
static bool emitStages(const MemoptPlaceModel *model, const MemoptPlacementPlan *plan, const char *clusterName) {
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
    memoptPlaceOpRangeOf(model, plan->stages[s].firstLayer, &first, &unused);
    memoptPlaceOpRangeOf(model, plan->stages[s].firstLayer + plan->stages[s].layerCount - 1, &unused, &end);
    firsts[s] = first;
    firsts[s + 1] = end;
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

void memoptPlaceEmitPlan(MlirOperation module, const MemoptPlaceModel *model,
                         const MemoptPlaceCluster *cluster, const MemoptPlacementPlan *plan) {
  const char *clusterName = "cluster";
  createCluster(module, cluster, clusterName);
  bool wrapped = emitStages(model, plan, clusterName);
  const char *how = wrapped ? "stages hold their ops"
                            : "stages describe layer ranges (one layer stands for all)";
  memoptEmitOpDiagnostic(
      model->func, MlirDiagnosticRemark,
      "place-search: %zu layers on %lld devices: pipeline %lld, tensor-parallel %lld, "
      "data-parallel %lld, microbatch %lld (%lld per replica), %.6g s per batch, %.6g "
      "samples/s; %s",
      model->problemLayers, (long long)cluster->devices, (long long)plan->pipeline,
      (long long)plan->tensorParallel, (long long)plan->dataParallel, (long long)plan->microbatch,
      (long long)plan->microbatchCount, plan->batchSeconds,
      (double)cluster->globalBatch / plan->batchSeconds, how);
}

MlirOperation memoptPlaceStagePack(MlirOperation stage) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(stage, 0));
  MlirOperation yield = mlirBlockGetTerminator(body);
  if (mlirOperationGetNumOperands(yield) != 1)
    return (MlirOperation){NULL};
  MlirValue yielded = mlirOperationGetOperand(yield, 0);
  bool packed = mlirTypeIsATuple(mlirValueGetType(yielded)) && mlirValueIsAOpResult(yielded) &&
                memoptOperationIsA(mlirOpResultGetOwner(yielded), "builtin.unrealized_conversion_cast");
  return packed ? mlirOpResultGetOwner(yielded) : (MlirOperation){NULL};
}

bool memoptPlaceIsStageUnpack(MlirOperation op) {
  return memoptOperationIsA(op, "builtin.unrealized_conversion_cast") &&
         mlirOperationGetNumOperands(op) == 1 &&
         mlirValueIsAOpResult(mlirOperationGetOperand(op, 0)) &&
         memoptOperationIsA(mlirOpResultGetOwner(mlirOperationGetOperand(op, 0)), "place.stage");
}

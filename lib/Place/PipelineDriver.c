/* The pipeline driver place-to-shard emits for a function placed in more
 * than one stage. It keeps the function's name and type, and runs on MPI
 * ranks, one per stage: it asks for its rank in MPI_COMM_WORLD and switches
 * on it (scf.index_switch); case s runs stage s:
 *   1. receives the values it takes from earlier stages (mpi.recv into a
 *      memref.alloc, read as a tensor with bufferization.to_tensor restrict
 *      writable), ordered by the sending stage, then by its result;
 *      upstream's MPIToLLVM transfers as many elements as a buffer's first
 *      dimension holds, so tensors of rank 2 and more travel flattened
 *      (tensor.collapse_shape before the send, expand_shape after the
 *      receive);
 *   2. calls `@<function>_stage<s>` (with the views normalization applied to
 *      its arguments and results, the recipe place-to-shard hands over);
 *   3. sends each result later stages take (bufferization.to_buffer, then
 *      mpi.send) to every rank that takes it, in rank order;
 *   4. gets the function's results: the stage that computes one sends it to
 *      every other rank that did not receive it in step 1, those receive it,
 *      result by result; arguments and constants the function returns are
 *      every rank's already.
 * Every rank performs its transfers in one global order (stage-to-stage
 * transfers by sending stage, value, receiving stage; then the results by
 * index and rank), so blocking sends cannot deadlock. Each transferred value
 * has a tag of its own. The default case (a rank beyond the stages) aborts
 * (cf.assert). */
#include "IR/Builders.h"
#include "IR/IR.h"
#include "Place/Place.h"
#include "Place/PlaceToShard.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdlib.h>
#include <string.h>

MlirValue *memoptPipelineStageOutputs(MlirOperation stage, intptr_t *count) {
  MlirOperation holder = stage;
  if (!mlirOperationIsNull(memoptPlaceStagePack(stage)))
    for (MlirOpOperand use = mlirValueGetFirstUse(mlirOperationGetResult(stage, 0));
         !mlirOpOperandIsNull(use); use = mlirOpOperandGetNextUse(use))
      if (memoptPlaceIsStageUnpack(mlirOpOperandGetOwner(use)))
        holder = mlirOpOperandGetOwner(use);
  *count = mlirOperationGetNumResults(holder);
  MlirValue *outputs = memoptAllocateZeroed((size_t)*count + 1, sizeof *outputs);
  for (intptr_t k = 0; k < *count; ++k)
    outputs[k] = mlirOperationGetResult(holder, k);
  return outputs;
}


bool memoptPipelineDriverCheck(MlirOperation func) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  intptr_t stages = memoptPlaceStageCount(func);
  bool ok = true;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!memoptOperationIsA(op, "place.stage"))
      continue;
    int64_t tensor = memoptOperationGetIntegerAttr(op, "tensor_parallel"),
            data = memoptOperationGetIntegerAttr(op, "data_parallel");
    if (tensor * data == 1)
      continue;
    memoptEmitOpDiagnostic(
        op, MlirDiagnosticError,
        "place-to-shard: this stage of a %lld-stage pipeline runs on %lld devices (tensor-parallel "
        "%lld x data-parallel %lld), but the pipeline driver runs one device per stage: upstream "
        "convert-shard-to-mpi splits MPI_COMM_WORLD (mpi.comm_split, collective over every rank) "
        "for each all-reduce and takes the process index from the world rank, so stages on "
        "separate ranks would deadlock or index outside their grid; per-stage communicators are "
        "not built (pipeline-driver=false outlines the stages alone)",
        (long long)stages, (long long)(tensor * data), (long long)tensor, (long long)data);
    ok = false;
  }
  return ok;
}

void memoptPipelineStageDestroy(MemoptPipelineStage *stage) {
  if (!mlirBlockIsNull(stage->recipe))
    mlirBlockDestroy(stage->recipe);
  free(stage->outputs);
  memset(stage, 0, sizeof *stage);
}

/* Values of the original function and what stands for them in one case. */
typedef struct ValueMap {
  MlirValue *from, *to;
  intptr_t count;
  size_t fromCapacity, toCapacity;
} ValueMap;

static void mapSet(ValueMap *map, MlirValue from, MlirValue to) {
  map->from =
      memoptGrowArray(map->from, &map->fromCapacity, (size_t)map->count + 1, sizeof *map->from);
  map->to = memoptGrowArray(map->to, &map->toCapacity, (size_t)map->count + 1, sizeof *map->to);
  map->from[map->count] = from;
  map->to[map->count++] = to;
}

/* What stands for `value` in the case: a mapped value, the driver's own
 * argument for an argument of `func`, else `value` itself. */
static MlirValue mapGet(const ValueMap *map, MlirValue value, MlirOperation func,
                        MlirBlock driverBody) {
  for (intptr_t k = 0; k < map->count; ++k)
    if (mlirValueEqual(map->from[k], value))
      return map->to[k];
  if (mlirValueIsABlockArgument(value) &&
      mlirOperationEqual(mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(value)), func))
    return mlirBlockGetArgument(driverBody, mlirBlockArgumentGetArgNumber(value));
  return value;
}

/* What the driver is built from. */
typedef struct Driver {
  MlirOperation func;
  MlirBlock body; /* the driver's entry block */
  MemoptPipelineStage *stages;
  intptr_t count;
  MlirValue world; /* MPI_COMM_WORLD */
  bool **takes;    /* takes[s][t * maxOutputs + k]: stage s reads output k of stage t */
  intptr_t maxOutputs;
  int32_t *stageTags;     /* the tag of output k of stage t, -1 when no stage takes it */
  int32_t *resultTags;    /* the tag of result q, -1 when it is not a stage's output */
  intptr_t *resultSource; /* the stage computing result q and its output index, or -1 */
  intptr_t *resultOutput;
} Driver;

static bool recipeReads(const MemoptPipelineStage *stage, MlirValue value) {
  for (MlirOperation op = mlirBlockGetFirstOperation(stage->recipe); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    for (intptr_t k = 0; k < mlirOperationGetNumOperands(op); ++k)
      if (mlirValueEqual(mlirOperationGetOperand(op, k), value))
        return true;
  return false;
}

static MlirContext contextOf(const Driver *driver) { return mlirOperationGetContext(driver->func); }

static MlirValue buildI32(const MemoptBuilder *builder, int64_t value) {
  MlirType i32 = mlirIntegerTypeGet(mlirLocationGetContext(builder->location), 32);
  return memoptBuildConstant(builder, mlirIntegerAttrGet(i32, value));
}

/* mpi.send or mpi.recv (`opName`) of `buffer` with `tag` to or from `rank`. */
static void buildTransfer(const Driver *driver, const MemoptBuilder *builder, const char *opName,
                          MlirValue buffer, int32_t tag, intptr_t rank) {
  MlirValue operands[] = {buffer, buildI32(builder, tag), buildI32(builder, rank), driver->world};
  memoptBuildOp(builder, opName, operands, 4, NULL, 0, NULL, 0);
}

/* The tensor type a value of `type` travels as: upstream's MPIToLLVM sends
 * and receives as many elements as the buffer's first dimension holds, so
 * a tensor of rank 2 or more travels flattened to one dimension. */
static MlirType travelType(MlirType type) {
  intptr_t rank = mlirShapedTypeGetRank(type);
  if (rank < 2)
    return type;
  int64_t elements = mlirShapedTypeGetDimSize(type, 0);
  for (intptr_t d = 1; d < rank; ++d)
    elements *= mlirShapedTypeGetDimSize(type, d);
  return mlirRankedTensorTypeGet(1, &elements, mlirShapedTypeGetElementType(type),
                                 mlirAttributeGetNull());
}

/* The memref a tensor of (travel) type `type` is sent from or received into. */
static MlirType bufferType(MlirType type) {
  intptr_t rank = mlirShapedTypeGetRank(type);
  int64_t extent = rank == 1 ? mlirShapedTypeGetDimSize(type, 0) : 0;
  return mlirMemRefTypeContiguousGet(mlirShapedTypeGetElementType(type), rank, &extent,
                                     mlirAttributeGetNull());
}

/* `tensor.collapse_shape` of `value` to one dimension (`collapse`), or
 * `tensor.expand_shape` of the one-dimensional `value` to `type`. */
static MlirValue buildFlatReshape(const Driver *driver, const MemoptBuilder *builder,
                                  MlirValue value, MlirType type, bool collapse) {
  MlirContext context = contextOf(driver);
  MlirType shaped = collapse ? mlirValueGetType(value) : type;
  intptr_t rank = mlirShapedTypeGetRank(shaped);
  MlirAttribute *dims = memoptAllocateZeroed((size_t)rank, sizeof *dims);
  int64_t *shape = memoptAllocateZeroed((size_t)rank, sizeof *shape);
  for (intptr_t d = 0; d < rank; ++d) {
    dims[d] = mlirIntegerAttrGet(mlirIntegerTypeGet(context, 64), d);
    shape[d] = mlirShapedTypeGetDimSize(shaped, d);
  }
  MlirAttribute group = mlirArrayAttrGet(context, rank, dims);
  MlirNamedAttribute attributes[] = {
      memoptNamedAttribute(context, "reassociation", mlirArrayAttrGet(context, 1, &group)),
      memoptNamedAttribute(context, "static_output_shape",
                           mlirDenseI64ArrayGet(context, rank, shape)),
  };
  MlirValue reshaped =
      collapse
          ? memoptBuildOneResult(builder, "tensor.collapse_shape", &value, 1, type, attributes, 1)
          : memoptBuildOneResult(builder, "tensor.expand_shape", &value, 1, type, attributes, 2);
  free(shape);
  free(dims);
  return reshaped;
}

/* Receives a tensor of `type` with `tag` from `rank`; returns it. */
static MlirValue buildReceive(const Driver *driver, const MemoptBuilder *builder, MlirType type,
                              int32_t tag, intptr_t rank) {
  MlirContext context = contextOf(driver);
  int32_t noSizes[2] = {0, 0};
  MlirNamedAttribute segments = memoptNamedAttribute(context, "operandSegmentSizes",
                                                     mlirDenseI32ArrayGet(context, 2, noSizes));
  MlirType travel = travelType(type);
  MlirValue buffer =
      memoptBuildOneResult(builder, "memref.alloc", NULL, 0, bufferType(travel), &segments, 1);
  buildTransfer(driver, builder, "mpi.recv", buffer, tag, rank);
  MlirNamedAttribute flags[] = {
      memoptNamedAttribute(context, "restrict", mlirUnitAttrGet(context)),
      memoptNamedAttribute(context, "writable", mlirUnitAttrGet(context))};
  MlirValue received =
      memoptBuildOneResult(builder, "bufferization.to_tensor", &buffer, 1, travel, flags, 2);
  return mlirTypeEqual(travel, type) ? received
                                     : buildFlatReshape(driver, builder, received, type, false);
}

/* The buffer of tensor `value`, to send. */
static MlirValue buildSendBuffer(const Driver *driver, const MemoptBuilder *builder,
                                 MlirValue value) {
  MlirContext context = contextOf(driver);
  MlirType travel = travelType(mlirValueGetType(value));
  if (!mlirTypeEqual(travel, mlirValueGetType(value)))
    value = buildFlatReshape(driver, builder, value, travel, true);
  MlirNamedAttribute readOnly =
      memoptNamedAttribute(context, "read_only", mlirUnitAttrGet(context));
  return memoptBuildOneResult(builder, "bufferization.to_buffer", &value, 1, bufferType(travel),
                              &readOnly, 1);
}

/* The value the recipe of a stage gives for call result `k`: the call's
 * result, or the view normalization put after it. */
static MlirValue recipeOutput(MlirOperation call, intptr_t k) {
  MlirValue result = mlirOperationGetResult(call, k);
  MlirOpOperand use = mlirValueGetFirstUse(result);
  return mlirOpOperandIsNull(use) ? result : mlirOperationGetResult(mlirOpOperandGetOwner(use), 0);
}

/* True when `type` can be sent: a ranked tensor of static shape. */
static bool isTransferable(MlirType type) {
  return mlirTypeIsARankedTensor(type) && mlirShapedTypeHasStaticShape(type);
}

/* Finds the stage output `value` is and its index; false when it is none. */
static bool findOutput(const Driver *driver, MlirValue value, intptr_t *stage, intptr_t *output) {
  for (intptr_t s = 0; s < driver->count; ++s)
    for (intptr_t k = 0; k < driver->stages[s].outputCount; ++k)
      if (mlirValueEqual(driver->stages[s].outputs[k], value)) {
        *stage = s;
        *output = k;
        return true;
      }
  return false;
}

/* Numbers the transfers and checks their types; false after a located error. */
static bool planTransfers(Driver *driver, MlirOperation ret, MlirOperation *stageOps) {
  intptr_t count = driver->count;
  for (intptr_t s = 0; s < count; ++s)
    if (driver->stages[s].outputCount > driver->maxOutputs)
      driver->maxOutputs = driver->stages[s].outputCount;
  driver->takes = memoptAllocateZeroed((size_t)count, sizeof *driver->takes);
  driver->stageTags =
      memoptAllocateZeroed((size_t)(count * driver->maxOutputs) + 1, sizeof *driver->stageTags);
  int32_t tag = 0;
  bool ok = true;
  for (intptr_t s = 0; s < count; ++s)
    driver->takes[s] =
        memoptAllocateZeroed((size_t)(count * driver->maxOutputs) + 1, sizeof **driver->takes);
  for (intptr_t t = 0; t < count; ++t)
    for (intptr_t k = 0; k < driver->stages[t].outputCount; ++k) {
      MlirValue value = driver->stages[t].outputs[k];
      bool taken = false;
      for (intptr_t s = t + 1; s < count; ++s) {
        driver->takes[s][t * driver->maxOutputs + k] = recipeReads(&driver->stages[s], value);
        taken = taken || driver->takes[s][t * driver->maxOutputs + k];
      }
      driver->stageTags[t * driver->maxOutputs + k] = taken ? tag++ : -1;
      if (taken && !isTransferable(mlirValueGetType(value))) {
        memoptEmitOpDiagnostic(stageOps[t], MlirDiagnosticError,
                               "place-to-shard: result %lld of this stage goes to a later stage, "
                               "but the pipeline driver sends only tensors of static shape "
                               "between ranks",
                               (long long)k);
        ok = false;
      }
    }
  intptr_t results = mlirOperationGetNumOperands(ret);
  driver->resultTags = memoptAllocateZeroed((size_t)results + 1, sizeof *driver->resultTags);
  driver->resultSource = memoptAllocateZeroed((size_t)results + 1, sizeof *driver->resultSource);
  driver->resultOutput = memoptAllocateZeroed((size_t)results + 1, sizeof *driver->resultOutput);
  for (intptr_t q = 0; q < results; ++q) {
    MlirValue value = mlirOperationGetOperand(ret, q);
    driver->resultTags[q] = -1;
    driver->resultSource[q] = -1;
    if (!findOutput(driver, value, &driver->resultSource[q], &driver->resultOutput[q]))
      continue;
    driver->resultTags[q] = tag++;
    if (!isTransferable(mlirValueGetType(value))) {
      memoptEmitOpDiagnostic(ret, MlirDiagnosticError,
                             "place-to-shard: result %lld of the function is computed by stage "
                             "%lld and sent to every other rank, but the pipeline driver sends "
                             "only tensors of static shape",
                             (long long)q, (long long)driver->resultSource[q]);
      ok = false;
    }
  }
  return ok;
}

/* What case `s` (or the default case, `s` = -1) yields for result `q` when
 * the value is not computed by a stage: the argument, or a copy of the
 * constant, or (default case) an empty tensor. */
static MlirValue yieldedAsIs(const Driver *driver, const MemoptBuilder *builder, MlirValue value,
                             const ValueMap *map) {
  if (mlirValueIsAOpResult(value) &&
      memoptOperationIsA(mlirOpResultGetOwner(value), "arith.constant")) {
    MlirOperation copy = mlirOperationClone(mlirOpResultGetOwner(value));
    mlirBlockInsertOwnedOperationBefore(builder->block, builder->before, copy);
    return mlirOperationGetResult(copy, 0);
  }
  if (mlirValueIsABlockArgument(value))
    return mapGet(map, value, driver->func, driver->body);
  return memoptBuildTensorEmpty(builder, mlirValueGetType(value), NULL, 0);
}

/* Fills case region `s`: receives, the stage's call, sends, the results. */
static void buildCase(Driver *driver, intptr_t s, MlirBlock block, MlirOperation ret) {
  MemoptPipelineStage *stage = &driver->stages[s];
  MemoptBuilder builder = memoptBuilderAtEnd(block, mlirOperationGetLocation(stage->call));
  ValueMap map = {NULL, NULL, 0, 0, 0};
  for (intptr_t t = 0; t < s; ++t)
    for (intptr_t k = 0; k < driver->stages[t].outputCount; ++k)
      if (driver->takes[s][t * driver->maxOutputs + k]) {
        MlirValue value = driver->stages[t].outputs[k];
        mapSet(&map, value,
               buildReceive(driver, &builder, mlirValueGetType(value),
                            driver->stageTags[t * driver->maxOutputs + k], t));
      }
  /* The recipe's ops move in, reading what stands for the original values. */
  for (MlirOperation op = mlirBlockGetFirstOperation(stage->recipe); !mlirOperationIsNull(op);) {
    MlirOperation next = mlirOperationGetNextInBlock(op);
    for (intptr_t k = 0; k < mlirOperationGetNumOperands(op); ++k)
      mlirOperationSetOperand(
          op, k, mapGet(&map, mlirOperationGetOperand(op, k), driver->func, driver->body));
    mlirOperationRemoveFromParent(op);
    mlirBlockAppendOwnedOperation(block, op);
    op = next;
  }
  mlirBlockDestroy(stage->recipe);
  stage->recipe = (MlirBlock){NULL};
  /* Read before the sends add users to the call's results. */
  MlirValue *outputs = memoptAllocateZeroed((size_t)stage->outputCount + 1, sizeof *outputs);
  for (intptr_t k = 0; k < stage->outputCount; ++k)
    outputs[k] = recipeOutput(stage->call, k);
  for (intptr_t k = 0; k < stage->outputCount; ++k) {
    MlirValue buffer = {NULL};
    for (intptr_t d = s + 1; d < driver->count; ++d) {
      if (!driver->takes[d][s * driver->maxOutputs + k])
        continue;
      if (mlirValueIsNull(buffer))
        buffer = buildSendBuffer(driver, &builder, outputs[k]);
      buildTransfer(driver, &builder, "mpi.send", buffer,
                    driver->stageTags[s * driver->maxOutputs + k], d);
    }
  }
  intptr_t results = mlirOperationGetNumOperands(ret);
  MlirValue *yielded = memoptAllocateZeroed((size_t)results + 1, sizeof *yielded);
  for (intptr_t q = 0; q < results; ++q) {
    MlirValue value = mlirOperationGetOperand(ret, q);
    intptr_t source = driver->resultSource[q];
    intptr_t taken = source * driver->maxOutputs + driver->resultOutput[q];
    if (source < 0) {
      yielded[q] = yieldedAsIs(driver, &builder, value, &map);
    } else if (source != s && driver->takes[s][taken]) {
      yielded[q] = mapGet(&map, value, driver->func, driver->body); /* received already */
    } else if (source != s) {
      yielded[q] =
          buildReceive(driver, &builder, mlirValueGetType(value), driver->resultTags[q], source);
    } else {
      yielded[q] = outputs[driver->resultOutput[q]];
      MlirValue buffer = {NULL};
      for (intptr_t rank = 0; rank < driver->count; ++rank) {
        if (rank == s || driver->takes[rank][taken])
          continue;
        if (mlirValueIsNull(buffer))
          buffer = buildSendBuffer(driver, &builder, yielded[q]);
        buildTransfer(driver, &builder, "mpi.send", buffer, driver->resultTags[q], rank);
      }
    }
  }
  memoptBuildYield(&builder, "scf.yield", yielded, results);
  free(yielded);
  free(outputs);
  free(map.from);
  free(map.to);
}

/* The default case: a rank beyond the stages stops. */
static void buildDefault(Driver *driver, MlirBlock block, MlirOperation ret) {
  MemoptBuilder builder = memoptBuilderAtEnd(block, mlirOperationGetLocation(ret));
  MlirValue never = memoptBuildConstant(
      &builder, mlirIntegerAttrGet(mlirIntegerTypeGet(contextOf(driver), 1), 0));
  memoptBuildAssert(&builder, never,
                    "pipeline driver: this rank holds no stage (run it on as many "
                    "ranks as it has stages)");
  ValueMap none = {NULL, NULL, 0, 0, 0};
  intptr_t results = mlirOperationGetNumOperands(ret);
  MlirValue *yielded = memoptAllocateZeroed((size_t)results + 1, sizeof *yielded);
  for (intptr_t q = 0; q < results; ++q)
    yielded[q] = yieldedAsIs(driver, &builder, mlirOperationGetOperand(ret, q), &none);
  memoptBuildYield(&builder, "scf.yield", yielded, results);
  free(yielded);
}

/* A func.func like `func` (name, type, attributes) with an empty entry
 * block, plus `place.pipeline_stages`. */
static MlirOperation createDriverFunction(MlirOperation func, intptr_t count) {
  MlirContext context = mlirOperationGetContext(func);
  MlirLocation location = mlirOperationGetLocation(func);
  MlirOperationState state =
      mlirOperationStateGet(mlirStringRefCreateFromCString("func.func"), location);
  for (intptr_t a = 0; a < mlirOperationGetNumAttributes(func); ++a) {
    MlirNamedAttribute attribute = mlirOperationGetAttribute(func, a);
    mlirOperationStateAddAttributes(&state, 1, &attribute);
  }
  MlirNamedAttribute stages = memoptNamedAttribute(
      context, "place.pipeline_stages", mlirIntegerAttrGet(mlirIntegerTypeGet(context, 64), count));
  mlirOperationStateAddAttributes(&state, 1, &stages);
  MlirBlock original = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  intptr_t arguments = mlirBlockGetNumArguments(original);
  MlirType *types = memoptAllocateZeroed((size_t)arguments + 1, sizeof *types);
  MlirLocation *locations = memoptAllocateZeroed((size_t)arguments + 1, sizeof *locations);
  for (intptr_t k = 0; k < arguments; ++k) {
    types[k] = mlirValueGetType(mlirBlockGetArgument(original, k));
    locations[k] = location;
  }
  MlirRegion region = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(region, mlirBlockCreate(arguments, types, locations));
  mlirOperationStateAddOwnedRegions(&state, 1, &region);
  free(types);
  free(locations);
  return mlirOperationCreate(&state);
}

/* The rank in MPI_COMM_WORLD as an index; sets `driver->world`. */
static MlirValue buildRank(Driver *driver, const MemoptBuilder *builder) {
  MlirContext context = contextOf(driver);
  MlirType comm = mlirTypeParseGet(context, mlirStringRefCreateFromCString("!mpi.comm"));
  driver->world = mlirOperationGetResult(
      memoptBuildOp(builder, "mpi.comm_world", NULL, 0, &comm, 1, NULL, 0), 0);
  MlirValue rank = memoptBuildOneResult(builder, "mpi.comm_rank", &driver->world, 1,
                                        mlirIntegerTypeGet(context, 32), NULL, 0);
  return memoptBuildOneResult(builder, "arith.index_cast", &rank, 1, mlirIndexTypeGet(context),
                              NULL, 0);
}

MlirOperation memoptPipelineDriverBuild(MlirOperation func, MemoptPipelineStage *stages,
                                        intptr_t count) {
  MlirBlock original = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  MlirOperation ret = mlirBlockGetTerminator(original);
  MlirOperation *stageOps = memoptAllocateZeroed((size_t)count + 1, sizeof *stageOps);
  intptr_t found = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(original); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (memoptOperationIsA(op, "place.stage") && found < count)
      stageOps[found++] = op;
  Driver driver = {.func = func, .stages = stages, .count = count};
  bool ok = planTransfers(&driver, ret, stageOps);
  MlirOperation function = {NULL};
  if (ok) {
    function = createDriverFunction(func, count);
    driver.body = mlirRegionGetFirstBlock(mlirOperationGetRegion(function, 0));
    MemoptBuilder builder = memoptBuilderAtEnd(driver.body, mlirOperationGetLocation(func));
    MlirValue rank = buildRank(&driver, &builder);
    MlirContext context = mlirOperationGetContext(func);
    intptr_t results = mlirOperationGetNumOperands(ret);
    MlirType *types = memoptAllocateZeroed((size_t)results + 1, sizeof *types);
    for (intptr_t q = 0; q < results; ++q)
      types[q] = mlirValueGetType(mlirOperationGetOperand(ret, q));
    int64_t *cases = memoptAllocateZeroed((size_t)count + 1, sizeof *cases);
    MlirRegion *regions = memoptAllocateZeroed((size_t)count + 2, sizeof *regions);
    for (intptr_t s = 0; s <= count; ++s) {
      regions[s] = mlirRegionCreate();
      mlirRegionAppendOwnedBlock(regions[s], mlirBlockCreate(0, NULL, NULL));
      if (s < count)
        cases[s] = s;
    }
    /* The default region first, then one per case. */
    MlirOperationState state = mlirOperationStateGet(
        mlirStringRefCreateFromCString("scf.index_switch"), mlirOperationGetLocation(func));
    mlirOperationStateAddOperands(&state, 1, &rank);
    mlirOperationStateAddResults(&state, results, types);
    MlirNamedAttribute casesAttribute =
        memoptNamedAttribute(context, "cases", mlirDenseI64ArrayGet(context, count, cases));
    mlirOperationStateAddAttributes(&state, 1, &casesAttribute);
    mlirOperationStateAddOwnedRegions(&state, count + 1, regions);
    MlirOperation dispatch = memoptInsertOp(&builder, &state);
    buildDefault(&driver, mlirRegionGetFirstBlock(mlirOperationGetRegion(dispatch, 0)), ret);
    for (intptr_t s = 0; s < count; ++s)
      buildCase(&driver, s, mlirRegionGetFirstBlock(mlirOperationGetRegion(dispatch, s + 1)), ret);
    MlirValue *returned = memoptAllocateZeroed((size_t)results + 1, sizeof *returned);
    for (intptr_t q = 0; q < results; ++q)
      returned[q] = mlirOperationGetResult(dispatch, q);
    memoptBuildYield(&builder, "func.return", returned, results);
    free(returned);
    free(regions);
    free(cases);
    free(types);
  }
  for (intptr_t s = 0; driver.takes && s < count; ++s)
    free(driver.takes[s]);
  free(driver.takes);
  free(driver.stageTags);
  free(driver.resultTags);
  free(driver.resultSource);
  free(driver.resultOutput);
  free(stageOps);
  return function;
}

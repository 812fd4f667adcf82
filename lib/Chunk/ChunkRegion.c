/* Rewriting a planned range into a chunk.region. Every chunked value keeps
 * its element type and rank; only its chunked extent shrinks by the number of
 * chunks, so ops whose shapes live only in their types are retyped in place
 * and the few that also spell shapes in attributes get those updated. */
#include "Chunk/Chunk.h"
#include "Chunk/ChunkRegion.h"

#include "IR/Builders.h"
#include "IR/IR.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdlib.h>
#include <string.h>

/* The type of one chunk of `type` when its dimension `dim` is split into
 * `chunks` equal parts. */
static MlirType chunkType(MlirType type, int64_t dim, int64_t chunks) {
  intptr_t rank = mlirShapedTypeGetRank(type);
  int64_t shape[16];
  for (intptr_t d = 0; d < rank; ++d)
    shape[d] = mlirShapedTypeGetDimSize(type, d);
  shape[dim] /= chunks;
  return mlirRankedTensorTypeGet(rank, shape, mlirShapedTypeGetElementType(type),
                                 mlirRankedTensorTypeGetEncoding(type));
}

static bool divides(MlirValue value, int64_t dim, int64_t chunks) {
  MlirType type = mlirValueGetType(value);
  if (!mlirTypeIsARankedTensor(type) || mlirShapedTypeGetRank(type) > 16)
    return false;
  int64_t extent = mlirShapedTypeGetDimSize(type, dim);
  return !mlirShapedTypeIsDynamicSize(extent) && extent % chunks == 0;
}

bool memoptChunkRegionCanBuild(const MemoptChunkPlan *plan, int64_t chunkSize) {
  int64_t extent = memoptChunkPlanExtent(plan);
  if (chunkSize < 1 || chunkSize >= extent || extent % chunkSize != 0 ||
      memoptChunkPlanNumInputs(plan) > MEMOPT_MAX_SLOTS ||
      memoptChunkPlanNumOutputs(plan) > MEMOPT_MAX_SLOTS)
    return false;
  int64_t chunks = extent / chunkSize;
  for (intptr_t i = 0; i < memoptChunkPlanNumOps(plan); ++i) {
    if (memoptChunkPlanOpIsHoisted(plan, i))
      continue;
    MlirOperation op = memoptChunkPlanOp(plan, i);
    /* A region taken in runs over each chunk in whole chunks of its own, so
     * its chunk_size divides ours (memoptVerifyOps checked that it is a
     * positive int64). */
    int64_t innerChunkSize;
    if (memoptOperationIsA(op, "chunk.region") &&
        (!memoptIntegerAttrGetInt64(
             mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("chunk_size")),
             &innerChunkSize) ||
         chunkSize % innerChunkSize != 0))
      return false;
    for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r) {
      MlirValue result = mlirOperationGetResult(op, r);
      int64_t dim = memoptChunkPlanDimOf(plan, result);
      if (memoptChunkPlanCombinerOf(plan, result) != MemoptChunkCombineConcat)
        continue; /* each chunk computes a partial value of the whole type */
      if (dim < 0 || !divides(result, dim, chunks))
        return false;
    }
  }
  for (intptr_t i = 0; i < memoptChunkPlanNumInputs(plan); ++i) {
    int64_t dim;
    MlirValue input = memoptChunkPlanInput(plan, i, &dim);
    if (!divides(input, dim, chunks))
      return false;
  }
  return true;
}

static MlirAttribute i64Array(MlirContext context, const int64_t *values, intptr_t count) {
  return mlirDenseI64ArrayGet(context, count, values);
}

/* Updates the attributes that spell a retyped op's result shape. */
static void updateShapeAttributes(MlirOperation op, MlirType newType, int64_t dim) {
  MlirContext context = mlirOperationGetContext(op);
  if (memoptOperationIsA(op, "tensor.expand_shape")) {
    int64_t shape[16];
    intptr_t rank = mlirShapedTypeGetRank(newType);
    for (intptr_t d = 0; d < rank; ++d)
      shape[d] = mlirShapedTypeGetDimSize(newType, d);
    mlirOperationSetAttributeByName(op, mlirStringRefCreateFromCString("static_output_shape"),
                                    i64Array(context, shape, rank));
  } else if (memoptOperationIsA(op, "tensor.extract_slice")) {
    MlirStringRef name = mlirStringRefCreateFromCString("static_sizes");
    MlirAttribute sizes = mlirOperationGetAttributeByName(op, name);
    int64_t values[16];
    intptr_t count = mlirDenseArrayGetNumElements(sizes);
    for (intptr_t i = 0; i < count; ++i)
      values[i] = mlirDenseI64ArrayGetElement(sizes, i);
    values[dim] = mlirShapedTypeGetDimSize(newType, dim);
    mlirOperationSetAttributeByName(op, name, i64Array(context, values, count));
  } else if (memoptOperationIsA(op, "arith.constant")) {
    MlirStringRef name = mlirStringRefCreateFromCString("value");
    MlirAttribute value = mlirOperationGetAttributeByName(op, name);
    mlirOperationSetAttributeByName(
        op, name, mlirDenseElementsAttrSplatGet(newType, mlirDenseElementsAttrGetSplatValue(value)));
  }
}

/* The `combiners` attribute of the plan's outputs into `attribute`; returns
 * how many attributes it wrote: none when every output is concatenated.
 * (Plans combine by sums and maxima, which need no `rescale_by`.) */
static intptr_t combinerAttributes(MlirContext context, const MemoptChunkPlan *plan,
                                   MlirNamedAttribute *attribute) {
  intptr_t outputCount = memoptChunkPlanNumOutputs(plan);
  bool combined = false;
  for (intptr_t i = 0; i < outputCount; ++i)
    combined |= memoptChunkPlanOutputCombiner(plan, i) != MemoptChunkCombineConcat;
  if (!combined)
    return 0;
  MlirAttribute *names = memoptAllocateZeroed((size_t)outputCount, sizeof *names);
  for (intptr_t i = 0; i < outputCount; ++i)
    names[i] = mlirStringAttrGet(context, mlirStringRefCreateFromCString(memoptChunkCombinerName(
                                              memoptChunkPlanOutputCombiner(plan, i))));
  *attribute =
      memoptNamedAttribute(context, "combiners", mlirArrayAttrGet(context, outputCount, names));
  free(names);
  return 1;
}

static MlirOperation createRegionOp(const MemoptChunkPlan *plan, int64_t chunkSize,
                                    MlirLocation location) {
  MlirContext context = mlirLocationGetContext(location);
  int64_t chunks = memoptChunkPlanExtent(plan) / chunkSize;
  intptr_t inputCount = memoptChunkPlanNumInputs(plan);
  intptr_t outputCount = memoptChunkPlanNumOutputs(plan);
  intptr_t slots = (inputCount > outputCount ? inputCount : outputCount) + 1;
  MlirValue *values = memoptAllocateZeroed((size_t)slots, sizeof *values);
  MlirType *types = memoptAllocateZeroed((size_t)slots, sizeof *types);
  MlirLocation *locations = memoptAllocateZeroed((size_t)slots, sizeof *locations);
  int64_t *dims = memoptAllocateZeroed((size_t)slots, sizeof *dims);

  MlirOperationState state =
      mlirOperationStateGet(mlirStringRefCreateFromCString("chunk.region"), location);
  for (intptr_t i = 0; i < inputCount; ++i) {
    values[i] = memoptChunkPlanInput(plan, i, &dims[i]);
    types[i] = chunkType(mlirValueGetType(values[i]), dims[i], chunks);
    locations[i] = location;
  }
  mlirOperationStateAddOperands(&state, inputCount, values);
  MlirNamedAttribute attributes[6];
  attributes[0] = mlirNamedAttributeGet(mlirIdentifierGet(context, mlirStringRefCreateFromCString("input_dims")),
                                        i64Array(context, dims, inputCount));
  MlirBlock body = mlirBlockCreate(inputCount, types, locations);
  for (intptr_t i = 0; i < outputCount; ++i) {
    values[i] = memoptChunkPlanOutput(plan, i, &dims[i]);
    types[i] = mlirValueGetType(values[i]);
  }
  mlirOperationStateAddResults(&state, outputCount, types);
  attributes[1] = mlirNamedAttributeGet(mlirIdentifierGet(context, mlirStringRefCreateFromCString("output_dims")),
                                        i64Array(context, dims, outputCount));
  attributes[2] = mlirNamedAttributeGet(
      mlirIdentifierGet(context, mlirStringRefCreateFromCString("chunk_size")),
      mlirIntegerAttrGet(mlirIntegerTypeGet(context, 64), chunkSize));
  attributes[3] = memoptSlotSegments(context, "operandSegmentSizes", inputCount);
  attributes[4] = memoptSlotSegments(context, "resultSegmentSizes", outputCount);
  intptr_t attributeCount = 5 + combinerAttributes(context, plan, attributes + 5);
  mlirOperationStateAddAttributes(&state, attributeCount, attributes);
  MlirRegion region = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(region, body);
  mlirOperationStateAddOwnedRegions(&state, 1, &region);
  MlirOperation op = mlirOperationCreate(&state);
  free(dims);
  free(locations);
  free(types);
  free(values);
  return op;
}

/* Makes the linalg.index reads of loop `loop` in the payload of `op` absolute
 * by adding `offset`, the position of the chunk along the chunked dimension. */
static void offsetIndexReads(MlirOperation op, int64_t loop, MlirValue offset) {
  MlirBlock payload = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  for (MlirOperation inner = mlirBlockGetFirstOperation(payload); !mlirOperationIsNull(inner);
       inner = mlirOperationGetNextInBlock(inner)) {
    if (!memoptOperationIsA(inner, "linalg.index"))
      continue;
    MlirAttribute dim =
        mlirOperationGetAttributeByName(inner, mlirStringRefCreateFromCString("dim"));
    if (mlirIntegerAttrGetValueInt(dim) != loop)
      continue;
    MlirOperation next = mlirOperationGetNextInBlock(inner);
    MemoptBuilder builder = memoptBuilderBefore(next);
    MlirValue relative = mlirOperationGetResult(inner, 0);
    MlirValue absolute = memoptBuildIndexArith(&builder, "arith.addi", relative, offset);
    MlirOperation add = mlirOpResultGetOwner(absolute);
    mlirValueReplaceAllUsesExcept(relative, absolute, 1, &add);
    inner = add;
  }
}

/* The offset argument of chunk.region `op`'s body, or null when it has none. */
static MlirValue regionOffset(MlirOperation op) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  intptr_t count = mlirBlockGetNumArguments(body);
  return count > mlirOperationGetNumOperands(op) ? mlirBlockGetArgument(body, count - 1)
                                                 : (MlirValue){NULL};
}

/* A region taken in numbers its chunks from the start of our chunk: its body
 * reads its offset plus `offset` instead. */
static void offsetInnerRegion(MlirOperation inner, MlirValue offset) {
  MlirValue relative = regionOffset(inner);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(inner, 0));
  MemoptBuilder builder = memoptBuilderBefore(mlirBlockGetFirstOperation(body));
  MlirValue absolute = memoptBuildIndexArith(&builder, "arith.addi", relative, offset);
  MlirOperation add = mlirOpResultGetOwner(absolute);
  mlirValueReplaceAllUsesExcept(relative, absolute, 1, &add);
}

/* Gives `body` its trailing offset argument when an op of the region reads
 * the index of the chunked loop, or a region taken in reads its own offset,
 * and rewrites those reads to use it. */
static void addChunkOffset(const MemoptChunkPlan *plan, MlirBlock body, MlirLocation location) {
  MlirValue offset = {NULL};
  for (intptr_t i = 0; i < memoptChunkPlanNumOps(plan); ++i) {
    MlirOperation op = memoptChunkPlanOp(plan, i);
    int64_t loop = memoptChunkPlanOpIndexedLoop(plan, i);
    bool innerOffset = !memoptChunkPlanOpIsHoisted(plan, i) &&
                       memoptOperationIsA(op, "chunk.region") &&
                       !mlirValueIsNull(regionOffset(op));
    if (loop < 0 && !innerOffset)
      continue;
    if (mlirValueIsNull(offset))
      offset = mlirBlockAddArgument(body, mlirIndexTypeGet(mlirLocationGetContext(location)),
                                    location);
    if (innerOffset)
      offsetInnerRegion(op, offset);
    else
      offsetIndexReads(op, loop, offset);
  }
}

MlirOperation memoptChunkRegionBuild(const MemoptChunkPlan *plan, int64_t chunkSize) {
  int64_t chunks = memoptChunkPlanExtent(plan) / chunkSize;
  intptr_t opCount = memoptChunkPlanNumOps(plan);
  /* Hoisted ops go first, in order; the region takes the place of the rest. */
  MlirOperation anchor = {NULL};
  MlirLocation location = mlirOperationGetLocation(memoptChunkPlanOp(plan, opCount - 1));
  for (intptr_t i = 0; i < opCount; ++i)
    if (!memoptChunkPlanOpIsHoisted(plan, i)) {
      anchor = memoptChunkPlanOp(plan, i);
      break;
    }
  for (intptr_t i = 0; i < opCount; ++i)
    if (memoptChunkPlanOpIsHoisted(plan, i))
      mlirOperationMoveBefore(memoptChunkPlanOp(plan, i), anchor);

  MlirOperation region = createRegionOp(plan, chunkSize, location);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(anchor), anchor, region);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(region, 0));
  for (intptr_t i = 0; i < opCount; ++i) {
    if (memoptChunkPlanOpIsHoisted(plan, i))
      continue;
    MlirOperation op = memoptChunkPlanOp(plan, i);
    mlirOperationRemoveFromParent(op);
    mlirBlockAppendOwnedOperation(body, op);
    for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r) {
      MlirValue result = mlirOperationGetResult(op, r);
      int64_t dim = memoptChunkPlanDimOf(plan, result);
      /* Computed whole by every chunk (a combined output's partial value). */
      if (dim < 0)
        continue;
      MlirType type = chunkType(mlirValueGetType(result), dim, chunks);
      mlirValueSetType(result, type);
      updateShapeAttributes(op, type, dim);
    }
  }
  /* Chunked reads of an input take its slice; whole reads keep the value. */
  for (intptr_t i = 0; i < opCount; ++i) {
    if (memoptChunkPlanOpIsHoisted(plan, i))
      continue;
    MlirOperation op = memoptChunkPlanOp(plan, i);
    for (intptr_t o = 0; o < mlirOperationGetNumOperands(op); ++o) {
      if (!memoptChunkPlanOperandIsChunked(plan, i, o))
        continue;
      MlirValue operand = mlirOperationGetOperand(op, o);
      for (intptr_t k = 0; k < memoptChunkPlanNumInputs(plan); ++k) {
        int64_t dim;
        if (mlirValueEqual(memoptChunkPlanInput(plan, k, &dim), operand))
          mlirOperationSetOperand(op, o, mlirBlockGetArgument(body, k));
      }
    }
  }
  addChunkOffset(plan, body, location);
  intptr_t outputCount = memoptChunkPlanNumOutputs(plan);
  MlirValue *outputs = memoptAllocateZeroed((size_t)outputCount, sizeof *outputs);
  for (intptr_t i = 0; i < outputCount; ++i) {
    int64_t dim;
    outputs[i] = memoptChunkPlanOutput(plan, i, &dim);
    memoptValueReplaceUsesByScope(outputs[i], mlirOperationGetResult(region, i), region, false);
  }
  MlirOperationState yield = mlirOperationStateGet(
      mlirStringRefCreateFromCString(MEMOPT_REGION_TERMINATOR), location);
  mlirOperationStateAddOperands(&yield, outputCount, outputs);
  mlirBlockAppendOwnedOperation(body, mlirOperationCreate(&yield));
  free(outputs);
  return region;
}

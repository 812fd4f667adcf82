/* Narrowing a producer to the slice its only user takes (SliceNarrowing.h).
 *
 * For a linalg op P whose result map gives each result dimension one loop,
 * a slice of the result at offsets o and sizes s restricts those loops to
 * [o, o + s). Every operand dimension indexed by a restricted loop alone is
 * sliced the same way; an operand dimension whose index mixes a restricted
 * loop with anything else (a convolution window) stops the rewrite. Loops
 * the result does not index (reductions) stay whole. The init is sliced too,
 * or, when an empty (and a fill) made it for P alone, made again at the
 * slice's size, so the whole result is never allocated. This is what
 * upstream's bubble-up-extract-slice patterns do for a single use, which the
 * C API does not expose. A producer reading its loop indices (linalg.index)
 * is left alone: narrowed, it would count them from 0, not from the offset. */
#include "Remat/Remat.h"
#include "Remat/SliceNarrowing.h"

#include "IR/Builders.h"
#include "IR/IR.h"

#include "mlir-c/AffineExpr.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/Linalg.h"

#include <stdlib.h>

/* The op defining `value` in `block`, or null. */
static MlirOperation definerIn(MlirValue value, MlirBlock block) {
  if (!mlirValueIsAOpResult(value))
    return (MlirOperation){NULL};
  MlirOperation op = mlirOpResultGetOwner(value);
  return mlirBlockEqual(mlirOperationGetBlock(op), block) ? op : (MlirOperation){NULL};
}

/* True when `user` is the only user of `value`, through one operand. */
static bool onlyUse(MlirValue value, MlirOperation user) {
  return memoptValueHasOneUse(value) &&
         mlirOperationEqual(mlirOpOperandGetOwner(mlirValueGetFirstUse(value)), user);
}

/* The value giving dynamic dimension `dim` of `value` where the IR names
 * it: an empty's size operand, followed through the inits of linalg ops;
 * null otherwise. */
static MlirValue dynamicExtent(MlirValue value, intptr_t dim) {
  while (mlirValueIsAOpResult(value)) {
    MlirOperation op = mlirOpResultGetOwner(value);
    if (memoptOperationIsA(op, "tensor.empty")) {
      MlirType type = mlirValueGetType(value);
      intptr_t operand = 0;
      for (intptr_t d = 0; d < dim; ++d)
        operand += mlirShapedTypeIsDynamicDim(type, d);
      return mlirOperationGetOperand(op, operand);
    }
    if (!memoptOperationIsInDialect(op, "linalg") || mlirOperationGetNumResults(op) != 1)
      break;
    value = mlirOperationGetOperand(op, mlirOperationGetNumOperands(op) - 1);
  }
  return (MlirValue){NULL};
}

/* True when a slice of `source` along `dim` at `offset` and `size` takes it whole. */
static bool takesWhole(MlirValue source, intptr_t dim, MemoptIndex offset, MemoptIndex size) {
  if (!memoptIndexIsFixed(offset) || offset.fixed != 0)
    return false;
  MlirType type = mlirValueGetType(source);
  if (!mlirShapedTypeIsDynamicDim(type, dim))
    return memoptIndexIsFixed(size) && size.fixed == mlirShapedTypeGetDimSize(type, dim);
  MlirValue extent = dynamicExtent(source, dim);
  return !memoptIndexIsFixed(size) && !mlirValueIsNull(extent) &&
         mlirValueEqual(extent, size.value);
}

/* Recreates `op` with `operands` and one result of `resultType`, keeping its
 * name, attributes and regions (moved from a clone), right before `before`. */
static MlirOperation recreate(MlirOperation op, const MlirValue *operands, intptr_t count,
                              MlirType resultType, MlirOperation before) {
  MlirOperationState state = mlirOperationStateGet(mlirIdentifierStr(mlirOperationGetName(op)),
                                                   mlirOperationGetLocation(op));
  mlirOperationStateAddOperands(&state, count, operands);
  mlirOperationStateAddResults(&state, 1, &resultType);
  intptr_t attributeCount = mlirOperationGetNumAttributes(op);
  MlirNamedAttribute *attributes = memoptAllocateZeroed((size_t)attributeCount, sizeof *attributes);
  for (intptr_t i = 0; i < attributeCount; ++i)
    attributes[i] = mlirOperationGetAttribute(op, i);
  mlirOperationStateAddAttributes(&state, attributeCount, attributes);
  MlirOperation clone = mlirOperationClone(op);
  intptr_t regionCount = mlirOperationGetNumRegions(op);
  MlirRegion *regions = memoptAllocateZeroed((size_t)regionCount, sizeof *regions);
  for (intptr_t r = 0; r < regionCount; ++r) {
    regions[r] = mlirRegionCreate();
    mlirRegionTakeBody(regions[r], mlirOperationGetRegion(clone, r));
  }
  mlirOperationStateAddOwnedRegions(&state, regionCount, regions);
  MlirOperation created = mlirOperationCreate(&state);
  mlirOperationDestroy(clone);
  free(regions);
  free(attributes);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(before), before, created);
  return created;
}

/* The range of one loop: whole, or [offset, offset + size). `known`: the
 * result indexes the loop, so the slice gives its extent even when whole. */
typedef struct LoopRange {
  bool sliced, known;
  MemoptIndex offset, size;
} LoopRange;

/* True when no index of `map` mixes a sliced loop with anything else. */
static bool slicedLoopsIndexedAlone(MlirAffineMap map, const LoopRange *loops, intptr_t loopCount) {
  for (intptr_t e = 0; e < mlirAffineMapGetNumResults(map); ++e) {
    MlirAffineExpr expr = mlirAffineMapGetResult(map, e);
    if (mlirAffineExprIsADim(expr))
      continue;
    for (intptr_t l = 0; l < loopCount; ++l)
      if (loops[l].sliced && mlirAffineExprIsFunctionOfDim(expr, l))
        return false;
  }
  return true;
}

/* The loop range operand dimension `e` is restricted to through `map`, or NULL. */
static const LoopRange *rangeOf(MlirAffineMap map, intptr_t e, const LoopRange *loops) {
  MlirAffineExpr expr = mlirAffineMapGetResult(map, e);
  if (!mlirAffineExprIsADim(expr) || !loops[mlirAffineDimExprGetPosition(expr)].sliced)
    return NULL;
  return &loops[mlirAffineDimExprGetPosition(expr)];
}

/* The type of `operand` restricted to the loop ranges through `map`; null
 * when no dimension is restricted (a scalar, or no sliced loop). */
static MlirType restrictedType(MlirValue operand, MlirAffineMap map, const LoopRange *loops) {
  MlirType type = mlirValueGetType(operand);
  if (!mlirTypeIsARankedTensor(type))
    return (MlirType){NULL};
  intptr_t rank = mlirShapedTypeGetRank(type);
  int64_t *shape = memoptAllocateZeroed((size_t)rank, sizeof *shape);
  bool restricted = false;
  for (intptr_t e = 0; e < rank; ++e) {
    const LoopRange *range = rangeOf(map, e, loops);
    shape[e] = range ? range->size.fixed : mlirShapedTypeGetDimSize(type, e);
    restricted = restricted || range;
  }
  MlirType result = restricted
                        ? mlirRankedTensorTypeGet(rank, shape, mlirShapedTypeGetElementType(type),
                                                  mlirRankedTensorTypeGetEncoding(type))
                        : (MlirType){NULL};
  free(shape);
  return result;
}

/* The offsets and sizes (`rank` each) of the slice of `operand` that
 * `restrictedType` describes; whole dynamic extents are read with tensor.dim. */
static void sliceBounds(const MemoptBuilder *builder, MlirValue operand, MlirAffineMap map,
                        const LoopRange *loops, MemoptIndex *offsets, MemoptIndex *sizes) {
  MlirType type = mlirValueGetType(operand);
  for (intptr_t e = 0; e < mlirShapedTypeGetRank(type); ++e) {
    MlirAffineExpr expr = mlirAffineMapGetResult(map, e);
    const LoopRange *loop =
        mlirAffineExprIsADim(expr) ? &loops[mlirAffineDimExprGetPosition(expr)] : NULL;
    offsets[e] = loop && loop->sliced ? loop->offset : memoptIndexFixed(0);
    MlirValue extent =
        mlirShapedTypeIsDynamicDim(type, e) ? dynamicExtent(operand, e) : (MlirValue){NULL};
    if (loop && loop->known)
      sizes[e] = loop->size;
    else if (!mlirShapedTypeIsDynamicDim(type, e))
      sizes[e] = memoptIndexFixed(mlirShapedTypeGetDimSize(type, e));
    else if (!mlirValueIsNull(extent))
      sizes[e] = memoptIndexDynamic(extent);
    else
      sizes[e] = memoptIndexDynamic(memoptBuildTensorDim(builder, operand, e));
  }
}

/* The init of the narrowed op: an empty (and fill) made again at `type`
 * when they served the old op alone, else a slice of the old init. */
static MlirValue narrowedInit(const MemoptBuilder *builder, MlirValue init, MlirOperation owner,
                              MlirType type, const MemoptIndex *offsets, const MemoptIndex *sizes,
                              MlirBlock block) {
  MlirOperation fill = definerIn(init, block);
  MlirValue emptyValue = init;
  if (!mlirOperationIsNull(fill) && memoptOperationIsA(fill, "linalg.fill") && onlyUse(init, owner))
    emptyValue = mlirOperationGetOperand(fill, 1);
  else
    fill = (MlirOperation){NULL};
  MlirOperation empty = definerIn(emptyValue, block);
  bool ownEmpty = !mlirOperationIsNull(empty) && memoptOperationIsA(empty, "tensor.empty") &&
                  onlyUse(emptyValue, mlirOperationIsNull(fill) ? owner : fill);
  intptr_t rank = mlirShapedTypeGetRank(type);
  if (!ownEmpty)
    return memoptBuildSlice(builder, "tensor.extract_slice", &init, 1, offsets, sizes, rank, type);
  MlirValue *dynamicSizes = memoptAllocateZeroed((size_t)rank, sizeof *dynamicSizes);
  intptr_t dynamicCount = 0;
  for (intptr_t d = 0; d < rank; ++d)
    if (mlirShapedTypeIsDynamicDim(type, d))
      dynamicSizes[dynamicCount++] = memoptIndexValue(builder, sizes[d]);
  MlirValue result = memoptBuildTensorEmpty(builder, type, dynamicSizes, dynamicCount);
  free(dynamicSizes);
  if (!mlirOperationIsNull(fill)) {
    MlirValue fillOperands[] = {mlirOperationGetOperand(fill, 0), result};
    result = mlirOperationGetResult(recreate(fill, fillOperands, 2, type, builder->before), 0);
  }
  return result;
}

/* Narrows the producer of `slice` when the rewrite applies; true when done. */
static bool narrow(MlirOperation slice, MlirBlock block) {
  MlirValue source = mlirOperationGetOperand(slice, 0);
  MlirOperation producer = definerIn(source, block);
  MlirType sourceType = mlirValueGetType(source);
  MlirType resultType = mlirValueGetType(mlirOperationGetResult(slice, 0));
  if (mlirOperationIsNull(producer) || !memoptOperationIsInDialect(producer, "linalg") ||
      mlirOperationGetNumResults(producer) != 1 || !onlyUse(source, slice) ||
      memoptLinalgReadsLoopIndex(producer, -1) ||
      !mlirTypeIsARankedTensor(sourceType) ||
      mlirShapedTypeGetRank(resultType) != mlirShapedTypeGetRank(sourceType))
    return false;
  MlirAttribute maps = mlirLinalgGetIndexingMapsAttribute(producer);
  intptr_t operandCount = mlirOperationGetNumOperands(producer);
  if (mlirAttributeIsNull(maps) || mlirArrayAttrGetNumElements(maps) != operandCount)
    return false;
  intptr_t rank = mlirShapedTypeGetRank(sourceType);
  MlirAffineMap resultMap =
      mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, operandCount - 1));
  intptr_t loopCount = mlirAffineMapGetNumDims(resultMap);
  LoopRange *loops = memoptAllocateZeroed((size_t)loopCount, sizeof *loops);
  bool narrows = false, ok = true;
  for (intptr_t k = 0; k < rank && ok; ++k) {
    MlirAffineExpr expr = mlirAffineMapGetResult(resultMap, k);
    MemoptIndex offset = memoptSliceIndex(slice, 0, k), size = memoptSliceIndex(slice, 1, k);
    MemoptIndex stride = memoptSliceIndex(slice, 2, k);
    ok = mlirAffineExprIsADim(expr) && memoptIndexIsFixed(stride) && stride.fixed == 1 &&
         !loops[mlirAffineDimExprGetPosition(expr)].known;
    bool whole = takesWhole(source, k, offset, size);
    if (ok)
      loops[mlirAffineDimExprGetPosition(expr)] = (LoopRange){!whole, true, offset, size};
    narrows = narrows || (ok && !whole);
  }
  for (intptr_t j = 0; j < operandCount && ok && narrows; ++j)
    ok = slicedLoopsIndexedAlone(mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, j)), loops,
                                 loopCount);
  if (ok && narrows) {
    MemoptBuilder builder = memoptBuilderBefore(slice);
    MlirValue *operands = memoptAllocateZeroed((size_t)operandCount, sizeof *operands);
    for (intptr_t j = 0; j < operandCount; ++j) {
      MlirValue operand = mlirOperationGetOperand(producer, j);
      MlirAffineMap map = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, j));
      MlirType type = restrictedType(operand, map, loops);
      operands[j] = operand;
      if (mlirTypeIsNull(type))
        continue;
      /* An operand read twice through one map (an init written in place
       * over an input) gets one slice. */
      intptr_t same = 0;
      while (same < j &&
             !(mlirValueEqual(mlirOperationGetOperand(producer, same), operand) &&
               mlirAffineMapEqual(mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, same)),
                                  map)))
        ++same;
      if (same < j) {
        operands[j] = operands[same];
        continue;
      }
      intptr_t operandRank = mlirShapedTypeGetRank(type);
      MemoptIndex *offsets = memoptAllocateZeroed((size_t)operandRank, sizeof *offsets);
      MemoptIndex *sizes = memoptAllocateZeroed((size_t)operandRank, sizeof *sizes);
      if (j == operandCount - 1) {
        /* The init has the result's shape: the slice's own bounds. */
        for (intptr_t e = 0; e < operandRank; ++e) {
          offsets[e] = memoptSliceIndex(slice, 0, e);
          sizes[e] = memoptSliceIndex(slice, 1, e);
        }
        operands[j] = narrowedInit(&builder, operand, producer, type, offsets, sizes, block);
      } else {
        sliceBounds(&builder, operand, map, loops, offsets, sizes);
        operands[j] = memoptBuildSlice(&builder, "tensor.extract_slice", &operand, 1, offsets,
                                       sizes, operandRank, type);
      }
      free(sizes);
      free(offsets);
    }
    MlirOperation narrowed = recreate(producer, operands, operandCount, resultType, slice);
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(slice, 0),
                                  mlirOperationGetResult(narrowed, 0));
    MlirValue oldInit = mlirOperationGetOperand(producer, operandCount - 1);
    mlirOperationDestroy(slice);
    mlirOperationDestroy(producer);
    /* The old fill and empty, now unused. */
    for (MlirOperation dead = definerIn(oldInit, block); !mlirOperationIsNull(dead);) {
      MlirValue deadResult = mlirOperationGetResult(dead, 0);
      if (!mlirOpOperandIsNull(mlirValueGetFirstUse(deadResult)) ||
          !(memoptOperationIsA(dead, "linalg.fill") || memoptOperationIsA(dead, "tensor.empty")))
        break;
      MlirOperation next = memoptOperationIsA(dead, "linalg.fill")
                               ? definerIn(mlirOperationGetOperand(dead, 1), block)
                               : (MlirOperation){NULL};
      mlirOperationDestroy(dead);
      dead = next;
    }
    free(operands);
  }
  free(loops);
  return ok && narrows;
}

size_t memoptNarrowSlicedProducers(MlirBlock block) {
  size_t narrowed = 0;
  bool changed = true;
  while (changed) {
    changed = false;
    for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op);
         op = mlirOperationGetNextInBlock(op))
      if (memoptOperationIsA(op, "tensor.extract_slice") && narrow(op, block)) {
        ++narrowed;
        changed = true;
        break; /* the block changed under the walk */
      }
  }
  return narrowed;
}

/* Per-op dimension flow. Linalg structured ops (named and generic) are read
 * from their indexing maps, so every such op is covered without a rule of its
 * own; the few non-linalg ops that move dimensions around have rules here. */
#include "Chunk/Chunk.h"
#include "Analysis/Analysis.h"
#include "IR/IR.h"

#include "mlir-c/AffineExpr.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/Linalg.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

static bool dialectIs(MlirOperation op, const char *dialect) {
  MlirStringRef opName = mlirIdentifierStr(mlirOperationGetName(op));
  size_t length = strlen(dialect);
  return opName.length > length && memcmp(opName.data, dialect, length) == 0 &&
         opName.data[length] == '.';
}

/* Appends "'<op>' <why>" to `reason` and returns `status`. */
static MemoptDimFlowStatus refuse(MemoptDimFlowStatus status, MlirOperation op,
                                  MemoptStringBuffer *reason, const char *format, ...)
    __attribute__((format(printf, 4, 5)));
static MemoptDimFlowStatus refuse(MemoptDimFlowStatus status, MlirOperation op,
                                  MemoptStringBuffer *reason, const char *format, ...) {
  MlirStringRef opName = mlirIdentifierStr(mlirOperationGetName(op));
  memoptStringBufferAppendFormat(reason, "'%.*s' ", (int)opName.length, opName.data);
  va_list args;
  va_start(args, format);
  memoptStringBufferAppendFormatV(reason, format, args);
  va_end(args);
  return status;
}

static bool isRankedTensor(MlirValue value) {
  return mlirTypeIsARankedTensor(mlirValueGetType(value));
}

static void mapAll(MlirOperation op, int64_t dim, MemoptOperandFlow *operands) {
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i)
    operands[i] = isRankedTensor(mlirOperationGetOperand(op, i))
                      ? (MemoptOperandFlow){MemoptOperandFlowMapped, dim}
                      : (MemoptOperandFlow){MemoptOperandFlowWhole, -1};
}

/* Maps `dim` to the same dimension of the first operand (the source of a
 * view or pad); the other operands (offsets, sizes, padding) are read whole. */
static void mapSource(MlirOperation op, int64_t dim, MemoptOperandFlow *operands) {
  for (intptr_t i = 1; i < mlirOperationGetNumOperands(op); ++i)
    operands[i] = (MemoptOperandFlow){MemoptOperandFlowWhole, -1};
  operands[0] = (MemoptOperandFlow){MemoptOperandFlowMapped, dim};
}

/* The index expression through which linalg op `op` writes dimension `dim`
 * of result `resultIndex` (from its init's indexing map); false when the
 * result has no tensor init. */
static bool resultIndexExpr(MlirOperation op, MlirAttribute maps, intptr_t resultIndex,
                            int64_t dim, MlirAffineExpr *expr) {
  intptr_t initIndex =
      mlirOperationGetNumOperands(op) - mlirOperationGetNumResults(op) + resultIndex;
  if (initIndex < 0 || initIndex >= mlirArrayAttrGetNumElements(maps))
    return false;
  MlirAffineMap initMap = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, initIndex));
  if (dim < 0 || dim >= mlirAffineMapGetNumResults(initMap))
    return false;
  *expr = mlirAffineMapGetResult(initMap, dim);
  return true;
}

/* Maps loop `loop` of linalg op `op` to each operand: the operand dimension
 * its indexing map reads the loop through, or whole when the map does not
 * read it. */
static MemoptDimFlowStatus throughLinalgLoop(MlirOperation op, MlirAttribute maps, int64_t loop,
                                             MemoptOperandFlow *operands,
                                             MemoptStringBuffer *reason) {
  intptr_t operandCount = mlirOperationGetNumOperands(op);
  for (intptr_t i = 0; i < operandCount; ++i) {
    MlirAffineMap map = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, i));
    int64_t mappedAt = -1;
    intptr_t uses = 0;
    for (intptr_t r = 0; r < mlirAffineMapGetNumResults(map); ++r) {
      MlirAffineExpr result = mlirAffineMapGetResult(map, r);
      if (!mlirAffineExprIsFunctionOfDim(result, loop))
        continue;
      ++uses;
      if (mlirAffineExprIsADim(result))
        mappedAt = r;
    }
    if (uses == 0)
      operands[i] = (MemoptOperandFlow){MemoptOperandFlowWhole, -1};
    else if (uses == 1 && mappedAt >= 0)
      operands[i] = (MemoptOperandFlow){MemoptOperandFlowMapped, mappedAt};
    else
      /* A sliding window (convolution) or a diagonal: chunks would overlap. */
      return refuse(MemoptDimFlowUnsupported, op, reason,
                    "reads operand #%lld along loop %lld through a window or a combination",
                    (long long)i, (long long)loop);
  }
  return MemoptDimFlowOk;
}

static MemoptDimFlowStatus throughLinalg(MlirOperation op, MlirAttribute maps, intptr_t resultIndex,
                                         int64_t dim, MemoptOperandFlow *operands,
                                         MemoptStringBuffer *reason) {
  MlirAffineExpr expr;
  if (!resultIndexExpr(op, maps, resultIndex, dim, &expr))
    return refuse(MemoptDimFlowUnsupported, op, reason, "has results without tensor inits");
  if (!mlirAffineExprIsADim(expr))
    return refuse(MemoptDimFlowUnsupported, op, reason,
                  "writes result dimension %lld through a non-trivial index", (long long)dim);
  return throughLinalgLoop(op, maps, mlirAffineDimExprGetPosition(expr), operands, reason);
}

/* The reassociation group of a reshape that contains dimension `dim` of the
 * expanded side, and whether `dim` is its outermost member of extent other
 * than 1 (members of extent 1 before it do not break contiguity). */
static bool groupOf(MlirAttribute reassociation, MlirType expanded, int64_t dim, int64_t *group,
                    bool *outermost) {
  for (intptr_t g = 0; g < mlirArrayAttrGetNumElements(reassociation); ++g) {
    MlirAttribute members = mlirArrayAttrGetElement(reassociation, g);
    bool unitSoFar = true;
    for (intptr_t m = 0; m < mlirArrayAttrGetNumElements(members); ++m) {
      int64_t member = mlirIntegerAttrGetValueInt(mlirArrayAttrGetElement(members, m));
      if (member == dim) {
        *group = g;
        *outermost = unitSoFar;
        return true;
      }
      unitSoFar = unitSoFar && mlirShapedTypeGetDimSize(expanded, member) == 1;
    }
  }
  return false;
}

/* The member of group `group` a chunk of the collapsed dimension maps to:
 * its first member of extent other than 1 (the first when all are 1). */
static int64_t collapsedSource(MlirAttribute reassociation, MlirType expanded, int64_t group) {
  MlirAttribute members = mlirArrayAttrGetElement(reassociation, group);
  intptr_t count = mlirArrayAttrGetNumElements(members);
  for (intptr_t m = 0; m < count; ++m) {
    int64_t member = mlirIntegerAttrGetValueInt(mlirArrayAttrGetElement(members, m));
    if (mlirShapedTypeGetDimSize(expanded, member) != 1)
      return member;
  }
  return mlirIntegerAttrGetValueInt(mlirArrayAttrGetElement(members, 0));
}

static MlirAttribute attribute(MlirOperation op, const char *name) {
  return mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name));
}

static MemoptDimFlowStatus throughReshape(MlirOperation op, int64_t dim, bool expanding,
                                          MemoptOperandFlow *operands, MemoptStringBuffer *reason) {
  MlirAttribute reassociation = attribute(op, "reassociation");
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i)
    operands[i] = (MemoptOperandFlow){MemoptOperandFlowWhole, -1};
  if (expanding) {
    /* Result dim `dim` is a member of a group of the source's dim `group`:
     * chunks stay contiguous only when no member before it is longer than 1. */
    MlirType expanded = mlirValueGetType(mlirOperationGetResult(op, 0));
    int64_t group;
    bool outermost;
    if (!groupOf(reassociation, expanded, dim, &group, &outermost) || !outermost)
      return refuse(MemoptDimFlowUnsupported, op, reason,
                    "splits dimension %lld out of an inner position of a group", (long long)dim);
    operands[0] = (MemoptOperandFlow){MemoptOperandFlowMapped, group};
    return MemoptDimFlowOk;
  }
  if (dim >= mlirArrayAttrGetNumElements(reassociation))
    return refuse(MemoptDimFlowUnsupported, op, reason, "has no group %lld", (long long)dim);
  MlirType expanded = mlirValueGetType(mlirOperationGetOperand(op, 0));
  operands[0] = (MemoptOperandFlow){MemoptOperandFlowMapped,
                                    collapsedSource(reassociation, expanded, dim)};
  return MemoptDimFlowOk;
}

static MemoptDimFlowStatus throughExtractSlice(MlirOperation op, int64_t dim,
                                               MemoptOperandFlow *operands,
                                               MemoptStringBuffer *reason) {
  MlirType source = mlirValueGetType(mlirOperationGetOperand(op, 0));
  MlirType result = mlirValueGetType(mlirOperationGetResult(op, 0));
  if (mlirShapedTypeGetRank(source) != mlirShapedTypeGetRank(result))
    return refuse(MemoptDimFlowUnsupported, op, reason, "drops dimensions");
  int64_t offset = mlirDenseI64ArrayGetElement(attribute(op, "static_offsets"), dim);
  int64_t size = mlirDenseI64ArrayGetElement(attribute(op, "static_sizes"), dim);
  int64_t stride = mlirDenseI64ArrayGetElement(attribute(op, "static_strides"), dim);
  if (offset != 0 || stride != 1 || size != mlirShapedTypeGetDimSize(source, dim) ||
      mlirShapedTypeIsDynamicSize(size))
    return refuse(MemoptDimFlowUnsupported, op, reason,
                  "takes part of dimension %lld (only whole dimensions pass through)", (long long)dim);
  mapSource(op, dim, operands);
  return MemoptDimFlowOk;
}

/* tensor.pad passes a dimension it does not pad; a padded one is read
 * through a window (its border needs the neighbouring chunk's edge). */
static MemoptDimFlowStatus throughPad(MlirOperation op, int64_t dim, MemoptOperandFlow *operands,
                                      MemoptStringBuffer *reason) {
  int64_t low = mlirDenseI64ArrayGetElement(attribute(op, "static_low"), dim);
  int64_t high = mlirDenseI64ArrayGetElement(attribute(op, "static_high"), dim);
  if (low != 0 || high != 0)
    return refuse(MemoptDimFlowUnsupported, op, reason, "pads dimension %lld", (long long)dim);
  mapSource(op, dim, operands);
  return MemoptDimFlowOk;
}

/* tensor.concat passes every dimension but the one it joins along. */
static MemoptDimFlowStatus throughConcat(MlirOperation op, int64_t dim, MemoptOperandFlow *operands,
                                         MemoptStringBuffer *reason) {
  if (mlirIntegerAttrGetValueInt(attribute(op, "dim")) == dim)
    return refuse(MemoptDimFlowUnsupported, op, reason, "joins its operands along dimension %lld",
                  (long long)dim);
  mapAll(op, dim, operands);
  return MemoptDimFlowOk;
}

/* Elementwise ops of the arith and math dialects on tensors of one shape. */
static bool isElementwise(MlirOperation op) {
  if (!dialectIs(op, "arith") && !dialectIs(op, "math"))
    return false;
  if (mlirOperationGetNumResults(op) != 1 || !isRankedTensor(mlirOperationGetResult(op, 0)))
    return false;
  MlirType type = mlirValueGetType(mlirOperationGetResult(op, 0));
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i) {
    MlirType operand = mlirValueGetType(mlirOperationGetOperand(op, i));
    if (mlirTypeIsARankedTensor(operand) &&
        mlirShapedTypeGetRank(operand) != mlirShapedTypeGetRank(type))
      return false;
  }
  return true;
}

int64_t memoptDimFlowIndexedLoop(MlirOperation op, intptr_t resultIndex, int64_t dim) {
  MlirAttribute maps = mlirLinalgGetIndexingMapsAttribute(op);
  MlirAffineExpr expr;
  if (mlirAttributeIsNull(maps) || !resultIndexExpr(op, maps, resultIndex, dim, &expr) ||
      !mlirAffineExprIsADim(expr))
    return -1;
  int64_t loop = mlirAffineDimExprGetPosition(expr);
  return memoptLinalgReadsLoopIndex(op, loop) ? loop : -1;
}

/* Maps a chunk.region's chunked loop to its inputs' sliced dimensions. */
static MemoptDimFlowStatus throughChunkRegionInputs(MlirOperation op,
                                                    MemoptOperandFlow *operands) {
  MlirAttribute inputDims = attribute(op, "input_dims");
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i)
    operands[i] =
        (MemoptOperandFlow){MemoptOperandFlowMapped, mlirDenseI64ArrayGetElement(inputDims, i)};
  return MemoptDimFlowOk;
}

/* A chunk.region passes its own chunked loop: chunk k of each result is
 * computed from chunk k of each sliced input (what its body captures is read
 * whole), so a wider chunk of that loop takes in whole chunks of the region
 * (the wider region adds its own offset to the one the body reads, see
 * ChunkRegion.c). Another dimension would need the body's own flow. */
static MemoptDimFlowStatus throughChunkRegion(MlirOperation op, intptr_t resultIndex, int64_t dim,
                                              MemoptOperandFlow *operands,
                                              MemoptStringBuffer *reason) {
  MlirAttribute outputDims = attribute(op, "output_dims");
  if (mlirDenseI64ArrayGetElement(outputDims, resultIndex) != dim)
    return refuse(MemoptDimFlowUnsupported, op, reason,
                  "passes only its chunked dimension, not dimension %lld", (long long)dim);
  return throughChunkRegionInputs(op, operands);
}

MemoptDimFlowStatus memoptDimFlowThroughOp(MlirOperation op, intptr_t resultIndex, int64_t dim,
                                           MemoptOperandFlow *operands,
                                           MemoptStringBuffer *reason) {
  MlirType resultType = mlirValueGetType(mlirOperationGetResult(op, resultIndex));
  if (!mlirTypeIsARankedTensor(resultType) || dim < 0 || dim >= mlirShapedTypeGetRank(resultType))
    return refuse(MemoptDimFlowUnsupported, op, reason, "result #%lld has no dimension %lld",
                  (long long)resultIndex, (long long)dim);
  MlirAttribute maps = mlirLinalgGetIndexingMapsAttribute(op);
  if (!mlirAttributeIsNull(maps))
    return throughLinalg(op, maps, resultIndex, dim, operands, reason);
  if (memoptOperationIsA(op, "linalg.softmax")) {
    if (mlirIntegerAttrGetValueInt(attribute(op, "dimension")) == dim)
      return refuse(MemoptDimFlowReduced, op, reason, "normalizes along dimension %lld", (long long)dim);
    mapAll(op, dim, operands);
    return MemoptDimFlowOk;
  }
  if (memoptOperationIsA(op, "arith.constant")) {
    MlirAttribute value = attribute(op, "value");
    if (!mlirAttributeIsADenseElements(value) || !mlirDenseElementsAttrIsSplat(value))
      return refuse(MemoptDimFlowUnsupported, op, reason,
                    "is a constant that is not a splat");
    return MemoptDimFlowOk;
  }
  if (isElementwise(op) || memoptOperationIsA(op, "tensor.cast")) {
    mapAll(op, dim, operands);
    return MemoptDimFlowOk;
  }
  if (memoptOperationIsA(op, "tensor.empty")) {
    if (mlirShapedTypeIsDynamicDim(resultType, dim))
      return refuse(MemoptDimFlowUnsupported, op, reason,
                    "has a dynamic size in dimension %lld", (long long)dim);
    mapAll(op, -1, operands);
    return MemoptDimFlowOk;
  }
  if (memoptOperationIsA(op, "tensor.expand_shape"))
    return throughReshape(op, dim, true, operands, reason);
  if (memoptOperationIsA(op, "tensor.collapse_shape"))
    return throughReshape(op, dim, false, operands, reason);
  if (memoptOperationIsA(op, "tensor.extract_slice"))
    return throughExtractSlice(op, dim, operands, reason);
  if (memoptOperationIsA(op, "tensor.pad"))
    return throughPad(op, dim, operands, reason);
  if (memoptOperationIsA(op, "tensor.concat"))
    return throughConcat(op, dim, operands, reason);
  if (memoptOperationIsA(op, "chunk.region"))
    return throughChunkRegion(op, resultIndex, dim, operands, reason);
  return refuse(MemoptDimFlowUnsupported, op, reason,
                "is not modelled by dimension flow");
}

/* The combiner of a reduction payload: the value yielded is `add` or `max`
 * of the accumulator (the init's block argument, read there only) and a
 * value computed from the inputs. */
static MemoptChunkCombiner payloadCombiner(MlirOperation op) {
  if (mlirOperationGetNumRegions(op) != 1)
    return MemoptChunkCombineConcat;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  if (mlirBlockIsNull(body) || mlirBlockGetNumArguments(body) < 1)
    return MemoptChunkCombineConcat;
  MlirValue accumulator = mlirBlockGetArgument(body, mlirBlockGetNumArguments(body) - 1);
  MlirOperation yield = mlirBlockGetTerminator(body);
  if (mlirOperationIsNull(yield) || mlirOperationGetNumOperands(yield) != 1)
    return MemoptChunkCombineConcat;
  MlirValue yielded = mlirOperationGetOperand(yield, 0);
  if (!mlirValueIsAOpResult(yielded))
    return MemoptChunkCombineConcat;
  MlirOperation combine = mlirOpResultGetOwner(yielded);
  if (mlirOperationGetNumOperands(combine) != 2)
    return MemoptChunkCombineConcat;
  bool readsAccumulator = mlirValueEqual(mlirOperationGetOperand(combine, 0), accumulator) ||
                          mlirValueEqual(mlirOperationGetOperand(combine, 1), accumulator);
  MlirOpOperand use = mlirValueGetFirstUse(accumulator);
  bool onlyReader = !mlirOpOperandIsNull(use) && mlirOpOperandIsNull(mlirOpOperandGetNextUse(use));
  if (!readsAccumulator || !onlyReader)
    return MemoptChunkCombineConcat;
  if (memoptOperationIsA(combine, "arith.addf") || memoptOperationIsA(combine, "arith.addi"))
    return MemoptChunkCombineAdd;
  if (memoptOperationIsA(combine, "arith.maximumf") || memoptOperationIsA(combine, "arith.maxsi"))
    return MemoptChunkCombineMax;
  return MemoptChunkCombineConcat;
}

/* True when `init` is a linalg.fill of the identity of `combiner`: 0 for a
 * sum, -inf (the smallest integer) for a maximum. Every chunk starts its
 * partial result from it, so any other start would be counted once per chunk. */
static bool fillsIdentity(MlirValue init, MemoptChunkCombiner combiner) {
  if (!mlirValueIsAOpResult(init))
    return false;
  MlirOperation fill = mlirOpResultGetOwner(init);
  if (!memoptOperationIsA(fill, "linalg.fill") || mlirOperationGetNumOperands(fill) != 2)
    return false;
  MlirValue scalar = mlirOperationGetOperand(fill, 0);
  if (!mlirValueIsAOpResult(scalar) ||
      !memoptOperationIsA(mlirOpResultGetOwner(scalar), "arith.constant"))
    return false;
  MlirAttribute value = attribute(mlirOpResultGetOwner(scalar), "value");
  if (mlirAttributeIsAFloat(value)) {
    double number = mlirFloatAttrGetValueDouble(value);
    return combiner == MemoptChunkCombineAdd ? number == 0.0 : isinf(number) && number < 0;
  }
  if (!mlirAttributeIsAInteger(value))
    return false;
  if (combiner == MemoptChunkCombineAdd)
    return mlirIntegerAttrGetValueInt(value) == 0;
  unsigned width = mlirIntegerTypeGetWidth(mlirAttributeGetType(value));
  return width >= 1 && width <= 64 &&
         mlirIntegerAttrGetValueInt(value) == (width == 64 ? INT64_MIN : -(INT64_C(1) << (width - 1)));
}

/* A chunk.region's result combined across its own chunks (an earlier stage's
 * weight gradient) is combined again across the chunks of a wider region
 * along the same loop: each wider chunk runs the region over its slice, which
 * yields that slice's partial value, and sums and maxima regroup freely. A
 * rescaled-add does not (its rescaling reads the "max" result). */
static MemoptDimFlowStatus throughCombinedChunkRegion(MlirOperation op, intptr_t resultIndex,
                                                      int64_t loop, MemoptOperandFlow *operands,
                                                      MemoptChunkCombiner *combiner,
                                                      MemoptStringBuffer *reason) {
  if (loop != 0)
    return refuse(MemoptDimFlowUnsupported, op, reason, "has one loop, not loop %lld",
                  (long long)loop);
  *combiner = memoptChunkRegionCombiner(op, resultIndex, NULL);
  if (*combiner != MemoptChunkCombineAdd && *combiner != MemoptChunkCombineMax)
    return refuse(MemoptDimFlowUnsupported, op, reason,
                  "does not combine result #%ld by a sum or a maximum", (long)resultIndex);
  return throughChunkRegionInputs(op, operands);
}

MemoptDimFlowStatus memoptDimFlowThroughCombinedLoop(MlirOperation op, intptr_t resultIndex,
                                                     int64_t loop, MemoptOperandFlow *operands,
                                                     MemoptChunkCombiner *combiner,
                                                     MemoptStringBuffer *reason) {
  if (memoptOperationIsA(op, "chunk.region"))
    return throughCombinedChunkRegion(op, resultIndex, loop, operands, combiner, reason);
  if (resultIndex != 0)
    return refuse(MemoptDimFlowUnsupported, op, reason, "has no result #%ld to combine",
                  (long)resultIndex);
  MlirAttribute maps = mlirLinalgGetIndexingMapsAttribute(op);
  intptr_t operandCount = mlirOperationGetNumOperands(op);
  if (mlirAttributeIsNull(maps) || mlirOperationGetNumResults(op) != 1 || operandCount < 2 ||
      mlirArrayAttrGetNumElements(maps) != operandCount ||
      !isRankedTensor(mlirOperationGetResult(op, 0)))
    return refuse(MemoptDimFlowUnsupported, op, reason,
                  "is not a linalg op with one tensor result");
  MlirAffineMap initMap =
      mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, operandCount - 1));
  if (loop < 0 || loop >= mlirAffineMapGetNumDims(initMap))
    return refuse(MemoptDimFlowUnsupported, op, reason, "has no loop %lld", (long long)loop);
  if (!memoptDimFlowLoopIsReduced(op, loop))
    return refuse(MemoptDimFlowUnsupported, op, reason,
                  "writes its result along loop %lld: it is not reduced", (long long)loop);
  MemoptDimFlowStatus status = throughLinalgLoop(op, maps, loop, operands, reason);
  if (status != MemoptDimFlowOk)
    return status;
  *combiner = payloadCombiner(op);
  if (*combiner == MemoptChunkCombineConcat)
    return refuse(MemoptDimFlowReduced, op, reason,
                  "reduces loop %lld with a payload that is not a sum or a maximum",
                  (long long)loop);
  if (!fillsIdentity(mlirOperationGetOperand(op, operandCount - 1), *combiner))
    return refuse(MemoptDimFlowReduced, op, reason,
                  "starts its reduction of loop %lld from a value other than the identity",
                  (long long)loop);
  if (memoptLinalgReadsLoopIndex(op, loop))
    return refuse(MemoptDimFlowUnsupported, op, reason, "reads the index of its reduced loop %lld",
                  (long long)loop);
  return MemoptDimFlowOk;
}

int64_t memoptDimFlowLoopCount(MlirOperation op) {
  if (memoptOperationIsA(op, "chunk.region"))
    return 1;
  MlirAttribute maps = mlirLinalgGetIndexingMapsAttribute(op);
  if (mlirAttributeIsNull(maps) || mlirArrayAttrGetNumElements(maps) == 0)
    return 0;
  return mlirAffineMapGetNumDims(mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, 0)));
}

bool memoptDimFlowLoopIsReduced(MlirOperation op, int64_t loop) {
  MlirAttribute maps = mlirLinalgGetIndexingMapsAttribute(op);
  intptr_t operandCount = mlirOperationGetNumOperands(op);
  if (mlirAttributeIsNull(maps) || mlirOperationGetNumResults(op) < 1 || operandCount < 1 ||
      mlirArrayAttrGetNumElements(maps) != operandCount)
    return false;
  if (loop < 0 || loop >= memoptDimFlowLoopCount(op))
    return false;
  /* Every init's map leaves the loop out. */
  for (intptr_t i = operandCount - mlirOperationGetNumResults(op); i < operandCount; ++i) {
    MlirAffineMap map = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, i));
    for (intptr_t r = 0; r < mlirAffineMapGetNumResults(map); ++r)
      if (mlirAffineExprIsFunctionOfDim(mlirAffineMapGetResult(map, r), loop))
        return false;
  }
  return true;
}

/* Combined results of a chunk.region in chunk-to-scf. A result whose
 * combiner is not "concat" is an scf.for iter_arg that starts at the
 * combiner's identity and takes in each chunk's value through one
 * all-parallel linalg.generic on tensors:
 *
 *   add           acc + c
 *   max           max(acc, c)            (arith.maximumf, arith.maxsi)
 *   rescaled-add  acc * exp(m_old - m_new) + c * exp(m_c - m_new)
 *
 * where m_old and m_c are the accumulated and the chunk's value of the
 * "max" result the sum is rescaled by (online softmax) and m_new is
 * max(m_old, m_c), computed again in the payload: the rescaled sums are
 * combined before the maximum's accumulator, which they read, is updated in
 * place, so One-Shot Bufferize keeps every accumulator in its loop's buffer.
 * A term whose m is -inf (every element masked so far, or in the chunk) is
 * selected as 0 instead: exp(-inf - -inf) is NaN, and so may be a fully
 * masked chunk's own value. */
#include "Chunk/ChunkCombiners.h"

#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <math.h>
#include <stdlib.h>

static MlirContext contextOf(const MemoptBuilder *builder) {
  return mlirLocationGetContext(builder->location);
}

/* The identity of `combiner` for scalars of type `element`, at the builder's
 * point. The smallest signed integer of any width is 1 << (width - 1). */
static MlirValue buildIdentity(const MemoptBuilder *builder, MemoptChunkCombiner combiner,
                               MlirType element) {
  MlirContext context = contextOf(builder);
  if (combiner != MemoptChunkCombineMax)
    return memoptBuildConstant(builder, mlirTypeIsAFloat(element)
                                      ? mlirFloatAttrDoubleGet(context, element, 0.0)
                                      : mlirIntegerAttrGet(element, 0));
  if (mlirTypeIsAFloat(element))
    return memoptBuildConstant(builder, mlirFloatAttrDoubleGet(context, element, -INFINITY));
  MlirValue one = memoptBuildConstant(builder, mlirIntegerAttrGet(element, 1));
  MlirValue shift = memoptBuildConstant(
      builder, mlirIntegerAttrGet(element, (int64_t)mlirIntegerTypeGetWidth(element) - 1));
  return memoptBuildBinary(builder, "arith.shli", one, shift);
}

MlirValue memoptBuildCombinerInit(const MemoptBuilder *builder, MemoptChunkCombiner combiner,
                                  MlirType type, const MlirValue *dynamicSizes,
                                  intptr_t dynamicSizeCount) {
  MlirValue identity = buildIdentity(builder, combiner, mlirShapedTypeGetElementType(type));
  MlirValue empty = memoptBuildTensorEmpty(builder, type, dynamicSizes, dynamicSizeCount);
  return memoptBuildLinalgNamedUnary(builder, "linalg.fill", identity, empty);
}

/* Creates an all-parallel linalg.generic over the shape of `out`, reading
 * `ins` (input i indexed by the leading `inRanks[i]` loops: the identity, or
 * a prefix broadcast along the trailing ones) and writing `out`. Its payload
 * block has one scalar argument per operand, `out`'s last; `payload` gets a
 * builder at its end, where the caller builds the payload and its
 * linalg.yield. Returns the op. */
static MlirOperation buildParallelGeneric(const MemoptBuilder *builder, const MlirValue *ins,
                                          const intptr_t *inRanks, intptr_t inCount,
                                          MlirValue out, MemoptBuilder *payload) {
  enum { MaxOperands = 8 };
  MlirContext context = contextOf(builder);
  intptr_t rank = mlirShapedTypeGetRank(mlirValueGetType(out));
  MlirAffineMap identity = mlirAffineMapMultiDimIdentityGet(context, rank);
  MlirAttribute maps[MaxOperands];
  for (intptr_t i = 0; i <= inCount; ++i) {
    intptr_t operandRank = i < inCount ? inRanks[i] : rank;
    /* The major submap of no results is the null map, not () -> (). */
    maps[i] = mlirAffineMapAttrGet(operandRank == 0
                                       ? mlirAffineMapZeroResultGet(context, rank, 0)
                                       : mlirAffineMapGetMajorSubMap(identity, operandRank));
  }
  return memoptBuildParallelGeneric(builder, ins, inCount, out, maps, rank, payload);
}

/* Ends a generic's payload with `linalg.yield value` and returns the generic's result. */
static MlirValue finishGeneric(MlirOperation generic, const MemoptBuilder *payload,
                               MlirValue value) {
  memoptBuildYield(payload, "linalg.yield", &value, 1);
  return mlirOperationGetResult(generic, 0);
}

MlirValue memoptBuildCombine(const MemoptBuilder *builder, MemoptChunkCombiner combiner,
                             MlirValue accumulator, MlirValue chunk) {
  intptr_t rank = mlirShapedTypeGetRank(mlirValueGetType(accumulator));
  MemoptBuilder payload;
  MlirOperation generic = buildParallelGeneric(builder, &chunk, &rank, 1, accumulator, &payload);
  MlirBlock block = payload.block;
  MlirValue value = mlirBlockGetArgument(block, 0);
  MlirValue sum = mlirBlockGetArgument(block, 1);
  bool isFloat = mlirTypeIsAFloat(mlirValueGetType(value));
  const char *opName = combiner == MemoptChunkCombineAdd
                           ? (isFloat ? "arith.addf" : "arith.addi")
                           : (isFloat ? "arith.maximumf" : "arith.maxsi");
  return finishGeneric(generic, &payload, memoptBuildBinary(&payload, opName, sum, value));
}

/* In a rescaled-add payload: `value` * exp(`max` - `maxNew`), or 0 where
 * `max` is -inf. */
static MlirValue buildRescaledTerm(const MemoptBuilder *payload, MlirValue value, MlirValue max,
                                   MlirValue maxNew, MlirValue minusInfinity, MlirValue zero) {
  MlirContext context = contextOf(payload);
  /* arith::CmpFPredicate::oeq */
  const int64_t orderedEqual = 1;
  MlirNamedAttribute predicate = memoptNamedAttribute(
      context, "predicate", mlirIntegerAttrGet(mlirIntegerTypeGet(context, 64), orderedEqual));
  MlirValue compared[] = {max, minusInfinity};
  MlirValue masked = memoptBuildOneResult(payload, "arith.cmpf", compared, 2,
                                          mlirIntegerTypeGet(context, 1), &predicate, 1);
  MlirValue difference = memoptBuildBinary(payload, "arith.subf", max, maxNew);
  MlirValue scale = memoptBuildOneResult(payload, "math.exp", &difference, 1,
                                         mlirValueGetType(difference), NULL, 0);
  MlirValue term = memoptBuildBinary(payload, "arith.mulf", value, scale);
  MlirValue choices[] = {masked, zero, term};
  return memoptBuildOneResult(payload, "arith.select", choices, 3, mlirValueGetType(term), NULL, 0);
}

MlirValue memoptBuildRescaledAdd(const MemoptBuilder *builder, MlirValue accumulator,
                                 MlirValue chunk, MlirValue maxOld, MlirValue maxChunk) {
  MlirType element = mlirShapedTypeGetElementType(mlirValueGetType(accumulator));
  MlirContext context = contextOf(builder);
  intptr_t rank = mlirShapedTypeGetRank(mlirValueGetType(accumulator));
  intptr_t maxRank = mlirShapedTypeGetRank(mlirValueGetType(maxOld));
  MlirValue ins[] = {chunk, maxOld, maxChunk};
  intptr_t ranks[] = {rank, maxRank, maxRank};
  MemoptBuilder payload;
  MlirOperation generic = buildParallelGeneric(builder, ins, ranks, 3, accumulator, &payload);
  MlirBlock block = payload.block;
  MlirValue minusInfinity =
      memoptBuildConstant(&payload, mlirFloatAttrDoubleGet(context, element, -INFINITY));
  MlirValue zero = memoptBuildConstant(&payload, mlirFloatAttrDoubleGet(context, element, 0.0));
  /* As the "max" combiner computes it. */
  MlirValue newMax = memoptBuildBinary(&payload, "arith.maximumf", mlirBlockGetArgument(block, 1),
                                 mlirBlockGetArgument(block, 2));
  MlirValue old = buildRescaledTerm(&payload, mlirBlockGetArgument(block, 3),
                                    mlirBlockGetArgument(block, 1), newMax, minusInfinity, zero);
  MlirValue added = buildRescaledTerm(&payload, mlirBlockGetArgument(block, 0),
                                      mlirBlockGetArgument(block, 2), newMax, minusInfinity, zero);
  return finishGeneric(generic, &payload, memoptBuildBinary(&payload, "arith.addf", old, added));
}

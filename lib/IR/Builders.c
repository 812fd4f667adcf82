/* Upstream ops in generic form. The attribute names and encodings below are
 * those `mlir-opt --mlir-print-op-generic` prints for the same ops in MLIR 22:
 * dynamic entries of static_offsets/static_sizes/static_strides hold the
 * dynamic-size marker and are given as operands instead, and
 * operandSegmentSizes counts the operands of each group. */
#include "IR/Builders.h"

#include "Support/Support.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/Linalg.h"

#include <stdlib.h>

MemoptBuilder memoptBuilderBefore(MlirOperation op) {
  return (MemoptBuilder){mlirOperationGetBlock(op), op, mlirOperationGetLocation(op)};
}

MemoptBuilder memoptBuilderAtEnd(MlirBlock block, MlirLocation location) {
  return (MemoptBuilder){block, (MlirOperation){NULL}, location};
}

MemoptIndex memoptIndexFixed(int64_t fixed) { return (MemoptIndex){fixed, (MlirValue){NULL}}; }

MemoptIndex memoptIndexDynamic(MlirValue value) {
  return (MemoptIndex){mlirShapedTypeGetDynamicSize(), value};
}

bool memoptIndexIsFixed(MemoptIndex index) { return mlirValueIsNull(index.value); }

static MlirContext contextOf(const MemoptBuilder *builder) {
  return mlirLocationGetContext(builder->location);
}

MlirNamedAttribute memoptNamedAttribute(MlirContext context, const char *name,
                                        MlirAttribute attribute) {
  return mlirNamedAttributeGet(mlirIdentifierGet(context, mlirStringRefCreateFromCString(name)),
                               attribute);
}

/* Creation fails only when the state does not match the op's definition,
 * which would be a bug in the caller, so it aborts rather than returning. */
MlirOperation memoptInsertOp(const MemoptBuilder *builder, MlirOperationState *state) {
  MlirOperation op = mlirOperationCreate(state);
  if (mlirOperationIsNull(op))
    abort();
  mlirBlockInsertOwnedOperationBefore(builder->block, builder->before, op);
  return op;
}

MlirValue memoptBuildOneResult(const MemoptBuilder *builder, const char *opName,
                               const MlirValue *operands, intptr_t operandCount,
                               MlirType resultType, const MlirNamedAttribute *attributes,
                               intptr_t attributeCount) {
  MlirOperationState state =
      mlirOperationStateGet(mlirStringRefCreateFromCString(opName), builder->location);
  mlirOperationStateAddOperands(&state, operandCount, operands);
  mlirOperationStateAddResults(&state, 1, &resultType);
  mlirOperationStateAddAttributes(&state, attributeCount, attributes);
  return mlirOperationGetResult(memoptInsertOp(builder, &state), 0);
}

MlirValue memoptBuildConstant(const MemoptBuilder *builder, MlirAttribute value) {
  MlirNamedAttribute attribute = memoptNamedAttribute(contextOf(builder), "value", value);
  return memoptBuildOneResult(builder, "arith.constant", NULL, 0, mlirAttributeGetType(value),
                              &attribute, 1);
}

MlirValue memoptBuildBinary(const MemoptBuilder *builder, const char *opName, MlirValue lhs,
                            MlirValue rhs) {
  MlirValue operands[] = {lhs, rhs};
  return memoptBuildOneResult(builder, opName, operands, 2, mlirValueGetType(lhs), NULL, 0);
}

MlirValue memoptBuildIndexConstant(const MemoptBuilder *builder, int64_t value) {
  return memoptBuildConstant(builder,
                             mlirIntegerAttrGet(mlirIndexTypeGet(contextOf(builder)), value));
}

MlirValue memoptBuildIndexArith(const MemoptBuilder *builder, const char *opName, MlirValue lhs,
                                MlirValue rhs) {
  MlirValue operands[] = {lhs, rhs};
  return memoptBuildOneResult(builder, opName, operands, 2, mlirIndexTypeGet(contextOf(builder)),
                              NULL, 0);
}

MlirValue memoptBuildIndexAtLeast(const MemoptBuilder *builder, MlirValue lhs, MlirValue rhs) {
  MlirContext context = contextOf(builder);
  /* arith::CmpIPredicate::sge */
  const int64_t signedGreaterOrEqual = 5;
  MlirNamedAttribute predicate = memoptNamedAttribute(
      context, "predicate",
      mlirIntegerAttrGet(mlirIntegerTypeGet(context, 64), signedGreaterOrEqual));
  MlirValue operands[] = {lhs, rhs};
  return memoptBuildOneResult(builder, "arith.cmpi", operands, 2, mlirIntegerTypeGet(context, 1),
                              &predicate, 1);
}

void memoptBuildAssert(const MemoptBuilder *builder, MlirValue condition, const char *message) {
  MlirContext context = contextOf(builder);
  MlirNamedAttribute msg = memoptNamedAttribute(
      context, "msg", mlirStringAttrGet(context, mlirStringRefCreateFromCString(message)));
  MlirOperationState state =
      mlirOperationStateGet(mlirStringRefCreateFromCString("cf.assert"), builder->location);
  mlirOperationStateAddOperands(&state, 1, &condition);
  mlirOperationStateAddAttributes(&state, 1, &msg);
  memoptInsertOp(builder, &state);
}

MlirValue memoptBuildTensorDim(const MemoptBuilder *builder, MlirValue tensor, int64_t dim) {
  MlirValue operands[] = {tensor, memoptBuildIndexConstant(builder, dim)};
  return memoptBuildOneResult(builder, "tensor.dim", operands, 2,
                              mlirIndexTypeGet(contextOf(builder)), NULL, 0);
}

MlirValue memoptBuildTensorEmpty(const MemoptBuilder *builder, MlirType type,
                                 const MlirValue *dynamicSizes, intptr_t dynamicSizeCount) {
  return memoptBuildOneResult(builder, "tensor.empty", dynamicSizes, dynamicSizeCount, type, NULL,
                              0);
}

MlirValue memoptBuildTensorCastIfNeeded(const MemoptBuilder *builder, MlirValue value,
                                        MlirType type) {
  if (mlirTypeEqual(mlirValueGetType(value), type))
    return value;
  return memoptBuildOneResult(builder, "tensor.cast", &value, 1, type, NULL, 0);
}

MlirType memoptTensorTypeWithExtent(MlirType type, int64_t dim, int64_t extent) {
  intptr_t rank = mlirShapedTypeGetRank(type);
  int64_t *shape = memoptAllocateZeroed((size_t)rank, sizeof *shape);
  for (intptr_t d = 0; d < rank; ++d)
    shape[d] = d == dim ? extent : mlirShapedTypeGetDimSize(type, d);
  MlirType result = mlirRankedTensorTypeGet(rank, shape, mlirShapedTypeGetElementType(type),
                                            mlirRankedTensorTypeGetEncoding(type));
  free(shape);
  return result;
}

MlirValue memoptBuildSlice(const MemoptBuilder *builder, const char *opName,
                           const MlirValue *leading, int32_t leadingCount,
                           const MemoptIndex *offsets, const MemoptIndex *sizes, intptr_t rank,
                           MlirType resultType) {
  MlirContext context = contextOf(builder);
  MlirValue *operands = memoptAllocateZeroed((size_t)(leadingCount + 2 * rank), sizeof *operands);
  int64_t *fixed = memoptAllocateZeroed(3 * (size_t)rank, sizeof *fixed);
  intptr_t count = 0;
  for (int32_t i = 0; i < leadingCount; ++i)
    operands[count++] = leading[i];
  /* leading operands, then the dynamic offsets, sizes and strides (none) */
  int32_t segments[5];
  for (int32_t i = 0; i < leadingCount; ++i)
    segments[i] = 1;
  int32_t *dynamic = segments + leadingCount;
  dynamic[0] = dynamic[1] = dynamic[2] = 0;
  for (int which = 0; which < 2; ++which)
    for (intptr_t d = 0; d < rank; ++d) {
      MemoptIndex index = which == 0 ? offsets[d] : sizes[d];
      fixed[which * rank + d] = index.fixed;
      if (!memoptIndexIsFixed(index)) {
        operands[count++] = index.value;
        ++dynamic[which];
      }
    }
  for (intptr_t d = 0; d < rank; ++d)
    fixed[2 * rank + d] = 1;
  MlirNamedAttribute attributes[] = {
      memoptNamedAttribute(context, "operandSegmentSizes",
                           mlirDenseI32ArrayGet(context, leadingCount + 3, segments)),
      memoptNamedAttribute(context, "static_offsets", mlirDenseI64ArrayGet(context, rank, fixed)),
      memoptNamedAttribute(context, "static_sizes",
                           mlirDenseI64ArrayGet(context, rank, fixed + rank)),
      memoptNamedAttribute(context, "static_strides",
                           mlirDenseI64ArrayGet(context, rank, fixed + 2 * rank)),
  };
  MlirValue result = memoptBuildOneResult(builder, opName, operands, count, resultType, attributes,
                                          sizeof attributes / sizeof *attributes);
  free(operands);
  free(fixed);
  return result;
}

MlirValue memoptIndexValue(const MemoptBuilder *builder, MemoptIndex index) {
  return memoptIndexIsFixed(index) ? memoptBuildIndexConstant(builder, index.fixed) : index.value;
}

MemoptIndex memoptSliceIndex(MlirOperation slice, int which, intptr_t d) {
  static const char *const names[] = {"static_offsets", "static_sizes", "static_strides"};
  MlirAttribute values =
      mlirOperationGetAttributeByName(slice, mlirStringRefCreateFromCString(names[which]));
  int64_t value = mlirDenseI64ArrayGetElement(values, d);
  if (!mlirShapedTypeIsDynamicSize(value))
    return memoptIndexFixed(value);
  /* Operands: the leading ones (source, and dest for insert_slice), then the
   * dynamic offsets, sizes and strides. */
  MlirAttribute segments =
      mlirOperationGetAttributeByName(slice, mlirStringRefCreateFromCString("operandSegmentSizes"));
  intptr_t leading = mlirDenseArrayGetNumElements(segments) - 3;
  intptr_t operand = 0;
  for (intptr_t i = 0; i < leading + which; ++i)
    operand += mlirDenseI32ArrayGetElement(segments, i);
  for (intptr_t i = 0; i < d; ++i)
    operand += mlirShapedTypeIsDynamicSize(mlirDenseI64ArrayGetElement(values, i));
  return memoptIndexDynamic(mlirOperationGetOperand(slice, operand));
}

/* The offsets and sizes of the slice [offset, offset + size) along `dim` of
 * a tensor shaped like `shapeSource`, whole in every other dimension (their
 * dynamic extents read with tensor.dim); `rank` of each, malloc'ed as one
 * array, offsets first. */
static MemoptIndex *sliceAlong(const MemoptBuilder *builder, MlirValue shapeSource, int64_t dim,
                               MlirValue offset, MemoptIndex size) {
  MlirType type = mlirValueGetType(shapeSource);
  intptr_t rank = mlirShapedTypeGetRank(type);
  MemoptIndex *indices = memoptAllocateZeroed(2 * (size_t)rank, sizeof *indices);
  for (intptr_t d = 0; d < rank; ++d) {
    indices[d] = d == dim ? memoptIndexDynamic(offset) : memoptIndexFixed(0);
    int64_t extent = mlirShapedTypeGetDimSize(type, d);
    indices[rank + d] = d == dim ? size
                        : mlirShapedTypeIsDynamicSize(extent)
                            ? memoptIndexDynamic(memoptBuildTensorDim(builder, shapeSource, d))
                            : memoptIndexFixed(extent);
  }
  return indices;
}

MlirValue memoptBuildExtractSliceAlong(const MemoptBuilder *builder, MlirValue source, int64_t dim,
                                       MlirValue offset, MemoptIndex size) {
  MemoptIndex *indices = sliceAlong(builder, source, dim, offset, size);
  intptr_t rank = mlirShapedTypeGetRank(mlirValueGetType(source));
  MlirType resultType = memoptTensorTypeWithExtent(mlirValueGetType(source), dim, size.fixed);
  MlirValue result = memoptBuildSlice(builder, "tensor.extract_slice", &source, 1, indices,
                                      indices + rank, rank, resultType);
  free(indices);
  return result;
}

MlirValue memoptBuildInsertSliceAlong(const MemoptBuilder *builder, MlirValue source,
                                      MlirValue dest, int64_t dim, MlirValue offset,
                                      MemoptIndex size) {
  MemoptIndex *indices = sliceAlong(builder, source, dim, offset, size);
  intptr_t rank = mlirShapedTypeGetRank(mlirValueGetType(source));
  MlirValue leading[] = {source, dest};
  MlirValue result = memoptBuildSlice(builder, "tensor.insert_slice", leading, 2, indices,
                                      indices + rank, rank, mlirValueGetType(dest));
  free(indices);
  return result;
}

MlirOperation memoptBuildFor(const MemoptBuilder *builder, MlirValue lower, MlirValue upper,
                             MlirValue step, const MlirValue *inits, intptr_t initCount) {
  /* Block arguments: the induction variable, then one per loop-carried value. */
  intptr_t argumentCount = 1 + initCount;
  MlirType *types = memoptAllocateZeroed((size_t)argumentCount, sizeof *types);
  MlirLocation *locations = memoptAllocateZeroed((size_t)argumentCount, sizeof *locations);
  types[0] = mlirIndexTypeGet(contextOf(builder));
  locations[0] = builder->location;
  for (intptr_t i = 0; i < initCount; ++i) {
    types[1 + i] = mlirValueGetType(inits[i]);
    locations[1 + i] = builder->location;
  }
  MlirRegion body = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(body, mlirBlockCreate(argumentCount, types, locations));

  MlirOperationState state =
      mlirOperationStateGet(mlirStringRefCreateFromCString("scf.for"), builder->location);
  MlirValue bounds[] = {lower, upper, step};
  mlirOperationStateAddOperands(&state, 3, bounds);
  mlirOperationStateAddOperands(&state, initCount, inits);
  mlirOperationStateAddResults(&state, initCount, types + 1);
  mlirOperationStateAddOwnedRegions(&state, 1, &body);
  MlirOperation loop = memoptInsertOp(builder, &state);
  free(types);
  free(locations);
  return loop;
}

MlirOperation memoptForAppendIterArg(MlirOperation loop, MlirValue init) {
  intptr_t operandCount = mlirOperationGetNumOperands(loop);
  intptr_t resultCount = mlirOperationGetNumResults(loop);
  intptr_t attributeCount = mlirOperationGetNumAttributes(loop);
  MlirValue *operands = memoptAllocateZeroed((size_t)(operandCount + 1), sizeof *operands);
  MlirType *types = memoptAllocateZeroed((size_t)(resultCount + 1), sizeof *types);
  MlirNamedAttribute *attributes =
      memoptAllocateZeroed((size_t)attributeCount, sizeof *attributes);
  for (intptr_t i = 0; i < operandCount; ++i)
    operands[i] = mlirOperationGetOperand(loop, i);
  operands[operandCount] = init;
  for (intptr_t i = 0; i < resultCount; ++i)
    types[i] = mlirValueGetType(mlirOperationGetResult(loop, i));
  types[resultCount] = mlirValueGetType(init);
  for (intptr_t i = 0; i < attributeCount; ++i)
    attributes[i] = mlirOperationGetAttribute(loop, i);
  MlirLocation location = mlirOperationGetLocation(loop);
  MlirOperationState state =
      mlirOperationStateGet(mlirStringRefCreateFromCString("scf.for"), location);
  mlirOperationStateAddOperands(&state, operandCount + 1, operands);
  mlirOperationStateAddResults(&state, resultCount + 1, types);
  mlirOperationStateAddAttributes(&state, attributeCount, attributes);
  MlirRegion body = mlirRegionCreate();
  mlirOperationStateAddOwnedRegions(&state, 1, &body);
  MemoptBuilder builder = memoptBuilderBefore(loop);
  MlirOperation replacement = memoptInsertOp(&builder, &state);
  /* The body moves over whole: its ops keep their identity. */
  mlirRegionTakeBody(mlirOperationGetRegion(replacement, 0), mlirOperationGetRegion(loop, 0));
  mlirBlockAddArgument(memoptSingleBlock(replacement), types[resultCount], location);
  for (intptr_t i = 0; i < resultCount; ++i)
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(loop, i),
                                  mlirOperationGetResult(replacement, i));
  memoptEraseOp(loop);
  free(operands);
  free(types);
  free(attributes);
  return replacement;
}

void memoptTerminatorAppendOperand(MlirOperation terminator, MlirValue value) {
  intptr_t count = mlirOperationGetNumOperands(terminator);
  MlirValue *operands = memoptAllocateZeroed((size_t)(count + 1), sizeof *operands);
  for (intptr_t i = 0; i < count; ++i)
    operands[i] = mlirOperationGetOperand(terminator, i);
  operands[count] = value;
  mlirOperationSetOperands(terminator, count + 1, operands);
  free(operands);
}

MlirBlock memoptSingleBlock(MlirOperation op) {
  return mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
}

void memoptBuildYield(const MemoptBuilder *builder, const char *opName, const MlirValue *values,
                      intptr_t count) {
  MlirOperationState state =
      mlirOperationStateGet(mlirStringRefCreateFromCString(opName), builder->location);
  mlirOperationStateAddOperands(&state, count, values);
  memoptInsertOp(builder, &state);
}

void memoptEraseOp(MlirOperation op) {
  mlirOperationRemoveFromParent(op);
  mlirOperationDestroy(op);
}

MlirOperation memoptBuildOp(const MemoptBuilder *builder, const char *opName,
                            const MlirValue *operands, intptr_t operandCount,
                            const MlirType *resultTypes, intptr_t resultCount,
                            const MlirNamedAttribute *attributes, intptr_t attributeCount) {
  MlirOperationState state =
      mlirOperationStateGet(mlirStringRefCreateFromCString(opName), builder->location);
  mlirOperationStateAddOperands(&state, operandCount, operands);
  mlirOperationStateAddResults(&state, resultCount, resultTypes);
  mlirOperationStateAddAttributes(&state, attributeCount, attributes);
  return memoptInsertOp(builder, &state);
}

MlirOperation memoptBuildParallelGeneric(const MemoptBuilder *builder, const MlirValue *inputs,
                                         intptr_t inputCount, MlirValue init,
                                         const MlirAttribute *maps, intptr_t loops,
                                         MemoptBuilder *payload) {
  MlirContext context = mlirLocationGetContext(builder->location);
  size_t operandCount = (size_t)inputCount + 1;
  MlirValue *operands = memoptAllocateZeroed(operandCount, sizeof *operands);
  MlirType *elements = memoptAllocateZeroed(operandCount, sizeof *elements);
  MlirLocation *locations = memoptAllocateZeroed(operandCount, sizeof *locations);
  MlirAttribute *iterators =
      memoptAllocateZeroed((size_t)(loops > 0 ? loops : 1), sizeof *iterators);
  for (intptr_t i = 0; i <= inputCount; ++i) {
    operands[i] = i < inputCount ? inputs[i] : init;
    elements[i] = mlirShapedTypeGetElementType(mlirValueGetType(operands[i]));
    locations[i] = builder->location;
  }
  MlirAttribute parallel = mlirAttributeParseGet(
      context, mlirStringRefCreateFromCString("#linalg.iterator_type<parallel>"));
  for (intptr_t l = 0; l < loops; ++l)
    iterators[l] = parallel;
  MlirNamedAttribute attributes[] = {
      memoptNamedAttribute(context, "indexing_maps",
                           mlirArrayAttrGet(context, inputCount + 1, maps)),
      memoptNamedAttribute(context, "iterator_types", mlirArrayAttrGet(context, loops, iterators)),
      memoptNamedAttribute(context, "operandSegmentSizes",
                           mlirDenseI32ArrayGet(context, 2, (int32_t[]){(int32_t)inputCount, 1})),
  };
  MlirType type = mlirValueGetType(init);
  MlirOperationState state =
      mlirOperationStateGet(mlirStringRefCreateFromCString("linalg.generic"), builder->location);
  mlirOperationStateAddOperands(&state, inputCount + 1, operands);
  mlirOperationStateAddResults(&state, 1, &type);
  mlirOperationStateAddAttributes(&state, sizeof attributes / sizeof *attributes, attributes);
  MlirBlock block = mlirBlockCreate(inputCount + 1, elements, locations);
  MlirRegion region = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(region, block);
  mlirOperationStateAddOwnedRegions(&state, 1, &region);
  *payload = memoptBuilderAtEnd(block, builder->location);
  free(iterators);
  free(locations);
  free(elements);
  free(operands);
  return memoptInsertOp(builder, &state);
}

MlirValue memoptBuildLinalgNamedUnary(const MemoptBuilder *builder, const char *name,
                                      MlirValue source, MlirValue destination) {
  MlirContext context = mlirLocationGetContext(builder->location);
  MlirType type = mlirValueGetType(destination);
  MlirValue operands[] = {source, destination};
  MlirNamedAttribute segments = memoptNamedAttribute(
      context, "operandSegmentSizes", mlirDenseI32ArrayGet(context, 2, (int32_t[]){1, 1}));
  MlirOperationState state =
      mlirOperationStateGet(mlirStringRefCreateFromCString(name), builder->location);
  mlirOperationStateAddOperands(&state, 2, operands);
  mlirOperationStateAddResults(&state, 1, &type);
  mlirOperationStateAddAttributes(&state, 1, &segments);
  MlirRegion region = mlirRegionCreate();
  mlirOperationStateAddOwnedRegions(&state, 1, &region);
  MlirOperation op = memoptInsertOp(builder, &state);
  /* A named linalg op's body is implied by its name: let upstream build it. */
  mlirLinalgFillBuiltinNamedOpRegion(op);
  return mlirOperationGetResult(op, 0);
}

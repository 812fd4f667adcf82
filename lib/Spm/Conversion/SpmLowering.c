/* State and op builders shared by the files of spm-to-memref. Ops are created
 * in generic form with the inherent attributes `mlir-opt
 * --mlir-print-op-generic` shows for them in MLIR 22. */
#include "Spm/Spm.h"
#include "Spm/Conversion/SpmLowering.h"
#include "IR/IR.h"
#include "Support/Support.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdarg.h>
#include <stdlib.h>

void spmLoweringAddPinned(SpmLowering *lowering, MlirValue value) {
  lowering->pinned = memoptGrowArray(lowering->pinned, &lowering->pinnedCapacity,
                                     lowering->pinnedCount + 1, sizeof *lowering->pinned);
  lowering->pinned[lowering->pinnedCount++] = value;
}

bool spmLoweringIsPinned(const SpmLowering *lowering, MlirValue value) {
  for (size_t i = 0; i < lowering->pinnedCount; ++i)
    if (mlirValueEqual(lowering->pinned[i], value))
      return true;
  return false;
}

void spmLoweringAddCopy(SpmLowering *lowering, MlirOperation op, SpmCopyKind kind,
                        MlirOperation nest) {
  lowering->copies = memoptGrowArray(lowering->copies, &lowering->copyCapacity,
                                     lowering->copyCount + 1, sizeof *lowering->copies);
  lowering->copies[lowering->copyCount++] = (SpmCopySite){op, kind, nest};
}

void spmLoweringDestroy(SpmLowering *lowering) {
  free(lowering->pinned);
  free(lowering->copies);
  *lowering = (SpmLowering){.memorySpace = lowering->memorySpace, .func = lowering->func};
}

MlirAttribute spmMemorySpace(const SpmLowering *lowering, MlirContext context) {
  if (lowering->memorySpace == 0)
    return mlirAttributeGetNull();
  return mlirIntegerAttrGet(mlirIntegerTypeGet(context, 64), lowering->memorySpace);
}

bool spmInitIsUnread(MlirOperation op, intptr_t operand) {
  MlirAttribute segments =
      mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("operandSegmentSizes"));
  if (!memoptOperationIsInDialect(op, "linalg") || mlirOperationGetNumRegions(op) != 1 ||
      mlirAttributeIsNull(segments) || operand < mlirDenseI32ArrayGetElement(segments, 0))
    return false; /* not a linalg op, or read as an input */
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  return !mlirBlockIsNull(body) && operand < mlirBlockGetNumArguments(body) &&
         mlirOpOperandIsNull(mlirValueGetFirstUse(mlirBlockGetArgument(body, operand)));
}

MlirNamedAttribute spmSegmentSizes(MlirContext context, intptr_t count, const int32_t *sizes) {
  return memoptNamedAttribute(context, "operandSegmentSizes",
                              mlirDenseI32ArrayGet(context, count, sizes));
}

MlirValue spmBuildAllocTensor(const MemoptBuilder *builder, MlirType type,
                              const MlirValue *dynamicSizes, intptr_t dynamicSizeCount,
                              const SpmLowering *lowering) {
  MlirContext context = mlirLocationGetContext(builder->location);
  MlirNamedAttribute attributes[] = {
      spmSegmentSizes(context, 3, (int32_t[]){(int32_t)dynamicSizeCount, 0, 0}),
      memoptNamedAttribute(
          context, "memory_space",
          mlirIntegerAttrGet(mlirIntegerTypeGet(context, 64), lowering->memorySpace)),
  };
  /* Memory space 0 is the default one, which alloc_tensor takes when none is given. */
  intptr_t attributeCount = lowering->memorySpace == 0 ? 1 : 2;
  return memoptBuildOneResult(builder, "bufferization.alloc_tensor", dynamicSizes, dynamicSizeCount,
                              type, attributes, attributeCount);
}

MlirValue spmBuildFill(const MemoptBuilder *builder, MlirValue value, MlirValue destination) {
  return memoptBuildLinalgNamedUnary(builder, "linalg.fill", value, destination);
}

MlirValue spmBuildCopy(const MemoptBuilder *builder, MlirValue source, MlirValue destination) {
  return memoptBuildLinalgNamedUnary(builder, "linalg.copy", source, destination);
}

bool spmIsConstantData(MlirValue value) {
  if (!mlirValueIsAOpResult(value))
    return false;
  MlirOperation op = mlirOpResultGetOwner(value);
  if (memoptOperationIsA(op, "arith.constant"))
    return true;
  if (mlirOperationGetNumRegions(op) > 0 && !memoptOperationIsInDialect(op, "linalg"))
    return false;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i)
    if (!spmIsConstantData(mlirOperationGetOperand(op, i)))
      return false;
  return true;
}

bool spmRemoveTag(MlirOperation op, const char *name) {
  return mlirOperationRemoveAttributeByName(op, mlirStringRefCreateFromCString(name));
}

bool spmHasTag(MlirOperation op, const char *name) {
  return !mlirAttributeIsNull(
      mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name)));
}

bool spmIsLinalgOp(MlirOperation op) {
  return memoptOperationIsInDialect(op, "linalg") && mlirOperationGetNumRegions(op) == 1;
}

intptr_t spmLinalgInputCount(MlirOperation op) {
  MlirAttribute segments =
      mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("operandSegmentSizes"));
  return mlirAttributeIsNull(segments) ? mlirOperationGetNumOperands(op)
                                       : mlirDenseI32ArrayGetElement(segments, 0);
}

void spmCannotLower(MlirLocation location, MlirStringRef opName, const char *format, ...) {
  MemoptStringBuffer message = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(
      &message, "'%.*s' op cannot be lowered to memref: ", (int)opName.length, opName.data);
  va_list args;
  va_start(args, format);
  memoptStringBufferAppendFormatV(&message, format, args);
  va_end(args);
  mlirEmitError(location, memoptStringBufferGet(&message));
  memoptStringBufferDestroy(&message);
}

/* Constants published without their data: `dense_resource<__elided__>`,
 * what MLIR prints when large resources are elided. Such a model parses but
 * cannot run (mlir-runner only says "resource does not exist"), so they are
 * reported at their location, or, with --fill-elided, given generated values:
 * memory and time stay meaningful (sizes and shapes are intact), outputs are
 * no longer the model's. */
#include "Harness.h"

#include "IR/IR.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Argument numbers given to the input formulas for filled constants, so that
 * they differ from the entry's arguments. */
enum { FirstConstantNumber = 1000, ReportedLocations = 3 };

typedef struct ElidedSearch {
  bool fill;
  long long seed;
  size_t found;
  size_t unfillable;
} ElidedSearch;

static bool isElided(MlirAttribute attribute) {
  if (!mlirAttributeIsADenseResourceElements(attribute))
    return false;
  MemoptStringBuffer text = memoptStringBufferCreate();
  mlirAttributePrint(attribute, memoptAppendToBuffer, &text);
  bool elided = memoptStartsWith(memoptStringBufferGet(&text), "dense_resource<__elided__>");
  memoptStringBufferDestroy(&text);
  return elided;
}

/* Returns generated dense elements of `type`, or a null attribute with the
 * reason (static text) in `reason`. */
static MlirAttribute generatedElements(MlirType type, long long seed, size_t number,
                                       const char **reason) {
  MlirType element = mlirShapedTypeGetElementType(type);
  int64_t count = 1;
  for (intptr_t d = 0; d < mlirShapedTypeGetRank(type); ++d)
    if (__builtin_mul_overflow(count, mlirShapedTypeGetDimSize(type, d), &count) ||
        (size_t)count > SIZE_MAX / sizeof(double)) {
      *reason = "memopt-run cannot generate data for this elided constant: its element count "
                "overflows";
      return (MlirAttribute){NULL};
    }
  bool isFloat = mlirTypeIsAF32(element) || mlirTypeIsAF64(element);
  unsigned width = mlirTypeIsAInteger(element) ? mlirIntegerTypeGetWidth(element) : 0;
  if (!isFloat && width != 64 && width != 32 && width != 16 && width != 8 && width != 1) {
    *reason = "memopt-run cannot generate data for this elided constant's element type";
    return (MlirAttribute){NULL};
  }
  /* i1 is read as one int per element (mlirDenseElementsAttrBoolGet). */
  size_t elementSize = mlirTypeIsAF64(element) || width == 64 ? 8
                       : width == 16                          ? 2
                       : width == 8                           ? 1
                                                              : 4;
  void *values = memoptAllocateZeroed((size_t)(count > 0 ? count : 1), elementSize);
  for (int64_t l = 0; l < count; ++l) {
    if (mlirTypeIsAF64(element))
      ((double *)values)[l] = harnessFloatInputValue(seed, number, l);
    else if (mlirTypeIsAF32(element))
      ((float *)values)[l] = (float)harnessFloatInputValue(seed, number, l);
    else if (width == 64)
      ((int64_t *)values)[l] = harnessIntegerInputValue(seed, number, l, 16);
    else if (width == 16)
      ((int16_t *)values)[l] = (int16_t)harnessIntegerInputValue(seed, number, l, 16);
    else if (width == 8)
      ((int8_t *)values)[l] = (int8_t)harnessIntegerInputValue(seed, number, l, 16);
    else
      ((int32_t *)values)[l] = (int32_t)harnessIntegerInputValue(seed, number, l, width == 1 ? 2 : 16);
  }
  MlirAttribute result;
  intptr_t n = (intptr_t)count;
  if (mlirTypeIsAF64(element))
    result = mlirDenseElementsAttrDoubleGet(type, n, values);
  else if (mlirTypeIsAF32(element))
    result = mlirDenseElementsAttrFloatGet(type, n, values);
  else if (width == 64)
    result = mlirDenseElementsAttrInt64Get(type, n, values);
  else if (width == 32)
    result = mlirDenseElementsAttrInt32Get(type, n, values);
  else if (width == 16)
    result = mlirDenseElementsAttrInt16Get(type, n, values);
  else if (width == 8)
    result = mlirDenseElementsAttrInt8Get(type, n, values);
  else
    result = mlirDenseElementsAttrBoolGet(type, n, values);
  free(values);
  return result;
}

static MlirWalkResult visit(MlirOperation op, void *userData) {
  ElidedSearch *search = userData;
  for (intptr_t i = 0; i < mlirOperationGetNumAttributes(op); ++i) {
    MlirNamedAttribute named = mlirOperationGetAttribute(op, i);
    if (!isElided(named.attribute))
      continue;
    size_t number = FirstConstantNumber + search->found++;
    MlirType type = mlirAttributeGetType(named.attribute);
    if (!search->fill) {
      /* A few locations are enough to see what is wrong; models have hundreds. */
      if (search->found <= ReportedLocations)
        mlirEmitError(mlirOperationGetLocation(op), "this constant's data was elided from the file");
      continue;
    }
    const char *reason = NULL;
    MlirAttribute generated = generatedElements(type, search->seed, number, &reason);
    if (mlirAttributeIsNull(generated)) {
      mlirEmitError(mlirOperationGetLocation(op), reason);
      ++search->unfillable;
      continue;
    }
    mlirOperationSetAttributeByName(op, mlirIdentifierStr(named.name), generated);
  }
  return MlirWalkResultAdvance;
}

bool harnessElidedConstantsResolve(MlirModule module, bool fill, long long seed, size_t *filled,
                                   MemoptStringBuffer *error) {
  ElidedSearch search = {fill, seed, 0, 0};
  mlirOperationWalk(mlirModuleGetOperation(module), visit, &search, MlirWalkPreOrder);
  *filled = fill ? search.found - search.unfillable : 0;
  if (search.found == 0 || (fill && search.unfillable == 0))
    return true;
  if (!fill)
    memoptStringBufferAppendFormat(error,
                                   "the model has %zu constants whose data was elided "
                                   "(dense_resource<__elided__>), so it cannot run; --fill-elided "
                                   "gives them generated values (memory and time stay meaningful, "
                                   "outputs do not)",
                                   search.found);
  else
    memoptStringBufferAppendFormat(error,
                                   "memopt-run cannot generate %zu elided constants (it fills "
                                   "f64, f32, i64, i32, i16, i8 and i1 tensors whose element "
                                   "count fits in 64 bits)",
                                   search.unfillable);
  return false;
}

/* What kind of op an op is, by its name and types: the questions passes ask
 * before they move, clone or recompute an op. */
#include "IR/IR.h"

#include "mlir-c/AffineExpr.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <string.h>

bool memoptOperationIsInDialect(MlirOperation op, const char *dialect) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  size_t length = strlen(dialect);
  return name.length > length + 1 && memcmp(name.data, dialect, length) == 0 &&
         name.data[length] == '.';
}

static bool touchesMemRefs(MlirOperation op) {
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i)
    if (mlirTypeIsAMemRef(mlirValueGetType(mlirOperationGetOperand(op, i))))
      return true;
  for (intptr_t i = 0; i < mlirOperationGetNumResults(op); ++i)
    if (mlirTypeIsAMemRef(mlirValueGetType(mlirOperationGetResult(op, i))))
      return true;
  return false;
}

bool memoptOperationIsPure(MlirOperation op) {
  bool linalg = memoptOperationIsInDialect(op, "linalg");
  if ((mlirOperationGetNumRegions(op) > 0 && !linalg) || touchesMemRefs(op))
    return false;
  return linalg || memoptOperationIsInDialect(op, "arith") ||
         memoptOperationIsInDialect(op, "math") ||
         (memoptOperationIsInDialect(op, "tensor") && !memoptOperationIsA(op, "tensor.print"));
}

/* Collects a printed attribute into a fixed buffer; longer text is cut off
 * (it then matches no iterator kind). */
typedef struct PrintedName {
  char text[40];
  size_t length;
  bool truncated;
} PrintedName;

static void appendPrinted(MlirStringRef piece, void *userData) {
  PrintedName *name = userData;
  if (name->truncated || piece.length > sizeof name->text - 1 - name->length) {
    name->truncated = true;
    return;
  }
  if (piece.length == 0)
    return;
  memcpy(name->text + name->length, piece.data, piece.length);
  name->length += piece.length;
  name->text[name->length] = '\0';
}

/* The C API has no accessor for linalg's IteratorTypeAttr; its printed form
 * names the kind. Printing reads the attribute only: unlike parsing
 * "#linalg.iterator_type<...>", it never loads a dialect, which a pass must
 * not do while other threads run. */
MemoptIteratorKind memoptLinalgIteratorKind(MlirAttribute iterator) {
  PrintedName name = {.length = 0};
  if (mlirAttributeIsNull(iterator))
    return MemoptIteratorOther;
  mlirAttributePrint(iterator, appendPrinted, &name);
  if (name.truncated)
    return MemoptIteratorOther;
  if (strcmp(name.text, "#linalg.iterator_type<parallel>") == 0)
    return MemoptIteratorParallel;
  if (strcmp(name.text, "#linalg.iterator_type<reduction>") == 0)
    return MemoptIteratorReduction;
  return MemoptIteratorOther;
}

bool memoptLinalgReadsLoopIndex(MlirOperation op, int64_t loop) {
  for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); ++r) {
    MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r));
    for (MlirOperation inner = mlirBlockIsNull(body) ? (MlirOperation){NULL}
                                                     : mlirBlockGetFirstOperation(body);
         !mlirOperationIsNull(inner); inner = mlirOperationGetNextInBlock(inner)) {
      if (!memoptOperationIsA(inner, "linalg.index"))
        continue;
      MlirAttribute dim =
          mlirOperationGetAttributeByName(inner, mlirStringRefCreateFromCString("dim"));
      if (loop < 0 || (mlirAttributeIsAInteger(dim) && mlirIntegerAttrGetValueInt(dim) == loop))
        return true;
    }
  }
  return false;
}

bool memoptOperationIsTensorReshape(MlirOperation op) {
  return memoptOperationIsA(op, "tensor.collapse_shape") ||
         memoptOperationIsA(op, "tensor.expand_shape");
}

int64_t memoptAffineMapResultLoop(MlirAffineMap map, intptr_t index) {
  MlirAffineExpr expr = mlirAffineMapGetResult(map, index);
  return mlirAffineExprIsADim(expr) ? (int64_t)mlirAffineDimExprGetPosition(expr) : -1;
}

int64_t memoptAffineMapLoopPosition(MlirAffineMap map, int64_t loop) {
  for (intptr_t r = 0; r < mlirAffineMapGetNumResults(map); ++r)
    if (memoptAffineMapResultLoop(map, r) == loop)
      return r;
  return -1;
}

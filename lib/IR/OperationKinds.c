/* What kind of op an op is, by its name and types: the questions passes ask
 * before they move, clone or recompute an op. */
#include "IR/IR.h"

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

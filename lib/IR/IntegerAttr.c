/* Reading integer attributes whatever their type: the C API returns the low
 * 64 bits of an attribute's value, which silently truncates an i128 and
 * reinterprets a large unsigned value as negative. */
#include "IR/IR.h"
#include "Support/Support.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdlib.h>
#include <string.h>

int64_t memoptOperationGetIntegerAttr(MlirOperation op, const char *name) {
  return mlirIntegerAttrGetValueInt(
      mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name)));
}

bool memoptIntegerAttrGetInt64(MlirAttribute attr, int64_t *value) {
  MlirType type = mlirAttributeGetType(attr);
  unsigned width = mlirTypeIsAInteger(type) ? mlirIntegerTypeGetWidth(type) : 64; /* index */
  bool isUnsigned = mlirTypeIsAInteger(type) && mlirIntegerTypeIsUnsigned(type);
  if (width <= 64 && !isUnsigned) {
    *value = mlirIntegerAttrGetValueSInt(attr);
    return true;
  }
  if (width <= 64) {
    uint64_t unsignedValue = mlirIntegerAttrGetValueUInt(attr);
    if (unsignedValue > (uint64_t)INT64_MAX)
      return false;
    *value = (int64_t)unsignedValue;
    return true;
  }
  /* Wider: read the value as printed, "<decimal> : iN". */
  MemoptStringBuffer text = memoptStringBufferCreate();
  mlirAttributePrint(attr, memoptAppendToBuffer, &text);
  const char *printed = memoptStringBufferGet(&text);
  const char *end = strchr(printed, ' ');
  char *digits = memoptStrndup(printed, end ? (size_t)(end - printed) : strlen(printed));
  long long parsed;
  bool fits = memoptParseInt64(digits, &parsed);
  if (fits)
    *value = parsed;
  free(digits);
  memoptStringBufferDestroy(&text);
  return fits;
}

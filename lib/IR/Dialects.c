/* Loading the memopt dialects from their embedded IRDL definitions. */
#include "IR/IR.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Dialect/IRDL.h"

#include <stdlib.h>
#include <string.h>

extern const char memoptEmbeddedIRDL[];
extern const char *const memoptUpstreamDialects[];
extern const size_t memoptUpstreamDialectsCount;

static const char *const dialectNames[] = {"chunk", "place", "remat", "spm"};

const char *memoptDialectsIRDL(void) { return memoptEmbeddedIRDL; }

MlirLogicalResult memoptDialectsLoad(MlirContext context) {
  MlirDialectHandle irdl = mlirGetDialectHandle__irdl__();
  mlirDialectHandleLoadDialect(irdl, context);
  MlirModule definitions =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(memoptEmbeddedIRDL));
  if (mlirModuleIsNull(definitions))
    return mlirLogicalResultFailure();
  MlirLogicalResult result = mlirLoadIRDLDialects(definitions);
  /* The loaded dialects keep no reference to the definitions. */
  mlirModuleDestroy(definitions);
  return result;
}

MlirNamedAttribute memoptSlotSegments(MlirContext context, const char *name, intptr_t used) {
  int32_t sizes[MEMOPT_MAX_SLOTS];
  for (intptr_t i = 0; i < MEMOPT_MAX_SLOTS; ++i)
    sizes[i] = i < used;
  return mlirNamedAttributeGet(mlirIdentifierGet(context, mlirStringRefCreateFromCString(name)),
                               mlirDenseI32ArrayGet(context, MEMOPT_MAX_SLOTS, sizes));
}

bool memoptIsMemoptDialect(MlirStringRef name) {
  for (size_t i = 0; i < sizeof dialectNames / sizeof *dialectNames; ++i)
    if (strlen(dialectNames[i]) == name.length &&
        memcmp(dialectNames[i], name.data, name.length) == 0)
      return true;
  return false;
}

static int compareNames(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void memoptListDialects(MemoptStringBuffer *out) {
  size_t memoptCount = sizeof dialectNames / sizeof *dialectNames;
  size_t count = memoptUpstreamDialectsCount + memoptCount;
  const char **names = memoptAllocateZeroed(count, sizeof *names);
  memcpy(names, memoptUpstreamDialects, memoptUpstreamDialectsCount * sizeof *names);
  memcpy(names + memoptUpstreamDialectsCount, dialectNames, memoptCount * sizeof *names);
  qsort(names, count, sizeof *names, compareNames);
  for (size_t i = 0; i < count; ++i)
    memoptStringBufferAppendFormat(out, "%s%s", i ? "," : "", names[i]);
  free(names);
}

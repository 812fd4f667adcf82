/* Loading the memopt dialects from their embedded IRDL definitions. */
#include "IR/IR.h"

#include "mlir-c/Dialect/IRDL.h"

#include <string.h>

extern const char memoptEmbeddedIRDL[];

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

bool memoptIsMemoptDialect(MlirStringRef name) {
  for (size_t i = 0; i < sizeof dialectNames / sizeof *dialectNames; ++i)
    if (strlen(dialectNames[i]) == name.length &&
        memcmp(dialectNames[i], name.data, name.length) == 0)
      return true;
  return false;
}

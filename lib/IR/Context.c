/* The MLIR context every memopt tool works in. */
#include "IR/IR.h"

#include "mlir-c/RegisterEverything.h"

#include <string.h>

MlirContext memoptContextCreate(bool allowUnregisteredDialects) {
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(registry);
  MlirContext context = mlirContextCreateWithRegistry(registry, /*threadingEnabled=*/false);
  mlirDialectRegistryDestroy(registry);
  mlirContextSetAllowUnregisteredDialects(context, allowUnregisteredDialects);
  if (mlirLogicalResultIsFailure(memoptDialectsLoad(context))) {
    mlirContextDestroy(context);
    return (MlirContext){NULL};
  }
  return context;
}

void memoptAppendToBuffer(MlirStringRef text, void *userData) {
  memoptStringBufferAppend((MemoptStringBuffer *)userData, text.data, text.length);
}

bool memoptOperationIsA(MlirOperation op, const char *name) {
  MlirStringRef opName = mlirIdentifierStr(mlirOperationGetName(op));
  return opName.length == strlen(name) && memcmp(opName.data, name, opName.length) == 0;
}

/* The MLIR context every memopt tool works in. */
#include "IR/IR.h"

#include "mlir-c/RegisterEverything.h"

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

/* The shape symbols a pass needs, the one analysis whose failure (malformed
 * memopt.symbol_bounds) fails the pass: created here, or reported as an
 * error at the function, so that every pass says it the same way. */
#include "Analysis/Analysis.h"
#include "IR/IR.h"
#include "Pass/Pass.h"

MemoptShapeSymbols *memoptPassCreateShapeSymbols(MlirOperation func) {
  MemoptStringBuffer error = memoptStringBufferCreate();
  MemoptShapeSymbols *symbols = memoptShapeSymbolsCreate(func, &error);
  if (!symbols)
    memoptEmitDiagnostic(mlirOperationGetLocation(func), MlirDiagnosticError, error.data);
  memoptStringBufferDestroy(&error);
  return symbols;
}

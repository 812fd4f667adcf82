/* print-shape-symbols: reports the shape symbols of each function as
 * remarks, for tests and for users asking what a dynamic size is made of.
 * On the function: its symbols, where each first appears and its range. On
 * each op: the shape of every ranked result and its bytes (or the value of an
 * index result) as polynomials. With `live=true`, every top-level op also gets
 * its live bytes and how they compare with the previous op's, and the
 * function the positions that may hold the peak. */
#include "Analysis/Analysis.h"
#include "IR/IR.h"
#include "Analysis/Analysis.h"

#include "mlir-c/BuiltinTypes.h"

#include <stdint.h>
#include <stdlib.h>

static void appendPolynomial(MemoptStringBuffer *out, const MemoptShapeSymbols *symbols,
                             const MemoptPolynomial *polynomial) {
  memoptPolynomialPrint(polynomial, memoptShapeSymbolsGetNames(symbols),
                        memoptShapeSymbolsGetNumSymbols(symbols), out);
}

static void appendSource(MemoptStringBuffer *out, MlirValue value, int64_t dim) {
  if (dim >= 0)
    memoptStringBufferAppendFormat(out, "dim %lld of ", (long long)dim);
  if (mlirValueIsABlockArgument(value)) {
    memoptStringBufferAppendFormat(out, "argument #%ld", (long)mlirBlockArgumentGetArgNumber(value));
    return;
  }
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(mlirOpResultGetOwner(value)));
  memoptStringBufferAppendFormat(out, "result #%ld of '%.*s'", (long)mlirOpResultGetResultNumber(value),
                                 (int)name.length, name.data);
}

static void reportSymbols(MlirOperation func, const MemoptShapeSymbols *symbols) {
  size_t count = memoptShapeSymbolsGetNumSymbols(symbols);
  MemoptStringBuffer message = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&message, "%zu shape symbol%s", count, count == 1 ? "" : "s");
  for (size_t s = 0; s < count; ++s) {
    int64_t dim;
    MlirValue source = memoptShapeSymbolsGetSource(symbols, s, &dim);
    memoptStringBufferAppendFormat(&message, "%s %s = ", s ? ";" : ":",
                                   memoptShapeSymbolsGetNames(symbols)[s]);
    appendSource(&message, source, dim);
    MemoptSymbolRange range = memoptShapeSymbolsGetRanges(symbols)[s];
    if (range.maximum == INT64_MAX)
      memoptStringBufferAppendFormat(&message, " in [%lld, inf)", (long long)range.minimum);
    else
      memoptStringBufferAppendFormat(&message, " in [%lld, %lld]", (long long)range.minimum,
                                     (long long)range.maximum);
  }
  memoptEmitDiagnostic(mlirOperationGetLocation(func), MlirDiagnosticRemark, message.data);
  memoptStringBufferDestroy(&message);
}

static void reportResults(MlirOperation op, const MemoptShapeSymbols *symbols) {
  MemoptStringBuffer message = memoptStringBufferCreate();
  for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r) {
    MlirValue result = mlirOperationGetResult(op, r);
    MlirType type = mlirValueGetType(result);
    bool shaped = mlirTypeIsARankedTensor(type) || mlirTypeIsAMemRef(type);
    if (shaped && mlirShapedTypeHasStaticShape(type))
      continue;
    if (!shaped && !mlirTypeIsAIndex(type))
      continue;
    /* An index value is reported when it is a size the analysis knows. */
    const MemoptPolynomial *size = shaped ? NULL : memoptShapeSymbolsGetIndexValue(symbols, result);
    if (!shaped && !size)
      continue;
    memoptStringBufferAppendFormat(&message, "%sresult #%ld", message.length ? "; " : "", (long)r);
    if (!shaped) {
      memoptStringBufferAppendCString(&message, " = ");
      appendPolynomial(&message, symbols, size);
      continue;
    }
    memoptStringBufferAppendCString(&message, ": ");
    for (intptr_t d = 0; d < mlirShapedTypeGetRank(type); ++d) {
      memoptStringBufferAppendCString(&message, d ? " x " : "");
      const MemoptPolynomial *extent = memoptShapeSymbolsGetDimSize(symbols, result, d);
      bool sum = extent && memoptPolynomialGetNumTerms(extent) > 1;
      memoptStringBufferAppendCString(&message, sum ? "(" : "");
      if (extent)
        appendPolynomial(&message, symbols, extent);
      else
        memoptStringBufferAppendCString(&message, "unknown");
      memoptStringBufferAppendCString(&message, sum ? ")" : "");
    }
    MemoptPolynomial *bytes = memoptShapeSymbolsGetByteSize(symbols, result);
    memoptStringBufferAppendCString(&message, ", ");
    if (bytes)
      appendPolynomial(&message, symbols, bytes);
    else
      memoptStringBufferAppendCString(&message, "unknown");
    memoptStringBufferAppendCString(&message, " bytes");
    memoptPolynomialDestroy(bytes);
  }
  if (message.length)
    memoptEmitDiagnostic(mlirOperationGetLocation(op), MlirDiagnosticRemark, message.data);
  memoptStringBufferDestroy(&message);
}

typedef struct WalkState {
  const MemoptShapeSymbols *symbols;
} WalkState;

static MlirWalkResult reportCallback(MlirOperation op, void *userData) {
  WalkState *state = userData;
  /* A constant's value is in the IR already. */
  if (!memoptOperationIsA(op, "func.func") && !memoptOperationIsA(op, "arith.constant"))
    reportResults(op, state->symbols);
  return MlirWalkResultAdvance;
}

static void reportLiveBytes(MlirOperation func, const MemoptShapeSymbols *symbols) {
  MemoptStringBuffer error = memoptStringBufferCreate();
  MemoptMemoryProfile *profile = memoptMemoryProfileCreate(func, false, &error);
  if (!profile) {
    memoptEmitDiagnostic(mlirOperationGetLocation(func), MlirDiagnosticRemark, error.data);
    memoptStringBufferDestroy(&error);
    return;
  }
  memoptStringBufferDestroy(&error);
  size_t positionCount = memoptMemoryProfileGetNumPositions(profile);
  MemoptPolynomial *previous = NULL;
  for (size_t p = 0; p < positionCount; ++p) {
    MemoptPolynomial *live = memoptSymbolicLiveBytes(profile, symbols, p);
    MemoptStringBuffer message = memoptStringBufferCreate();
    memoptStringBufferAppendCString(&message, "live bytes: ");
    appendPolynomial(&message, symbols, live);
    if (previous)
      memoptStringBufferAppendFormat(&message, " (versus the previous op: %s)",
                                     memoptComparisonName(memoptShapeSymbolsCompare(symbols, live, previous)));
    memoptEmitDiagnostic(mlirOperationGetLocation(memoptMemoryProfileGetPositionOp(profile, p)),
                         MlirDiagnosticRemark, message.data);
    memoptStringBufferDestroy(&message);
    memoptPolynomialDestroy(previous);
    previous = live;
  }
  memoptPolynomialDestroy(previous);
  size_t count = memoptSymbolicPeakPositions(profile, symbols, NULL, 0);
  size_t *positions = memoptAllocateZeroed(count, sizeof *positions);
  memoptSymbolicPeakPositions(profile, symbols, positions, count);
  MemoptStringBuffer message = memoptStringBufferCreate();
  memoptStringBufferAppendCString(&message, "peak candidates:");
  for (size_t i = 0; i < count; ++i) {
    MemoptPolynomial *live = memoptSymbolicLiveBytes(profile, symbols, positions[i]);
    MlirStringRef name =
        mlirIdentifierStr(mlirOperationGetName(memoptMemoryProfileGetPositionOp(profile, positions[i])));
    memoptStringBufferAppendFormat(&message, "%s position %zu '%.*s' ", i ? ";" : "", positions[i],
                                   (int)name.length, name.data);
    appendPolynomial(&message, symbols, live);
    memoptPolynomialDestroy(live);
  }
  memoptEmitDiagnostic(mlirOperationGetLocation(func), MlirDiagnosticRemark, message.data);
  memoptStringBufferDestroy(&message);
  free(positions);
  memoptMemoryProfileDestroy(profile);
}

static MlirLogicalResult runPrintShapeSymbols(MlirOperation func, const MemoptPassOptions *options) {
  if (mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0))))
    return mlirLogicalResultSuccess(); /* a declaration */
  MemoptShapeSymbols *symbols = memoptPassCreateShapeSymbols(func);
  if (!symbols)
    return mlirLogicalResultFailure();
  reportSymbols(func, symbols);
  if (memoptPassOptionsGetBool(options, "live")) {
    reportLiveBytes(func, symbols);
  } else {
    WalkState state = {symbols};
    mlirOperationWalk(func, reportCallback, &state, MlirWalkPreOrder);
  }
  memoptShapeSymbolsDestroy(symbols);
  return mlirLogicalResultSuccess();
}

static const MemoptPassOptionInfo printShapeSymbolsOptions[] = {
    {"live", MemoptOptionBool, "false",
     "report live bytes per op as polynomials and the candidate peak positions instead of shapes", NULL, 0, 0},
};

const MemoptPassInfo memoptPrintShapeSymbolsPass = {
    .argument = "print-shape-symbols",
    .summary = "Report the shape symbols, dynamic sizes and symbolic live bytes, as remarks",
    .anchor = "func.func",
    .options = printShapeSymbolsOptions,
    .optionCount = sizeof printShapeSymbolsOptions / sizeof *printShapeSymbolsOptions,
    .run = runPrintShapeSymbols,
};

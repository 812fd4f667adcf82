/* Shape-symbol polynomials as index values in IR (SymbolicSizeValue.h). */
#include "Remat/Remat.h"
#include "Remat/SymbolicSizeValue.h"
#include "IR/IR.h"

#include "mlir-c/BuiltinTypes.h"

#include <stdlib.h>

/* True when `value` can be read right before `anchor`, an op of the function body. */
static bool availableBefore(MlirValue value, MlirOperation anchor) {
  MlirBlock block = mlirOperationGetBlock(anchor);
  if (mlirValueIsABlockArgument(value))
    return mlirBlockEqual(mlirBlockArgumentGetOwner(value), block);
  MlirOperation owner = mlirOpResultGetOwner(value);
  return mlirBlockEqual(mlirOperationGetBlock(owner), block) &&
         mlirOperationIsBeforeInBlock(owner, anchor);
}

/* True when shape symbol `symbol` can be read before `anchor`: the value it
 * was first seen in is available there. */
static bool symbolReadableBefore(const MemoptShapeSymbols *symbols, unsigned symbol,
                                 MlirOperation anchor) {
  int64_t dim;
  MlirValue source = memoptShapeSymbolsGetSource(symbols, symbol, &dim);
  return !mlirValueIsNull(source) && availableBefore(source, anchor);
}

/* The value of shape symbol `symbol` as an index, read from where the
 * symbol was first seen (symbolReadableBefore holds). */
static MlirValue buildSymbolValue(const MemoptBuilder *builder, const MemoptShapeSymbols *symbols,
                                  unsigned symbol) {
  int64_t dim;
  MlirValue source = memoptShapeSymbolsGetSource(symbols, symbol, &dim);
  if (dim >= 0)
    return memoptBuildTensorDim(builder, source, dim);
  if (mlirTypeIsAIndex(mlirValueGetType(source)))
    return source;
  return memoptBuildOneResult(builder, "arith.index_cast", &source, 1,
                              mlirIndexTypeGet(mlirLocationGetContext(builder->location)), NULL, 0);
}

MlirValue memoptBuildPolynomialValue(const MemoptBuilder *builder,
                                     const MemoptShapeSymbols *symbols,
                                     const MemoptPolynomial *polynomial, MlirOperation anchor,
                                     MlirValue *symbolValues) {
  size_t termCount = memoptPolynomialGetNumTerms(polynomial);
  unsigned factors[MEMOPT_POLYNOMIAL_MAX_DEGREE], degree;
  for (size_t t = 0; t < termCount; ++t) {
    memoptPolynomialGetTerm(polynomial, t, factors, MEMOPT_POLYNOMIAL_MAX_DEGREE, &degree);
    for (unsigned f = 0; f < degree && f < MEMOPT_POLYNOMIAL_MAX_DEGREE; ++f)
      if (!symbolReadableBefore(symbols, factors[f], anchor))
        return (MlirValue){NULL};
  }
  MlirValue *owned =
      symbolValues ? NULL
                   : memoptAllocateZeroed(memoptShapeSymbolsGetNumSymbols(symbols) + 1, sizeof *owned);
  if (owned)
    symbolValues = owned;
  MlirValue sum = termCount ? (MlirValue){NULL} : memoptBuildIndexConstant(builder, 0);
  for (size_t t = 0; t < termCount; ++t) {
    int64_t coefficient =
        memoptPolynomialGetTerm(polynomial, t, factors, MEMOPT_POLYNOMIAL_MAX_DEGREE, &degree);
    MlirValue term = memoptBuildIndexConstant(builder, coefficient);
    for (unsigned f = 0; f < degree && f < MEMOPT_POLYNOMIAL_MAX_DEGREE; ++f) {
      if (mlirValueIsNull(symbolValues[factors[f]]))
        symbolValues[factors[f]] = buildSymbolValue(builder, symbols, factors[f]);
      term = memoptBuildIndexArith(builder, "arith.muli", term, symbolValues[factors[f]]);
    }
    sum = mlirValueIsNull(sum) ? term : memoptBuildIndexArith(builder, "arith.addi", sum, term);
  }
  free(owned);
  return sum;
}

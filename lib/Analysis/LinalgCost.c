/* The work an op does when it runs once more: what rematerialization pays
 * for a value it recomputes instead of keeping.
 *
 * A linalg op runs its body once per point of its iteration domain, so its
 * work is the domain's size (the product of the loop extents, read from the
 * indexing maps and the static operand shapes) times the arithmetic ops of
 * its body (at least one: a copy or a fill still writes every point). An
 * arith or math op on whole tensors does one operation per result element;
 * a tensor op that materializes data (pad, concat, ...) writes each result
 * element once. Views, tensor.empty and constants do no work. The unit is
 * "element operations", comparable between ops, not seconds. */
#include "Analysis/Analysis.h"

#include "mlir-c/AffineExpr.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/Linalg.h"
#include "IR/IR.h"


enum { MAX_LOOPS = 16 };

/* Elements of a static shaped type; -1 when dynamic or not shaped. */
static double staticElements(MlirType type) {
  if (!mlirTypeIsAShaped(type) || !mlirShapedTypeHasRank(type) ||
      !mlirShapedTypeHasStaticShape(type))
    return -1;
  double elements = 1;
  for (intptr_t d = 0; d < mlirShapedTypeGetRank(type); ++d)
    elements *= (double)mlirShapedTypeGetDimSize(type, d);
  return elements;
}

double memoptLinalgBodyOperations(MlirOperation op) {
  double count = 0;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  if (mlirBlockIsNull(body))
    return 1;
  for (MlirOperation inner = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(inner);
       inner = mlirOperationGetNextInBlock(inner))
    if (memoptOperationIsInDialect(inner, "arith") || memoptOperationIsInDialect(inner, "math"))
      count += !memoptOperationIsA(inner, "arith.constant") &&
               !memoptOperationIsA(inner, "arith.index_cast");
  return count > 0 ? count : 1;
}

/* The iteration domain of a linalg op: the product of its loop extents, each
 * read where an indexing map has the loop as a plain dimension. -1 when
 * some extent is unknown. */
static double iterationDomain(MlirOperation op) {
  MlirAttribute maps = mlirLinalgGetIndexingMapsAttribute(op);
  if (mlirAttributeIsNull(maps) || !mlirAttributeIsAArray(maps))
    return -1;
  double extent[MAX_LOOPS];
  intptr_t loops = -1;
  intptr_t operands = mlirOperationGetNumOperands(op);
  for (intptr_t m = 0; m < mlirArrayAttrGetNumElements(maps) && m < operands; ++m) {
    MlirAffineMap map = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, m));
    if (loops < 0) {
      loops = mlirAffineMapGetNumDims(map);
      if (loops > MAX_LOOPS)
        return -1;
      for (intptr_t l = 0; l < loops; ++l)
        extent[l] = -1;
    }
    MlirType type = mlirValueGetType(mlirOperationGetOperand(op, m));
    if (!mlirTypeIsAShaped(type) || !mlirShapedTypeHasRank(type))
      continue;
    for (intptr_t r = 0; r < mlirAffineMapGetNumResults(map); ++r) {
      MlirAffineExpr expr = mlirAffineMapGetResult(map, r);
      if (!mlirAffineExprIsADim(expr) || mlirShapedTypeIsDynamicDim(type, r))
        continue;
      extent[mlirAffineDimExprGetPosition(expr)] = (double)mlirShapedTypeGetDimSize(type, r);
    }
  }
  double domain = 1;
  for (intptr_t l = 0; l < loops; ++l) {
    if (extent[l] < 0)
      return -1;
    domain *= extent[l];
  }
  return loops < 0 ? -1 : domain;
}

/* The largest static result, in elements (0 without tensor results). */
static double largestResult(MlirOperation op) {
  double largest = 0;
  for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r) {
    double elements = staticElements(mlirValueGetType(mlirOperationGetResult(op, r)));
    if (elements > largest)
      largest = elements;
  }
  return largest;
}

bool memoptOpIsRecomputable(MlirOperation op) {
  return mlirOperationGetNumResults(op) > 0 && memoptOperationIsPure(op);
}

double memoptOpRecomputeCost(MlirOperation op) {
  if (memoptOperationIsView(op) || memoptOperationIsA(op, "tensor.empty") ||
      memoptOperationIsA(op, "bufferization.alloc_tensor") ||
      memoptOperationIsA(op, "arith.constant"))
    return 0;
  if (memoptOperationIsInDialect(op, "linalg") && mlirOperationGetNumRegions(op) > 0) {
    double domain = iterationDomain(op);
    if (domain >= 0)
      return domain * memoptLinalgBodyOperations(op);
  }
  return largestResult(op);
}

/* The size of loop `loop` of a linalg op: read where an indexing map has the
 * loop as a plain dimension, a static extent first. NULL when unknown. */
static MemoptPolynomial *symbolicLoopExtent(const MemoptShapeSymbols *symbols, MlirOperation op,
                                            MlirAttribute maps, intptr_t loop) {
  MemoptPolynomial *found = NULL;
  intptr_t operands = mlirOperationGetNumOperands(op);
  for (intptr_t m = 0; m < mlirArrayAttrGetNumElements(maps) && m < operands; ++m) {
    MlirAffineMap map = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, m));
    MlirValue operand = mlirOperationGetOperand(op, m);
    MlirType type = mlirValueGetType(operand);
    if (!mlirTypeIsAShaped(type) || !mlirShapedTypeHasRank(type))
      continue;
    for (intptr_t r = 0; r < mlirAffineMapGetNumResults(map); ++r) {
      MlirAffineExpr expr = mlirAffineMapGetResult(map, r);
      if (!mlirAffineExprIsADim(expr) || mlirAffineDimExprGetPosition(expr) != loop)
        continue;
      if (!mlirShapedTypeIsDynamicDim(type, r)) {
        memoptPolynomialDestroy(found);
        return memoptPolynomialCreateConstant(mlirShapedTypeGetDimSize(type, r));
      }
      const MemoptPolynomial *size = memoptShapeSymbolsGetDimSize(symbols, operand, r);
      if (!found && size && memoptPolynomialIsValid(size))
        found = memoptPolynomialClone(size);
    }
  }
  return found;
}

/* Adds `term` to `sum` and frees it; the sum becomes unknown (NULL) with
 * an unknown term. */
static MemoptPolynomial *addOwned(MemoptPolynomial *sum, MemoptPolynomial *term) {
  if (sum && term)
    memoptPolynomialAccumulate(sum, term, 1);
  else {
    memoptPolynomialDestroy(sum);
    sum = NULL;
  }
  memoptPolynomialDestroy(term);
  return sum;
}

MemoptPolynomial *memoptSymbolicRecomputeCost(const MemoptShapeSymbols *symbols, MlirOperation op) {
  if (memoptOperationIsView(op) || memoptOperationIsA(op, "tensor.empty") ||
      memoptOperationIsA(op, "bufferization.alloc_tensor") ||
      memoptOperationIsA(op, "arith.constant"))
    return memoptPolynomialCreateConstant(0);
  MlirAttribute maps = mlirLinalgGetIndexingMapsAttribute(op);
  if (memoptOperationIsInDialect(op, "linalg") && mlirOperationGetNumRegions(op) > 0 &&
      !mlirAttributeIsNull(maps) && mlirAttributeIsAArray(maps) &&
      mlirArrayAttrGetNumElements(maps) > 0) {
    MlirAffineMap first = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, 0));
    MemoptPolynomial *cost =
        memoptPolynomialCreateConstant((int64_t)memoptLinalgBodyOperations(op));
    for (intptr_t loop = 0; loop < mlirAffineMapGetNumDims(first) && cost; ++loop) {
      MemoptPolynomial *extent = symbolicLoopExtent(symbols, op, maps, loop);
      MemoptPolynomial *product = extent ? memoptPolynomialMultiply(cost, extent) : NULL;
      memoptPolynomialDestroy(extent);
      memoptPolynomialDestroy(cost);
      cost = product;
    }
    return cost;
  }
  /* Anything else writes its results once (memoptOpRecomputeCost counts the
   * largest; without sizes to compare, all of them). */
  MemoptPolynomial *cost = memoptPolynomialCreateConstant(0);
  for (intptr_t r = 0; r < mlirOperationGetNumResults(op) && cost; ++r) {
    MlirValue result = mlirOperationGetResult(op, r);
    if (mlirTypeIsAShaped(mlirValueGetType(result)))
      cost = addOwned(cost, memoptShapeSymbolsGetElementCount(symbols, result));
  }
  return cost;
}

MemoptPolynomial *memoptSymbolicRecomputeCostOfOps(const MemoptShapeSymbols *symbols,
                                                   const MlirOperation *ops, size_t count) {
  MemoptPolynomial *cost = memoptPolynomialCreateConstant(0);
  for (size_t i = 0; i < count && cost; ++i)
    cost = addOwned(cost, memoptSymbolicRecomputeCost(symbols, ops[i]));
  return cost;
}

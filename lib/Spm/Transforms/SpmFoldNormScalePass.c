/* spm-fold-norm-scale: a constant scale applied after a normalization folds
 * into the norm's gamma and beta: (z * gamma + beta) * c = z * (gamma * c) +
 * beta * c, so the scale's pass over the feature map disappears (one layer
 * fewer to fuse or pin). A scale before the norm is left alone: the norm
 * divides by sqrt(var + eps), and eps does not scale with the input, so the
 * result is not a normalization of the original input times anything.
 *
 * The pattern (mlir-c/Rewrite.h) is rooted at the scale: a linalg.generic
 * with one input and identity maps whose body is one arith.mulf of the input
 * by an arith.constant scalar, whose input is the only use of a norm (a
 * linalg.generic with sqrt or rsqrt in its body yielding z * gamma + beta,
 * gamma and beta read from its inputs). gamma and beta are multiplied by the
 * scale where the norm's body reads them. */
#include "IR/IR.h"
#include "Spm/Spm.h"

#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Rewrite.h"

#include <string.h>

static MlirBlock bodyOf(MlirOperation op) {
  return mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
}

static bool onlyIdentityParallel(MlirOperation generic) {
  MlirAttribute maps =
      mlirOperationGetAttributeByName(generic, mlirStringRefCreateFromCString("indexing_maps"));
  if (!mlirAttributeIsAArray(maps))
    return false;
  for (intptr_t i = 0; i < mlirArrayAttrGetNumElements(maps); ++i) {
    MlirAttribute map = mlirArrayAttrGetElement(maps, i);
    if (!mlirAttributeIsAAffineMap(map) || !mlirAffineMapIsIdentity(mlirAffineMapAttrGetValue(map)))
      return false;
  }
  return true;
}

/* The op that defines `value`, or null. */
static MlirOperation definer(MlirValue value) {
  return mlirValueIsAOpResult(value) ? mlirOpResultGetOwner(value) : (MlirOperation){NULL};
}

/* True when `value` is a block argument of `block` standing for an input. */
static bool isInputArgument(MlirValue value, MlirBlock block, intptr_t inputs) {
  return mlirValueIsABlockArgument(value) &&
         mlirBlockEqual(mlirBlockArgumentGetOwner(value), block) &&
         mlirBlockArgumentGetArgNumber(value) < inputs;
}

/* Matches `scale` = input * constant; returns the constant. */
static bool matchScale(MlirOperation scale, MlirValue *factor) {
  if (mlirOperationGetNumOperands(scale) != 2 || mlirOperationGetNumResults(scale) != 1 ||
      !onlyIdentityParallel(scale))
    return false;
  MlirBlock body = bodyOf(scale);
  MlirOperation multiply = mlirBlockGetFirstOperation(body);
  if (mlirOperationIsNull(multiply) || !memoptOperationIsA(multiply, "arith.mulf"))
    return false;
  MlirOperation yield = mlirOperationGetNextInBlock(multiply);
  if (mlirOperationIsNull(yield) || !memoptOperationIsA(yield, "linalg.yield") ||
      !mlirValueEqual(mlirOperationGetOperand(yield, 0), mlirOperationGetResult(multiply, 0)))
    return false;
  for (int side = 0; side < 2; ++side) {
    MlirValue input = mlirOperationGetOperand(multiply, side);
    MlirValue other = mlirOperationGetOperand(multiply, 1 - side);
    MlirOperation constant = definer(other);
    if (isInputArgument(input, body, 1) && !mlirOperationIsNull(constant) &&
        memoptOperationIsA(constant, "arith.constant") &&
        !mlirBlockEqual(mlirOperationGetBlock(constant), body)) {
      *factor = other;
      return true;
    }
  }
  return false;
}

/* Matches a norm yielding z * gamma + beta; returns the multiply and the
 * add, and which operand of each is gamma and beta. */
static bool matchNorm(MlirOperation norm, MlirOperation *multiply, intptr_t *gammaOperand,
                      MlirOperation *add, intptr_t *betaOperand) {
  if (!memoptOperationIsA(norm, "linalg.generic") || mlirOperationGetNumResults(norm) != 1)
    return false;
  MlirBlock body = bodyOf(norm);
  intptr_t inputs = mlirOperationGetNumOperands(norm) - 1;
  bool normalizes = false;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    normalizes = normalizes || memoptOperationIsA(op, "math.sqrt") ||
                 memoptOperationIsA(op, "math.rsqrt");
  MlirOperation yield = mlirBlockGetTerminator(body);
  if (!normalizes || mlirOperationGetNumOperands(yield) != 1)
    return false;
  *add = definer(mlirOperationGetOperand(yield, 0));
  if (mlirOperationIsNull(*add) || !memoptOperationIsA(*add, "arith.addf"))
    return false;
  for (intptr_t side = 0; side < 2; ++side) {
    *multiply = definer(mlirOperationGetOperand(*add, 1 - side));
    if (!isInputArgument(mlirOperationGetOperand(*add, side), body, inputs) ||
        mlirOperationIsNull(*multiply) || !memoptOperationIsA(*multiply, "arith.mulf"))
      continue;
    *betaOperand = side;
    for (intptr_t m = 0; m < 2; ++m)
      if (isInputArgument(mlirOperationGetOperand(*multiply, m), body, inputs)) {
        *gammaOperand = m;
        return true;
      }
  }
  return false;
}

/* Inserts `value * factor` before the rewriter's insertion point. */
static MlirValue scaled(MlirRewriterBase rewriter, MlirValue value, MlirValue factor,
                        MlirLocation location) {
  MlirOperationState state =
      mlirOperationStateGet(mlirStringRefCreateFromCString("arith.mulf"), location);
  MlirValue operands[2] = {value, factor};
  MlirType type = mlirValueGetType(value);
  mlirOperationStateAddOperands(&state, 2, operands);
  mlirOperationStateAddResults(&state, 1, &type);
  return mlirOperationGetResult(mlirRewriterBaseInsert(rewriter, mlirOperationCreate(&state)), 0);
}

static void setOperand(MlirRewriterBase rewriter, MlirOperation op, intptr_t index,
                       MlirValue value) {
  mlirRewriterBaseStartOpModification(rewriter, op);
  mlirOperationSetOperand(op, index, value);
  mlirRewriterBaseFinalizeOpModification(rewriter, op);
}

static MlirLogicalResult foldScale(MlirRewritePattern pattern, MlirOperation scale,
                                   MlirPatternRewriter patternRewriter, void *userData) {
  MlirValue factor;
  if (!matchScale(scale, &factor))
    return mlirLogicalResultFailure();
  MlirValue normalized = mlirOperationGetOperand(scale, 0);
  MlirOperation norm = definer(normalized);
  MlirOpOperand use = mlirValueGetFirstUse(normalized);
  MlirOperation multiply, add;
  intptr_t gammaOperand, betaOperand;
  if (mlirOperationIsNull(norm) || !mlirOpOperandIsNull(mlirOpOperandGetNextUse(use)) ||
      !mlirTypeEqual(mlirValueGetType(normalized), mlirValueGetType(mlirOperationGetResult(scale, 0))) ||
      !matchNorm(norm, &multiply, &gammaOperand, &add, &betaOperand))
    return mlirLogicalResultFailure();
  MlirRewriterBase rewriter = mlirPatternRewriterAsBase(patternRewriter);
  MlirLocation location = mlirOperationGetLocation(scale);
  mlirRewriterBaseSetInsertionPointBefore(rewriter, multiply);
  MlirValue gamma = scaled(rewriter, mlirOperationGetOperand(multiply, gammaOperand), factor, location);
  MlirValue beta = scaled(rewriter, mlirOperationGetOperand(add, betaOperand), factor, location);
  setOperand(rewriter, multiply, gammaOperand, gamma);
  setOperand(rewriter, add, betaOperand, beta);
  MlirOperation init = definer(mlirOperationGetOperand(scale, 1));
  mlirRewriterBaseReplaceOpWithValues(rewriter, scale, 1, &normalized);
  /* The scale's output tensor has no other use. */
  if (!mlirOperationIsNull(init) && memoptOperationIsA(init, "tensor.empty") &&
      mlirOpOperandIsNull(mlirValueGetFirstUse(mlirOperationGetResult(init, 0))))
    mlirRewriterBaseEraseOp(rewriter, init);
  return mlirLogicalResultSuccess();
}

static MlirLogicalResult runFoldNormScale(MlirOperation func, const MemoptPassOptions *options) {
  MlirContext context = mlirOperationGetContext(func);
  MlirRewritePatternCallbacks callbacks = {NULL, NULL, foldScale};
  MlirRewritePatternSet set = mlirRewritePatternSetCreate(context);
  mlirRewritePatternSetAdd(set, mlirOpRewritePatternCreate(
                                    mlirStringRefCreateFromCString("linalg.generic"), 1, context,
                                    callbacks, NULL, 0, NULL));
  MlirFrozenRewritePatternSet frozen = mlirFreezeRewritePattern(set);
  /* Freezing moves the patterns out but leaves the emptied set to us. */
  mlirRewritePatternSetDestroy(set);
  mlirWalkAndApplyPatterns(func, frozen);
  mlirFrozenRewritePatternSetDestroy(frozen);
  return mlirLogicalResultSuccess();
}

const MemoptPassInfo memoptSpmFoldNormScalePass = {
    .argument = "spm-fold-norm-scale",
    .summary = "Fold a constant scale after a normalization into the norm's gamma and beta",
    .anchor = "func.func",
    .run = runFoldNormScale,
};

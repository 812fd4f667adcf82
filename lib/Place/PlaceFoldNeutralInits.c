/* place-fold-neutral-inits: after upstream shard-partition, drops the
 * second init it gives a reduction split over the devices.
 *
 * shard-partition (MLIR 22) partitions a linalg op whose reduction loop is
 * split into partial sums, all-reduced after it. So that the init is added
 * once, every device but the first starts from a fill of the combiner's
 * neutral element instead:
 *
 *   %init = scf.if %first -> (tensor<8x32xf32>) {
 *     scf.yield %zeros : tensor<8x32xf32>
 *   } else {
 *     %e = tensor.empty() : tensor<8x32xf32>
 *     %c = arith.constant 0.000000e+00 : f32
 *     %f = linalg.fill ins(%c : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
 *     scf.yield %f : tensor<8x32xf32>
 *   }
 *
 * When the program's own init %zeros is already a linalg.fill of that same
 * constant (a gradient starts from zeros), both branches give the same
 * tensor, and %init is replaced by %zeros. Otherwise every device but the
 * first holds %zeros's buffer besides its own until the deallocation
 * pipeline frees it, at the function's end when the reduction's result is
 * returned: a second copy of every gradient of a data-parallel training
 * step. cse and canonicalize would fold it too, but cse also merges every
 * tensor.empty of one type into one, which bufferization then copies for
 * each op writing into it, extending their lives. */
#include "IR/IR.h"
#include "Place/Place.h"

#include "mlir-c/BuiltinAttributes.h"

#include <stdlib.h>

/* The scf.if ops to fold, in walk order. */
typedef struct IfList {
  MlirOperation *ops;
  size_t count;
  size_t capacity;
} IfList;

/* The value attribute of the constant that the linalg.fill defining
 * `value` writes, or a null attribute when `value` is not a fill's result or
 * the fill's scalar is not an arith.constant. */
static MlirAttribute filledConstant(MlirValue value) {
  MlirAttribute none = {NULL};
  if (!mlirValueIsAOpResult(value))
    return none;
  MlirOperation fill = mlirOpResultGetOwner(value);
  if (!memoptOperationIsA(fill, "linalg.fill") || mlirOperationGetNumOperands(fill) != 2)
    return none;
  MlirValue scalar = mlirOperationGetOperand(fill, 0);
  if (!mlirValueIsAOpResult(scalar) ||
      !memoptOperationIsA(mlirOpResultGetOwner(scalar), "arith.constant"))
    return none;
  return mlirOperationGetAttributeByName(mlirOpResultGetOwner(scalar),
                                         mlirStringRefCreateFromCString("value"));
}

/* The value the only op of `region`'s block, an scf.yield of one value, yields. */
static MlirValue yieldedValue(MlirRegion region) {
  MlirBlock block = mlirRegionGetFirstBlock(region);
  MlirOperation yield =
      mlirBlockIsNull(block) ? (MlirOperation){NULL} : mlirBlockGetTerminator(block);
  if (mlirOperationIsNull(yield) || mlirOperationGetNumOperands(yield) != 1)
    return (MlirValue){NULL};
  return mlirOperationGetOperand(yield, 0);
}

/* True when `ifOp` is shard-partition's choice between the program's init
 * and a fill of the same constant (see above). */
static bool isRedundantNeutralInit(MlirOperation ifOp) {
  if (!memoptOperationIsA(ifOp, "scf.if") || mlirOperationGetNumResults(ifOp) != 1 ||
      mlirOperationGetNumRegions(ifOp) != 2)
    return false;
  MlirValue kept = yieldedValue(mlirOperationGetRegion(ifOp, 0));
  MlirValue neutral = yieldedValue(mlirOperationGetRegion(ifOp, 1));
  if (mlirValueIsNull(kept) || mlirValueIsNull(neutral) ||
      !mlirTypeEqual(mlirValueGetType(kept), mlirValueGetType(neutral)))
    return false;
  MlirAttribute a = filledConstant(kept), b = filledConstant(neutral);
  if (mlirAttributeIsNull(a) || mlirAttributeIsNull(b) || !mlirAttributeEqual(a, b))
    return false;
  /* The then-branch yields a value from outside: no op of its own. */
  MlirBlock then = mlirRegionGetFirstBlock(mlirOperationGetRegion(ifOp, 0));
  return mlirOperationEqual(mlirBlockGetFirstOperation(then), mlirBlockGetTerminator(then)) &&
         !mlirBlockEqual(mlirOperationGetBlock(mlirOpResultGetOwner(kept)), then);
}

/* Collects the scf.if ops isRedundantNeutralInit accepts. */
static MlirWalkResult collectRedundant(MlirOperation op, void *userData) {
  IfList *list = userData;
  if (isRedundantNeutralInit(op)) {
    list->ops = memoptGrowArray(list->ops, &list->capacity, list->count + 1, sizeof *list->ops);
    list->ops[list->count++] = op;
  }
  return MlirWalkResultAdvance;
}

size_t memoptFoldNeutralInits(MlirOperation func) {
  IfList found = {NULL, 0, 0};
  mlirOperationWalk(func, collectRedundant, &found, MlirWalkPostOrder);
  for (size_t i = 0; i < found.count; ++i) {
    MlirOperation ifOp = found.ops[i];
    MlirValue kept = yieldedValue(mlirOperationGetRegion(ifOp, 0));
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(ifOp, 0), kept);
    mlirOperationDestroy(ifOp);
  }
  free(found.ops);
  return found.count;
}

static MlirLogicalResult runFoldNeutralInits(MlirOperation func, const MemoptPassOptions *options) {
  (void)options;
  memoptFoldNeutralInits(func);
  return mlirLogicalResultSuccess();
}

const MemoptPassInfo memoptPlaceFoldNeutralInitsPass = {
    .argument = "place-fold-neutral-inits",
    .summary = "After shard-partition, use the program's own init for a split reduction on "
               "every device when it already is a fill of the combiner's neutral element",
    .anchor = "func.func",
    .options = NULL,
    .optionCount = 0,
    .run = runFoldNeutralInits,
};

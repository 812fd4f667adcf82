/* A group's outputs besides its last op's (a skip connection's source):
 * computed in the last op's tile loop nest, as the cost model has it. The
 * nest stores each tile of such an output and yields the whole output,
 * instead of the output being computed in a loop of its own, stored, and
 * loaded back; only where the tiles cover the whole output (a strided
 * consumer may skip rows) and every other user follows the nest.
 *
 * Fusing a producer that ops after the loop also use crashes MLIR 22 (its
 * fuse_into_containing_op yields such a producer only from an scf.forall),
 * so before fusion each producer that ops outside the group use gets an
 * untagged copy, right after it, for those uses; the yielded output later
 * replaces the copy. */
#include "Spm/Spm.h"
#include "Spm/Conversion/SpmLowering.h"
#include "IR/IR.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdlib.h>

/* True when `use` is by an op of the group being lowered (in `block`). */
static bool isGroupUse(MlirOpOperand use, MlirBlock block) {
  MlirOperation user = memoptOperationAncestorInBlock(mlirOpOperandGetOwner(use), block);
  return !mlirOperationIsNull(user) && spmHasTag(user, spmGroupOpTag);
}

static bool usedOutsideGroup(MlirOperation op, MlirBlock block) {
  for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r)
    for (MlirOpOperand use = mlirValueGetFirstUse(mlirOperationGetResult(op, r));
         !mlirOpOperandIsNull(use); use = mlirOpOperandGetNextUse(use))
      if (!isGroupUse(use, block))
        return true;
  return false;
}

void spmDetachOutsideUses(MlirOperation root, MlirBlock block) {
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationEqual(op, root);
       op = mlirOperationGetNextInBlock(op)) {
    if (!spmHasTag(op, spmFuseTag) || !usedOutsideGroup(op, block))
      continue;
    MlirOperation copy = mlirOperationClone(op);
    spmRemoveTag(copy, spmFuseTag);
    mlirBlockInsertOwnedOperationAfter(block, op, copy);
    for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r) {
      MlirValue result = mlirOperationGetResult(op, r);
      for (MlirOpOperand use = mlirValueGetFirstUse(result); !mlirOpOperandIsNull(use);) {
        MlirOpOperand next = mlirOpOperandGetNextUse(use);
        if (!isGroupUse(use, block))
          mlirOperationSetOperand(mlirOpOperandGetOwner(use), mlirOpOperandGetOperandNumber(use),
                                  mlirOperationGetResult(copy, r));
        use = next;
      }
    }
    op = copy;
  }
}

/* True when every use of `value` is in an op of `block` after `loop` (or
 * nested in one). */
static bool usedOnlyAfter(MlirValue value, MlirOperation loop) {
  for (MlirOpOperand use = mlirValueGetFirstUse(value); !mlirOpOperandIsNull(use);
       use = mlirOpOperandGetNextUse(use)) {
    MlirOperation user =
        memoptOperationAncestorInBlock(mlirOpOperandGetOwner(use), mlirOperationGetBlock(loop));
    if (mlirOperationIsNull(user) || !mlirOperationIsBeforeInBlock(loop, user))
      return false;
  }
  return true;
}

/* The op of `block` tagged as a pending root, still used, whose destination
 * is `destination` or a fill of it: the original of a tile computed in the
 * loop nest. */
static MlirOperation originalOf(MlirValue destination, MlirBlock block) {
  for (MlirOpOperand use = mlirValueGetFirstUse(destination); !mlirOpOperandIsNull(use);
       use = mlirOpOperandGetNextUse(use)) {
    MlirOperation user = mlirOpOperandGetOwner(use);
    if (!mlirBlockEqual(mlirOperationGetBlock(user), block) || !spmIsLinalgOp(user) ||
        mlirOpOperandGetOperandNumber(use) != spmLinalgInputCount(user))
      continue;
    if (memoptOperationIsA(user, "linalg.fill")) {
      MlirOperation filled = originalOf(mlirOperationGetResult(user, 0), block);
      if (!mlirOperationIsNull(filled))
        return filled;
    } else if (spmHasTag(user, spmPendingOutputTag) &&
               !mlirOpOperandIsNull(mlirValueGetFirstUse(mlirOperationGetResult(user, 0)))) {
      return user;
    }
  }
  return (MlirOperation){NULL};
}

/* True when `slice` takes the whole of its source, statically. */
static bool takesWhole(MlirOperation slice) {
  if (mlirOperationGetNumOperands(slice) != 1) /* no dynamic offset, size or stride */
    return false;
  MlirType source = mlirValueGetType(mlirOperationGetOperand(slice, 0));
  static const char *const names[] = {"static_offsets", "static_sizes", "static_strides"};
  for (int i = 0; i < 3; ++i) {
    MlirAttribute values =
        mlirOperationGetAttributeByName(slice, mlirStringRefCreateFromCString(names[i]));
    for (intptr_t d = 0; d < mlirDenseArrayGetNumElements(values); ++d) {
      int64_t whole = i == 0 ? 0 : i == 1 ? mlirShapedTypeGetDimSize(source, d) : 1;
      if (mlirDenseI64ArrayGetElement(values, d) != whole)
        return false;
    }
  }
  return true;
}

/* Builds, before `terminator`, the store of `tile` into `carried` where
 * `slice` took it: a tensor.insert_slice at the slice's offsets, sizes and
 * strides. A tile that is the whole tensor is copied with linalg.copy
 * instead: the whole-tensor insert_slice would fold to the tile, whose
 * buffer is not the loop's. (SpmTileCopies counts either as a store.) */
static MlirValue storeTile(MlirOperation terminator, MlirValue tile, MlirValue carried,
                           MlirOperation slice) {
  MemoptBuilder builder = memoptBuilderBefore(terminator);
  if (takesWhole(slice))
    return spmBuildCopy(&builder, tile, carried);
  /* The slice has unit strides: spmSliceCoversSource checked them. */
  MlirType type = mlirValueGetType(carried);
  intptr_t rank = mlirShapedTypeGetRank(type);
  MemoptIndex *indices = memoptAllocateZeroed(2 * (size_t)rank, sizeof *indices);
  for (intptr_t d = 0; d < rank; ++d) {
    indices[d] = memoptSliceIndex(slice, 0, d);
    indices[rank + d] = memoptSliceIndex(slice, 1, d);
  }
  MlirValue leading[] = {tile, carried};
  MlirValue inserted = memoptBuildSlice(&builder, "tensor.insert_slice", leading, 2, indices,
                                        indices + rank, rank, type);
  free(indices);
  return inserted;
}

/* Makes the nest `nest` (outermost first, `loops` deep) also compute the
 * output `original`: each loop carries a new tensor, the innermost stores
 * the fused `tile` of it where its destination `slice` was taken, and the
 * nest's new result replaces `original`, which is erased. */
static void yieldFromNest(MlirOperation *nest, intptr_t loops, MlirOperation tile,
                          MlirOperation slice, MlirOperation original) {
  MlirValue result = mlirOperationGetResult(original, 0);
  MemoptBuilder before = memoptBuilderBefore(nest[0]);
  MlirValue carried = memoptBuildTensorEmpty(&before, mlirValueGetType(result), NULL, 0);
  for (intptr_t k = 0; k < loops; ++k) {
    nest[k] = memoptForAppendIterArg(nest[k], carried);
    MlirBlock body = memoptSingleBlock(nest[k]);
    carried = mlirBlockGetArgument(body, mlirBlockGetNumArguments(body) - 1);
  }
  MlirOperation terminator = mlirBlockGetTerminator(memoptSingleBlock(nest[loops - 1]));
  memoptTerminatorAppendOperand(
      terminator, storeTile(terminator, mlirOperationGetResult(tile, 0), carried, slice));
  for (intptr_t k = loops - 2; k >= 0; --k) {
    MlirOperation inner = nest[k + 1];
    memoptTerminatorAppendOperand(
        mlirBlockGetTerminator(memoptSingleBlock(nest[k])),
        mlirOperationGetResult(inner, mlirOperationGetNumResults(inner) - 1));
  }
  mlirValueReplaceAllUsesOfWith(
      result, mlirOperationGetResult(nest[0], mlirOperationGetNumResults(nest[0]) - 1));
  memoptEraseOp(original);
}

void spmYieldFusedOutputs(MlirOperation tiledRoot, MlirBlock block, intptr_t loops) {
  MlirOperation *nest = memoptAllocateZeroed((size_t)loops, sizeof *nest);
  nest[loops - 1] = mlirOperationGetParentOperation(tiledRoot);
  for (intptr_t k = loops - 2; k >= 0; --k)
    nest[k] = mlirOperationGetParentOperation(nest[k + 1]);
  MlirBlock body = memoptSingleBlock(nest[loops - 1]);
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!spmHasTag(op, spmPendingOutputTag) || !spmIsLinalgOp(op) ||
        mlirOperationGetNumResults(op) != 1)
      continue;
    /* The tile's destination: a slice of the output's, or a fill of one (a
     * convolution's zeroed accumulator). */
    MlirValue init = mlirOperationGetOperand(op, spmLinalgInputCount(op));
    while (mlirValueIsAOpResult(init) &&
           memoptOperationIsA(mlirOpResultGetOwner(init), "linalg.fill"))
      init = mlirOperationGetOperand(mlirOpResultGetOwner(init), 1);
    if (!mlirValueIsAOpResult(init) ||
        !memoptOperationIsA(mlirOpResultGetOwner(init), "tensor.extract_slice"))
      continue;
    MlirOperation slice = mlirOpResultGetOwner(init);
    MlirOperation original = originalOf(mlirOperationGetOperand(slice, 0), block);
    if (mlirOperationIsNull(original) ||
        !usedOnlyAfter(mlirOperationGetResult(original, 0), nest[0]) ||
        !spmSliceCoversSource(nest[0], slice))
      continue;
    yieldFromNest(nest, loops, op, slice, original);
  }
  free(nest);
}

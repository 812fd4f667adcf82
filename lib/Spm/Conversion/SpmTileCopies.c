/* Making a tile loop nest compute in the scratchpad. After tile-and-fuse the
 * innermost loop reads slices of whole tensors and writes its result slice
 * into the loop's destination. Each slice it takes becomes a buffer in
 * memory space N:
 *
 * - a slice of a tensor.empty (an intermediate's tile):
 *     bufferization.alloc_tensor {memory_space = N}
 * - a slice of an off-chip tensor (a feature map of an earlier group, a
 *   function argument, weights): alloc_tensor + linalg.copy, the load. A
 *   slice that does not depend on the tile (weights, biases) is loaded once,
 *   before the loop nest;
 * - a slice of the loop's destination (the result tile): alloc_tensor, plus
 *   a linalg.copy of the slice when an op reads its initial value (a
 *   convolution accumulating into a filled output);
 * - a slice of a pinned tensor: none, it is in the scratchpad already; nor
 *   for a slice only inserted into a padded scratchpad tile (that insert
 *   is the load).
 *
 * The loop's tensor.insert_slice (or linalg.copy) of a result tile (now in memory space N)
 * into its destination is the store; it bufferizes to a memref.copy into
 * the destination's subview. Pads and generated tensors of a tile are built
 * in the scratchpad too (fillInScratchpad). */
#include "Spm/Spm.h"
#include "Spm/Conversion/SpmLowering.h"
#include "IR/IR.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/Linalg.h"

#include <stdlib.h>

/* The ops of one kind found in the nest. */
typedef struct OpList {
  MlirOperation *ops;
  size_t count;
  size_t capacity;
} OpList;

static void append(OpList *list, MlirOperation op) {
  list->ops = memoptGrowArray(list->ops, &list->capacity, list->count + 1, sizeof *list->ops);
  list->ops[list->count++] = op;
}

typedef struct Found {
  MlirOperation inner;
  OpList slices; /* tensor.extract_slice anywhere in the innermost loop */
  OpList stores; /* insert_slice (or linalg.copy) of a result tile into the loop's destination */
  OpList fills;  /* tensor.pad and tensor.generate of one value defined outside them */
} Found;

/* True when `value` is defined outside `op`. */
static bool definedOutside(MlirValue value, MlirOperation op) {
  MlirOperation owner = mlirValueIsAOpResult(value)
                            ? mlirOpResultGetOwner(value)
                            : mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(value));
  return !memoptOperationIsInside(owner, op);
}

static bool isIterArg(MlirValue value, MlirOperation loop) {
  if (!mlirValueIsABlockArgument(value))
    return false;
  MlirBlock owner = mlirBlockArgumentGetOwner(value);
  return mlirBlockEqual(owner, memoptSingleBlock(loop)) && mlirBlockArgumentGetArgNumber(value) > 0;
}

/* The value a tensor.pad or tensor.generate fills with when its body yields
 * one defined outside it; else null. */
static MlirValue fillValue(MlirOperation op) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  MlirOperation yield = mlirBlockGetTerminator(body);
  MlirValue value = mlirOperationGetOperand(yield, 0);
  return definedOutside(value, op) ? value : (MlirValue){NULL};
}

static MlirWalkResult findSlices(MlirOperation op, void *userData) {
  Found *found = userData;
  if (memoptOperationIsA(op, "tensor.extract_slice"))
    append(&found->slices, op);
  else if ((memoptOperationIsA(op, "tensor.insert_slice") ||
            memoptOperationIsA(op, "linalg.copy")) &&
           isIterArg(mlirOperationGetOperand(op, 1), found->inner))
    append(&found->stores, op);
  else if ((memoptOperationIsA(op, "tensor.pad") || memoptOperationIsA(op, "tensor.generate")) &&
           !mlirValueIsNull(fillValue(op)))
    append(&found->fills, op);
  return MlirWalkResultAdvance;
}

/* The operand counts of a tensor.extract_slice: source, offsets, sizes, strides. */
static int32_t segment(MlirOperation slice, intptr_t index) {
  MlirAttribute segments =
      mlirOperationGetAttributeByName(slice, mlirStringRefCreateFromCString("operandSegmentSizes"));
  return mlirDenseI32ArrayGetElement(segments, index);
}

/* The dynamic sizes of an extract_slice, which are those of its result,
 * in order, unless the slice drops dimensions (then returns -1). */
static intptr_t sliceSizes(MlirOperation slice, MlirValue *sizes, intptr_t capacity) {
  MlirAttribute staticSizes =
      mlirOperationGetAttributeByName(slice, mlirStringRefCreateFromCString("static_sizes"));
  MlirType result = mlirValueGetType(mlirOperationGetResult(slice, 0));
  if (mlirDenseArrayGetNumElements(staticSizes) != mlirShapedTypeGetRank(result))
    return -1;
  intptr_t first = 1 + segment(slice, 1);
  intptr_t count = segment(slice, 2);
  if (count > capacity)
    return -1;
  for (intptr_t i = 0; i < count; ++i)
    sizes[i] = mlirOperationGetOperand(slice, first + i);
  return count;
}

/* True when no op reads the initial value of `value` (the slice of a
 * destination): each user is a linalg op that has it as an init whose block
 * argument its body never uses, as linalg.fill does. */
static bool initialValueUnread(MlirValue value) {
  for (MlirOpOperand use = mlirValueGetFirstUse(value); !mlirOpOperandIsNull(use);
       use = mlirOpOperandGetNextUse(use))
    if (!spmInitIsUnread(mlirOpOperandGetOwner(use), mlirOpOperandGetOperandNumber(use)))
      return false;
  return true;
}

/* Replaces every use of `from` but those by `keep` with `to`. */
static void replaceUsesExcept(MlirValue from, MlirValue to, MlirOperation keep) {
  mlirValueReplaceAllUsesExcept(from, to, 1, &keep);
}

/* Gives the slice a scratchpad buffer: a fresh one, or, with `load`, a copy
 * of the slice, placed right after the slice. */
static void localize(MlirOperation slice, bool load, const SpmLowering *lowering) {
  MlirValue sizes[16];
  intptr_t count = sliceSizes(slice, sizes, 16);
  if (count < 0)
    return;
  MlirOperation next = mlirOperationGetNextInBlock(slice);
  MemoptBuilder builder = {mlirOperationGetBlock(slice), next, mlirOperationGetLocation(slice)};
  MlirValue value = mlirOperationGetResult(slice, 0);
  MlirValue buffer = spmBuildAllocTensor(&builder, mlirValueGetType(value), sizes, count, lowering);
  if (!load) {
    mlirValueReplaceAllUsesOfWith(value, buffer);
    memoptEraseOp(slice);
    return;
  }
  MlirValue copy = spmBuildCopy(&builder, value, buffer);
  replaceUsesExcept(value, copy, mlirOpResultGetOwner(copy));
}

/* True when every operand of `op` but its first is defined outside `loop`. */
static bool indicesOutside(MlirOperation op, MlirOperation loop) {
  for (intptr_t i = 1; i < mlirOperationGetNumOperands(op); ++i)
    if (!definedOutside(mlirOperationGetOperand(op, i), loop))
      return false;
  return true;
}

/* True when every user of `value` inserts it into a scratchpad tile built by
 * fillInScratchpad (a padded tile): that insert is the load already. */
static bool insertedIntoScratchpad(MlirValue value) {
  MlirOpOperand use = mlirValueGetFirstUse(value);
  if (mlirOpOperandIsNull(use))
    return false;
  for (; !mlirOpOperandIsNull(use); use = mlirOpOperandGetNextUse(use)) {
    MlirOperation user = mlirOpOperandGetOwner(use);
    if (memoptOperationIsA(user, "tensor.dim"))
      continue; /* reads the shape only */
    if (!memoptOperationIsA(user, "tensor.insert_slice") || mlirOpOperandGetOperandNumber(use) != 0)
      return false;
    MlirValue destination = mlirOperationGetOperand(user, 1);
    if (!mlirValueIsAOpResult(destination) ||
        !memoptOperationIsA(mlirOpResultGetOwner(destination), "linalg.fill"))
      return false;
    MlirValue filled = mlirOperationGetOperand(mlirOpResultGetOwner(destination), 1);
    if (!mlirValueIsAOpResult(filled) ||
        !memoptOperationIsA(mlirOpResultGetOwner(filled), "bufferization.alloc_tensor"))
      return false;
  }
  return true;
}

static void localizeSlice(MlirOperation slice, MlirOperation outer, MlirOperation inner,
                          SpmLowering *lowering) {
  MlirValue source = mlirOperationGetOperand(slice, 0);
  if (mlirValueIsAOpResult(source) &&
      memoptOperationIsA(mlirOpResultGetOwner(source), "tensor.empty")) {
    localize(slice, false, lowering);
    return;
  }
  if (isIterArg(source, inner)) {
    bool read = !initialValueUnread(mlirOperationGetResult(slice, 0));
    if (read)
      spmLoweringAddCopy(lowering, slice, SpmCopyDestinationLoad, outer);
    localize(slice, read, lowering);
    return;
  }
  if (spmLoweringIsPinned(lowering, source) || !definedOutside(source, outer))
    return;
  if (insertedIntoScratchpad(mlirOperationGetResult(slice, 0))) {
    spmLoweringAddCopy(lowering, slice, SpmCopyTileLoad, outer);
    return;
  }
  /* A load that does not depend on the tile happens once. A tile of a
   * constant tensor (a bias broadcast to the output's shape) is a weight
   * load per tile. */
  if (indicesOutside(slice, outer)) {
    mlirOperationMoveBefore(slice, outer);
    spmLoweringAddCopy(lowering, slice, SpmCopyWeightLoad, (MlirOperation){NULL});
  } else {
    spmLoweringAddCopy(lowering, slice,
                       spmIsConstantData(source) ? SpmCopyWeightLoad : SpmCopyTileLoad, outer);
  }
  localize(slice, true, lowering);
}

static MlirValue indexAt(const MemoptBuilder *builder, MlirAttribute staticValues, intptr_t d,
                         MlirOperation op, intptr_t *nextOperand) {
  int64_t value = mlirDenseI64ArrayGetElement(staticValues, d);
  if (mlirShapedTypeIsDynamicSize(value))
    return mlirOperationGetOperand(op, (*nextOperand)++);
  return memoptBuildIndexConstant(builder, value);
}

/* Replaces a tensor.pad or tensor.generate of one value by a scratchpad
 * buffer filled with it (and, for a pad, its source inserted at the low
 * padding): upstream bufferizes both into the default memory space, and a
 * tile's zero-slice guard (an scf.if yielding either) needs one space. */
static void fillInScratchpad(MlirOperation op, const SpmLowering *lowering) {
  MemoptBuilder builder = memoptBuilderBefore(op);
  MlirValue result = mlirOperationGetResult(op, 0);
  MlirType type = mlirValueGetType(result);
  intptr_t rank = mlirShapedTypeGetRank(type);
  MlirValue *sizes = memoptAllocateZeroed((size_t)(2 * rank + 1), sizeof *sizes);
  MlirValue *lows = sizes + rank;
  intptr_t dynamicCount = 0;
  if (memoptOperationIsA(op, "tensor.generate")) {
    for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i)
      sizes[dynamicCount++] = mlirOperationGetOperand(op, i);
  } else {
    MlirValue source = mlirOperationGetOperand(op, 0);
    MlirAttribute staticLow =
        mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("static_low"));
    MlirAttribute staticHigh =
        mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("static_high"));
    MlirAttribute segments =
        mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("operandSegmentSizes"));
    intptr_t nextLow = 1, nextHigh = 1 + mlirDenseI32ArrayGetElement(segments, 1);
    for (intptr_t d = 0; d < rank; ++d) {
      lows[d] = indexAt(&builder, staticLow, d, op, &nextLow);
      MlirValue high = indexAt(&builder, staticHigh, d, op, &nextHigh);
      if (!mlirShapedTypeIsDynamicDim(type, d))
        continue;
      MlirValue extent = memoptBuildTensorDim(&builder, source, d);
      extent = memoptBuildIndexArith(&builder, "arith.addi", extent, lows[d]);
      sizes[dynamicCount++] = memoptBuildIndexArith(&builder, "arith.addi", extent, high);
    }
  }
  MlirValue buffer = spmBuildAllocTensor(&builder, type, sizes, dynamicCount, lowering);
  MlirValue filled = spmBuildFill(&builder, fillValue(op), buffer);
  if (memoptOperationIsA(op, "tensor.pad")) {
    /* insert_slice source into filled at lows, sizes of the source. */
    MlirValue source = mlirOperationGetOperand(op, 0);
    MlirType sourceType = mlirValueGetType(source);
    MemoptIndex *indices = memoptAllocateZeroed((size_t)(2 * rank + 1), sizeof *indices);
    for (intptr_t d = 0; d < rank; ++d) {
      indices[d] = memoptIndexDynamic(lows[d]);
      indices[rank + d] = mlirShapedTypeIsDynamicDim(sourceType, d)
                              ? memoptIndexDynamic(memoptBuildTensorDim(&builder, source, d))
                              : memoptIndexFixed(mlirShapedTypeGetDimSize(sourceType, d));
    }
    MlirValue leading[] = {source, filled};
    filled = memoptBuildSlice(&builder, "tensor.insert_slice", leading, 2, indices, indices + rank,
                              rank, type);
    free(indices);
  }
  free(sizes);
  mlirValueReplaceAllUsesOfWith(result, filled);
  memoptEraseOp(op);
}

/* Replaces `inner` by a slice of `outer`'s result (inner's box, shifted by
 * outer's offsets): what it reads is then in the scratchpad already. */
static void sliceFromOuter(MlirOperation inner, MlirOperation outer) {
  MemoptBuilder builder = memoptBuilderBefore(inner);
  MlirValue result = mlirOperationGetResult(inner, 0);
  intptr_t rank = mlirShapedTypeGetRank(mlirValueGetType(result));
  MemoptIndex *indices = memoptAllocateZeroed(2 * (size_t)rank, sizeof *indices);
  for (intptr_t d = 0; d < rank; ++d) {
    MemoptIndex from = memoptSliceIndex(inner, 0, d), base = memoptSliceIndex(outer, 0, d);
    indices[d] = memoptIndexIsFixed(from) && memoptIndexIsFixed(base)
                     ? memoptIndexFixed(from.fixed - base.fixed)
                     : memoptIndexDynamic(memoptBuildIndexArith(&builder, "arith.subi",
                                                                memoptIndexValue(&builder, from),
                                                                memoptIndexValue(&builder, base)));
    indices[rank + d] = memoptSliceIndex(inner, 1, d);
  }
  MlirValue source = mlirOperationGetResult(outer, 0);
  MlirValue shifted = memoptBuildSlice(&builder, "tensor.extract_slice", &source, 1, indices,
                                       indices + rank, rank, mlirValueGetType(result));
  mlirValueReplaceAllUsesOfWith(result, shifted);
  memoptEraseOp(inner);
  free(indices);
}

/* A tile often reads one off-chip map through two slices, one inside the
 * other (a residual add's rows inside the halo rows a convolution reads):
 * the inner one is taken from the outer one's scratchpad copy instead of
 * being loaded again. Both are in the innermost loop's body, the outer one
 * first; containment is checked by running the nest. Erased slices become
 * null in `slices`. */
static void shareContainedLoads(OpList *slices, MlirOperation outer, MlirOperation inner,
                                const SpmLowering *lowering) {
  MlirBlock body = memoptSingleBlock(inner);
  for (size_t i = 0; i < slices->count; ++i) {
    MlirOperation slice = slices->ops[i];
    MlirValue source = mlirOperationGetOperand(slice, 0);
    if (!mlirBlockEqual(mlirOperationGetBlock(slice), body) || !definedOutside(source, outer) ||
        spmLoweringIsPinned(lowering, source) || spmIsConstantData(source))
      continue;
    for (size_t j = 0; j < slices->count; ++j) {
      MlirOperation other = slices->ops[j];
      if (j == i || mlirOperationIsNull(other) ||
          !mlirValueEqual(mlirOperationGetOperand(other, 0), source) ||
          !mlirBlockEqual(mlirOperationGetBlock(other), body) ||
          !mlirOperationIsBeforeInBlock(other, slice) || !spmSliceContains(outer, other, slice))
        continue;
      sliceFromOuter(slice, other);
      slices->ops[i] = (MlirOperation){NULL};
      break;
    }
  }
}

void spmLocalizeTiles(MlirOperation outer, MlirOperation inner, SpmLowering *lowering) {
  Found found = {inner, {NULL, 0, 0}, {NULL, 0, 0}, {NULL, 0, 0}};
  mlirOperationWalk(inner, findSlices, &found, MlirWalkPreOrder);
  for (size_t i = 0; i < found.fills.count; ++i)
    fillInScratchpad(found.fills.ops[i], lowering);
  shareContainedLoads(&found.slices, outer, inner, lowering);
  for (size_t i = 0; i < found.slices.count; ++i)
    if (!mlirOperationIsNull(found.slices.ops[i]))
      localizeSlice(found.slices.ops[i], outer, inner, lowering);
  for (size_t i = 0; i < found.stores.count; ++i)
    spmLoweringAddCopy(lowering, found.stores.ops[i], SpmCopyTileStore, outer);
  free(found.slices.ops);
  free(found.stores.ops);
  free(found.fills.ops);
}

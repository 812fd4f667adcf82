/* The normalizations a training step's stage needs for upstream sharding
 * beyond what a forward stage needs (ShardNormalize.c runs them).
 *
 * The backward of GPT-2's fused qkv projection puts the q, k and v
 * gradients back together with tensor.insert_slice into a zero [b, s, 3h]
 * at offsets 0, h, 2h of the last dimension; upstream (MLIR 22) gives
 * insert_slice no sharding interface. An insert of a block whose offsets are
 * multiples of its sizes is elementwise over the destination seen blocked:
 * each split dimension D becomes (D / size, size), and
 *   out[.., q, r, ..] = q == offset / size ? source[.., r, ..] : dest[.., q, r, ..]
 * is a linalg.generic reading the source by a projected permutation and the
 * block index by linalg.index; an expand_shape before it and a
 * collapse_shape after it restore the types, and upstream's reshape fusion
 * then folds both into the generics around them.
 *
 * The backward of Llama's rotary embedding reads the halves [0, 2) and
 * [2, 4) of a head collapsed from [.., 2, 2]: an extract_slice of a
 * collapse_shape, neither of which upstream can shard. A slice taking whole
 * blocks of a collapsed group is the collapse of a slice of the source
 * along the group's first dimension ([.., k, 0:2] collapsed), so the two
 * swap; the slice, now of a computed value, then moves up to the arguments
 * like any other (ShardNormalize.c). The slices then read the rotation
 * itself, a generic selecting its half by linalg.index, one half each: each
 * slice gets a copy of it with linalg.index replaced by the half it takes,
 * which no longer stops the slice from moving up.
 *
 * Reshape fusion expands a contraction whose operand was a collapse_shape
 * (the weight gradient of the attention output projection reads the heads
 * collapsed): its result then ends in a collapse_shape. When the stage
 * returns that view, it returns the view's source instead (the same
 * row-major data, as arguments' views are hoisted). */
#include "Place/Place.h"
#include "IR/Builders.h"
#include "IR/IR.h"

#include "mlir-c/AffineExpr.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/Linalg.h"

#include <stdlib.h>


/* The static offsets, sizes and strides of a slice op as dense arrays. */
static int64_t arrayElement(MlirOperation op, const char *name, intptr_t d) {
  return mlirDenseI64ArrayGetElement(
      mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name)), d);
}

/* True when `insert` (a tensor.insert_slice) is static, unit-strided, of the
 * destination's rank, and each offset is a multiple of its size with the
 * size dividing the extent (a block of the destination seen blocked). */
static bool isBlockInsert(MlirOperation insert) {
  if (mlirOperationGetNumOperands(insert) != 2)
    return false;
  MlirType source = mlirValueGetType(mlirOperationGetOperand(insert, 0));
  MlirType dest = mlirValueGetType(mlirOperationGetOperand(insert, 1));
  if (!mlirShapedTypeHasStaticShape(source) || !mlirShapedTypeHasStaticShape(dest) ||
      mlirShapedTypeGetRank(source) != mlirShapedTypeGetRank(dest))
    return false;
  for (intptr_t d = 0; d < mlirShapedTypeGetRank(dest); ++d) {
    int64_t offset = arrayElement(insert, "static_offsets", d);
    int64_t size = arrayElement(insert, "static_sizes", d);
    int64_t extent = mlirShapedTypeGetDimSize(dest, d);
    if (arrayElement(insert, "static_strides", d) != 1 ||
        size != mlirShapedTypeGetDimSize(source, d) || size <= 0 || extent % size != 0 ||
        offset % size != 0)
      return false;
  }
  return true;
}

/* The reassociation attribute grouping the expanded dimensions of each
 * original one (`split[d]`: dimension d became two). */
static MlirAttribute reassociation(MlirContext context, const bool *split, intptr_t rank) {
  MlirAttribute *groups = memoptAllocateZeroed((size_t)rank + 1, sizeof *groups);
  MlirType i64 = mlirIntegerTypeGet(context, 64);
  for (intptr_t d = 0, e = 0; d < rank; ++d) {
    MlirAttribute members[2] = {mlirIntegerAttrGet(i64, e), mlirIntegerAttrGet(i64, e + 1)};
    groups[d] = mlirArrayAttrGet(context, split[d] ? 2 : 1, members);
    e += split[d] ? 2 : 1;
  }
  MlirAttribute attribute = mlirArrayAttrGet(context, rank, groups);
  free(groups);
  return attribute;
}

/* The payload of the blocked insert: the source's element where every
 * split dimension's block index (loop blockLoops[i]) is blocks[i], else the
 * destination's. */
static void buildSelectPayload(MemoptBuilder payload, const int64_t *blockLoops,
                               const int64_t *blocks, intptr_t count) {
  MlirContext context = mlirLocationGetContext(payload.location);
  MlirBlock block = payload.block;
  MlirType i64 = mlirIntegerTypeGet(context, 64);
  MlirValue condition = {NULL};
  for (intptr_t i = 0; i < count; ++i) {
    MlirNamedAttribute dim =
        memoptNamedAttribute(context, "dim", mlirIntegerAttrGet(i64, blockLoops[i]));
    MlirValue index =
        memoptBuildOneResult(&payload, "linalg.index", NULL, 0, mlirIndexTypeGet(context), &dim, 1);
    MlirValue compared[] = {index, memoptBuildIndexConstant(&payload, blocks[i])};
    /* arith::CmpIPredicate::eq */
    MlirNamedAttribute predicate =
        memoptNamedAttribute(context, "predicate", mlirIntegerAttrGet(i64, 0));
    MlirValue equal = memoptBuildOneResult(&payload, "arith.cmpi", compared, 2,
                                           mlirIntegerTypeGet(context, 1), &predicate, 1);
    condition = i == 0 ? equal : memoptBuildBinary(&payload, "arith.andi", condition, equal);
  }
  MlirValue choices[] = {condition, mlirBlockGetArgument(block, 0), mlirBlockGetArgument(block, 1)};
  MlirValue chosen =
      memoptBuildOneResult(&payload, "arith.select", choices, 3,
                           mlirValueGetType(mlirBlockGetArgument(block, 0)), NULL, 0);
  memoptBuildYield(&payload, "linalg.yield", &chosen, 1);
}

/* Replaces the block insert `insert` by expand_shape, the selecting
 * generic and collapse_shape (see the top of the file). */
static void rewriteBlockInsert(MlirOperation insert) {
  MlirContext context = mlirOperationGetContext(insert);
  MemoptBuilder builder = memoptBuilderBefore(insert);
  MlirValue source = mlirOperationGetOperand(insert, 0), dest = mlirOperationGetOperand(insert, 1);
  MlirType destType = mlirValueGetType(dest);
  intptr_t rank = mlirShapedTypeGetRank(destType);
  bool *split = memoptAllocateZeroed((size_t)rank + 1, sizeof *split);
  int64_t *shape = memoptAllocateZeroed((size_t)(2 * rank) + 1, sizeof *shape);
  int64_t *blockLoops = memoptAllocateZeroed((size_t)rank + 1, sizeof *blockLoops);
  int64_t *blocks = memoptAllocateZeroed((size_t)rank + 1, sizeof *blocks);
  MlirAffineExpr *sourceExprs = memoptAllocateZeroed((size_t)rank + 1, sizeof *sourceExprs);
  intptr_t loops = 0, count = 0;
  for (intptr_t d = 0; d < rank; ++d) {
    int64_t size = arrayElement(insert, "static_sizes", d);
    int64_t extent = mlirShapedTypeGetDimSize(destType, d);
    split[d] = size != extent;
    if (split[d]) {
      blockLoops[count] = loops;
      blocks[count++] = arrayElement(insert, "static_offsets", d) / size;
      shape[loops++] = extent / size;
    }
    sourceExprs[d] = mlirAffineDimExprGet(context, loops);
    shape[loops++] = split[d] ? size : extent;
  }
  MlirType element = mlirShapedTypeGetElementType(destType);
  MlirType blocked = mlirRankedTensorTypeGet(loops, shape, element, mlirAttributeGetNull());
  MlirAttribute groups = reassociation(context, split, rank);
  MlirNamedAttribute expandAttributes[] = {
      memoptNamedAttribute(context, "reassociation", groups),
      memoptNamedAttribute(context, "static_output_shape",
                           mlirDenseI64ArrayGet(context, loops, shape)),
  };
  MlirValue blockedDest = memoptBuildOneResult(&builder, "tensor.expand_shape", &dest, 1, blocked,
                                               expandAttributes, 2);
  MlirValue init = memoptBuildTensorEmpty(&builder, blocked, NULL, 0);
  MlirAffineMap identity = mlirAffineMapMultiDimIdentityGet(context, loops);
  MlirAttribute maps[] = {
      mlirAffineMapAttrGet(mlirAffineMapGet(context, loops, 0, rank, sourceExprs)),
      mlirAffineMapAttrGet(identity), mlirAffineMapAttrGet(identity)};
  MlirValue inputs[] = {source, blockedDest};
  MemoptBuilder payload;
  MlirOperation generic =
      memoptBuildParallelGeneric(&builder, inputs, 2, init, maps, loops, &payload);
  buildSelectPayload(payload, blockLoops, blocks, count);
  MlirValue blockedResult = mlirOperationGetResult(generic, 0);
  MlirNamedAttribute collapseAttribute = memoptNamedAttribute(context, "reassociation", groups);
  MlirValue result = memoptBuildOneResult(&builder, "tensor.collapse_shape", &blockedResult, 1,
                                          destType, &collapseAttribute, 1);
  mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(insert, 0), result);
  memoptEraseOp(insert);
  free(sourceExprs);
  free(blocks);
  free(blockLoops);
  free(shape);
  free(split);
}

/* The offsets and sizes along the source of `collapse` of a slice taking
 * `offsets` and `sizes` of its result, when in each group the slice takes
 * whole blocks of the group's inner dimensions; false otherwise. */
static bool sliceOfCollapseSource(MlirOperation collapse, const int64_t *offsets,
                                  const int64_t *sizes, MemoptIndex *sourceOffsets,
                                  MemoptIndex *sourceSizes) {
  MlirType source = mlirValueGetType(mlirOperationGetOperand(collapse, 0));
  MlirAttribute groups =
      mlirOperationGetAttributeByName(collapse, mlirStringRefCreateFromCString("reassociation"));
  for (intptr_t g = 0, first = 0; g < mlirArrayAttrGetNumElements(groups); ++g) {
    intptr_t members = mlirArrayAttrGetNumElements(mlirArrayAttrGetElement(groups, g));
    int64_t inner = 1;
    for (intptr_t m = 1; m < members; ++m)
      inner *= mlirShapedTypeGetDimSize(source, first + m);
    if (offsets[g] % inner != 0 || sizes[g] % inner != 0)
      return false;
    sourceOffsets[first] = memoptIndexFixed(offsets[g] / inner);
    sourceSizes[first] = memoptIndexFixed(sizes[g] / inner);
    for (intptr_t m = 1; m < members; ++m) {
      sourceOffsets[first + m] = memoptIndexFixed(0);
      sourceSizes[first + m] = memoptIndexFixed(mlirShapedTypeGetDimSize(source, first + m));
    }
    first += members;
  }
  return true;
}

/* Rewrites `slice`, a static unit-strided extract_slice of the same rank
 * as the collapse_shape it reads, as the collapse of a slice of the
 * collapse's source when sliceOfCollapseSource allows; true if it did. */
static bool swapSliceOfCollapse(MlirOperation slice) {
  MlirValue collapsed = mlirOperationGetOperand(slice, 0);
  if (mlirOperationGetNumOperands(slice) != 1 || !mlirValueIsAOpResult(collapsed) ||
      !memoptOperationIsA(mlirOpResultGetOwner(collapsed), "tensor.collapse_shape"))
    return false;
  MlirOperation collapse = mlirOpResultGetOwner(collapsed);
  MlirType source = mlirValueGetType(mlirOperationGetOperand(collapse, 0));
  MlirType result = mlirValueGetType(mlirOperationGetResult(slice, 0));
  intptr_t rank = mlirShapedTypeGetRank(result), sourceRank = mlirShapedTypeGetRank(source);
  if (!mlirShapedTypeHasStaticShape(source) || !mlirShapedTypeHasStaticShape(result) ||
      rank != mlirShapedTypeGetRank(mlirValueGetType(collapsed)))
    return false;
  int64_t *bounds = memoptAllocateZeroed(2 * (size_t)rank + 1, sizeof *bounds);
  MemoptIndex *sourceBounds = memoptAllocateZeroed(2 * (size_t)sourceRank + 1, sizeof *sourceBounds);
  bool unitStrides = true;
  for (intptr_t d = 0; d < rank; ++d) {
    bounds[d] = arrayElement(slice, "static_offsets", d);
    bounds[rank + d] = arrayElement(slice, "static_sizes", d);
    unitStrides = unitStrides && arrayElement(slice, "static_strides", d) == 1;
  }
  bool swap = unitStrides && sliceOfCollapseSource(collapse, bounds, bounds + rank, sourceBounds,
                                                   sourceBounds + sourceRank);
  if (swap) {
    MemoptBuilder builder = memoptBuilderBefore(slice);
    int64_t *shape = memoptAllocateZeroed((size_t)sourceRank + 1, sizeof *shape);
    for (intptr_t d = 0; d < sourceRank; ++d)
      shape[d] = sourceBounds[sourceRank + d].fixed;
    MlirType narrowed = mlirRankedTensorTypeGet(sourceRank, shape,
                                                mlirShapedTypeGetElementType(source),
                                                mlirAttributeGetNull());
    MlirValue from = mlirOperationGetOperand(collapse, 0);
    MlirValue part = memoptBuildSlice(&builder, "tensor.extract_slice", &from, 1, sourceBounds,
                                      sourceBounds + sourceRank, sourceRank, narrowed);
    MlirNamedAttribute groups = memoptNamedAttribute(
        mlirOperationGetContext(slice), "reassociation",
        mlirOperationGetAttributeByName(collapse, mlirStringRefCreateFromCString("reassociation")));
    MlirValue view =
        memoptBuildOneResult(&builder, "tensor.collapse_shape", &part, 1, result, &groups, 1);
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(slice, 0), view);
    mlirOperationDestroy(slice);
    if (mlirOpOperandIsNull(mlirValueGetFirstUse(collapsed)))
      mlirOperationDestroy(collapse);
    free(shape);
  }
  free(sourceBounds);
  free(bounds);
  return swap;
}

/* The offset `slice` takes along the dimension of generic `producer`'s
 * result that its loop `loop` indexes, when the slice takes one element
 * there; -1 otherwise (a size other than 1, or a loop the result does not
 * index). */
static int64_t pinnedOffset(MlirOperation producer, MlirOperation slice, int64_t loop) {
  MlirAttribute maps = mlirLinalgGetIndexingMapsAttribute(producer);
  MlirAffineMap out = mlirAffineMapAttrGetValue(
      mlirArrayAttrGetElement(maps, mlirArrayAttrGetNumElements(maps) - 1));
  int64_t j = memoptAffineMapLoopPosition(out, loop);
  return j >= 0 && arrayElement(slice, "static_sizes", j) == 1
             ? arrayElement(slice, "static_offsets", j)
             : -1;
}

/* True when `use` of generic `producer`'s result is a static extract_slice
 * in `body` taking one element along each loop the body reads with
 * linalg.index. */
static bool slicePinsIndexedLoops(MlirOperation producer, MlirOpOperand use, MlirBlock body) {
  MlirOperation slice = mlirOpOperandGetOwner(use);
  if (!memoptOperationIsA(slice, "tensor.extract_slice") ||
      !mlirBlockEqual(mlirOperationGetBlock(slice), body) ||
      mlirOperationGetNumOperands(slice) != 1)
    return false;
  MlirBlock inner = memoptSingleBlock(producer);
  for (MlirOperation op = mlirBlockGetFirstOperation(inner); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (memoptOperationIsA(op, "linalg.index") &&
        pinnedOffset(producer, slice, memoptOperationGetIntegerAttr(op, "dim")) < 0)
      return false;
  return true;
}

/* Gives `slice` of generic `producer` a copy of its own, built before it,
 * whose linalg.index ops are the slice's offsets. */
static void copyPinnedForSlice(MlirBlock body, MlirOperation producer, MlirOperation slice) {
  MlirOperation copy = mlirOperationClone(producer);
  mlirBlockInsertOwnedOperationBefore(body, slice, copy);
  MlirBlock inner = memoptSingleBlock(copy);
  for (MlirOperation index = mlirBlockGetFirstOperation(inner), after; !mlirOperationIsNull(index);
       index = after) {
    after = mlirOperationGetNextInBlock(index);
    if (!memoptOperationIsA(index, "linalg.index"))
      continue;
    MemoptBuilder builder = memoptBuilderBefore(index);
    MlirValue offset = memoptBuildIndexConstant(
        &builder, pinnedOffset(copy, slice, memoptOperationGetIntegerAttr(index, "dim")));
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(index, 0), offset);
    mlirOperationDestroy(index);
  }
  mlirOperationSetOperand(slice, 0, mlirOperationGetResult(copy, 0));
}

size_t memoptShardPinSlicedIndexLoops(MlirBlock body) {
  size_t pinned = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body), next; !mlirOperationIsNull(op);
       op = next) {
    next = mlirOperationGetNextInBlock(op);
    if (!memoptOperationIsA(op, "linalg.generic") || mlirOperationGetNumResults(op) != 1 ||
        !memoptLinalgReadsLoopIndex(op, -1))
      continue;
    MlirValue result = mlirOperationGetResult(op, 0);
    for (MlirOpOperand use = mlirValueGetFirstUse(result), following; !mlirOpOperandIsNull(use);
         use = following) {
      following = mlirOpOperandGetNextUse(use);
      if (!slicePinsIndexedLoops(op, use, body))
        continue;
      copyPinnedForSlice(body, op, mlirOpOperandGetOwner(use));
      ++pinned;
    }
    if (mlirOpOperandIsNull(mlirValueGetFirstUse(result)))
      mlirOperationDestroy(op);
  }
  return pinned;
}

size_t memoptShardSwapSlicesOfCollapses(MlirBlock body) {
  size_t count = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body), next; !mlirOperationIsNull(op);
       op = next) {
    next = mlirOperationGetNextInBlock(op);
    if (memoptOperationIsA(op, "tensor.extract_slice") && swapSliceOfCollapse(op))
      ++count;
  }
  return count;
}

size_t memoptShardRewriteBlockInserts(MlirBlock body) {
  size_t rewritten = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body), next; !mlirOperationIsNull(op);
       op = next) {
    next = mlirOperationGetNextInBlock(op);
    if (!memoptOperationIsA(op, "tensor.insert_slice") || !isBlockInsert(op))
      continue;
    /* A block as large as the destination is the source itself. */
    if (mlirTypeEqual(mlirValueGetType(mlirOperationGetOperand(op, 0)),
                      mlirValueGetType(mlirOperationGetResult(op, 0)))) {
      mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), mlirOperationGetOperand(op, 0));
      memoptEraseOp(op);
    } else {
      rewriteBlockInsert(op);
    }
    ++rewritten;
  }
  return rewritten;
}

MlirOperation *memoptShardReturnViewSources(MlirOperation func) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  MlirOperation ret = mlirBlockGetTerminator(body);
  intptr_t results = mlirOperationGetNumOperands(ret);
  MlirOperation *views = memoptAllocateZeroed((size_t)results + 1, sizeof *views);
  for (intptr_t r = 0; r < results; ++r) {
    MlirValue value = mlirOperationGetOperand(ret, r);
    if (!mlirValueIsAOpResult(value))
      continue;
    MlirOperation view = mlirOpResultGetOwner(value);
    if (!memoptOperationIsTensorReshape(view) || mlirOperationGetNumOperands(view) != 1)
      continue;
    views[r] = mlirOperationClone(view);
    mlirOperationSetOperand(ret, r, mlirOperationGetOperand(view, 0));
  }
  /* The views left unused go. */
  for (MlirOperation op = mlirBlockGetFirstOperation(body), next; !mlirOperationEqual(op, ret);
       op = next) {
    next = mlirOperationGetNextInBlock(op);
    if (memoptOperationIsTensorReshape(op) &&
        mlirOpOperandIsNull(mlirValueGetFirstUse(mlirOperationGetResult(op, 0))))
      memoptEraseOp(op);
  }
  MlirType *resultTypes = memoptAllocateZeroed((size_t)results + 1, sizeof *resultTypes);
  for (intptr_t r = 0; r < results; ++r)
    resultTypes[r] = mlirValueGetType(mlirOperationGetOperand(ret, r));
  MlirStringRef name = mlirStringRefCreateFromCString("function_type");
  MlirType old = mlirTypeAttrGetValue(mlirOperationGetAttributeByName(func, name));
  intptr_t inputs = mlirFunctionTypeGetNumInputs(old);
  MlirType *inputTypes = memoptAllocateZeroed((size_t)inputs + 1, sizeof *inputTypes);
  for (intptr_t k = 0; k < inputs; ++k)
    inputTypes[k] = mlirFunctionTypeGetInput(old, k);
  MlirType type = mlirFunctionTypeGet(mlirOperationGetContext(func), inputs, inputTypes, results,
                                      resultTypes);
  mlirOperationSetAttributeByName(func, name, mlirTypeAttrGet(type));
  free(inputTypes);
  free(resultTypes);
  return views;
}

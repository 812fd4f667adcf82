/* Tiling one spm.group: its body is inlined, and each output it yields is
 * tiled by upstream tile-and-fuse, run through transform scripts on
 * temporary tags:
 *
 *   %root = transform.structured.match attributes {memopt.spm_tile_root} in %func
 *   transform.structured.tile_using_for %root tile_sizes [...]
 * then, for each producer of the group, consumers first:
 *   %loop = transform.get_parent_op %root {op_name = "scf.for"}
 *   %producer = transform.structured.match attributes {memopt.spm_fuse = N} in %func
 *   transform.structured.fuse_into_containing_op %producer into %loop
 * and last:
 *   transform.apply_cse to <the new loop nest>
 *   transform.apply_dce to %func
 *
 * Only the group's own layers are tagged for fusion, so a group never
 * recomputes another group's maps. The last op's loop nest also yields the
 * group's other outputs it computes (spmYieldFusedOutputs); an output it cannot
 * yield gets a loop nest of its own (see spmLowerGroup). */
#include "Spm/Spm.h"
#include "Spm/Conversion/SpmLowering.h"
#include "IR/IR.h"
#include "Support/Support.h"

#include "mlir-c/AffineExpr.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/Linalg.h"
#include "mlir-c/Dialect/Transform/Interpreter.h"

#include <stdlib.h>

/* Temporary tags the transform script matches, removed after each group. */
static const char tileRootAttribute[] = "memopt.spm_tile_root"; /* the op to tile */
const char spmFuseTag[] = "memopt.spm_fuse";                    /* its producers to fuse */
const char spmGroupOpTag[] = "memopt.spm_group_op";             /* an op of the group */
const char spmPendingOutputTag[] = "memopt.spm_next_root";      /* an output still to tile */

static MlirAttribute tileOf(MlirOperation group) {
  return mlirOperationGetAttributeByName(group, mlirStringRefCreateFromCString("tile"));
}

/* The op of the body, last in program order, that defines a yielded value.
 * Null when none does. */
static MlirOperation lastYielding(MlirOperation group) {
  MlirBlock body = memoptSingleBlock(group);
  MlirOperation yield = mlirBlockGetTerminator(body);
  MlirOperation last = {NULL};
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationEqual(op, yield);
       op = mlirOperationGetNextInBlock(op))
    for (intptr_t i = 0; i < mlirOperationGetNumOperands(yield); ++i) {
      MlirValue value = mlirOperationGetOperand(yield, i);
      if (mlirValueIsAOpResult(value) && mlirOperationEqual(mlirOpResultGetOwner(value), op))
        last = op;
    }
  return last;
}

static bool coversWhole(MlirAttribute tile, MlirType type) {
  if (!mlirShapedTypeHasStaticShape(type) ||
      mlirDenseArrayGetNumElements(tile) != mlirShapedTypeGetRank(type))
    return false;
  for (intptr_t d = 0; d < mlirShapedTypeGetRank(type); ++d)
    if (mlirDenseI64ArrayGetElement(tile, d) != mlirShapedTypeGetDimSize(type, d))
      return false;
  return true;
}

/* The op computing the group's tiled output (the last yielding op) and its
 * tile sizes, the group's `tile`. A yielded reshape (tensor.collapse_shape
 * or expand_shape, as a classifier flattens its logits) of a value the body
 * computes is looked through when `tile` covers the whole yielded value:
 * the op before it is tiled as one whole tile, and the reshape follows the
 * loop. Null op when nothing is yielded. */
static MlirOperation lastOp(MlirOperation group, MlirAttribute *tile) {
  MlirOperation last = lastYielding(group);
  *tile = tileOf(group);
  if (mlirOperationIsNull(last) ||
      !coversWhole(*tile, mlirValueGetType(mlirOperationGetResult(last, 0))))
    return last;
  MlirOperation op = last;
  while ((memoptOperationIsA(op, "tensor.collapse_shape") ||
          memoptOperationIsA(op, "tensor.expand_shape")) &&
         mlirValueIsAOpResult(mlirOperationGetOperand(op, 0)) &&
         mlirOperationEqual(
             mlirOperationGetParentOperation(mlirOpResultGetOwner(mlirOperationGetOperand(op, 0))),
             group))
    op = mlirOpResultGetOwner(mlirOperationGetOperand(op, 0));
  if (mlirOperationEqual(op, last) || mlirOperationGetNumResults(op) != 1)
    return last;
  MlirType type = mlirValueGetType(mlirOperationGetResult(op, 0));
  if (!mlirShapedTypeHasStaticShape(type))
    return last;
  intptr_t rank = mlirShapedTypeGetRank(type);
  int64_t *whole = memoptAllocateZeroed((size_t)rank, sizeof *whole);
  for (intptr_t d = 0; d < rank; ++d)
    whole[d] = mlirShapedTypeGetDimSize(type, d);
  *tile = mlirDenseI64ArrayGet(mlirOperationGetContext(group), rank, whole);
  free(whole);
  return op;
}

/* The loop of `op` (a checked last op) that iterates over dimension `dim` of
 * its result, from the indexing map of its init; -1 when that is not a
 * plain loop dimension. */
static intptr_t loopOfResultDim(MlirOperation op, intptr_t dim) {
  MlirAttribute maps = mlirLinalgGetIndexingMapsAttribute(op);
  intptr_t count = mlirArrayAttrGetNumElements(maps);
  MlirAffineMap output = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, count - 1));
  if (dim >= mlirAffineMapGetNumResults(output))
    return -1;
  MlirAffineExpr expr = mlirAffineMapGetResult(output, dim);
  return mlirAffineExprIsADim(expr) ? mlirAffineDimExprGetPosition(expr) : -1;
}

bool spmCheckGroup(MlirOperation group) {
  MlirLocation location = mlirOperationGetLocation(group);
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(group));
  MlirAttribute tile;
  MlirOperation last = lastOp(group, &tile);
  if (mlirOperationIsNull(last) || !spmIsLinalgOp(last) || mlirOperationGetNumResults(last) != 1) {
    spmCannotLower(location, name,
                   "its last op must be a linalg op with one result, the output 'tile' "
                   "describes");
    return false;
  }
  MlirType output = mlirValueGetType(mlirOperationGetResult(last, 0));
  intptr_t rank = mlirShapedTypeGetRank(output);
  if (!mlirShapedTypeHasStaticShape(output) || rank == 0) {
    spmCannotLower(location, name,
                   "the output of its last op needs a static shape of rank 1 or more");
    return false;
  }
  if (mlirDenseArrayGetNumElements(tile) != rank) {
    spmCannotLower(location, name, "'tile' has %ld sizes for an output of rank %ld",
                   (long)mlirDenseArrayGetNumElements(tile), (long)rank);
    return false;
  }
  for (intptr_t d = 0; d < rank; ++d) {
    int64_t size = mlirDenseI64ArrayGetElement(tile, d);
    int64_t extent = mlirShapedTypeGetDimSize(output, d);
    if (size > extent) { /* the verifier has checked size >= 1 */
      spmCannotLower(location, name, "tile size %lld of dimension %ld does not fit its extent %lld",
                     (long long)size, (long)d, (long long)extent);
      return false;
    }
    if (size < extent && loopOfResultDim(last, d) < 0) {
      spmCannotLower(location, name, "dimension %ld of the last op's output is not a loop of it",
                     (long)d);
      return false;
    }
  }
  return true;
}

/* Gives each user of a tensor.empty its own copy. Upstream fusion crashes
 * (MLIR 22) when one empty tensor is the destination of both the tiled op and
 * a producer fused into its loop, as in a squeeze-and-excitation block. */
static void unshareEmpty(MlirOperation empty) {
  MlirValue value = mlirOperationGetResult(empty, 0);
  /* Every use but the first gets a clone, each taken from the head of the
   * use list (the list changes as uses move). */
  for (;;) {
    MlirOpOperand first = mlirValueGetFirstUse(value);
    if (mlirOpOperandIsNull(first) || mlirOpOperandIsNull(mlirOpOperandGetNextUse(first)))
      return;
    MlirOperation copy = mlirOperationClone(empty);
    mlirBlockInsertOwnedOperationAfter(mlirOperationGetBlock(empty), empty, copy);
    mlirOperationSetOperand(mlirOpOperandGetOwner(first), mlirOpOperandGetOperandNumber(first),
                            mlirOperationGetResult(copy, 0));
  }
}

/* Moves the body of `group` before it, tagging every op with
 * `spmGroupOpTag`, and replaces its results by the values it yielded.
 * Tags the op defining each yielded value other than `last` (a linalg op of
 * one result) as a pending root: its output is tiled after the last op's. */
static void inlineGroup(MlirOperation group, MlirOperation last) {
  MlirContext context = mlirOperationGetContext(group);
  MlirBlock body = memoptSingleBlock(group);
  MlirOperation yield = mlirBlockGetTerminator(body);
  MlirBlock block = mlirOperationGetBlock(group);
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(yield); ++i) {
    MlirValue value = mlirOperationGetOperand(yield, i);
    if (!mlirValueIsAOpResult(value))
      continue;
    MlirOperation producer = mlirOpResultGetOwner(value);
    if (!mlirOperationEqual(producer, last) && spmIsLinalgOp(producer) &&
        mlirOperationGetNumResults(producer) == 1 &&
        mlirShapedTypeHasStaticShape(mlirValueGetType(value)) &&
        mlirOperationGetParentOperation(producer).ptr == group.ptr)
      mlirOperationSetAttributeByName(producer, mlirStringRefCreateFromCString(spmPendingOutputTag),
                                      mlirUnitAttrGet(context));
  }
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationEqual(op, yield);) {
    MlirOperation next = mlirOperationGetNextInBlock(op);
    mlirOperationRemoveFromParent(op);
    mlirBlockInsertOwnedOperationBefore(block, group, op);
    mlirOperationSetAttributeByName(op, mlirStringRefCreateFromCString(spmGroupOpTag),
                                    mlirUnitAttrGet(context));
    if (memoptOperationIsA(op, "tensor.empty"))
      unshareEmpty(op);
    op = next;
  }
  for (intptr_t i = 0; i < mlirOperationGetNumResults(group); ++i)
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(group, i),
                                  mlirOperationGetOperand(yield, i));
  memoptEraseOp(group);
}

/* Gives root its own destination: a linalg.fill (and the tensor.empty it
 * fills) that other ops also use is cloned for root, since the loop will
 * start from it. (CSE, which tiling runs on the whole function, merges equal
 * fills of groups not lowered yet.) */
static void ownDestination(MlirOperation root) {
  for (intptr_t i = spmLinalgInputCount(root); i < mlirOperationGetNumOperands(root); ++i) {
    MlirValue init = mlirOperationGetOperand(root, i);
    if (!mlirValueIsAOpResult(init) || memoptValueHasOneUse(init) ||
        !memoptOperationIsA(mlirOpResultGetOwner(init), "linalg.fill"))
      continue;
    MlirOperation fill = mlirOperationClone(mlirOpResultGetOwner(init));
    mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(root), root, fill);
    MlirValue empty = mlirOperationGetOperand(fill, 1);
    if (mlirValueIsAOpResult(empty) &&
        memoptOperationIsA(mlirOpResultGetOwner(empty), "tensor.empty")) {
      MlirOperation copy = mlirOperationClone(mlirOpResultGetOwner(empty));
      mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(root), fill, copy);
      mlirOperationSetOperand(fill, 1, mlirOperationGetResult(copy, 0));
    }
    mlirOperationSetOperand(root, i, mlirOperationGetResult(fill, 0));
  }
}

/* Gives `op` a fresh tensor.empty for each destination whose values its body
 * never reads but that another op computes or also uses (torch-mlir writes a
 * batch norm into the convolution it normalizes, and shares one empty tensor
 * among many ops): fusing such producers crashes MLIR 22's
 * fuse_into_containing_op, and a value the body does not read need not be
 * kept. */
static void freshUnreadDestinations(MlirOperation op) {
  for (intptr_t i = spmLinalgInputCount(op); i < mlirOperationGetNumOperands(op); ++i) {
    MlirValue init = mlirOperationGetOperand(op, i);
    MlirType type = mlirValueGetType(init);
    if (!mlirValueIsAOpResult(init) ||
        (memoptOperationIsA(mlirOpResultGetOwner(init), "tensor.empty") &&
         memoptValueHasOneUse(init)) ||
        !spmInitIsUnread(op, i) || !mlirTypeIsARankedTensor(type) ||
        !mlirShapedTypeHasStaticShape(type))
      continue;
    MemoptBuilder builder = {mlirOperationGetBlock(op), op, mlirOperationGetLocation(op)};
    mlirOperationSetOperand(op, i, memoptBuildTensorEmpty(&builder, type, NULL, 0));
  }
}

/* Tags with `spmFuseTag` the ops of the group, in `block`, that `root`
 * reads through other such ops and that tiling can fuse (linalg ops and
 * pads): the producers fused into root's tile loop. Ops outside the group
 * (earlier groups' loops, pins, ops of no group) are left alone, so each
 * group computes its own layers only. Returns how many were tagged. */
static size_t tagProducers(MlirOperation root, MlirBlock block) {
  MlirContext context = mlirOperationGetContext(root);
  size_t count = 0, capacity = 16, tagged = 0;
  MlirOperation *stack = memoptAllocateZeroed(capacity, sizeof *stack);
  stack[count++] = root;
  while (count > 0) {
    MlirOperation op = stack[--count];
    /* Root's destination becomes the loop's: fuseDestinationFill handles it. */
    intptr_t operands =
        mlirOperationEqual(op, root) ? spmLinalgInputCount(root) : mlirOperationGetNumOperands(op);
    for (intptr_t i = 0; i < operands; ++i) {
      MlirValue operand = mlirOperationGetOperand(op, i);
      if (!mlirValueIsAOpResult(operand))
        continue;
      MlirOperation producer = mlirOpResultGetOwner(operand);
      if (!mlirBlockEqual(mlirOperationGetBlock(producer), block) ||
          !spmHasTag(producer, spmGroupOpTag) || spmHasTag(producer, spmFuseTag) ||
          !(spmIsLinalgOp(producer) || memoptOperationIsA(producer, "tensor.pad")))
        continue;
      mlirOperationSetAttributeByName(producer, mlirStringRefCreateFromCString(spmFuseTag),
                                      mlirUnitAttrGet(context));
      if (spmIsLinalgOp(producer))
        freshUnreadDestinations(producer);
      ++tagged;
      if (count == capacity) {
        capacity *= 2;
        stack = memoptReallocArray(stack, capacity, sizeof *stack);
      }
      stack[count++] = producer;
    }
  }
  free(stack);
  /* A producer of root's destination whose only user is root becomes the
   * loop's init, which fusion cannot move into the loop (fuseDestinationFill
   * handles a fill). */
  for (intptr_t i = spmLinalgInputCount(root); i < mlirOperationGetNumOperands(root); ++i) {
    MlirValue init = mlirOperationGetOperand(root, i);
    MlirOpOperand use = mlirValueGetFirstUse(init);
    if (mlirValueIsAOpResult(init) && mlirOpOperandIsNull(mlirOpOperandGetNextUse(use)) &&
        spmRemoveTag(mlirOpResultGetOwner(init), spmFuseTag))
      --tagged;
  }
  return tagged;
}

/* Numbers the ops tagged `spmFuseTag` in `block` (up to `root`) from the
 * last to the first in program order, replacing each tag by its number: the
 * order in which they are fused, one at a time, every consumer before its
 * producers.
 * Returns a malloc'ed array telling, by number, which are tensor.pad ops. */
static bool *numberProducers(MlirOperation root, MlirBlock block, size_t count) {
  MlirContext context = mlirOperationGetContext(root);
  bool *isPad = memoptAllocateZeroed(count ? count : 1, sizeof *isPad);
  size_t remaining = count;
  for (MlirOperation op = mlirBlockGetFirstOperation(block);
       remaining > 0 && !mlirOperationEqual(op, root); op = mlirOperationGetNextInBlock(op)) {
    if (!spmHasTag(op, spmFuseTag))
      continue;
    --remaining;
    isPad[remaining] = memoptOperationIsA(op, "tensor.pad");
    mlirOperationSetAttributeByName(
        op, mlirStringRefCreateFromCString(spmFuseTag),
        mlirIntegerAttrGet(mlirIntegerTypeGet(context, 64), (int64_t)remaining));
  }
  return isPad;
}

/* Opens a transform script on the function, with %root the op tagged
 * `tileRootAttribute`. */
static void beginScript(MemoptStringBuffer *script) {
  memoptStringBufferAppendFormat(
      script,
      "module attributes {transform.with_named_sequence} {\n"
      "  transform.named_sequence @__transform_main(%%func: !transform.any_op) {\n"
      "    %%root = transform.structured.match attributes {%s} in %%func"
      " : (!transform.any_op) -> !transform.any_op\n",
      tileRootAttribute);
}

static void endScript(MemoptStringBuffer *script) {
  memoptStringBufferAppendCString(script, "    transform.yield\n"
                                          "  }\n"
                                          "}\n");
}

/* Writes the script tiling root by `sizes` (one per loop of it, 0: not
 * tiled; `loops` are not 0). */
static void writeTileScript(MemoptStringBuffer *script, const int64_t *sizes, intptr_t count,
                            intptr_t loops) {
  beginScript(script);
  memoptStringBufferAppendFormat(
      script, "    %%tiled, %%loops:%ld = transform.structured.tile_using_for %%root tile_sizes [",
      (long)loops);
  for (intptr_t i = 0; i < count; ++i)
    memoptStringBufferAppendFormat(script, "%s%lld", i ? ", " : "", (long long)sizes[i]);
  memoptStringBufferAppendCString(script, "] : (!transform.any_op) -> (!transform.any_op");
  for (intptr_t i = 0; i < loops; ++i)
    memoptStringBufferAppendCString(script, ", !transform.any_op");
  memoptStringBufferAppendCString(script, ")\n");
  endScript(script);
}

/* Writes the script fusing the producer numbered `step` by numberProducers
 * into the innermost loop around the tiled root. */
static void writeFuseScript(MemoptStringBuffer *script, size_t step) {
  beginScript(script);
  memoptStringBufferAppendFormat(
      script,
      "    %%loop = transform.get_parent_op %%root {op_name = \"scf.for\"}"
      " : (!transform.any_op) -> !transform.any_op\n"
      "    %%producer = transform.structured.match attributes {%s = %zu : i64} in %%func"
      " : (!transform.any_op) -> !transform.any_op\n"
      "    %%fused, %%fusedLoop = transform.structured.fuse_into_containing_op %%producer into "
      "%%loop : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)\n",
      spmFuseTag, step);
  endScript(script);
}

/* Writes the script cleaning up after fusion: CSE only inside the loop nest
 * of `loops` loops (fusion clones a producer once per use; on the whole
 * function CSE would replace ops of groups not lowered yet by equal ops
 * already outside them, taking them out of their group), then DCE. */
static void writeCleanupScript(MemoptStringBuffer *script, intptr_t loops) {
  beginScript(script);
  memoptStringBufferAppendFormat(
      script,
      "    %%nest = transform.get_parent_op %%root {op_name = \"scf.for\", nth_parent = %ld : i64}"
      " : (!transform.any_op) -> !transform.any_op\n"
      "    transform.apply_cse to %%nest : !transform.any_op\n"
      "    transform.apply_dce to %%func : !transform.any_op\n",
      (long)loops);
  endScript(script);
}

/* The tile sizes of each loop of `root` for the group's `tile`, clipped to
 * root's output (a secondary output may be smaller); a dimension that is not
 * a plain loop of root stays whole. When nothing is tiled, the first
 * dimension is, whole, so every output has a loop (of one tile) to localize.
 * Returns the number of loops; `loops` receives how many are tiled. */
static intptr_t tileSizes(MlirOperation root, MlirAttribute tile, int64_t **sizes,
                          intptr_t *loops) {
  MlirAttribute maps = mlirLinalgGetIndexingMapsAttribute(root);
  intptr_t count =
      mlirAffineMapGetNumDims(mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, 0)));
  *sizes = memoptAllocateZeroed((size_t)count, sizeof **sizes);
  MlirType output = mlirValueGetType(mlirOperationGetResult(root, 0));
  *loops = 0;
  intptr_t rank = mlirShapedTypeGetRank(output);
  for (intptr_t d = 0; d < rank && d < mlirDenseArrayGetNumElements(tile); ++d) {
    int64_t size = mlirDenseI64ArrayGetElement(tile, d);
    intptr_t loop = loopOfResultDim(root, d);
    if (size < mlirShapedTypeGetDimSize(output, d) && loop >= 0) {
      (*sizes)[loop] = size;
      ++*loops;
    }
  }
  if (*loops == 0) {
    intptr_t loop = rank > 0 ? loopOfResultDim(root, 0) : -1;
    (*sizes)[loop >= 0 ? loop : 0] = rank > 0 ? mlirShapedTypeGetDimSize(output, 0) : 1;
    *loops = 1;
  }
  return count;
}

/* Runs `script` on `func`. */
static MlirLogicalResult applyScript(MlirOperation func, const char *script) {
  MlirContext context = mlirOperationGetContext(func);
  MlirModule module = mlirModuleCreateParse(context, mlirStringRefCreateFromCString(script));
  if (mlirModuleIsNull(module))
    abort(); /* the script is generated here: a parse error is a bug */
  MlirOperation moduleOp = mlirModuleGetOperation(module);
  MlirOperation sequence = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
  MlirTransformOptions options = mlirTransformOptionsCreate();
  MlirLogicalResult result = mlirTransformApplyNamedSequence(func, sequence, moduleOp, options);
  mlirTransformOptionsDestroy(options);
  mlirModuleDestroy(module);
  return result;
}

/* Removing tags after a step; remembers the tiled root (the op tagged
 * `tileRootAttribute` inside a loop) and the first pending root left in
 * `block`. */
typedef struct Untag {
  MlirBlock block;
  bool groupDone; /* also remove spmGroupOpTag and spmPendingOutputTag */
  MlirOperation tiledRoot;
  MlirOperation pendingRoot;
} Untag;

static MlirWalkResult untag(MlirOperation op, void *userData) {
  Untag *untag = userData;
  spmRemoveTag(op, spmFuseTag);
  if (spmRemoveTag(op, tileRootAttribute) &&
      memoptOperationIsA(mlirOperationGetParentOperation(op), "scf.for"))
    untag->tiledRoot = op;
  if (untag->groupDone) {
    spmRemoveTag(op, spmGroupOpTag);
    spmRemoveTag(op, spmPendingOutputTag);
  } else if (mlirOperationIsNull(untag->pendingRoot) && spmHasTag(op, spmPendingOutputTag) &&
             mlirBlockEqual(mlirOperationGetBlock(op), untag->block)) {
    untag->pendingRoot = op;
  }
  return MlirWalkResultAdvance;
}

/* After tiling, the loop nest starts from root's init. When that is a
 * linalg.fill of a tensor.empty (a convolution's zeroed accumulator), the
 * nest starts from the empty tensor instead and each tile fills its own
 * slice, so the zeros are made in the scratchpad and never loaded. */
static void fuseDestinationFill(MlirOperation tiledRoot, MlirOperation inner, MlirOperation outer) {
  MlirValue init = mlirOperationGetOperand(tiledRoot, spmLinalgInputCount(tiledRoot));
  if (!mlirValueIsAOpResult(init) ||
      !memoptOperationIsA(mlirOpResultGetOwner(init), "tensor.extract_slice"))
    return;
  MlirOperation slice = mlirOpResultGetOwner(init);
  MlirValue carried = mlirOperationGetOperand(slice, 0);
  /* Up the nest to the outermost loop's init. */
  MlirOperation loop = inner;
  for (;;) {
    if (!mlirValueIsABlockArgument(carried) ||
        !mlirBlockEqual(mlirBlockArgumentGetOwner(carried), memoptSingleBlock(loop)) ||
        mlirBlockArgumentGetArgNumber(carried) == 0)
      return;
    /* scf.for operands: lower, upper, step, then the inits of iter_args 1... */
    intptr_t initIndex = 2 + mlirBlockArgumentGetArgNumber(carried);
    MlirValue loopInit = mlirOperationGetOperand(loop, initIndex);
    if (mlirOperationEqual(loop, outer)) {
      if (!mlirValueIsAOpResult(loopInit))
        return;
      MlirOperation fill = mlirOpResultGetOwner(loopInit);
      if (!memoptOperationIsA(fill, "linalg.fill") ||
          !mlirOpOperandIsNull(mlirOpOperandGetNextUse(mlirValueGetFirstUse(loopInit))))
        return;
      mlirOperationSetOperand(loop, initIndex, mlirOperationGetOperand(fill, 1));
      MemoptBuilder builder = {mlirOperationGetBlock(slice), mlirOperationGetNextInBlock(slice),
                               mlirOperationGetLocation(fill)};
      MlirValue filled = spmBuildFill(&builder, mlirOperationGetOperand(fill, 0),
                                      mlirOperationGetResult(slice, 0));
      mlirOperationSetOperand(tiledRoot, spmLinalgInputCount(tiledRoot), filled);
      memoptEraseOp(fill);
      return;
    }
    carried = loopInit;
    loop = mlirOperationGetParentOperation(loop);
  }
}

static MlirWalkResult findTiledRoot(MlirOperation op, void *userData) {
  if (!spmHasTag(op, tileRootAttribute) ||
      !memoptOperationIsA(mlirOperationGetParentOperation(op), "scf.for"))
    return MlirWalkResultAdvance;
  *(MlirOperation *)userData = op;
  return MlirWalkResultInterrupt;
}

/* The tiled root in `func`: the op tagged `tileRootAttribute` in a loop. */
static MlirOperation tiledRootIn(MlirOperation func) {
  MlirOperation tiledRoot = {NULL};
  mlirOperationWalk(func, findTiledRoot, &tiledRoot, MlirWalkPreOrder);
  return tiledRoot;
}

/* A fused pad's tile is guarded by an scf.if for an empty source slice,
 * with the slice of the pad's source in its else block. Fusing the source's
 * producer into that nested block leaves the original pad with a null
 * operand or crashes (MLIR 22), so such slices of a producer still to fuse,
 * whose operands are all computed before the scf.if, move in front of it:
 * an empty slice is legal, and the producer is then fused at the top of the
 * loop body. */
static void hoistGuardedSlices(MlirOperation loop) {
  MlirBlock body = memoptSingleBlock(loop);
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!memoptOperationIsA(op, "scf.if") || mlirOperationGetNumRegions(op) < 2)
      continue;
    MlirBlock otherwise = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 1));
    if (mlirBlockIsNull(otherwise))
      continue;
    for (MlirOperation inner = mlirBlockGetFirstOperation(otherwise);
         !mlirOperationIsNull(inner);) {
      MlirOperation next = mlirOperationGetNextInBlock(inner);
      MlirValue source = mlirOperationGetOperand(inner, 0);
      bool movable = memoptOperationIsA(inner, "tensor.extract_slice") &&
                     mlirValueIsAOpResult(source) &&
                     spmHasTag(mlirOpResultGetOwner(source), spmFuseTag);
      for (intptr_t i = 0; movable && i < mlirOperationGetNumOperands(inner); ++i)
        movable = !memoptValueIsDefinedInside(mlirOperationGetOperand(inner, i), op);
      if (movable)
        mlirOperationMoveBefore(inner, op);
      inner = next;
    }
  }
}

/* Runs the script in `script` on the function, then empties it. */
static bool applyAndClear(SpmLowering *lowering, MemoptStringBuffer *script) {
  MlirLogicalResult result = applyScript(lowering->func, memoptStringBufferGet(script));
  memoptStringBufferClear(script);
  return mlirLogicalResultIsSuccess(result);
}

/* Tiles the op tagged `tileRootAttribute` by `sizes` and fuses the `fused`
 * producers numbered by numberProducers into its innermost loop, one at a
 * time. */
static bool tileAndFuse(SpmLowering *lowering, MlirBlock block, const int64_t *sizes,
                        intptr_t count, intptr_t loops, size_t fused, const bool *isPad) {
  MemoptStringBuffer script = memoptStringBufferCreate();
  writeTileScript(&script, sizes, count, loops);
  bool ok = applyAndClear(lowering, &script);
  for (size_t step = 0; ok && step < fused; ++step) {
    writeFuseScript(&script, step);
    ok = applyAndClear(lowering, &script);
    if (ok && isPad[step])
      hoistGuardedSlices(mlirOperationGetParentOperation(tiledRootIn(lowering->func)));
  }
  if (ok && fused > 0)
    spmYieldFusedOutputs(tiledRootIn(lowering->func), block, loops);
  if (ok) {
    writeCleanupScript(&script, loops);
    ok = applyAndClear(lowering, &script);
  }
  memoptStringBufferDestroy(&script);
  return ok;
}

/* Tiles `root` (in `block`, directly under `parent`) with its producers of
 * the group, then localizes its tiles. On success sets `pendingRoot` to the
 * next output of the group to tile, if any. */
static bool tileRoot(MlirOperation root, MlirAttribute tile, MlirBlock block, MlirOperation parent,
                     SpmLowering *lowering, MlirOperation *pendingRoot) {
  MlirContext context = mlirOperationGetContext(root);
  int64_t *sizes;
  intptr_t loops;
  intptr_t count = tileSizes(root, tile, &sizes, &loops);
  spmRemoveTag(root, spmPendingOutputTag);
  freshUnreadDestinations(root);
  ownDestination(root);
  mlirOperationSetAttributeByName(root, mlirStringRefCreateFromCString(tileRootAttribute),
                                  mlirUnitAttrGet(context));
  size_t fused = tagProducers(root, block);
  spmDetachOutsideUses(root, block);
  bool *isPad = numberProducers(root, block, fused);
  bool tiled = tileAndFuse(lowering, block, sizes, count, loops, fused, isPad);
  free(isPad);
  free(sizes);

  Untag untagged = {block, false, {NULL}, {NULL}};
  mlirOperationWalk(lowering->func, untag, &untagged, MlirWalkPreOrder);
  *pendingRoot = untagged.pendingRoot;
  /* Upstream fusion may still leave IR that does not verify; stop with an
   * error rather than tile on. */
  if (!tiled || mlirOperationIsNull(untagged.tiledRoot) || !mlirOperationVerify(lowering->func))
    return false;
  MlirOperation inner = mlirOperationGetParentOperation(untagged.tiledRoot);
  MlirOperation outer = inner;
  for (MlirOperation up = mlirOperationGetParentOperation(outer); !mlirOperationEqual(up, parent);
       up = mlirOperationGetParentOperation(up))
    outer = up;
  fuseDestinationFill(untagged.tiledRoot, inner, outer);
  spmLocalizeTiles(outer, inner, lowering);
  return true;
}

MlirLogicalResult spmLowerGroup(MlirOperation group, SpmLowering *lowering) {
  MlirAttribute tile;
  MlirOperation last = lastOp(group, &tile);
  MlirOperation parent = mlirOperationGetParentOperation(group);
  MlirBlock block = mlirOperationGetBlock(group);
  MlirLocation location = mlirOperationGetLocation(group);
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(group)); /* outlives the group */
  inlineGroup(group, last);
  /* The last op first, with the group's layers fused into its loop nest,
   * which also yields the other outputs it computes (spmYieldFusedOutputs);
   * each output left then gets a tile loop of its own. */
  MlirOperation root;
  bool ok = tileRoot(last, tile, block, parent, lowering, &root);
  while (ok && !mlirOperationIsNull(root))
    ok = tileRoot(root, tile, block, parent, lowering, &root);
  Untag done = {block, true, {NULL}, {NULL}};
  mlirOperationWalk(lowering->func, untag, &done, MlirWalkPreOrder);
  if (!ok) {
    spmCannotLower(location, name, "upstream tiling and fusion failed on one of its outputs");
    return mlirLogicalResultFailure();
  }
  return mlirLogicalResultSuccess();
}

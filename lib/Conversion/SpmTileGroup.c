/* Tiling one spm.group: its body is inlined, and its last op (the op
 * computing the output `tile` describes) is tiled by upstream tile-and-fuse,
 * run through a transform script:
 *
 *   %root = transform.structured.match attributes {memopt.spm_tile_root} in %func
 *   %tiled, %loops... = transform.structured.fuse %root tile_sizes [...]
 *   transform.apply_dce to %func
 *
 * `fuse` tiles the last op and fuses every producer it reads through slices
 * into the innermost loop, recursively; `apply_dce` drops the whole-tensor
 * originals the fusion leaves behind. A value the group yields besides the
 * last op's keeps its whole-tensor producer (fusion clones producers that
 * have other users), so it stays correct at the price of computing it twice. */
#include "Conversion/SpmLowering.h"
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
#include <string.h>

static const char tileRootAttribute[] = "memopt.spm_tile_root";

static MlirAttribute tileOf(MlirOperation group) {
  return mlirOperationGetAttributeByName(group, mlirStringRefCreateFromCString("tile"));
}

/* The op computing the group's tiled output: the op of the body, last in
 * program order, that defines a yielded value. Null when none does. */
static MlirOperation lastOp(MlirOperation group) {
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

/* Emits "'spm.group' op cannot be lowered to memref: <message>". */
static void cannotLower(MlirOperation group, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
static void cannotLower(MlirOperation group, const char *format, ...) {
  MemoptStringBuffer message = memoptStringBufferCreate();
  memoptStringBufferAppendCString(&message, "'spm.group' op cannot be lowered to memref: ");
  va_list args;
  va_start(args, format);
  memoptStringBufferAppendFormatV(&message, format, args);
  va_end(args);
  mlirEmitError(mlirOperationGetLocation(group), memoptStringBufferGet(&message));
  memoptStringBufferDestroy(&message);
}

static bool isLinalgOp(MlirOperation op) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  return name.length > 7 && memcmp(name.data, "linalg.", 7) == 0 &&
         mlirOperationGetNumRegions(op) == 1;
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
  MlirAttribute tile = tileOf(group);
  MlirOperation last = lastOp(group);
  if (mlirOperationIsNull(last) || !isLinalgOp(last) || mlirOperationGetNumResults(last) != 1) {
    cannotLower(group, "its last op must be a linalg op with one result, the output 'tile' "
                       "describes");
    return false;
  }
  MlirType output = mlirValueGetType(mlirOperationGetResult(last, 0));
  intptr_t rank = mlirShapedTypeGetRank(output);
  if (!mlirShapedTypeHasStaticShape(output) || rank == 0) {
    cannotLower(group, "the output of its last op needs a static shape of rank 1 or more");
    return false;
  }
  if (mlirDenseArrayGetNumElements(tile) != rank) {
    cannotLower(group, "'tile' has %ld sizes for an output of rank %ld",
                (long)mlirDenseArrayGetNumElements(tile), (long)rank);
    return false;
  }
  for (intptr_t d = 0; d < rank; ++d) {
    int64_t size = mlirDenseI64ArrayGetElement(tile, d);
    int64_t extent = mlirShapedTypeGetDimSize(output, d);
    if (size > extent) { /* the verifier has checked size >= 1 */
      cannotLower(group, "tile size %lld of dimension %ld does not fit its extent %lld",
                  (long long)size, (long)d, (long long)extent);
      return false;
    }
    if (size < extent && loopOfResultDim(last, d) < 0) {
      cannotLower(group, "dimension %ld of the last op's output is not a loop of it", (long)d);
      return false;
    }
  }
  return true;
}

/* Moves the body of `group` before it and replaces its results by the
 * values it yielded. */
static void inlineGroup(MlirOperation group) {
  MlirBlock body = memoptSingleBlock(group);
  MlirOperation yield = mlirBlockGetTerminator(body);
  MlirBlock block = mlirOperationGetBlock(group);
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationEqual(op, yield);) {
    MlirOperation next = mlirOperationGetNextInBlock(op);
    mlirOperationRemoveFromParent(op);
    mlirBlockInsertOwnedOperationBefore(block, group, op);
    op = next;
  }
  for (intptr_t i = 0; i < mlirOperationGetNumResults(group); ++i)
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(group, i),
                                  mlirOperationGetOperand(yield, i));
  memoptEraseOp(group);
}

/* Writes the transform script tiling the tagged op by `sizes` (one per loop
 * of it, 0: not tiled) with `loops` nonzero sizes. */
static void writeScript(MemoptStringBuffer *script, const int64_t *sizes, intptr_t count,
                        intptr_t loops) {
  memoptStringBufferAppendFormat(
      script,
      "module attributes {transform.with_named_sequence} {\n"
      "  transform.named_sequence @__transform_main(%%func: !transform.any_op) {\n"
      "    %%root = transform.structured.match attributes {%s} in %%func"
      " : (!transform.any_op) -> !transform.any_op\n"
      "    %%tiled, %%loops:%ld = transform.structured.fuse %%root tile_sizes [",
      tileRootAttribute, (long)loops);
  for (intptr_t i = 0; i < count; ++i)
    memoptStringBufferAppendFormat(script, "%s%lld", i ? ", " : "", (long long)sizes[i]);
  memoptStringBufferAppendCString(script, "] : (!transform.any_op) -> (!transform.any_op");
  for (intptr_t i = 0; i < loops; ++i)
    memoptStringBufferAppendCString(script, ", !transform.any_op");
  memoptStringBufferAppendCString(script, ")\n"
                                          "    transform.apply_cse to %func : !transform.any_op\n"
                                          "    transform.apply_dce to %func : !transform.any_op\n"
                                          "    transform.yield\n"
                                          "  }\n"
                                          "}\n");
}

/* The tile sizes of each loop of `last` for the group's `tile`: the tiled
 * dimensions of the output; when `tile` covers the whole output, its first
 * dimension whole, so every group has a loop (of one tile) to localize.
 * Returns the number of loops; `loops` receives how many are tiled. */
static intptr_t tileSizes(MlirOperation last, MlirAttribute tile, int64_t **sizes,
                          intptr_t *loops) {
  MlirAttribute maps = mlirLinalgGetIndexingMapsAttribute(last);
  intptr_t count = mlirAffineMapGetNumDims(mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, 0)));
  *sizes = calloc((size_t)(count > 0 ? count : 1), sizeof **sizes);
  if (!*sizes)
    abort();
  MlirType output = mlirValueGetType(mlirOperationGetResult(last, 0));
  *loops = 0;
  for (intptr_t d = 0; d < mlirShapedTypeGetRank(output); ++d) {
    int64_t size = mlirDenseI64ArrayGetElement(tile, d);
    if (size < mlirShapedTypeGetDimSize(output, d)) {
      (*sizes)[loopOfResultDim(last, d)] = size;
      ++*loops;
    }
  }
  if (*loops == 0) {
    intptr_t loop = loopOfResultDim(last, 0);
    (*sizes)[loop >= 0 ? loop : 0] = mlirShapedTypeGetDimSize(output, 0);
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

typedef struct TaggedSearch {
  MlirIdentifier tag;
  MlirOperation found; /* the tagged op inside a loop */
} TaggedSearch;

static MlirWalkResult untag(MlirOperation op, void *userData) {
  TaggedSearch *search = userData;
  if (!mlirOperationRemoveAttributeByName(op, mlirIdentifierStr(search->tag)))
    return MlirWalkResultAdvance;
  MlirOperation parent = mlirOperationGetParentOperation(op);
  if (memoptOperationIsA(parent, "scf.for"))
    search->found = op;
  return MlirWalkResultAdvance;
}

static bool resultsUnused(MlirOperation op) {
  for (intptr_t i = 0; i < mlirOperationGetNumResults(op); ++i)
    if (!mlirOpOperandIsNull(mlirValueGetFirstUse(mlirOperationGetResult(op, i))))
      return false;
  return true;
}

static MlirWalkResult collectDeadLoop(MlirOperation op, void *userData) {
  if (memoptOperationIsA(op, "scf.for") && mlirOperationGetNumResults(op) > 0 && resultsUnused(op))
    *(MlirOperation *)userData = op;
  return MlirWalkResultAdvance;
}

/* Erases the loops nested in `nest` whose results nobody uses. Fusion
 * clones the tile loops of an earlier group that the group reads into its
 * own loop before CSE redirects the reads to the original; apply_dce keeps
 * the clone, since it allocates scratchpad tiles. */
static void eraseDeadLoops(MlirOperation nest) {
  for (;;) {
    MlirOperation dead = {NULL};
    mlirOperationWalk(nest, collectDeadLoop, &dead, MlirWalkPostOrder);
    if (mlirOperationIsNull(dead) || mlirOperationEqual(dead, nest))
      return;
    memoptEraseOp(dead);
  }
}

MlirLogicalResult spmLowerGroup(MlirOperation group, SpmLowering *lowering) {
  MlirContext context = mlirOperationGetContext(group);
  MlirOperation last = lastOp(group);
  MlirOperation parent = mlirOperationGetParentOperation(group);
  MlirLocation location = mlirOperationGetLocation(group);
  int64_t *sizes;
  intptr_t loops;
  intptr_t count = tileSizes(last, tileOf(group), &sizes, &loops);
  inlineGroup(group);
  mlirOperationSetAttributeByName(last, mlirStringRefCreateFromCString(tileRootAttribute),
                                  mlirUnitAttrGet(context));
  MemoptStringBuffer script = memoptStringBufferCreate();
  writeScript(&script, sizes, count, loops);
  free(sizes);
  MlirLogicalResult tiled = applyScript(lowering->func, memoptStringBufferGet(&script));
  memoptStringBufferDestroy(&script);

  TaggedSearch search = {mlirIdentifierGet(context, mlirStringRefCreateFromCString(tileRootAttribute)),
                         {NULL}};
  mlirOperationWalk(lowering->func, untag, &search, MlirWalkPreOrder);
  if (mlirLogicalResultIsFailure(tiled) || mlirOperationIsNull(search.found)) {
    mlirEmitError(location, "'spm.group' op cannot be lowered to memref: upstream tile-and-fuse "
                            "failed on its last op");
    return mlirLogicalResultFailure();
  }
  MlirOperation inner = mlirOperationGetParentOperation(search.found);
  MlirOperation outer = inner;
  for (MlirOperation up = mlirOperationGetParentOperation(outer); !mlirOperationEqual(up, parent);
       up = mlirOperationGetParentOperation(up))
    outer = up;
  eraseDeadLoops(outer);
  spmLocalizeTiles(outer, inner, lowering);
  return mlirLogicalResultSuccess();
}

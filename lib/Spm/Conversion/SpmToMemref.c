/* spm-to-memref: lowers the spm dialect (Pin or Fuse) to upstream tensor IR
 * whose bufferization puts scratchpad data in memory space N:
 *
 *   spm.pin    one arena `memref.alloc() : memref<Bxi8, N>` per function; the
 *              pinned tensor is materialized into `memref.view %arena[offset]`
 *              (bufferization.to_tensor restrict writable), so it lives at the
 *              byte offset spm-pin-fuse assigned
 *   spm.load   bufferization.alloc_tensor {memory_space = N} + linalg.copy
 *   spm.store  tensor.empty (default memory space) + linalg.copy
 *   spm.group  inlined; its last op is tiled by the group's `tile` and its
 *              producers fused into the tile loops (upstream tile-and-fuse,
 *              driven by a transform script, SpmTileGroup.c); then every tile
 *              works in memory space N (SpmTileCopies.c)
 *
 * Staying at tensor level leaves buffers, in-place decisions and
 * deallocation to upstream one-shot-bufferize. */
#include "Spm/Spm.h"
#include "Analysis/Analysis.h"
#include "Spm/Conversion/SpmLowering.h"
#include "IR/Builders.h"
#include "IR/IR.h"
#include "Support/Support.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/Affine.h"
#include "mlir-c/Dialect/Arith.h"
#include "mlir-c/Dialect/Bufferization.h"
#include "mlir-c/Dialect/Linalg.h"
#include "mlir-c/Dialect/MemRef.h"
#include "mlir-c/Dialect/SCF.h"
#include "mlir-c/Dialect/Tensor.h"
#include "mlir-c/Dialect/Transform.h"

#include <stdlib.h>

/* The spm ops of one function, in walk order. */
typedef struct SpmOps {
  MlirOperation *ops;
  size_t count;
  size_t capacity;
} SpmOps;

static MlirWalkResult collectSpmOp(MlirOperation op, void *userData) {
  if (!memoptOperationIsInDialect(op, "spm"))
    return MlirWalkResultAdvance;
  SpmOps *list = userData;
  list->ops = memoptGrowArray(list->ops, &list->capacity, list->count + 1, sizeof *list->ops);
  list->ops[list->count++] = op;
  return MlirWalkResultAdvance;
}

static MlirStringRef nameOf(MlirOperation op) {
  return mlirIdentifierStr(mlirOperationGetName(op));
}

/* Checks an spm.pin against the arena: a static shape (the verifier has
 * checked that `size` holds it), and [offset, offset + size) inside the first
 * `arenaBytes` bytes (0: no limit), which `arenaSource` gave. */
static bool checkPin(MlirOperation pin, int64_t arenaBytes, const char *arenaSource) {
  int64_t offset = memoptOperationGetIntegerAttr(pin, "offset");
  int64_t size = memoptOperationGetIntegerAttr(pin, "size");
  if (!mlirShapedTypeHasStaticShape(mlirValueGetType(mlirOperationGetResult(pin, 0)))) {
    spmCannotLower(mlirOperationGetLocation(pin), nameOf(pin),
                   "a pinned tensor needs a static shape");
    return false;
  }
  if (arenaBytes > 0 && offset > arenaBytes - size) {
    spmCannotLower(mlirOperationGetLocation(pin), nameOf(pin),
                   "bytes [%lld, %lld) lie outside the scratchpad of %s=%lld",
                   (long long)offset, (long long)(offset + size), arenaSource,
                   (long long)arenaBytes);
    return false;
  }
  return true;
}

static bool checkLoadStore(MlirOperation op) {
  if (mlirShapedTypeHasStaticShape(mlirValueGetType(mlirOperationGetResult(op, 0))))
    return true;
  spmCannotLower(mlirOperationGetLocation(op), nameOf(op),
                 "the copied tensor needs a static shape");
  return false;
}

/* The smallest arena holding every pin: the highest pin end. */
static int64_t pinsEnd(const SpmOps *ops) {
  int64_t end = 0;
  for (size_t i = 0; i < ops->count; ++i)
    if (!mlirOperationIsNull(ops->ops[i]) && memoptOperationIsA(ops->ops[i], "spm.pin")) {
      int64_t pinEnd =
          memoptOperationGetIntegerAttr(ops->ops[i], "offset") + memoptOperationGetIntegerAttr(ops->ops[i], "size");
      if (pinEnd > end)
        end = pinEnd;
    }
  return end;
}

/* Creates the arena, `memref.alloc() : memref<bytes x i8, space>`, at the
 * start of the function body. */
static MlirValue buildArena(MlirOperation func, int64_t bytes, const SpmLowering *lowering) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  MemoptBuilder builder = {body, mlirBlockGetFirstOperation(body), mlirOperationGetLocation(func)};
  MlirContext context = mlirOperationGetContext(func);
  MlirType type = mlirMemRefTypeGet(mlirIntegerTypeGet(context, 8), 1, &bytes,
                                    mlirAttributeGetNull(), spmMemorySpace(lowering, context));
  return memoptBuildOneResult(
      &builder, "memref.alloc", NULL, 0, type,
      (MlirNamedAttribute[]){spmSegmentSizes(context, 2, (int32_t[]){0, 0})}, 1);
}

/* spm.pin: the pinned value is materialized into its view of the arena.
 * The view is made at the function's start, after the arena, so a producer
 * before the pin can write into it (pinInPlace). Returns the materialization. */
static MlirOperation lowerPin(MlirOperation pin, MlirValue arena, const SpmLowering *lowering) {
  MlirOperation arenaOp = mlirOpResultGetOwner(arena);
  MemoptBuilder atStart = {mlirOperationGetBlock(arenaOp), mlirOperationGetNextInBlock(arenaOp),
                           mlirOperationGetLocation(pin)};
  MlirContext context = mlirOperationGetContext(pin);
  MlirType tensorType = mlirValueGetType(mlirOperationGetResult(pin, 0));
  intptr_t rank = mlirShapedTypeGetRank(tensorType);
  int64_t *shape = memoptAllocateZeroed((size_t)rank, sizeof *shape);
  for (intptr_t d = 0; d < rank; ++d)
    shape[d] = mlirShapedTypeGetDimSize(tensorType, d);
  MlirType viewType = mlirMemRefTypeGet(mlirShapedTypeGetElementType(tensorType), rank, shape,
                                        mlirAttributeGetNull(), spmMemorySpace(lowering, context));
  free(shape);
  MlirValue viewOperands[] = {arena,
                              memoptBuildIndexConstant(&atStart, memoptOperationGetIntegerAttr(pin, "offset"))};
  MlirValue view =
      memoptBuildOneResult(&atStart, "memref.view", viewOperands, 2, viewType, NULL, 0);
  MlirNamedAttribute restrictWritable[] = {
      memoptNamedAttribute(context, "restrict", mlirUnitAttrGet(context)),
      memoptNamedAttribute(context, "writable", mlirUnitAttrGet(context)),
  };
  MlirValue slot = memoptBuildOneResult(&atStart, "bufferization.to_tensor", &view, 1, tensorType,
                                        restrictWritable, 2);
  MemoptBuilder builder = memoptBuilderBefore(pin);
  MlirValue operands[] = {mlirOperationGetOperand(pin, 0), slot};
  MlirValue pinned = memoptBuildOneResult(&builder, "bufferization.materialize_in_destination",
                                          operands, 2, tensorType, NULL, 0);
  mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(pin, 0), pinned);
  memoptEraseOp(pin);
  return mlirOpResultGetOwner(pinned);
}

/* When the pinned value is a result of a group's tile loops, the loops
 * write their tiles straight into the arena instead of into an off-chip
 * tensor that is then copied: the loop starts from the arena view, and the
 * materialization goes. A loop that starts from a value (a convolution
 * accumulating into its broadcast bias, as torch-mlir writes it) starts from
 * a copy of it into the view: a load, of weights when it is constant data. */
static void pinInPlace(MlirOperation materialize, SpmLowering *lowering) {
  MlirValue source = mlirOperationGetOperand(materialize, 0);
  if (!mlirValueIsAOpResult(source) || !memoptOperationIsA(mlirOpResultGetOwner(source), "scf.for"))
    return;
  MlirOperation loop = mlirOpResultGetOwner(source);
  /* scf.for operands: lower, upper, step, then one init per result. */
  intptr_t initIndex = 3 + mlirOpResultGetResultNumber(source);
  MlirValue init = mlirOperationGetOperand(loop, initIndex);
  MlirValue view = mlirOperationGetOperand(materialize, 1);
  bool empty =
      mlirValueIsAOpResult(init) && memoptOperationIsA(mlirOpResultGetOwner(init), "tensor.empty");
  if (!empty) {
    MemoptBuilder builder = memoptBuilderBefore(loop);
    view = spmBuildCopy(&builder, init, view);
    spmLoweringAddCopy(lowering, mlirOpResultGetOwner(view),
                       spmIsConstantData(init) ? SpmCopyWeightLoad : SpmCopyTileLoad,
                       (MlirOperation){NULL});
  }
  mlirOperationSetOperand(loop, initIndex, view);
  mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(materialize, 0), source);
  memoptEraseOp(materialize);
  if (mlirValueIsAOpResult(init) && mlirOpOperandIsNull(mlirValueGetFirstUse(init)))
    memoptEraseOp(mlirOpResultGetOwner(init));
}

/* spm.load copies into memory space N, spm.store back to the default one. */
static void lowerLoadStore(MlirOperation op, SpmLowering *lowering) {
  MemoptBuilder builder = memoptBuilderBefore(op);
  MlirValue source = mlirOperationGetOperand(op, 0);
  MlirType type = mlirValueGetType(mlirOperationGetResult(op, 0));
  MlirValue destination = memoptOperationIsA(op, "spm.load")
                              ? spmBuildAllocTensor(&builder, type, NULL, 0, lowering)
                              : memoptBuildTensorEmpty(&builder, type, NULL, 0);
  MlirValue copied = spmBuildCopy(&builder, source, destination);
  spmLoweringAddCopy(lowering, mlirOpResultGetOwner(copied), SpmCopyExplicit,
                     (MlirOperation){NULL});
  mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), copied);
  memoptEraseOp(op);
}

/* The operand a destination-style op writes result `value` into, in place
 * when bufferization can: a linalg op's init, the destination of an insert
 * or a materialization, an scf.for init; null for other values. */
static MlirValue tiedDestination(MlirValue value) {
  MlirOperation owner = mlirOpResultGetOwner(value);
  intptr_t result = mlirOpResultGetResultNumber(value);
  if (memoptOperationIsA(owner, "tensor.insert_slice") || memoptOperationIsA(owner, "tensor.insert") ||
      memoptOperationIsA(owner, "bufferization.materialize_in_destination"))
    return mlirOperationGetOperand(owner, 1);
  if (memoptOperationIsA(owner, "scf.for"))
    return mlirOperationGetOperand(owner, 3 + result); /* lower, upper, step, then the inits */
  if (memoptOperationIsInDialect(owner, "linalg")) {
    /* The inits are the last operands, one per tensor result. */
    intptr_t inits = mlirOperationGetNumResults(owner);
    intptr_t first = mlirOperationGetNumOperands(owner) - inits;
    if (first >= 0 && mlirTypeIsATensor(mlirValueGetType(value)))
      return mlirOperationGetOperand(owner, first + result);
  }
  return (MlirValue){NULL};
}

/* True when `value` may live in the arena: a pinned value, a view of one,
 * or what a destination-style op wrote into one of those (a linalg op whose
 * init is the pinned value updates it in place). */
static bool mayBePinned(MlirValue value) {
  while (mlirValueIsAOpResult(value)) {
    MlirOperation owner = mlirOpResultGetOwner(value);
    if (memoptOperationIsA(owner, "spm.pin"))
      return true;
    value = memoptOperationIsView(owner) ? mlirOperationGetOperand(owner, 0)
                                         : tiedDestination(value);
    if (mlirValueIsNull(value))
      return false;
  }
  return false;
}

/* The arena lives as long as the function: a pinned value it returns, or a
 * value written into one in place, is copied out into a tensor of the
 * default memory space (a store), so the caller owns a buffer of its own.
 * Returning views of the arena instead made two results share one
 * allocation, which the caller freed twice. (A value bufferization writes
 * out of place after all gets a copy it did not need.) */
static void copyOutReturnedPins(MlirOperation func, SpmLowering *lowering) {
  MlirRegion region = mlirOperationGetRegion(func, 0);
  for (MlirBlock block = mlirRegionGetFirstBlock(region); !mlirBlockIsNull(block);
       block = mlirBlockGetNextInRegion(block)) {
    MlirOperation terminator = mlirBlockGetTerminator(block);
    if (mlirOperationIsNull(terminator) || !memoptOperationIsA(terminator, "func.return"))
      continue;
    for (intptr_t i = 0; i < mlirOperationGetNumOperands(terminator); ++i) {
      MlirValue value = mlirOperationGetOperand(terminator, i);
      if (!mayBePinned(value))
        continue;
      MemoptBuilder builder = memoptBuilderBefore(terminator);
      MlirValue stored = spmBuildCopy(
          &builder, value, memoptBuildTensorEmpty(&builder, mlirValueGetType(value), NULL, 0));
      spmLoweringAddCopy(lowering, mlirOpResultGetOwner(stored), SpmCopyTileStore,
                         (MlirOperation){NULL});
      mlirOperationSetOperand(terminator, i, stored);
    }
  }
}

/* Emits a remark at `func` with the bytes its copy sites move. */
static void reportCopiedBytes(MlirOperation func, const SpmLowering *lowering) {
  SpmCopyTotals totals;
  bool complete = spmCountCopies(lowering, &totals);
  MlirStringRef name = mlirStringAttrGetValue(
      mlirOperationGetAttributeByName(func, mlirStringRefCreateFromCString("sym_name")));
  MemoptStringBuffer message = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(
      &message,
      "spm-to-memref: @%.*s: copies %llu feature-map bytes between off-chip memory and the "
      "scratchpad (%llu loaded, halos included; %llu stored), %llu weight bytes, %llu through "
      "spm.load/spm.store%s",
      (int)name.length, name.data, (unsigned long long)(totals.loadedBytes + totals.storedBytes),
      (unsigned long long)totals.loadedBytes, (unsigned long long)totals.storedBytes,
      (unsigned long long)totals.weightBytes, (unsigned long long)totals.explicitBytes,
      complete ? ""
               : "; some copies are left out: their loop bounds or tile sizes are unknown, or "
                 "their bytes do not fit 64 bits");
  memoptEmitDiagnostic(mlirOperationGetLocation(func), MlirDiagnosticRemark,
                       memoptStringBufferGet(&message));
  memoptStringBufferDestroy(&message);
}

MlirLogicalResult memoptLowerSpm(MlirOperation func, int64_t memorySpace, int64_t spmBytes,
                                 const char *spmBytesSource, bool reportCopies) {
  if (mlirLogicalResultIsFailure(memoptVerifyOps(func)))
    return mlirLogicalResultFailure();
  SpmOps ops = {NULL, 0, 0};
  mlirOperationWalk(func, collectSpmOp, &ops, MlirWalkPreOrder);
  /* Check everything before changing anything, so a failure leaves the IR
   * as it was. */
  bool ok = true;
  for (size_t i = 0; i < ops.count; ++i) {
    MlirOperation op = ops.ops[i];
    if (memoptOperationIsA(op, "spm.pin"))
      ok &= checkPin(op, spmBytes, spmBytesSource);
    else if (memoptOperationIsA(op, "spm.group"))
      ok &= spmCheckGroup(op);
    else
      ok &= checkLoadStore(op);
  }
  if (!ok) {
    free(ops.ops);
    return mlirLogicalResultFailure();
  }
  SpmLowering lowering = {.memorySpace = memorySpace, .func = func};
  copyOutReturnedPins(func, &lowering);
  for (size_t i = 0; i < ops.count; ++i) {
    MlirOperation op = ops.ops[i];
    if (memoptOperationIsA(op, "spm.pin")) {
      spmLoweringAddPinned(&lowering, mlirOperationGetResult(op, 0));
    } else if (!memoptOperationIsA(op, "spm.group")) {
      lowerLoadStore(op, &lowering);
      ops.ops[i] = (MlirOperation){NULL}; /* erased */
    }
  }
  /* Groups before pins: their tiles read pinned values without copies, and
   * the CSE that tiling runs must not see the arena views, since two pins
   * at one offset (at different times) would become one view. */
  for (size_t i = 0; i < ops.count && ok; ++i)
    if (!mlirOperationIsNull(ops.ops[i]) && memoptOperationIsA(ops.ops[i], "spm.group")) {
      ok = mlirLogicalResultIsSuccess(spmLowerGroup(ops.ops[i], &lowering));
      ops.ops[i] = (MlirOperation){NULL}; /* erased */
    }
  int64_t arenaBytes = spmBytes > 0 ? spmBytes : pinsEnd(&ops);
  MlirValue arena = {NULL};
  for (size_t i = 0; i < ops.count && ok; ++i)
    if (!mlirOperationIsNull(ops.ops[i]) && memoptOperationIsA(ops.ops[i], "spm.pin")) {
      if (mlirValueIsNull(arena))
        arena = buildArena(func, arenaBytes, &lowering);
      pinInPlace(lowerPin(ops.ops[i], arena, &lowering), &lowering);
    }
  if (ok && reportCopies)
    reportCopiedBytes(func, &lowering);
  spmLoweringDestroy(&lowering);
  free(ops.ops);
  return ok ? mlirLogicalResultSuccess() : mlirLogicalResultFailure();
}

static const MemoptPassOptionInfo spmToMemrefOptions[] = {
    {"memory-space", MemoptOptionInteger, "1",
     "memory space of scratchpad buffers (0: the default one, so the program runs as is)", NULL, 0,
     1 << 30},
    {"spm-bytes", MemoptOptionBytes, "0",
     "size of the pin arena; pins must lie inside it (0: the spm_bytes of the module's "
     "spm.target, else up to the highest pin end)",
     NULL, 0, 9e18},
    {"report-copies", MemoptOptionBool, "false",
     "remark per function: bytes the lowered program copies between off-chip memory and the "
     "scratchpad",
     NULL, 0, 0},
};

/* The arena size: the spm-bytes option, else the scratchpad of the
 * `spm.target` of the nearest enclosing op that has one (read as
 * spm-pin-fuse reads it: a preset, or a dictionary over spm-2m), else 0. False after an error when that attribute is
 * malformed. */
static bool arenaBytesOf(MlirOperation func, const MemoptPassOptions *options, int64_t *bytes,
                         const char **source) {
  *bytes = memoptPassOptionsGetInteger(options, "spm-bytes");
  *source = "spm-bytes";
  if (*bytes > 0)
    return true;
  MlirStringRef name = mlirStringRefCreateFromCString("spm.target");
  for (MlirOperation op = mlirOperationGetParentOperation(func); !mlirOperationIsNull(op);
       op = mlirOperationGetParentOperation(op)) {
    if (mlirAttributeIsNull(mlirOperationGetDiscardableAttributeByName(op, name)))
      continue;
    MemoptSpmTarget target;
    memoptSpmTargetPreset("spm-2m", &target); /* what a dictionary without a preset refines */
    MemoptStringBuffer error = memoptStringBufferCreate();
    bool ok = memoptSpmTargetFromModule(op, &target, &error);
    if (!ok)
      memoptEmitOpDiagnostic(op, MlirDiagnosticError, "spm-to-memref: %s", error.data);
    memoptStringBufferDestroy(&error);
    /* A preset, or spm_bytes, is positive and below 2^63. */
    *bytes = (int64_t)target.spmBytes;
    *source = "spm.target spm_bytes";
    return ok;
  }
  return true;
}

static MlirLogicalResult runSpmToMemref(MlirOperation op, const MemoptPassOptions *options) {
  int64_t arenaBytes;
  const char *arenaSource;
  if (!arenaBytesOf(op, options, &arenaBytes, &arenaSource))
    return mlirLogicalResultFailure();
  return memoptLowerSpm(op, memoptPassOptionsGetInteger(options, "memory-space"), arenaBytes,
                        arenaSource, memoptPassOptionsGetBool(options, "report-copies"));
}

static MlirDialectHandle (*const spmToMemrefDialects[])(void) = {
    mlirGetDialectHandle__arith__,  mlirGetDialectHandle__bufferization__,
    mlirGetDialectHandle__linalg__, mlirGetDialectHandle__memref__,
    mlirGetDialectHandle__scf__,    mlirGetDialectHandle__tensor__,
    mlirGetDialectHandle__affine__, mlirGetDialectHandle__transform__,
};

const MemoptPassInfo memoptSpmToMemrefPass = {
    .argument = "spm-to-memref",
    .summary = "Lower spm groups, pins, loads and stores to tile loops over tensors in a fast "
               "memory space with explicit copies, and a pin arena of memrefs",
    .anchor = "func.func",
    .options = spmToMemrefOptions,
    .optionCount = sizeof spmToMemrefOptions / sizeof *spmToMemrefOptions,
    .dependentDialects = spmToMemrefDialects,
    .dependentDialectCount = sizeof spmToMemrefDialects / sizeof *spmToMemrefDialects,
    .run = runSpmToMemref,
};

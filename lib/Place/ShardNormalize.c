/* The IR normalization place-to-shard applies to an outlined stage before
 * sharding it, so that upstream sharding-propagation sees only ops with a
 * sharding interface at the top level of the function.
 *
 * Upstream (MLIR 22) gives tensor.expand_shape, collapse_shape and
 * extract_slice no sharding interface, and every transformer layer reshapes
 * (batch x sequence) around each matmul and (heads x head size) around
 * attention. Upstream's own rewrites remove them: linalg-generalize-named-ops
 * makes every linalg op a linalg.generic, linalg-fuse-elementwise-ops folds
 * each reshape into the generics around it by expanding their loops (and
 * fuses elementwise producers into consumers), canonicalize drops identity
 * slices. A slice of a computed value (GPT-2's q, k, v thirds of one fused
 * projection) moves up: each slice gets a copy of its producer, narrowed to
 * the slice on slices of its operands (lib/Remat/SliceNarrowing.c), up to
 * the arguments; the pipeline then runs again to fold the reshapes that
 * followed. Before all that, a tensor.concat of equal parts (Llama's
 * rotary embedding) becomes a linalg.generic over a part loop and a
 * collapse_shape (ConcatAsGeneric.c), which the pipeline folds like any
 * reshape. Reshape fusion folds a reshape only into its one reader, so a
 * reshape of a computed value read by several ops (grouped-query
 * attention's scores) gets a copy per reader and the pipeline runs again.
 * What is left is views of the function's own arguments (a weight
 * seen as [hidden, heads, head size]); those are hoisted: the stage takes the
 * view as an argument of its own (the same row-major data for a reshape).
 * A generic that only fills its init becomes a linalg.fill again, which
 * place-fold-neutral-inits recognizes after shard-partition
 * (fillsAsNamedFills).
 * Constants a linalg body reads from the function are cloned into the body:
 * upstream 22's shard-partition of a generic whose reduction loop is split
 * rebuilds the body without the function's constants, leaving those uses
 * dangling (a crash in the verifier). A call of the stage (place-to-shard's
 * pipeline driver) is kept in step: each hoisted view is applied to the
 * call's operand, and each returned view, replaced by its source, is applied
 * to the call's result. */
#include "Place/Place.h"
#include "IR/IR.h"
#include "IR/Builders.h"
#include "Remat/SliceNarrowing.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <stdlib.h>

static const char normalizationPipeline[] =
    "func.func(linalg-generalize-named-ops,linalg-fuse-elementwise-ops,canonicalize)";

/* True when `op` is a view op of a static result whose source is `value`. */
static bool isHoistableView(MlirOperation op, MlirValue value) {
  if (!memoptOperationIsTensorReshape(op) && !memoptOperationIsA(op, "tensor.extract_slice"))
    return false;
  if (mlirOperationGetNumOperands(op) != 1 || !mlirValueEqual(mlirOperationGetOperand(op, 0), value))
    return false;
  MlirType type = mlirValueGetType(mlirOperationGetResult(op, 0));
  return mlirShapedTypeHasStaticShape(type);
}

/* Finds a top-level view of an argument of `func`; returns its op and sets
 * `*argument` to the argument's index, or returns a null op. */
static MlirOperation findArgumentView(MlirOperation func, intptr_t *argument) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (mlirOperationGetNumOperands(op) != 1)
      continue;
    MlirValue source = mlirOperationGetOperand(op, 0);
    if (!mlirValueIsABlockArgument(source) ||
        !mlirBlockEqual(mlirBlockArgumentGetOwner(source), body) || !isHoistableView(op, source))
      continue;
    *argument = mlirBlockArgumentGetArgNumber(source);
    return op;
  }
  return (MlirOperation){NULL};
}

/* True when the views `a` and `b` are the same: one op name, one result
 * type, equal attributes (the caller checks that they view one value). */
static bool isSameView(MlirOperation a, MlirOperation b) {
  if (!mlirIdentifierEqual(mlirOperationGetName(a), mlirOperationGetName(b)) ||
      !mlirTypeEqual(mlirValueGetType(mlirOperationGetResult(a, 0)),
                     mlirValueGetType(mlirOperationGetResult(b, 0))) ||
      mlirOperationGetNumAttributes(a) != mlirOperationGetNumAttributes(b))
    return false;
  for (intptr_t k = 0; k < mlirOperationGetNumAttributes(a); ++k) {
    MlirNamedAttribute named = mlirOperationGetAttribute(a, k);
    MlirAttribute other = mlirOperationGetAttributeByName(b, mlirIdentifierStr(named.name));
    if (mlirAttributeIsNull(other) || !mlirAttributeEqual(named.attribute, other))
      return false;
  }
  return true;
}

/* Erases every other top-level view of `view`'s source that is the same
 * view, its readers reading `view` instead: one argument for both (the
 * attention output weight seen as [heads, head size, hidden] by the forward
 * and by the backward). */
static void mergeSameViews(MlirOperation view) {
  MlirValue source = mlirOperationGetOperand(view, 0);
  MlirBlock block = mlirOperationGetBlock(view);
  for (MlirOpOperand use = mlirValueGetFirstUse(source), next; !mlirOpOperandIsNull(use);
       use = next) {
    next = mlirOpOperandGetNextUse(use);
    MlirOperation other = mlirOpOperandGetOwner(use);
    if (mlirOperationEqual(other, view) || !mlirBlockEqual(mlirOperationGetBlock(other), block) ||
        !isHoistableView(other, source) || !isSameView(view, other))
      continue;
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(other, 0),
                                  mlirOperationGetResult(view, 0));
    mlirOperationDestroy(other);
  }
}

/* True when `op` is nested in a region of `ancestor`. */
static bool isNestedIn(MlirOperation op, MlirOperation ancestor) {
  for (MlirOperation parent = mlirOperationGetParentOperation(op); !mlirOperationIsNull(parent);
       parent = mlirOperationGetParentOperation(parent))
    if (mlirOperationEqual(parent, ancestor))
      return true;
  return false;
}

/* Clones into the body of each top-level linalg op of `func` the
 * arith.constant ops of the function it reads; those left unread go. */
static void sinkConstants(MlirOperation func) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  for (MlirOperation constant = mlirBlockGetFirstOperation(body), next; !mlirOperationIsNull(constant);
       constant = next) {
    next = mlirOperationGetNextInBlock(constant);
    if (!memoptOperationIsA(constant, "arith.constant"))
      continue;
    MlirValue value = mlirOperationGetResult(constant, 0);
    for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
         op = mlirOperationGetNextInBlock(op)) {
      if (mlirOperationGetNumRegions(op) != 1 || !memoptOperationIsInDialect(op, "linalg"))
        continue;
      MlirBlock inner = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
      bool read = false;
      for (MlirOpOperand use = mlirValueGetFirstUse(value); !mlirOpOperandIsNull(use) && !read;
           use = mlirOpOperandGetNextUse(use))
        read = isNestedIn(mlirOpOperandGetOwner(use), op);
      if (!read || mlirBlockIsNull(inner))
        continue;
      MlirOperation clone = mlirOperationClone(constant);
      mlirBlockInsertOwnedOperationBefore(inner, mlirBlockGetFirstOperation(inner), clone);
      memoptValueReplaceUsesByScope(value, mlirOperationGetResult(clone, 0), op, true);
    }
    if (mlirOpOperandIsNull(mlirValueGetFirstUse(value)))
      mlirOperationDestroy(constant);
  }
}

/* The scalar a linalg.generic writes to every element of its init when it
 * has no inputs and all-parallel loops and its body yields one: a value
 * defined outside it, or an arith.constant right before the yield. A null
 * value for any other op. */
static MlirValue filledValue(MlirOperation op) {
  MlirValue none = {NULL};
  if (!memoptOperationIsA(op, "linalg.generic") || mlirOperationGetNumOperands(op) != 1 ||
      mlirOperationGetNumResults(op) != 1)
    return none;
  MlirAttribute iterators =
      mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("iterator_types"));
  for (intptr_t l = 0; l < mlirArrayAttrGetNumElements(iterators); ++l)
    if (memoptLinalgIteratorKind(mlirArrayAttrGetElement(iterators, l)) != MemoptIteratorParallel)
      return none;
  MlirBlock inner = memoptSingleBlock(op);
  MlirOperation yield = mlirBlockGetTerminator(inner);
  MlirValue value = mlirOperationGetOperand(yield, 0);
  if (!memoptValueIsDefinedInside(value, op))
    return value;
  if (mlirValueIsABlockArgument(value))
    return none;
  MlirOperation producer = mlirOpResultGetOwner(value);
  return memoptOperationIsA(producer, "arith.constant") &&
                 mlirOperationEqual(mlirOperationGetNextInBlock(producer), yield)
             ? value
             : none;
}

/* Rewrites each top-level generic of `body` that fills its init with one
 * scalar (linalg-generalize-named-ops made it of a linalg.fill) back into a
 * linalg.fill, a constant of its body cloned before it. shard-partition
 * gives a reduction split over the devices an init of its own on every
 * device but the first: a linalg.fill of the combiner's neutral element,
 * under an scf.if on the device index. When the function's init is a fill
 * of the same constant, place-fold-neutral-inits (PlaceFoldNeutralInits.c)
 * drops the scf.if; otherwise every other device holds both inits until the
 * function returns (a second copy of every gradient of a data-parallel
 * training step). */
static void fillsAsNamedFills(MlirBlock body) {
  for (MlirOperation op = mlirBlockGetFirstOperation(body), next; !mlirOperationIsNull(op);
       op = next) {
    next = mlirOperationGetNextInBlock(op);
    MlirValue value = filledValue(op);
    if (mlirValueIsNull(value))
      continue;
    if (memoptValueIsDefinedInside(value, op)) {
      MlirOperation constant = mlirOperationClone(mlirOpResultGetOwner(value));
      mlirBlockInsertOwnedOperationBefore(body, op, constant);
      value = mlirOperationGetResult(constant, 0);
    }
    MemoptBuilder builder = memoptBuilderBefore(op);
    MlirValue fill =
        memoptBuildLinalgNamedUnary(&builder, "linalg.fill", value, mlirOperationGetOperand(op, 0));
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), fill);
    mlirOperationDestroy(op);
  }
}

/* True when `op` is a collapse_shape or expand_shape of an op's result. */
static bool isReshapeOfComputedValue(MlirOperation op) {
  return memoptOperationIsTensorReshape(op) && mlirValueIsAOpResult(mlirOperationGetOperand(op, 0));
}

/* Gives each reshape in `body` of a result of a linalg.generic that reads
 * no tensor (a table computed from linalg.index, such as Llama's rotary
 * cosines and sines) whose results have other uses a copy of that generic
 * of its own: reshape fusion folds a reshape into its producer only when it
 * is the producer's one use, and a table costs nothing to compute twice.
 * True when something was copied. */
static bool copyTablesPerReshape(MlirBlock body) {
  bool copied = false;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!isReshapeOfComputedValue(op))
      continue;
    MlirValue source = mlirOperationGetOperand(op, 0);
    MlirOperation table = mlirOpResultGetOwner(source);
    if (!memoptOperationIsA(table, "linalg.generic") ||
        mlirOperationGetNumOperands(table) != mlirOperationGetNumResults(table) ||
        !mlirBlockEqual(mlirOperationGetBlock(table), body))
      continue;
    size_t uses = 0;
    for (intptr_t r = 0; r < mlirOperationGetNumResults(table); ++r)
      for (MlirOpOperand use = mlirValueGetFirstUse(mlirOperationGetResult(table, r));
           !mlirOpOperandIsNull(use); use = mlirOpOperandGetNextUse(use))
        ++uses;
    if (uses < 2)
      continue;
    MlirOperation copy = mlirOperationClone(table);
    mlirBlockInsertOwnedOperationBefore(body, op, copy);
    mlirOperationSetOperand(
        op, 0, mlirOperationGetResult(copy, mlirOpResultGetResultNumber(source)));
    copied = true;
  }
  return copied;
}

/* Rewrites the function type of `func` from its entry block's arguments. */
static void updateFunctionType(MlirOperation func) {
  MlirContext context = mlirOperationGetContext(func);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  MlirAttribute typeAttr =
      mlirOperationGetAttributeByName(func, mlirStringRefCreateFromCString("function_type"));
  MlirType old = mlirTypeAttrGetValue(typeAttr);
  intptr_t inputs = mlirBlockGetNumArguments(body), results = mlirFunctionTypeGetNumResults(old);
  MlirType *inputTypes = memoptAllocateZeroed((size_t)inputs + 1, sizeof *inputTypes);
  MlirType *resultTypes = memoptAllocateZeroed((size_t)results + 1, sizeof *resultTypes);
  for (intptr_t k = 0; k < inputs; ++k)
    inputTypes[k] = mlirValueGetType(mlirBlockGetArgument(body, k));
  for (intptr_t r = 0; r < results; ++r)
    resultTypes[r] = mlirFunctionTypeGetResult(old, r);
  MlirType type = mlirFunctionTypeGet(context, inputs, inputTypes, results, resultTypes);
  mlirOperationSetAttributeByName(func, mlirStringRefCreateFromCString("function_type"),
                                  mlirTypeAttrGet(type));
  free(resultTypes);
  free(inputTypes);
}

/* Runs the normalization pipeline on `func`; on failure `message` says why. */
static MlirLogicalResult runPipeline(MlirOperation func, MemoptStringBuffer *message) {
  MlirContext context = mlirOperationGetContext(func);
  MlirPassManager passManager =
      mlirPassManagerCreateOnOperation(context, mlirStringRefCreateFromCString("func.func"));
  MlirLogicalResult parsed = mlirParsePassPipeline(
      mlirPassManagerGetAsOpPassManager(passManager),
      mlirStringRefCreateFromCString(normalizationPipeline), memoptAppendToBuffer, message);
  bool ok = mlirLogicalResultIsSuccess(parsed) &&
            mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(passManager, func));
  mlirPassManagerDestroy(passManager);
  if (!ok && message->length == 0)
    memoptStringBufferAppendFormat(message, "upstream %s failed", normalizationPipeline);
  return ok ? mlirLogicalResultSuccess() : mlirLogicalResultFailure();
}

/* Gives each tensor.extract_slice of a top-level linalg op's result in
 * `body` a copy of that op of its own, when every use of the result is such
 * a slice (the three thirds q, k, v of a fused qkv projection); true when
 * something was copied. */
static bool copyProducersPerSlice(MlirBlock body) {
  bool copied = false;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!memoptOperationIsInDialect(op, "linalg") || mlirOperationGetNumResults(op) != 1 ||
        mlirOperationGetNumRegions(op) != 1 || memoptLinalgReadsLoopIndex(op, -1))
      continue;
    MlirValue result = mlirOperationGetResult(op, 0);
    MlirOpOperand first = mlirValueGetFirstUse(result);
    if (mlirOpOperandIsNull(first) || memoptValueHasOneUse(result))
      continue;
    bool slicesOnly = true;
    for (MlirOpOperand use = first; !mlirOpOperandIsNull(use) && slicesOnly;
         use = mlirOpOperandGetNextUse(use))
      slicesOnly = memoptOperationIsA(mlirOpOperandGetOwner(use), "tensor.extract_slice") &&
                   mlirBlockEqual(mlirOperationGetBlock(mlirOpOperandGetOwner(use)), body);
    if (!slicesOnly)
      continue;
    /* Every slice but the first reads a copy made right before it. */
    while (!memoptValueHasOneUse(result)) {
      MlirOperation slice = mlirOpOperandGetOwner(mlirValueGetFirstUse(result));
      MlirOperation copy = mlirOperationClone(op);
      mlirBlockInsertOwnedOperationBefore(body, slice, copy);
      mlirOperationSetOperand(slice, 0, mlirOperationGetResult(copy, 0));
    }
    copied = true;
  }
  return copied;
}

/* Gives each use of a top-level tensor.collapse_shape or expand_shape of a
 * computed value in `body` a reshape of its own: upstream's reshape fusion
 * folds a reshape into a generic only when the reshape has no other use
 * (grouped-query attention's scores, collapsed from [kv heads, group] to
 * heads, are read by the row maximum and by the exponent). True when
 * something was copied. */
static bool copyReshapesPerUse(MlirBlock body) {
  bool copied = false;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!isReshapeOfComputedValue(op))
      continue;
    MlirValue result = mlirOperationGetResult(op, 0);
    /* Every use but the first reads a copy made right after the reshape. */
    while (!mlirOpOperandIsNull(mlirValueGetFirstUse(result)) && !memoptValueHasOneUse(result)) {
      MlirOpOperand use = mlirValueGetFirstUse(result);
      MlirOperation copy = mlirOperationClone(op);
      mlirBlockInsertOwnedOperationAfter(body, op, copy);
      mlirOperationSetOperand(mlirOpOperandGetOwner(use), mlirOpOperandGetOperandNumber(use),
                              mlirOperationGetResult(copy, 0));
      copied = true;
    }
  }
  return copied;
}

/* Keeps `call` (a func.call of the function being normalized, or a null op)
 * calling it the same way after argument `argument` got the hoisted view
 * `view` as a new last argument: a copy of the view of the call's operand,
 * right before the call, becomes the call's last operand; when `erased`, the
 * argument itself was erased and its operand goes. */
static void hoistAtCall(MlirOperation call, MlirOperation view, intptr_t argument, bool erased) {
  if (mlirOperationIsNull(call))
    return;
  MlirOperation copy = mlirOperationClone(view);
  mlirOperationSetOperand(copy, 0, mlirOperationGetOperand(call, argument));
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(call), call, copy);
  intptr_t count = mlirOperationGetNumOperands(call);
  MlirValue *operands = memoptAllocateZeroed((size_t)count + 1, sizeof *operands);
  intptr_t kept = 0;
  for (intptr_t k = 0; k < count; ++k)
    if (!erased || k != argument)
      operands[kept++] = mlirOperationGetOperand(call, k);
  operands[kept++] = mlirOperationGetResult(copy, 0);
  mlirOperationSetOperands(call, kept, operands);
  free(operands);
}

/* Keeps `call` (or a null op) giving its users what `func` returned before
 * memoptShardReturnViewSources: each call result gets its type from the
 * function, and where `views` (what memoptShardReturnViewSources replaced,
 * consumed) holds the function's former view of it, that view right after
 * the call, which the result's users read instead. */
static void reviewAtCall(MlirOperation call, MlirOperation func, MlirOperation *views) {
  MlirType type = mlirTypeAttrGetValue(
      mlirOperationGetAttributeByName(func, mlirStringRefCreateFromCString("function_type")));
  MlirOperation after = call;
  for (intptr_t r = 0; r < mlirFunctionTypeGetNumResults(type); ++r) {
    if (mlirOperationIsNull(views[r]))
      continue;
    if (mlirOperationIsNull(call)) {
      mlirOperationDestroy(views[r]);
      continue;
    }
    MlirValue result = mlirOperationGetResult(call, r);
    mlirValueSetType(result, mlirFunctionTypeGetResult(type, r));
    mlirBlockInsertOwnedOperationAfter(mlirOperationGetBlock(call), after, views[r]);
    mlirOperationSetOperand(views[r], 0, result);
    memoptValueReplaceUsesByScope(result, mlirOperationGetResult(views[r], 0), views[r], false);
    after = views[r];
  }
  free(views);
}

MlirLogicalResult memoptShardNormalize(MlirOperation func, MlirOperation call, bool **parameters,
                                       MemoptStringBuffer *message) {
  /* Concats and block inserts first: the pipeline then folds their reshapes
   * away. */
  MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  memoptRewriteConcatsAsGenerics(entry);
  memoptShardRewriteBlockInserts(entry);
  if (mlirLogicalResultIsFailure(runPipeline(func, message)))
    return mlirLogicalResultFailure();
  /* Slices of computed values move up to the arguments (each slice's
   * producer computes just that slice, on slices of its operands), where
   * they are views to hoist; then the pipeline again, whose reshape fusion
   * folds the reshapes that followed the slices. */
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  bool moved = false;
  for (bool again = true; again;) {
    size_t swapped = memoptShardSwapSlicesOfCollapses(body) + memoptShardPinSlicedIndexLoops(body);
    bool copied = copyProducersPerSlice(body);
    size_t narrowed = memoptNarrowSlicedProducers(body);
    again = swapped > 0 || copied || narrowed > 0;
    moved = moved || swapped > 0 || narrowed > 0;
  }
  if (moved && mlirLogicalResultIsFailure(runPipeline(func, message)))
    return mlirLogicalResultFailure();
  /* A reshape of a computed value left with several uses: one per use, and
   * the pipeline again, until the reshapes it leaves have one use each. */
  while (copyReshapesPerUse(body) || copyTablesPerReshape(body))
    if (mlirLogicalResultIsFailure(runPipeline(func, message)))
      return mlirLogicalResultFailure();

  /* Hoist the views of arguments, one at a time: each becomes a new
   * argument, a parameter when its source is one, and one argument for
   * views that are the same; sources left without uses go. A view whose
   * source stays an argument is marked with how to make it from the source
   * (memoptHoistedViewsMark). */
  intptr_t argument = 0;
  MemoptHoistedViews *views = memoptHoistedViewsCreate();
  for (MlirOperation view = findArgumentView(func, &argument); !mlirOperationIsNull(view);
       view = findArgumentView(func, &argument)) {
    mergeSameViews(view);
    MlirValue result = mlirOperationGetResult(view, 0);
    intptr_t count = mlirBlockGetNumArguments(body);
    *parameters = memoptReallocArray(*parameters, (size_t)count + 1, sizeof **parameters);
    (*parameters)[count] = (*parameters)[argument];
    MlirValue hoisted =
        mlirBlockAddArgument(body, mlirValueGetType(result), mlirOperationGetLocation(view));
    mlirValueReplaceAllUsesOfWith(result, hoisted);
    MlirValue source = mlirOperationGetOperand(view, 0);
    bool erased = memoptValueHasOneUse(source);
    hoistAtCall(call, view, argument, erased);
    if (!erased || memoptHoistedViewsHas(views, source))
      memoptHoistedViewsRecord(views, hoisted, view, source);
    if (erased)
      memoptHoistedViewsReroot(views, source, view, hoisted);
    mlirOperationDestroy(view);
    if (erased) {
      mlirBlockEraseArgument(body, (unsigned)argument);
      for (intptr_t k = argument; k < count; ++k)
        (*parameters)[k] = (*parameters)[k + 1];
    }
  }
  reviewAtCall(call, func, memoptShardReturnViewSources(func));
  updateFunctionType(func);
  memoptHoistedViewsMark(views, func);
  fillsAsNamedFills(body);
  sinkConstants(func);
  return mlirLogicalResultSuccess();
}

/* The window AutoChunk's search measures its candidates in: the ops around
 * the peak cut out of the function into a small function of their own.
 * Chunking a range only changes the live bytes of the positions inside it
 * (values live across it, or defined in it and used after it, keep their
 * sizes), so a candidate can be built, lowered and estimated on the window
 * instead of the whole function; the search adds the positions outside from
 * one profile of the whole function per stage. That keeps the cost of a
 * candidate independent of the model's size.
 *
 * The window function keeps the function's arguments. An earlier activation
 * the window reads becomes a tensor.empty at its start: a fresh writable
 * buffer of the same size, live until its last use, like the original. What
 * is used after the window is returned, so it stays live to the end. Values
 * that are not activations (arguments, constants, views of arguments,
 * scalars) keep the ops that define them. */
#include "Chunk/Chunk.h"
#include "Chunk/AutoChunk.h"

#include "Analysis/Analysis.h"
#include "IR/Builders.h"
#include "IR/IR.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdlib.h>

/* A growable list of distinct values. */
typedef struct ValueList {
  MlirValue *values;
  intptr_t count;
  size_t capacity;
} ValueList;

static void valueListAdd(ValueList *list, MlirValue value) {
  for (intptr_t i = 0; i < list->count; ++i)
    if (mlirValueEqual(list->values[i], value))
      return;
  list->values =
      memoptGrowArray(list->values, &list->capacity, (size_t)list->count + 1, sizeof *list->values);
  list->values[list->count++] = value;
}

/* What collectLaterUses needs: the body whose values count, and the list. */
typedef struct LaterUses {
  MlirBlock body;
  ValueList *used;
} LaterUses;

/* Adds to the list the operands of `op` defined by an op (at any depth) that
 * is still in the body, that is, before the cut. */
static MlirWalkResult collectLaterUses(MlirOperation op, void *userData) {
  LaterUses *uses = userData;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i) {
    MlirValue value = mlirOperationGetOperand(op, i);
    if (!mlirValueIsAOpResult(value))
      continue;
    if (!mlirOperationIsNull(
            memoptOperationAncestorInBlock(mlirOpResultGetOwner(value), uses->body)))
      valueListAdd(uses->used, value);
  }
  return MlirWalkResultAdvance;
}

/* Removes the ops after `last` and the terminator, and returns what they used
 * from the ops before them instead. */
static void cutAfter(MlirOperation window, MlirBlock body, MlirOperation last) {
  MlirBlock later = mlirBlockCreate(0, NULL, NULL);
  for (MlirOperation op = mlirOperationGetNextInBlock(last); !mlirOperationIsNull(op);) {
    MlirOperation next = mlirOperationGetNextInBlock(op);
    mlirOperationRemoveFromParent(op);
    mlirBlockAppendOwnedOperation(later, op);
    op = next;
  }
  ValueList used = {NULL, 0, 0};
  LaterUses uses = {body, &used};
  for (MlirOperation op = mlirBlockGetFirstOperation(later); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    mlirOperationWalk(op, collectLaterUses, &uses, MlirWalkPreOrder);
  mlirBlockDestroy(later);

  MemoptBuilder atEnd = memoptBuilderAtEnd(body, mlirOperationGetLocation(window));
  memoptBuildYield(&atEnd, "func.return", used.values, used.count);
  free(used.values);
}

/* Makes the window return what its return returns and `more`, and gives it
 * the matching function type. */
static void finishReturn(MlirOperation window, MlirBlock body, const ValueList *more) {
  MlirOperation oldReturn = mlirBlockGetTerminator(body);
  ValueList returned = {NULL, 0, 0};
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(oldReturn); ++i)
    valueListAdd(&returned, mlirOperationGetOperand(oldReturn, i));
  for (intptr_t i = 0; i < more->count; ++i)
    valueListAdd(&returned, more->values[i]);
  memoptEraseOp(oldReturn);
  MemoptBuilder atEnd = memoptBuilderAtEnd(body, mlirOperationGetLocation(window));
  memoptBuildYield(&atEnd, "func.return", returned.values, returned.count);

  MlirContext context = mlirOperationGetContext(window);
  MlirStringRef typeName = mlirStringRefCreateFromCString("function_type");
  MlirType oldType = mlirTypeAttrGetValue(mlirOperationGetAttributeByName(window, typeName));
  intptr_t inputCount = mlirFunctionTypeGetNumInputs(oldType);
  MlirType *inputs = memoptAllocateZeroed((size_t)(inputCount + 1), sizeof *inputs);
  MlirType *results = memoptAllocateZeroed((size_t)(returned.count + 1), sizeof *results);
  for (intptr_t i = 0; i < inputCount; ++i)
    inputs[i] = mlirFunctionTypeGetInput(oldType, i);
  for (intptr_t i = 0; i < returned.count; ++i)
    results[i] = mlirValueGetType(returned.values[i]);
  mlirOperationSetAttributeByName(
      window, typeName,
      mlirTypeAttrGet(mlirFunctionTypeGet(context, inputCount, inputs, returned.count, results)));
  mlirOperationRemoveAttributeByName(window, mlirStringRefCreateFromCString("res_attrs"));
  free(inputs);
  free(results);
  free(returned.values);
}

static bool hasUses(MlirValue value) { return !mlirOpOperandIsNull(mlirValueGetFirstUse(value)); }

/* Erases `op` (a copy of `original`, whose results the profile knows) when
 * nothing uses it. When its used results are activations it writes (new
 * buffers or in-place updates), replaces them by fresh tensors at the start
 * of the body and erases it; else (arguments, constants, scalars, and views,
 * whose sharing of one buffer the window must keep) keeps it. A fresh tensor whose buffer the
 * function still uses after op `last` goes to `keepAlive`: returning it
 * keeps the window's ops from writing into it in place, as they cannot in
 * the function. Returns false when an activation cannot be recreated. */
static bool cutBefore(MlirOperation op, MlirOperation original, const MemoptMemoryProfile *profile,
                      MlirBlock body, intptr_t last, ValueList *keepAlive) {
  bool used = false;
  for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r) {
    if (!hasUses(mlirOperationGetResult(op, r)))
      continue;
    used = true;
    size_t buffer;
    if (!memoptMemoryProfileLookupBuffer(profile, mlirOperationGetResult(original, r), &buffer) ||
        memoptOperationIsView(original))
      return true;
  }
  for (intptr_t r = 0; r < mlirOperationGetNumResults(op) && used; ++r) {
    MlirValue result = mlirOperationGetResult(op, r);
    if (!hasUses(result))
      continue;
    MlirType type = mlirValueGetType(result);
    if (!mlirTypeIsARankedTensor(type) || !mlirShapedTypeHasStaticShape(type))
      return false;
    MemoptBuilder atStart = memoptBuilderBefore(mlirBlockGetFirstOperation(body));
    MlirValue fresh = memoptBuildTensorEmpty(&atStart, type, NULL, 0);
    mlirValueReplaceAllUsesOfWith(result, fresh);
    size_t buffer;
    memoptMemoryProfileLookupBuffer(profile, mlirOperationGetResult(original, r), &buffer);
    MemoptBufferInfo info = memoptMemoryProfileGetBuffer(profile, buffer);
    if (info.escapes || info.lastPosition > (size_t)last)
      valueListAdd(keepAlive, fresh);
  }
  memoptEraseOp(op);
  return true;
}

MlirOperation autoChunkWindowCut(MlirOperation func, const MemoptMemoryProfile *profile,
                                 intptr_t first, intptr_t last, intptr_t *prologue) {
  MlirOperation window = mlirOperationClone(func);
  mlirOperationSetAttributeByName(
      window, mlirStringRefCreateFromCString("sym_name"),
      mlirStringAttrGet(mlirOperationGetContext(func),
                        mlirStringRefCreateFromCString("__memopt_autochunk_window")));
  mlirBlockInsertOwnedOperationAfter(mlirOperationGetBlock(func), func, window);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(window, 0));
  MlirBlock originalBody = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));

  /* The ops before the cut, to visit backwards: an op is only kept when
   * something after it still needs it. */
  MlirOperation *before = memoptAllocateZeroed((size_t)(2 * first + 1), sizeof *before);
  MlirOperation *originals = before + first;
  MlirOperation firstOp = mlirBlockGetFirstOperation(body);
  MlirOperation firstOriginal = mlirBlockGetFirstOperation(originalBody);
  for (intptr_t i = 0; i < first; ++i) {
    before[i] = firstOp;
    originals[i] = firstOriginal;
    firstOp = mlirOperationGetNextInBlock(firstOp);
    firstOriginal = mlirOperationGetNextInBlock(firstOriginal);
  }
  MlirOperation lastOp = firstOp;
  for (intptr_t i = first; i < last; ++i)
    lastOp = mlirOperationGetNextInBlock(lastOp);
  cutAfter(window, body, lastOp);

  bool ok = true;
  ValueList keepAlive = {NULL, 0, 0};
  for (intptr_t i = first - 1; i >= 0 && ok; --i)
    ok = cutBefore(before[i], originals[i], profile, body, last, &keepAlive);
  free(before);
  if (ok)
    finishReturn(window, body, &keepAlive);
  free(keepAlive.values);
  if (!ok) {
    memoptEraseOp(window);
    return (MlirOperation){NULL};
  }
  *prologue = 0;
  for (MlirOperation kept = mlirBlockGetFirstOperation(body); !mlirOperationEqual(kept, firstOp);
       kept = mlirOperationGetNextInBlock(kept))
    ++*prologue;
  return window;
}

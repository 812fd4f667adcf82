/* inplace-elementwise: an elementwise linalg.generic whose result would get
 * a new buffer writes it into one of its inputs instead, when that input has
 * the result's type, is read at the same element as the result is written,
 * and dies at this op. One-shot-bufferize then reuses the input's buffer
 * (linalg's elementwise access lets a read and a write of one element share
 * it), so the function holds one buffer less from here on: a bias add after
 * a matmul, an activation, a gradient times a derivative in a backward pass.
 * Upstream bufferization never changes an op's destination, and its
 * empty-tensor elimination only helps where a later insert names one.
 *
 * Where the input dies comes from the memory profile (a buffer the function
 * allocates, not returned, whose last use is this op, views included). The
 * rewrite is then checked on the profile of the rewritten function: an op
 * whose result does not share its input's buffer there (bufferization
 * would copy) gets its old init back. */
#include "Analysis/Analysis.h"
#include "IR/IR.h"
#include "Remat/Remat.h"

#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Dialect/Linalg.h"

#include <stdlib.h>
#include <string.h>

/* One rewritten op: which init it replaced, to check and maybe undo. */
typedef struct InPlaceRewrite {
  MlirOperation op;
  intptr_t result;
  intptr_t initOperand; /* operand index of the init */
  MlirValue oldInit;
  MlirValue input;
} InPlaceRewrite;

static MlirAffineMap indexingMap(MlirOperation generic, intptr_t operand) {
  return mlirAffineMapAttrGetValue(
      mlirArrayAttrGetElement(mlirLinalgGetIndexingMapsAttribute(generic), operand));
}

/* The operand of `generic` that `result`'s buffer should reuse, or -1. The
 * body must not read the init (its contents are then irrelevant), and the
 * result's map must be a permutation of the loops (each element is written
 * by one iteration, and no loop reduces). The input has the result's type,
 * is read through the same map, and is held in a buffer the function
 * allocates whose last use is this op. Every operand in that buffer must be
 * read through that map, or a later iteration would read an element
 * already overwritten. */
static intptr_t reusableInput(MlirOperation generic, intptr_t inputCount, intptr_t result,
                              const MemoptMemoryProfile *profile, size_t position) {
  intptr_t initOperand = inputCount + result;
  MlirValue init = mlirOperationGetOperand(generic, initOperand);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(generic, 0));
  MlirValue outArgument = mlirBlockGetArgument(body, initOperand);
  MlirAffineMap resultMap = indexingMap(generic, initOperand);
  if (!mlirOpOperandIsNull(mlirValueGetFirstUse(outArgument)) ||
      !mlirAffineMapIsPermutation(resultMap))
    return -1;
  for (intptr_t i = 0; i < inputCount; ++i) {
    MlirValue input = mlirOperationGetOperand(generic, i);
    size_t buffer;
    if (!mlirTypeEqual(mlirValueGetType(input), mlirValueGetType(init)) ||
        !mlirAffineMapEqual(indexingMap(generic, i), resultMap) ||
        !memoptMemoryProfileLookupBuffer(profile, input, &buffer))
      continue;
    MemoptBufferInfo info = memoptMemoryProfileGetBuffer(profile, buffer);
    if (info.nested || info.escapes || info.lastPosition != position)
      continue;
    bool sameMapEverywhere = true;
    for (intptr_t k = 0; k < mlirOperationGetNumOperands(generic) && sameMapEverywhere; ++k) {
      size_t other;
      if (memoptMemoryProfileLookupBuffer(profile, mlirOperationGetOperand(generic, k), &other) &&
          other == buffer && k != initOperand)
        sameMapEverywhere = mlirAffineMapEqual(indexingMap(generic, k), resultMap);
    }
    if (sameMapEverywhere)
      return i;
  }
  return -1;
}

/* Rewrites the inits of the top-level generics of `body`; returns how many
 * rewrites `rewrites` (grown as needed) holds. */
static size_t rewriteInits(MlirBlock body, const MemoptMemoryProfile *profile,
                           InPlaceRewrite **rewrites, size_t *capacity) {
  size_t count = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    size_t position;
    if (!memoptOperationIsA(op, "linalg.generic") ||
        !memoptMemoryProfileLookupPosition(profile, op, &position))
      continue;
    intptr_t resultCount = mlirOperationGetNumResults(op);
    intptr_t inputCount = mlirOperationGetNumOperands(op) - resultCount;
    for (intptr_t r = 0; r < resultCount; ++r) {
      intptr_t input = reusableInput(op, inputCount, r, profile, position);
      if (input < 0)
        continue;
      *rewrites = memoptGrowArray(*rewrites, capacity, count + 1, sizeof **rewrites);
      InPlaceRewrite rewrite = {op, r, inputCount + r, mlirOperationGetOperand(op, inputCount + r),
                                mlirOperationGetOperand(op, input)};
      mlirOperationSetOperand(op, rewrite.initOperand, rewrite.input);
      (*rewrites)[count++] = rewrite;
      /* One rewrite per op: another result could pick the same input. */
      break;
    }
  }
  return count;
}

/* Erases the tensor.empty defining `value` when nothing uses it any more. */
static void eraseUnusedEmpty(MlirValue value) {
  if (mlirValueIsAOpResult(value) &&
      memoptOperationIsA(mlirOpResultGetOwner(value), "tensor.empty") &&
      mlirOpOperandIsNull(mlirValueGetFirstUse(value)))
    mlirOperationDestroy(mlirOpResultGetOwner(value));
}

static MlirLogicalResult runInPlaceElementwise(MlirOperation func,
                                               const MemoptPassOptions *options) {
  (void)options;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  if (mlirBlockIsNull(body))
    return mlirLogicalResultSuccess(); /* a declaration */
  MemoptStringBuffer error = memoptStringBufferCreate();
  MemoptMemoryProfile *profile = memoptMemoryProfileCreate(func, false, &error);
  if (!profile) {
    MemoptStringBuffer message = memoptStringBufferCreate();
    memoptStringBufferAppendFormat(&message, "inplace-elementwise: not applied: %s", error.data);
    memoptEmitDiagnostic(mlirOperationGetLocation(func), MlirDiagnosticRemark, message.data);
    memoptStringBufferDestroy(&message);
    memoptStringBufferDestroy(&error);
    return mlirLogicalResultSuccess();
  }
  InPlaceRewrite *rewrites = NULL;
  size_t capacity = 0;
  size_t count = rewriteInits(body, profile, &rewrites, &capacity);
  bool sizesKnown =
      !memoptMemoryProfileHasUnknownSize(profile, memoptMemoryProfileGetPeakPosition(profile));
  uint64_t peakBefore = memoptMemoryProfileGetPeakBytes(profile);
  memoptMemoryProfileDestroy(profile);
  size_t kept = 0;
  uint64_t peakAfter = peakBefore;
  if (count > 0) {
    /* Check on the rewritten function; undo what bufferization would copy. */
    MemoptMemoryProfile *after = memoptMemoryProfileCreate(func, false, &error);
    for (size_t i = 0; i < count; ++i) {
      size_t resultBuffer, inputBuffer;
      MlirValue result = mlirOperationGetResult(rewrites[i].op, rewrites[i].result);
      bool shared = after && memoptMemoryProfileLookupBuffer(after, result, &resultBuffer) &&
                    memoptMemoryProfileLookupBuffer(after, rewrites[i].input, &inputBuffer) &&
                    resultBuffer == inputBuffer;
      if (shared)
        rewrites[kept++] = rewrites[i];
      else
        mlirOperationSetOperand(rewrites[i].op, rewrites[i].initOperand, rewrites[i].oldInit);
    }
    if (after && kept == count)
      peakAfter = memoptMemoryProfileGetPeakBytes(after);
    memoptMemoryProfileDestroy(after);
    if (kept > 0 && kept < count) { /* the undone ones change the profile checked */
      MemoptMemoryProfile *final = memoptMemoryProfileCreate(func, false, &error);
      if (final)
        peakAfter = memoptMemoryProfileGetPeakBytes(final);
      memoptMemoryProfileDestroy(final);
    }
    /* Ops may share one empty (after CSE): erase each once. */
    for (size_t i = 0; i < kept; ++i) {
      bool seen = false;
      for (size_t j = 0; j < i && !seen; ++j)
        seen = mlirValueEqual(rewrites[j].oldInit, rewrites[i].oldInit);
      if (!seen)
        eraseUnusedEmpty(rewrites[i].oldInit);
    }
  }
  MemoptStringBuffer message = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&message, "inplace-elementwise: %zu op%s into an input", kept,
                                 kept == 1 ? " writes" : "s write");
  if (count > kept)
    memoptStringBufferAppendFormat(&message, " (%zu undone: bufferization would copy)",
                                   count - kept);
  if (kept && sizesKnown)
    memoptStringBufferAppendFormat(&message, "; peak %llu -> %llu bytes",
                                   (unsigned long long)peakBefore, (unsigned long long)peakAfter);
  memoptEmitDiagnostic(mlirOperationGetLocation(func), MlirDiagnosticRemark, message.data);
  memoptStringBufferDestroy(&message);
  free(rewrites);
  memoptStringBufferDestroy(&error);
  return mlirLogicalResultSuccess();
}

const MemoptPassInfo memoptInPlaceElementwisePass = {
    .argument = "inplace-elementwise",
    .summary = "Write elementwise linalg.generic results into an input of the same type that "
               "dies there instead of a new buffer",
    .anchor = "func.func",
    .options = NULL,
    .optionCount = 0,
    .run = runInPlaceElementwise,
};

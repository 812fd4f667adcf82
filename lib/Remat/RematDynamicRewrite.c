/* remat-dynamic's rewrite (RematDynamic.h has the model): inserts each
 * accepted candidate's remat.evict after its last use before the gap and
 * its remat.regenerate, whose body clones the chain (reading inputs that
 * may be evicted there through nested regenerates), and redirects the
 * later reads, of the value or of views of it, to the regenerated value. */
#include "Remat/RematDynamic.h"

#include "IR/Builders.h"
#include "IR/IR.h"
#include "Remat/SliceNarrowing.h"
#include "Remat/SymbolicSizeValue.h"

#include <stdlib.h>

/* Reads at or after the regeneration point of a value or of its views. */
typedef struct Redirects {
  MlirOperation *owners;
  unsigned *numbers;
  MlirValue *values;
  size_t count, capacity;
} Redirects;

static void redirectsPush(Redirects *redirects, MlirOperation owner, unsigned number,
                          MlirValue value) {
  if (redirects->count == redirects->capacity) {
    redirects->capacity = redirects->capacity ? 2 * redirects->capacity : 8;
    redirects->owners =
        memoptReallocArray(redirects->owners, redirects->capacity, sizeof *redirects->owners);
    redirects->numbers =
        memoptReallocArray(redirects->numbers, redirects->capacity, sizeof *redirects->numbers);
    redirects->values =
        memoptReallocArray(redirects->values, redirects->capacity, sizeof *redirects->values);
  }
  redirects->owners[redirects->count] = owner;
  redirects->numbers[redirects->count] = number;
  redirects->values[redirects->count++] = value;
}

/* Collects the reads of `value` at or after `from`, following views of it
 * taken before `from` (top-level view ops whose source is `value`). */
static void collectLaterReads(const RematDynamicContext *context, MlirValue value, size_t from,
                              Redirects *redirects) {
  for (MlirOpOperand use = mlirValueGetFirstUse(value); !mlirOpOperandIsNull(use);
       use = mlirOpOperandGetNextUse(use)) {
    MlirOperation owner = mlirOpOperandGetOwner(use);
    size_t at;
    if (!positionOf(context, owner, &at))
      continue;
    if (at >= from)
      redirectsPush(redirects, owner, mlirOpOperandGetOperandNumber(use), value);
    else if (memoptOperationIsView(owner) && mlirOpOperandGetOperandNumber(use) == 0 &&
             mlirOperationEqual(memoptMemoryProfileGetPositionOp(context->profile, at), owner))
      for (intptr_t r = 0; r < mlirOperationGetNumResults(owner); ++r)
        collectLaterReads(context, mlirOperationGetResult(owner, r), from, redirects);
  }
}

/* Views of the regenerated value, cloned from the views of the original. */
typedef struct ViewClones {
  MlirValue root, regenerated;
  MlirOperation before; /* where clones go: the first later read */
  MlirOperation *originals, *clones;
  size_t count;
} ViewClones;

/* Returns `value` (the root or a view of it) rebuilt on the regenerated root. */
static MlirValue rebuildView(ViewClones *views, MlirValue value) {
  if (mlirValueEqual(value, views->root))
    return views->regenerated;
  MlirOperation original = mlirOpResultGetOwner(value);
  intptr_t resultNumber = mlirOpResultGetResultNumber(value);
  for (size_t i = 0; i < views->count; ++i)
    if (mlirOperationEqual(views->originals[i], original))
      return mlirOperationGetResult(views->clones[i], resultNumber);
  MlirValue source = rebuildView(views, mlirOperationGetOperand(original, 0));
  MlirOperation clone = mlirOperationClone(original);
  mlirOperationSetOperand(clone, 0, source);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(views->before), views->before, clone);
  views->originals =
      memoptReallocArray(views->originals, views->count + 1, sizeof *views->originals);
  views->clones = memoptReallocArray(views->clones, views->count + 1, sizeof *views->clones);
  views->originals[views->count] = original;
  views->clones[views->count++] = clone;
  return mlirOperationGetResult(clone, resultNumber);
}

/* Builds the remat.evict of `candidate`, with its restore footprint when known. */
static void buildEvict(const MemoptBuilder *builder, const EvictionCandidate *candidate) {
  MlirValue operands[] = {candidate->value, candidate->restoreBytesValue};
  memoptBuildOp(builder, "remat.evict", operands, mlirValueIsNull(operands[1]) ? 1 : 2, NULL, 0,
                NULL, 0);
}

/* What every recomputation inserted for one regeneration point shares. */
typedef struct Regeneration {
  EvictionCandidate *const *accepted;
  size_t acceptedCount;
  size_t position; /* the top-level op the regenerated value is read by */
  MlirLocation location;
  bool *restored; /* [accepted index]: a nested regenerate restores it */
} Regeneration;

static MlirOperation buildRegenerate(Regeneration *regeneration, const EvictionCandidate *candidate,
                                     bool outermost);

/* The value `value` stands for before the rewrites of accepted candidates:
 * a regenerate's result is its operand (the rewrite of an earlier candidate
 * redirected later reads, the chain ops of later ones included, to it). */
static MlirValue beforeRegeneration(MlirValue value) {
  while (mlirValueIsAOpResult(value) &&
         memoptOperationIsA(mlirOpResultGetOwner(value), "remat.regenerate"))
    value = mlirOperationGetOperand(mlirOpResultGetOwner(value), 0);
  return value;
}

/* Fills `body` with the recomputation of `candidate` at the regeneration
 * point, ending in vector.yield. An input that another candidate may have
 * evicted there is read through a nested remat.regenerate of it, which
 * recomputes it in place only when it was evicted (DTR's evicted
 * neighbourhood, decided at run time, where recomputing it unconditionally
 * would redo a matmul whose result is most likely still resident). At the
 * end of the outermost body, a remat.evict makes each input restored
 * anywhere inside evictable again until its own regenerate. Not earlier: an
 * enclosing or sibling body may still read it, and restoring one input must
 * not evict another already restored. */
static void fillRecomputation(Regeneration *regeneration, const EvictionCandidate *candidate,
                              MlirBlock body, bool outermost) {
  ViewClones *nested = memoptAllocateZeroed(regeneration->acceptedCount, sizeof *nested);
  size_t nestedCount = 0;
  for (size_t i = 0; i < regeneration->acceptedCount; ++i) {
    const EvictionCandidate *other = regeneration->accepted[i];
    if (other == candidate ||
        !rematDynamicReadsWhileEvicted(candidate, regeneration->position, other))
      continue;
    MlirOperation inner = buildRegenerate(regeneration, other, false);
    mlirBlockAppendOwnedOperation(body, inner);
    nested[nestedCount++] =
        (ViewClones){.root = other->value, .regenerated = mlirOperationGetResult(inner, 0)};
    regeneration->restored[i] = true;
  }

  MlirOperation *clones = memoptAllocateZeroed(candidate->chainCount, sizeof *clones);
  for (size_t i = 0; i < candidate->chainCount; ++i) {
    clones[i] = mlirOperationClone(candidate->chain[i]);
    mlirBlockAppendOwnedOperation(body, clones[i]);
    for (intptr_t k = 0; k < mlirOperationGetNumOperands(clones[i]); ++k) {
      MlirValue operand = mlirOperationGetOperand(clones[i], k);
      /* A chain op reading the regenerate of another op of the chain reads
       * that op's clone: reading the regenerated value instead would keep
       * its buffer alive until here, and leave the clone dead. */
      MlirValue original = beforeRegeneration(operand);
      bool internal = false;
      for (size_t j = 0; j < i; ++j)
        for (intptr_t r = 0; r < mlirOperationGetNumResults(candidate->chain[j]); ++r)
          if (mlirValueEqual(original, mlirOperationGetResult(candidate->chain[j], r))) {
            mlirOperationSetOperand(clones[i], k, mlirOperationGetResult(clones[j], r));
            internal = true;
          }
      for (size_t n = 0; n < nestedCount && !internal; ++n)
        if (rematDynamicIsViewOf(operand, nested[n].root)) {
          nested[n].before = clones[i];
          mlirOperationSetOperand(clones[i], k, rebuildView(&nested[n], operand));
          break;
        }
    }
  }
  MlirOperation last = candidate->chain[candidate->chainCount - 1];
  MlirValue again = (MlirValue){NULL};
  for (intptr_t r = 0; r < mlirOperationGetNumResults(last); ++r)
    if (mlirValueEqual(mlirOperationGetResult(last, r), candidate->value))
      again = mlirOperationGetResult(clones[candidate->chainCount - 1], r);
  MemoptBuilder atYield = memoptBuilderAtEnd(body, regeneration->location);
  memoptBuildYield(&atYield, "vector.yield", &again, 1);
  /* A slice of a fused projection recomputes its part of it only. */
  memoptNarrowSlicedProducers(body);
  for (size_t n = 0; n < nestedCount; ++n) {
    free(nested[n].originals);
    free(nested[n].clones);
  }
  free(clones);
  free(nested);
  if (!outermost)
    return;
  MemoptBuilder beforeYield = memoptBuilderBefore(mlirBlockGetTerminator(body));
  for (size_t i = 0; i < regeneration->acceptedCount; ++i) {
    const EvictionCandidate *restored = regeneration->accepted[i];
    /* At its own regeneration point the value is read next; it stays resident. */
    if (regeneration->restored[i] && regeneration->position < restored->gapEnd)
      buildEvict(&beforeYield, restored);
  }
}

/* Creates (unattached) the remat.regenerate of `candidate` at the
 * regeneration point; `outermost` when it is not nested in another. */
static MlirOperation buildRegenerate(Regeneration *regeneration, const EvictionCandidate *candidate,
                                     bool outermost) {
  MlirRegion region = mlirRegionCreate();
  MlirBlock body = mlirBlockCreate(0, NULL, NULL);
  mlirRegionAppendOwnedBlock(region, body);
  fillRecomputation(regeneration, candidate, body, outermost);
  MlirType type = mlirValueGetType(candidate->value);
  MlirOperationState state = mlirOperationStateGet(
      mlirStringRefCreateFromCString("remat.regenerate"), regeneration->location);
  mlirOperationStateAddOperands(&state, 1, &candidate->value);
  mlirOperationStateAddResults(&state, 1, &type);
  mlirOperationStateAddOwnedRegions(&state, 1, &region);
  return mlirOperationCreate(&state);
}

/* Builds each accepted candidate's restore footprint as an index for its
 * evicts: at the start of the function when the symbols can be read there
 * (op positions, which the runtime measures distances in, then all shift
 * alike), else right before its evict. */
void rematDynamicBuildRestoreFootprints(const RematDynamicContext *context, MlirBlock body,
                                   EvictionCandidate *const *accepted, size_t acceptedCount) {
  MlirOperation first = mlirBlockGetFirstOperation(body);
  MemoptBuilder atStart = memoptBuilderBefore(first);
  MlirValue *symbolValues = memoptAllocateZeroed(
      memoptShapeSymbolsGetNumSymbols(context->symbols) + 1, sizeof *symbolValues);
  for (size_t i = 0; i < acceptedCount; ++i) {
    EvictionCandidate *candidate = accepted[i];
    if (!candidate->restoreBytes)
      continue;
    candidate->restoreBytesValue = memoptBuildPolynomialValue(
        &atStart, context->symbols, candidate->restoreBytes, first, symbolValues);
    if (!mlirValueIsNull(candidate->restoreBytesValue))
      continue;
    MlirOperation afterLastUse =
        memoptMemoryProfileGetPositionOp(context->profile, candidate->gapStart + 1);
    MemoptBuilder atEvict = memoptBuilderBefore(afterLastUse);
    candidate->restoreBytesValue = memoptBuildPolynomialValue(
        &atEvict, context->symbols, candidate->restoreBytes, afterLastUse, NULL);
  }
  free(symbolValues);
}

/* Inserts the evict and regenerate ops of `candidate` and redirects later
 * uses; `accepted` are all the candidates made evictable. */
void rematDynamicRewrite(const RematDynamicContext *context, const EvictionCandidate *candidate,
                         EvictionCandidate *const *accepted, size_t acceptedCount,
                         size_t regenerateAt) {
  MlirOperation afterLastUse =
      memoptMemoryProfileGetPositionOp(context->profile, candidate->gapStart + 1);
  MlirOperation nextUse = memoptMemoryProfileGetPositionOp(context->profile, candidate->gapEnd);
  MemoptBuilder atEvict = memoptBuilderBefore(afterLastUse);
  atEvict.location = mlirValueIsAOpResult(candidate->value)
                         ? mlirOperationGetLocation(mlirOpResultGetOwner(candidate->value))
                         : atEvict.location;
  buildEvict(&atEvict, candidate);

  /* Collect the reads to redirect (of the value, or of views of it taken
   * before the gap) before the regenerate op adds its own. */
  Redirects redirects = {0};
  collectLaterReads(context, candidate->value, candidate->gapEnd, &redirects);

  Regeneration regeneration = {accepted, acceptedCount, candidate->gapEnd,
                               mlirOperationGetLocation(nextUse),
                               memoptAllocateZeroed(acceptedCount, sizeof(bool))};
  MlirOperation regenerate = buildRegenerate(&regeneration, candidate, true);
  free(regeneration.restored);
  mlirBlockInsertOwnedOperationBefore(
      mlirOperationGetBlock(nextUse),
      memoptMemoryProfileGetPositionOp(context->profile, regenerateAt), regenerate);
  ViewClones views = {.root = candidate->value,
                      .regenerated = mlirOperationGetResult(regenerate, 0),
                      .before = nextUse};
  for (size_t i = 0; i < redirects.count; ++i)
    mlirOperationSetOperand(redirects.owners[i], (intptr_t)redirects.numbers[i],
                            rebuildView(&views, redirects.values[i]));
  free(views.originals);
  free(views.clones);
  free(redirects.owners);
  free(redirects.numbers);
  free(redirects.values);
}

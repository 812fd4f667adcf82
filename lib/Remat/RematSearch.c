/* The rematerialization heuristic. Step by step:
 *
 * 1. The memory profile gives the live bytes at every op and the peak.
 * 2. Candidates are the buffers live across the peak but not used there,
 *    whose values are used again after it. Recomputing them means cloning
 *    the ops that produced them right before their first use after the peak
 *    (the insertion point), together with the producers of every operand not
 *    available there. Available: function arguments, constants, scalars, and
 *    tensors whose buffers are live at the insertion point anyway. An
 *    operand that is not available is either recomputed as well (while the
 *    chain holds at most max-chain computing ops; empties, fills and views do
 *    not count) or kept alive until the insertion point (an "extended" leaf:
 *    a layer norm's per-row statistics, say). Each buffer gives two
 *    candidates: recompute as far as possible, or extend every computed
 *    operand; each at the first later use, or earlier, where the fewest
 *    bytes are live between the peak and that use. The init of a
 *    destination-style op is always recomputed (the clone needs a buffer of
 *    its own).
 * 3. Each candidate is scored on the profile without touching the IR: the
 *    buffer dies after its last use before the peak, the clones live from
 *    the insertion point (the recomputed buffer until its old end), extended
 *    leaves until the insertion point. A candidate must lower the peak
 *    position, raise no position above the peak, and the clones must stay
 *    below the peak at the insertion point (else the peak only moves to
 *    them); the best frees the most bytes at the peak per element operation
 *    recomputed, except when candidates would meet the budget (the model's
 *    new peak of the function) at no more cost than that one: the cheapest
 *    of those then ends the search. Candidates that would take the work
 *    recomputed so far past max-recompute (a fraction of the function's
 *    work) are skipped.
 * 4. The best candidate is applied (clones inserted, every use at or after
 *    the insertion point redirected) and the function estimated again: when
 *    the real peak did not go down (or, at an equal peak, fewer positions
 *    hold it), the step is undone and the next candidate tried.
 *
 * The scoring in 3 costs one pass over the positions per candidate; only
 * step 4 computes a profile, so a step costs one estimate when the model
 * agrees with the estimator. */
#include "Remat/RematCandidate.h"
#include "Remat/RematSearch.h"

#include "Analysis/Analysis.h"
#include "IR/IR.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Most candidates the estimator checks at one peak before giving up. */
enum { MAX_TRIES_PER_STEP = 16 };

/* One rewrite, kept for undoing it. */
typedef struct UseChange {
  MlirOperation owner;
  unsigned operand;
  MlirValue previous;
} UseChange;

typedef struct Step {
  MlirOperation *clones; /* in insertion order */
  size_t cloneCount;
  UseChange *changes;
  size_t changeCount;
  double cost;
} Step;

/* Clones the candidate's ops before the op at its insertion point and
 * redirects every use at or after that point; records how to undo it. */
static void applyCandidate(RematSearchState *search, const RematCandidate *candidate, Step *step) {
  memset(step, 0, sizeof *step);
  MlirOperation anchor = search->opAt[candidate->insertion];
  size_t resultCapacity = 0, resultCount = 0;
  MlirValue *originals = NULL, *copies = NULL;
  step->clones = memoptAllocateZeroed(candidate->opCount, sizeof *step->clones);
  for (size_t k = 0; k < candidate->opCount; ++k) {
    MlirOperation op = search->opAt[candidate->ops[k]];
    MlirOperation clone = mlirOperationClone(op);
    mlirBlockInsertOwnedOperationBefore(search->body, anchor, clone);
    step->clones[step->cloneCount++] = clone;
    step->cost += memoptOpRecomputeCost(op);
    for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r) {
      if (resultCount == resultCapacity) {
        resultCapacity = resultCapacity ? 2 * resultCapacity : 16;
        originals = memoptReallocArray(originals, resultCapacity, sizeof *originals);
        copies = memoptReallocArray(copies, resultCapacity, sizeof *copies);
      }
      originals[resultCount] = mlirOperationGetResult(op, r);
      copies[resultCount++] = mlirOperationGetResult(clone, r);
    }
  }
  /* Clones read the clones of the ops they were computed from. */
  for (size_t k = 0; k < step->cloneCount; ++k)
    for (size_t i = 0; i < resultCount; ++i)
      memoptValueReplaceUsesByScope(originals[i], copies[i], step->clones[k], true);
  /* Later uses read the clones. */
  for (size_t i = 0; i < resultCount; ++i) {
    size_t useCount = 0;
    for (MlirOpOperand use = mlirValueGetFirstUse(originals[i]); !mlirOpOperandIsNull(use);
         use = mlirOpOperandGetNextUse(use))
      ++useCount;
    MlirOpOperand *uses = memoptAllocateZeroed(useCount, sizeof *uses);
    useCount = 0;
    for (MlirOpOperand use = mlirValueGetFirstUse(originals[i]); !mlirOpOperandIsNull(use);
         use = mlirOpOperandGetNextUse(use))
      uses[useCount++] = use;
    for (size_t u = 0; u < useCount; ++u) {
      MlirOperation owner = mlirOpOperandGetOwner(uses[u]);
      size_t position;
      if (!positionOf(search, owner, &position) || position < candidate->insertion)
        continue;
      bool inClone = false;
      for (size_t k = 0; k < step->cloneCount && !inClone; ++k)
        inClone = memoptOperationIsInside(owner, step->clones[k]);
      if (inClone)
        continue;
      step->changes =
          memoptReallocArray(step->changes, step->changeCount + 1, sizeof *step->changes);
      unsigned operand = mlirOpOperandGetOperandNumber(uses[u]);
      step->changes[step->changeCount++] = (UseChange){owner, operand, originals[i]};
      mlirOperationSetOperand(owner, operand, copies[i]);
    }
    free(uses);
  }
  free(originals);
  free(copies);
}

static void undoStep(Step *step) {
  for (size_t k = step->changeCount; k-- > 0;)
    mlirOperationSetOperand(step->changes[k].owner, step->changes[k].operand,
                            step->changes[k].previous);
  for (size_t k = step->cloneCount; k-- > 0;)
    mlirOperationDestroy(step->clones[k]);
}

static void destroyStep(Step *step) {
  free(step->clones);
  free(step->changes);
  memset(step, 0, sizeof *step);
}

/* Frees the per-position arrays read from the search's profile. */
static void freePositionArrays(RematSearchState *search) {
  free(search->opAt);
  free(search->live);
  free(search->liveBefore);
  free(search->liveFrom);
  free(search->delta);
  free(search->inChain);
  free(search->worklist);
}

/* Makes `profile` (of the function as it is now) the search's, with the
 * positions and live bytes read from it. */
static void adoptProfile(RematSearchState *search, MemoptMemoryProfile *profile) {
  memoptMemoryProfileDestroy(search->profile);
  search->profile = profile;
  search->positionCount = memoptMemoryProfileGetNumPositions(profile);
  freePositionArrays(search);
  search->inChain = memoptAllocateZeroed(search->positionCount, sizeof *search->inChain);
  search->worklist = memoptAllocateZeroed(search->positionCount, sizeof *search->worklist);
  search->opAt = memoptAllocateZeroed(search->positionCount, sizeof *search->opAt);
  search->live = memoptAllocateZeroed(search->positionCount, sizeof *search->live);
  search->delta = memoptAllocateZeroed(search->positionCount + 1, sizeof *search->delta);
  for (size_t p = 0; p < search->positionCount; ++p) {
    search->opAt[p] = memoptMemoryProfileGetPositionOp(profile, p);
    search->live[p] = (int64_t)memoptMemoryProfileGetLiveBytes(profile, p);
  }
  search->liveBefore = memoptAllocateZeroed(search->positionCount + 1, sizeof *search->liveBefore);
  search->liveFrom = memoptAllocateZeroed(search->positionCount + 1, sizeof *search->liveFrom);
  for (size_t p = 1; p <= search->positionCount; ++p)
    search->liveBefore[p] = search->liveBefore[p - 1] > search->live[p - 1]
                                ? search->liveBefore[p - 1]
                                : search->live[p - 1];
  for (size_t p = search->positionCount; p-- > 0;)
    search->liveFrom[p] =
        search->liveFrom[p + 1] > search->live[p] ? search->liveFrom[p + 1] : search->live[p];
}

static size_t positionsAt(const RematSearchState *search, int64_t bytes) {
  size_t count = 0;
  for (size_t p = 0; p < search->positionCount; ++p)
    count += search->live[p] == bytes;
  return count;
}

static int compareCandidates(const void *a, const void *b) {
  const RematCandidate *x = a, *y = b;
  if (x->closes != y->closes)
    return x->closes ? -1 : 1;
  if (x->closes && x->cost != y->cost)
    return x->cost < y->cost ? -1 : 1;
  if (x->score != y->score)
    return x->score > y->score ? -1 : 1;
  if (x->saving != y->saving)
    return x->saving > y->saving ? -1 : 1;
  return x->opCount < y->opCount ? -1 : x->opCount > y->opCount;
}

/* One bit per variant of a buffer's candidate. */
static size_t rejectionKey(const RematCandidate *candidate) {
  return (size_t)1 << ((candidate->extendLeaves ? 1 : 0) + (candidate->atLowPoint ? 2 : 0));
}

static bool isRejected(const RematSearchState *search, const RematCandidate *candidate) {
  MemoptBufferInfo info = memoptMemoryProfileGetBuffer(search->profile, candidate->buffer);
  size_t mark = memoptPointerMapLookup(&search->rejected, info.value.ptr);
  return mark != MEMOPT_NO_INDEX && (mark & rejectionKey(candidate));
}

static void reject(RematSearchState *search, const RematCandidate *candidate,
                   const void *valueKey) {
  size_t mark = memoptPointerMapLookup(&search->rejected, valueKey);
  if (mark == MEMOPT_NO_INDEX)
    mark = 0;
  memoptPointerMapInsert(&search->rejected, valueKey, mark | rejectionKey(candidate));
}

static void destroySearch(RematSearchState *search) {
  memoptMemoryProfileDestroy(search->profile);
  freePositionArrays(search);
  memoptPointerMapDestroy(&search->rejected);
}

static double functionCost(MlirBlock body) {
  double cost = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    cost += memoptOpRecomputeCost(op);
  return cost;
}

bool rematFunction(MlirOperation func, const RematLimits *limits, RematOutcome *outcome,
                   MemoptStringBuffer *error) {
  memset(outcome, 0, sizeof *outcome);
  RematSearchState search = {0};
  search.func = func;
  search.body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  search.limits = limits;
  search.rejected = memoptPointerMapCreate();
  MemoptMemoryProfile *initial = memoptMemoryProfileCreate(func, false, error);
  if (!initial) {
    memoptPointerMapDestroy(&search.rejected);
    return false;
  }
  adoptProfile(&search, initial);
  ++outcome->estimates;
  for (size_t p = 0; p < search.positionCount; ++p)
    if (memoptMemoryProfileHasUnknownSize(search.profile, p)) {
      memoptStringBufferAppendCString(error, "the function holds tensors of dynamic size; "
                                             "static rematerialization needs static sizes");
      destroySearch(&search);
      return false;
    }
  outcome->functionCost = functionCost(search.body);
  double recomputeAllowance = limits->maxRecompute * outcome->functionCost;
  outcome->initialPeak = memoptMemoryProfileGetPeakBytes(search.profile);
  outcome->bestPeak = outcome->initialPeak;
  outcome->budget = limits->budgetGiven
                        ? limits->budget
                        : (uint64_t)((double)outcome->initialPeak * limits->budgetRatio);
  Step *steps = NULL; /* the kept steps, in order */
  size_t stepCount = 0, stepCapacity = 0;
  outcome->stopReason = "the step limit was reached";
  while (outcome->steps < limits->maxSteps) {
    uint64_t peakBytes = memoptMemoryProfileGetPeakBytes(search.profile);
    if (peakBytes <= outcome->budget) {
      outcome->budgetMet = true;
      outcome->stopReason = "the budget is met";
      break;
    }
    size_t peak = memoptMemoryProfileGetPeakPosition(search.profile);
    size_t live[4096]; /* the buffers live at the peak (the first 4096 of them) */
    size_t liveCount = memoptMemoryProfileGetLiveBuffers(search.profile, peak, live,
                                                         sizeof live / sizeof *live);
    if (liveCount > sizeof live / sizeof *live)
      liveCount = sizeof live / sizeof *live;
    RematCandidate *candidates = memoptAllocateZeroed(4 * liveCount, sizeof *candidates);
    size_t candidateCount = 0;
    for (size_t b = 0; b < liveCount; ++b)
      for (int variant = 0; variant < 4; ++variant) {
        RematCandidate *candidate = &candidates[candidateCount];
        if (rematBuildCandidate(&search, peak, live[b], variant & 1, variant & 2, candidate)) {
          if (isRejected(&search, candidate) ||
              outcome->recomputeCost + candidate->cost > recomputeAllowance)
            free(candidate->ops);
          else
            ++candidateCount;
        }
      }
    /* Greedy by score, except for the last step: when candidates meet the
     * budget at no more cost than the best-scored one would take, the
     * cheapest of them ends the search (the best-scored may free far more
     * than the budget needs). */
    qsort(candidates, candidateCount, sizeof *candidates, compareCandidates);
    bool anyCloses = false;
    for (size_t c = 0; c < candidateCount; ++c) {
      candidates[c].closes = candidates[c].newPeak <= (int64_t)outcome->budget &&
                             candidates[c].cost <= candidates[0].cost;
      anyCloses = anyCloses || candidates[c].closes;
    }
    if (anyCloses)
      qsort(candidates, candidateCount, sizeof *candidates, compareCandidates);
    bool accepted = false;
    size_t peakCount = positionsAt(&search, (int64_t)peakBytes);
    for (size_t c = 0; c < candidateCount && c < MAX_TRIES_PER_STEP && !accepted; ++c) {
      const void *key =
          memoptMemoryProfileGetBuffer(search.profile, candidates[c].buffer).value.ptr;
      steps = memoptGrowArray(steps, &stepCapacity, stepCount + 1, sizeof *steps);
      Step *step = &steps[stepCount];
      applyCandidate(&search, &candidates[c], step);
      MemoptStringBuffer ignored = memoptStringBufferCreate();
      MemoptMemoryProfile *after = memoptMemoryProfileCreate(func, false, &ignored);
      memoptStringBufferDestroy(&ignored);
      ++outcome->estimates;
      bool better = false;
      if (after) {
        uint64_t newPeak = memoptMemoryProfileGetPeakBytes(after);
        size_t newCount = 0;
        for (size_t p = 0; p < memoptMemoryProfileGetNumPositions(after); ++p)
          newCount += memoptMemoryProfileGetLiveBytes(after, p) == newPeak;
        better = newPeak < peakBytes || (newPeak == peakBytes && newCount < peakCount);
      }
      if (better) {
        accepted = true;
        ++stepCount;
        ++outcome->steps;
        outcome->clonedOps += step->cloneCount;
        outcome->recomputeCost += step->cost;
        adoptProfile(&search, after);
      } else {
        memoptMemoryProfileDestroy(after);
        undoStep(step);
        destroyStep(step);
        reject(&search, &candidates[c], key);
        ++outcome->rejected;
      }
    }
    for (size_t c = 0; c < candidateCount; ++c)
      free(candidates[c].ops);
    free(candidates);
    uint64_t now = memoptMemoryProfileGetPeakBytes(search.profile);
    if (now < outcome->bestPeak)
      outcome->bestPeak = now;
    if (!accepted) {
      outcome->stopReason = candidateCount == 0
                                ? "no value live across the peak can be recomputed with at "
                                  "most max-chain computing ops within max-recompute so that "
                                  "the peak goes down"
                                : "the estimator refused every candidate (the peak only moved)";
      break;
    }
  }
  if (!outcome->budgetMet && memoptMemoryProfileGetPeakBytes(search.profile) <= outcome->budget) {
    outcome->budgetMet = true;
    outcome->stopReason = "the budget is met";
  }
  outcome->finalPeak = memoptMemoryProfileGetPeakBytes(search.profile);
  if (!outcome->budgetMet && !limits->allowPartial) {
    for (size_t s = stepCount; s-- > 0;)
      undoStep(&steps[s]);
    outcome->finalPeak = outcome->initialPeak;
    outcome->steps = 0;
    outcome->clonedOps = 0;
    outcome->recomputeCost = 0;
  }
  outcome->changed = outcome->steps > 0;
  for (size_t s = 0; s < stepCount; ++s)
    destroyStep(&steps[s]);
  free(steps);
  destroySearch(&search);
  return true;
}

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
#include "Remat/Remat.h"
#include "Remat/RematSearch.h"

#include "Analysis/Analysis.h"
#include "Analysis/BufferizationModel.h"
#include "IR/IR.h"

#include "mlir-c/BuiltinTypes.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Most candidates the estimator checks at one peak before giving up. */
enum { MAX_TRIES_PER_STEP = 16 };

/* An op that may run again with the same result: value semantics on
 * tensors and scalars, no side effects, regions only in linalg ops. */
/* True when the body of linalg op `op` computes nothing: it yields an
 * input or a constant (fill, copy, transpose, broadcast). */
static bool bodyOnlyMovesData(MlirOperation op) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  if (mlirBlockIsNull(body))
    return false;
  for (MlirOperation inner = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(inner);
       inner = mlirOperationGetNextInBlock(inner))
    if (memoptOperationIsInDialect(inner, "arith") || memoptOperationIsInDialect(inner, "math") ||
        memoptOperationIsA(inner, "tensor.extract"))
      return false;
  return true;
}

/* Ops that do not count towards max-chain: they only allocate, view or
 * move data (empties, views, fills, copies, transposes, concatenations,
 * pads); a chain is long when it computes much. */
static bool isStructural(MlirOperation op) {
  if (memoptOpRecomputeCost(op) == 0)
    return true;
  if (memoptOperationIsInDialect(op, "linalg"))
    return mlirOperationGetNumRegions(op) > 0 && bodyOnlyMovesData(op);
  return memoptOperationIsInDialect(op, "tensor");
}

/* True when operand `index` of `op` is a destination the op writes into. */
static bool isInit(MlirOperation op, intptr_t index) {
  if (memoptOperationIsInDialect(op, "linalg"))
    return index >= mlirOperationGetNumOperands(op) - mlirOperationGetNumResults(op);
  return (memoptOperationIsA(op, "tensor.insert_slice") || memoptOperationIsA(op, "tensor.insert")) &&
         index == 1;
}

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

/* A candidate: the ops to clone and what the model predicts. */
typedef struct Candidate {
  size_t buffer;         /* the buffer freed across the peak */
  bool extendLeaves;     /* the variant: computed operands are kept alive instead */
  bool atLowPoint;       /* the variant: inserted where least is live before the first later use */
  size_t *ops;           /* positions of the ops to clone, ascending */
  size_t opCount;
  size_t insertion;      /* position of the first use after the peak */
  double cost;           /* element operations recomputed */
  uint64_t saving;       /* bytes freed at the peak, per the model */
  int64_t newPeak;       /* the function's peak after it, per the model */
  double score;
  bool closes; /* meets the budget at no more cost than the best-scored candidate */
} Candidate;

typedef struct Search {
  MlirOperation func;
  MlirBlock body;
  MemoptMemoryProfile *profile;
  size_t positionCount;
  MlirOperation *opAt;       /* per position */
  int64_t *live;             /* per position */
  int64_t *liveBefore;       /* per position p: the most bytes live at a position before p */
  int64_t *liveFrom;         /* per position p (and one past the last): the most at p or after */
  int64_t *delta;            /* scratch: difference array of a candidate's effect, all zero
                                between candidates */
  bool *inChain;             /* scratch per position, all false between candidates */
  size_t *worklist;          /* scratch per position */
  const RematLimits *limits;
  MemoptPointerMap rejected; /* buffer value pointers (x2 + variant) refused by the estimator */
} Search;

static bool positionOf(const Search *search, MlirOperation op, size_t *position) {
  return memoptMemoryProfileLookupPosition(search->profile, op, position);
}

/* Calls `visit` on every operand of `op` and every value its regions use
 * from outside `op`, with the operand index (-1 for values used inside). */
typedef bool (*OperandVisitor)(void *state, MlirOperation op, intptr_t index, MlirValue value);

typedef struct CapturedVisit {
  MlirOperation root;
  OperandVisitor visit;
  void *state;
} CapturedVisit;

static bool visitCaptured(MlirValue value, void *userData) {
  CapturedVisit *captured = userData;
  return captured->visit(captured->state, captured->root, -1, value);
}

static bool forEachOperand(MlirOperation op, OperandVisitor visit, void *state) {
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i)
    if (!visit(state, op, i, mlirOperationGetOperand(op, i)))
      return false;
  CapturedVisit captured = {op, visit, state};
  return memoptOperationForEachCapture(op, visitCaptured, &captured);
}

/* Building one candidate's chain. */
typedef struct ChainBuild {
  Search *search;
  Candidate *candidate;
  bool *inChain;      /* per position */
  size_t *worklist;
  size_t worklistCount;
  size_t computeOps;
  size_t *extended;   /* buffers kept alive until the insertion point */
  size_t extendedCount, extendedCapacity;
} ChainBuild;

static void addToChain(ChainBuild *build, size_t position) {
  if (build->inChain[position])
    return;
  build->inChain[position] = true;
  build->worklist[build->worklistCount++] = position;
  if (!isStructural(build->search->opAt[position]))
    ++build->computeOps;
}

/* Decides how the chain gets operand `value` of `op`; false rejects the candidate. */
static bool chainOperand(void *state, MlirOperation op, intptr_t index, MlirValue value) {
  ChainBuild *build = state;
  Search *search = build->search;
  Candidate *candidate = build->candidate;
  if (mlirValueIsABlockArgument(value))
    return true; /* a function argument: values inside the op were excluded */
  MlirOperation producer = mlirOpResultGetOwner(value);
  if (memoptOperationIsA(producer, "arith.constant"))
    return true;
  size_t producerPosition;
  if (!positionOf(search, producer, &producerPosition) ||
      !mlirBlockEqual(mlirOperationGetBlock(producer), search->body))
    return false;
  if (build->inChain[producerPosition])
    return true;
  MlirType type = mlirValueGetType(value);
  if (!mlirTypeIsATensor(type))
    return true; /* a scalar defined above the peak: costs nothing to keep */
  bool init = index >= 0 && isInit(op, index);
  size_t buffer;
  bool hasBuffer = memoptMemoryProfileLookupBuffer(search->profile, value, &buffer);
  MemoptBufferInfo info = {0};
  if (hasBuffer)
    info = memoptMemoryProfileGetBuffer(search->profile, buffer);
  if (!init) {
    if (!hasBuffer)
      return true; /* a view of an argument or a constant */
    if (buffer != candidate->buffer && !info.nested &&
        info.lastPosition >= candidate->insertion)
      return true; /* live at the insertion point anyway */
  }
  bool structural = isStructural(producer);
  bool recompute = memoptOpIsRecomputable(producer) &&
                   (structural || (!candidate->extendLeaves &&
                                   build->computeOps < search->limits->maxChain));
  if (recompute) {
    addToChain(build, producerPosition);
    return true;
  }
  if (init || !hasBuffer || info.nested || buffer == candidate->buffer || !info.sizeKnown)
    return false;
  build->extended = memoptGrowArray(build->extended, &build->extendedCapacity,
                                    build->extendedCount + 1, sizeof *build->extended);
  build->extended[build->extendedCount++] = buffer;
  return true;
}

static int compareSizes(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return x < y ? -1 : x > y;
}

/* The values held in `buffer`: its first value and everything computed from
 * it into the same buffer (views, in-place results). */
static size_t bufferValues(const Search *search, size_t buffer, MlirValue **values) {
  MemoptBufferInfo info = memoptMemoryProfileGetBuffer(search->profile, buffer);
  size_t count = 0, capacity = 0;
  MlirValue *list = NULL;
  list = memoptGrowArray(list, &capacity, count + 1, sizeof *list);
  list[count++] = info.value;
  for (size_t k = 0; k < count; ++k)
    for (MlirOpOperand use = mlirValueGetFirstUse(list[k]); !mlirOpOperandIsNull(use);
         use = mlirOpOperandGetNextUse(use)) {
      MlirOperation owner = mlirOpOperandGetOwner(use);
      for (intptr_t r = 0; r < mlirOperationGetNumResults(owner); ++r) {
        MlirValue result = mlirOperationGetResult(owner, r);
        size_t held;
        if (!memoptMemoryProfileLookupBuffer(search->profile, result, &held) || held != buffer)
          continue;
        bool known = false;
        for (size_t j = 0; j < count && !known; ++j)
          known = mlirValueEqual(list[j], result);
        if (!known) {
          list = memoptGrowArray(list, &capacity, count + 1, sizeof *list);
          list[count++] = result;
        }
      }
    }
  *values = list;
  return count;
}

/* The span of the difference array a candidate touched, so that scoring
 * and clearing it cost its length, not the function's. */
typedef struct DeltaSpan {
  int64_t *delta; /* positionCount + 1 slots */
  size_t low, high;
} DeltaSpan;

/* Adds `bytes` to positions [from, to]. */
static void addRange(DeltaSpan *span, size_t from, size_t to, int64_t bytes) {
  if (from > to)
    return;
  span->delta[from] += bytes;
  span->delta[to + 1] -= bytes;
  if (from < span->low)
    span->low = from;
  if (to + 1 > span->high)
    span->high = to + 1;
}

/* The clones' own buffers during the chain: each allocated at its op,
 * freed after the last clone reading it, except the recomputed buffer,
 * which lives on. Returns the most bytes they hold at once. */
typedef struct ChainReads {
  const Search *search;
  const Candidate *candidate;
  size_t reader;
  size_t *buffers;    /* buffers allocated by clones */
  size_t *lastReader; /* per entry of `buffers` */
  size_t count;
} ChainReads;

static bool recordChainRead(void *state, MlirOperation op, intptr_t index, MlirValue value) {
  (void)op;
  (void)index;
  ChainReads *reads = state;
  size_t buffer;
  if (!memoptMemoryProfileLookupBuffer(reads->search->profile, value, &buffer))
    return true;
  for (size_t i = 0; i < reads->count; ++i)
    if (reads->buffers[i] == buffer)
      reads->lastReader[i] = reads->reader;
  return true;
}

static uint64_t chainPeakBytes(const Search *search, const Candidate *candidate) {
  ChainReads reads = {search, candidate, 0, NULL, NULL, 0};
  size_t capacity = 0;
  uint64_t *allocated = memoptAllocateZeroed(candidate->opCount, sizeof *allocated);
  for (size_t k = 0; k < candidate->opCount; ++k) {
    MlirOperation op = search->opAt[candidate->ops[k]];
    for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r) {
      size_t buffer;
      if (!memoptMemoryProfileLookupBuffer(search->profile, mlirOperationGetResult(op, r), &buffer))
        continue;
      MemoptBufferInfo info = memoptMemoryProfileGetBuffer(search->profile, buffer);
      if (!mlirOperationEqual(info.op, op) || info.nested)
        continue;
      size_t lastCapacity = capacity;
      reads.buffers =
          memoptGrowArray(reads.buffers, &capacity, reads.count + 1, sizeof *reads.buffers);
      reads.lastReader = memoptGrowArray(reads.lastReader, &lastCapacity, reads.count + 1,
                                         sizeof *reads.lastReader);
      reads.buffers[reads.count] = buffer;
      reads.lastReader[reads.count++] = k;
      allocated[k] += info.bytes;
    }
  }
  for (size_t k = 0; k < candidate->opCount; ++k) {
    reads.reader = k;
    forEachOperand(search->opAt[candidate->ops[k]], recordChainRead, &reads);
  }
  uint64_t current = 0, most = 0;
  for (size_t k = 0; k < candidate->opCount; ++k) {
    current += allocated[k];
    if (current > most)
      most = current;
    for (size_t i = 0; i < reads.count; ++i)
      if (reads.lastReader[i] == k && reads.buffers[i] != candidate->buffer)
        current -= memoptMemoryProfileGetBuffer(search->profile, reads.buffers[i]).bytes;
  }
  free(allocated);
  free(reads.buffers);
  free(reads.lastReader);
  return most;
}

/* Builds and scores the candidate freeing `buffer` across `peak`; false when
 * the buffer cannot be rematerialized or the model sees no gain. */
static bool buildCandidate(Search *search, size_t peak, size_t buffer, bool extendLeaves,
                           bool atLowPoint, Candidate *candidate) {
  MemoptBufferInfo info = memoptMemoryProfileGetBuffer(search->profile, buffer);
  memset(candidate, 0, sizeof *candidate);
  candidate->buffer = buffer;
  candidate->extendLeaves = extendLeaves;
  candidate->atLowPoint = atLowPoint;
  if (info.nested || info.escapes || !info.sizeKnown || info.bytes == 0 ||
      info.kind != MemoptBufferAllocation || info.firstPosition >= peak ||
      info.lastPosition <= peak)
    return false;
  MlirValue *values;
  size_t valueCount = bufferValues(search, buffer, &values);
  size_t lastBefore = info.firstPosition;
  size_t insertion = search->positionCount;
  bool ok = true;
  bool *late = memoptAllocateZeroed(valueCount, sizeof *late);
  for (size_t v = 0; v < valueCount && ok; ++v) {
    MlirValue value = values[v];
    if (!mlirValueIsAOpResult(value)) {
      ok = false;
      break;
    }
    size_t definition = 0;
    ok = positionOf(search, mlirOpResultGetOwner(value), &definition) && definition < peak &&
         mlirBlockEqual(mlirOperationGetBlock(mlirOpResultGetOwner(value)), search->body);
    if (definition > lastBefore)
      lastBefore = definition;
    for (MlirOpOperand use = mlirValueGetFirstUse(value); ok && !mlirOpOperandIsNull(use);
         use = mlirOpOperandGetNextUse(use)) {
      size_t position;
      ok = positionOf(search, mlirOpOperandGetOwner(use), &position) && position != peak;
      if (!ok)
        break;
      if (position > peak) {
        late[v] = true;
        if (position < insertion)
          insertion = position;
      } else if (position > lastBefore) {
        lastBefore = position;
      }
    }
  }
  ok = ok && insertion < search->positionCount;
  if (ok && atLowPoint) {
    /* Recompute where the fewest bytes are live between the peak and the
     * first later use (not at the use itself, which the other variant
     * does): the clones' own buffers then add to less. */
    size_t lowest = insertion;
    for (size_t p = peak + 1; p < insertion; ++p)
      if (search->live[p] < search->live[lowest])
        lowest = p;
    ok = lowest != insertion;
    insertion = lowest;
  }
  candidate->insertion = insertion;
  ChainBuild build = {search, candidate, NULL, NULL, 0, 0, NULL, 0, 0};
  if (ok) {
    build.inChain = search->inChain;
    build.worklist = search->worklist;
    for (size_t v = 0; v < valueCount; ++v)
      if (late[v]) {
        size_t definition = 0;
        positionOf(search, mlirOpResultGetOwner(values[v]), &definition);
        addToChain(&build, definition);
      }
    for (size_t k = 0; k < build.worklistCount && ok; ++k) {
      MlirOperation op = search->opAt[build.worklist[k]];
      ok = memoptOpIsRecomputable(op) && forEachOperand(op, chainOperand, &build);
    }
    ok = ok && build.computeOps <= search->limits->maxChain;
  }
  if (ok) {
    candidate->opCount = build.worklistCount;
    candidate->ops = memoptAllocateZeroed(candidate->opCount, sizeof *candidate->ops);
    memcpy(candidate->ops, build.worklist, candidate->opCount * sizeof *candidate->ops);
    qsort(candidate->ops, candidate->opCount, sizeof *candidate->ops, compareSizes);
    /* The model: the buffer ends at its last use before the peak; the clones
     * allocate at the insertion point, the recomputed buffer lives on to its
     * old end; extended leaves live until the insertion point. */
    DeltaSpan span = {search->delta, SIZE_MAX, 0};
    int64_t bytes = (int64_t)info.bytes;
    addRange(&span, lastBefore + 1, info.lastPosition, -bytes);
    addRange(&span, insertion + 1, info.lastPosition, bytes);
    for (size_t k = 0; k < candidate->opCount; ++k)
      candidate->cost += memoptOpRecomputeCost(search->opAt[candidate->ops[k]]);
    addRange(&span, insertion, insertion, (int64_t)chainPeakBytes(search, candidate));
    for (size_t k = 0; k < build.extendedCount; ++k) {
      bool seen = false;
      for (size_t j = 0; j < k && !seen; ++j)
        seen = build.extended[j] == build.extended[k];
      MemoptBufferInfo leaf = memoptMemoryProfileGetBuffer(search->profile, build.extended[k]);
      if (!seen && leaf.lastPosition < insertion)
        addRange(&span, leaf.lastPosition + 1, insertion, (int64_t)leaf.bytes);
    }
    /* Outside the span nothing changes (and nothing exceeds the peak). */
    int64_t peakBytes = search->live[peak];
    int64_t running = 0, atPeak = 0, atInsertion = 0;
    size_t spanEnd = span.high < search->positionCount ? span.high : search->positionCount;
    int64_t newPeak = search->liveBefore[span.low] > search->liveFrom[spanEnd]
                          ? search->liveBefore[span.low]
                          : search->liveFrom[spanEnd];
    for (size_t p = span.low; p < spanEnd; ++p) {
      running += span.delta[p];
      if (search->live[p] + running > newPeak)
        newPeak = search->live[p] + running;
      if (p == peak)
        atPeak = running;
      if (p == insertion)
        atInsertion = running;
      ok = ok && search->live[p] + running <= peakBytes;
    }
    for (size_t p = span.low; p <= span.high; ++p)
      span.delta[p] = 0;
    /* At the insertion point the clones themselves must stay below the
     * peak: otherwise the peak only moves to them. */
    ok = ok && atPeak < 0 && search->live[insertion] + atInsertion < peakBytes;
    candidate->saving = ok ? (uint64_t)-atPeak : 0;
    candidate->newPeak = newPeak;
    candidate->score = (double)candidate->saving / (candidate->cost + 1.0);
  }
  for (size_t k = 0; k < build.worklistCount; ++k)
    search->inChain[build.worklist[k]] = false;
  free(build.extended);
  free(late);
  free(values);
  if (!ok) {
    free(candidate->ops);
    candidate->ops = NULL;
  }
  return ok;
}

/* Clones the candidate's ops before the op at its insertion point and
 * redirects every use at or after that point; records how to undo it. */
static void applyCandidate(Search *search, const Candidate *candidate, Step *step) {
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
static void freePositionArrays(Search *search) {
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
static void adoptProfile(Search *search, MemoptMemoryProfile *profile) {
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

static size_t positionsAt(const Search *search, int64_t bytes) {
  size_t count = 0;
  for (size_t p = 0; p < search->positionCount; ++p)
    count += search->live[p] == bytes;
  return count;
}

static int compareCandidates(const void *a, const void *b) {
  const Candidate *x = a, *y = b;
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
static size_t rejectionKey(const Candidate *candidate) {
  return (size_t)1 << ((candidate->extendLeaves ? 1 : 0) + (candidate->atLowPoint ? 2 : 0));
}

static bool isRejected(const Search *search, const Candidate *candidate) {
  MemoptBufferInfo info = memoptMemoryProfileGetBuffer(search->profile, candidate->buffer);
  size_t mark = memoptPointerMapLookup(&search->rejected, info.value.ptr);
  return mark != MEMOPT_NO_INDEX && (mark & rejectionKey(candidate));
}

static void reject(Search *search, const Candidate *candidate, const void *valueKey) {
  size_t mark = memoptPointerMapLookup(&search->rejected, valueKey);
  if (mark == MEMOPT_NO_INDEX)
    mark = 0;
  memoptPointerMapInsert(&search->rejected, valueKey, mark | rejectionKey(candidate));
}

static void destroySearch(Search *search) {
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
  Search search = {0};
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
    Candidate *candidates = memoptAllocateZeroed(4 * liveCount, sizeof *candidates);
    size_t candidateCount = 0;
    for (size_t b = 0; b < liveCount; ++b)
      for (int variant = 0; variant < 4; ++variant) {
        Candidate *candidate = &candidates[candidateCount];
        if (buildCandidate(&search, peak, live[b], variant & 1, variant & 2, candidate)) {
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
      const void *key = memoptMemoryProfileGetBuffer(search.profile, candidates[c].buffer).value.ptr;
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

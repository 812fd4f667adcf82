/* remat-dynamic's search (RematDynamic.h has the model): which values
 * become evictable. It finds the buffer uses and candidate peaks on the
 * memory profile, the longest gap of each value's buffer that spans a peak,
 * the values whose chain regenerates them (RematDynamicChain.c), orders
 * them by regeneration cost per byte and accepts them while the nesting of
 * regenerates stays bounded; then it places each regenerate and measures
 * what stays resident while it runs. It reads the IR and never changes it. */
#include "Remat/RematDynamic.h"

#include "Analysis/Analysis.h"
#include "IR/IR.h"

#include <stdlib.h>

void rematDynamicCandidateDestroy(EvictionCandidate *candidate) {
  memoptPolynomialDestroy(candidate->bytes);
  memoptPolynomialDestroy(candidate->cost);
  memoptPolynomialDestroy(candidate->restoreBytes);
  free(candidate->chain);
  free(candidate->inputs);
}

/* Calls `visit` on every value an op reads from outside itself: its
 * operands, then the values ops nested in its regions capture, until `visit`
 * returns false. */
void rematDynamicForEachExternalOperand(MlirOperation op, MemoptValueVisitor visit,
                                        void *userData) {
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i)
    if (!visit(mlirOperationGetOperand(op, i), userData))
      return;
  memoptOperationForEachCapture(op, visit, userData);
}

typedef struct MarkUse {
  RematDynamicContext *context;
  size_t position;
} MarkUse;

static bool markBufferUse(MlirValue value, void *userData) {
  MarkUse *mark = userData;
  size_t buffer;
  if (memoptMemoryProfileLookupBuffer(mark->context->profile, value, &buffer))
    mark->context->bufferUsed[mark->position * mark->context->bufferCount + buffer] = true;
  return true;
}

void rematDynamicContextAnalyse(RematDynamicContext *context) {
  context->bufferUsed = memoptAllocateZeroed(
      context->positionCount * (context->bufferCount ? context->bufferCount : 1), sizeof(bool));
  context->isPeak = memoptAllocateZeroed(context->positionCount, sizeof(bool));
  for (size_t p = 0; p < context->positionCount; ++p) {
    MarkUse mark = {context, p};
    rematDynamicForEachExternalOperand(memoptMemoryProfileGetPositionOp(context->profile, p),
                                       markBufferUse, &mark);
  }
  size_t peakCount = memoptSymbolicPeakPositions(context->profile, context->symbols, NULL, 0);
  size_t *peaks = memoptAllocateZeroed(peakCount, sizeof *peaks);
  memoptSymbolicPeakPositions(context->profile, context->symbols, peaks, peakCount);
  for (size_t i = 0; i < peakCount; ++i)
    context->isPeak[peaks[i]] = true;
  free(peaks);
}

void rematDynamicContextDestroy(RematDynamicContext *context) {
  free(context->bufferUsed);
  free(context->isPeak);
}

/* True when `value` is `root` or a view of it (through view ops only), so
 * that it reads `root`'s buffer and can be rebuilt on a regenerated root. */
bool rematDynamicIsViewOf(MlirValue value, MlirValue root) {
  while (!mlirValueEqual(value, root)) {
    if (!mlirValueIsAOpResult(value))
      return false;
    MlirOperation op = mlirOpResultGetOwner(value);
    if (!memoptOperationIsView(op) || mlirOperationGetNumOperands(op) == 0)
      return false;
    value = mlirOperationGetOperand(op, 0);
  }
  return true;
}

/* True when every read of `buffer` at or after `from` reads `value`, a view
 * of it, or a value defined at or after `from` (a new value written into
 * the buffer once `value` is dead). */
typedef struct LaterReads {
  const RematDynamicContext *context;
  size_t buffer;
  MlirValue value;
  size_t from;
  bool ok;
} LaterReads;

static bool checkLaterRead(MlirValue operand, void *userData) {
  LaterReads *check = userData;
  size_t buffer, defined;
  if (!memoptMemoryProfileLookupBuffer(check->context->profile, operand, &buffer) ||
      buffer != check->buffer || rematDynamicIsViewOf(operand, check->value))
    return true;
  if (mlirValueIsABlockArgument(operand) ||
      !positionOf(check->context, mlirOpResultGetOwner(operand), &defined) || defined < check->from)
    check->ok = false;
  return check->ok;
}

static bool laterReadsAreDirect(const RematDynamicContext *context, size_t buffer, MlirValue value,
                                size_t from) {
  LaterReads check = {context, buffer, value, from, true};
  for (size_t p = from; p < context->positionCount && check.ok; ++p)
    if (context->bufferUsed[p * context->bufferCount + buffer])
      rematDynamicForEachExternalOperand(memoptMemoryProfileGetPositionOp(context->profile, p),
                                         checkLaterRead, &check);
  return check.ok;
}

/* True when every result of `op`, at `position`, is read only by the ops
 * after it up to position `next`. */
static bool onlyPrepares(const RematDynamicContext *context, MlirOperation op, size_t position,
                         size_t next) {
  for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r)
    for (MlirOpOperand read = mlirValueGetFirstUse(mlirOperationGetResult(op, r));
         !mlirOpOperandIsNull(read); read = mlirOpOperandGetNextUse(read)) {
      size_t at;
      if (!positionOf(context, mlirOpOperandGetOwner(read), &at) || at <= position || at > next)
        return false;
    }
  return true;
}

/* Whether an op frees a buffer: the last read of some buffer is at its position. */
typedef struct FreeCheck {
  const RematDynamicContext *context;
  size_t position;
  bool frees;
} FreeCheck;

static bool checkFree(MlirValue value, void *userData) {
  FreeCheck *check = userData;
  size_t buffer;
  if (memoptMemoryProfileLookupBuffer(check->context->profile, value, &buffer) &&
      memoptMemoryProfileGetBuffer(check->context->profile, buffer).lastPosition == check->position)
    check->frees = true;
  return !check->frees;
}

/* The earliest position after `last` from which every op up to `next` is
 * pure, frees no buffer and only prepares the op at `next`'s other operands
 * (its init's empty and fill, a transposed weight): a regenerate for `next`
 * goes before them. Their buffers are then allocated after the
 * regeneration rather than held through it, and as they free nothing, the
 * regenerated value being resident during them adds to no lower point. */
static size_t preparationStart(const RematDynamicContext *context, size_t last, size_t next) {
  size_t start = next;
  for (size_t p = next - 1; p > last; --p) {
    MlirOperation above = memoptMemoryProfileGetPositionOp(context->profile, p);
    if (!mlirOperationEqual(mlirOperationGetNextInBlock(above),
                            memoptMemoryProfileGetPositionOp(context->profile, p + 1)) ||
        mlirOperationGetNumResults(above) == 0 || !memoptOperationIsPure(above) ||
        !onlyPrepares(context, above, p, next))
      break;
    FreeCheck check = {context, p, false};
    rematDynamicForEachExternalOperand(above, checkFree, &check);
    if (check.frees)
      break;
    start = p;
  }
  return start;
}

/* True when `value` fills the whole of the buffer `allocated` allocates: the
 * same type, or (written in place through a reshape, as softmax's scores
 * are allocated 3-D and expanded per head) surely the same bytes. */
static bool fillsBuffer(const RematDynamicContext *context, MlirValue value, MlirValue allocated) {
  if (mlirTypeEqual(mlirValueGetType(allocated), mlirValueGetType(value)))
    return true;
  MemoptPolynomial *valueBytes = memoptShapeSymbolsGetByteSize(context->symbols, value);
  MemoptPolynomial *bufferBytes = memoptShapeSymbolsGetByteSize(context->symbols, allocated);
  bool equal = valueBytes && bufferBytes && memoptPolynomialEqual(valueBytes, bufferBytes);
  memoptPolynomialDestroy(valueBytes);
  memoptPolynomialDestroy(bufferBytes);
  return equal;
}

/* Fills `candidate` for `value`, defined at `definition`; false when it is none. */
static bool findCandidate(const RematDynamicContext *context, MlirValue value, size_t definition,
                          EvictionCandidate *candidate) {
  size_t buffer;
  if (!isTensor(value) || !memoptMemoryProfileLookupBuffer(context->profile, value, &buffer))
    return false;
  MemoptBufferInfo info = memoptMemoryProfileGetBuffer(context->profile, buffer);
  MlirOperation producer = mlirOpResultGetOwner(value);
  if (info.kind != MemoptBufferAllocation || info.nested || info.escapes ||
      memoptOperationIsView(producer) || memoptOperationIsA(producer, "tensor.empty") ||
      !fillsBuffer(context, value, info.value))
    return false;
  /* Gaps lie between consecutive reads of the buffer, through any value,
   * up to where the regenerate would go. */
  size_t previous = definition, bestStart = 0, bestEnd = 0, bestRegenerate = 0;
  for (size_t next = definition + 1; next < context->positionCount; ++next) {
    if (!context->bufferUsed[next * context->bufferCount + buffer])
      continue;
    size_t regenerate = (long long)(next - previous - 1) >= context->minGap
                            ? preparationStart(context, previous, next)
                            : next;
    bool spansPeak = context->everywhere;
    for (size_t p = previous + 1; p < regenerate; ++p)
      spansPeak = spansPeak || context->isPeak[p];
    if ((long long)(regenerate - previous - 1) >= context->minGap && spansPeak &&
        regenerate - previous > bestRegenerate - bestStart) {
      bestStart = previous;
      bestEnd = next;
      bestRegenerate = regenerate;
    }
    previous = next;
  }
  if (bestEnd == 0 || !laterReadsAreDirect(context, buffer, value, bestEnd))
    return false;
  MemoptPolynomial *bytes = memoptShapeSymbolsGetByteSize(context->symbols, value);
  MemoptPolynomial *minimum = memoptPolynomialCreateConstant((int64_t)context->minBytes);
  MemoptComparison comparison = bytes ? memoptShapeSymbolsCompare(context->symbols, bytes, minimum)
                                      : MemoptComparisonUnknown;
  memoptPolynomialDestroy(minimum);
  if (comparison != MemoptComparisonGreater && comparison != MemoptComparisonGreaterOrEqual &&
      comparison != MemoptComparisonEqual) {
    memoptPolynomialDestroy(bytes);
    return false;
  }
  *candidate =
      (EvictionCandidate){.value = value,
                  .definition = definition,
                  .gapStart = bestStart,
                  .gapEnd = bestEnd,
                  .regenerateAt = bestRegenerate,
                  .bytes = bytes,
                  .chain = memoptAllocateZeroed(context->positionCount, sizeof(MlirOperation))};
  if (!rematDynamicBuildChain(context, candidate)) {
    rematDynamicCandidateDestroy(candidate);
    return false;
  }
  return true;
}

EvictionCandidate *rematDynamicFindCandidates(const RematDynamicContext *context, size_t *count) {
  EvictionCandidate *candidates =
      memoptAllocateZeroed(context->positionCount * 4, sizeof *candidates);
  size_t candidateCount = 0;
  for (size_t p = 0; p < context->positionCount; ++p) {
    MlirOperation op = memoptMemoryProfileGetPositionOp(context->profile, p);
    for (intptr_t r = 0; r < mlirOperationGetNumResults(op) && r < 4; ++r)
      if (findCandidate(context, mlirOperationGetResult(op, r), p, &candidates[candidateCount])) {
        candidates[candidateCount].cost = memoptSymbolicRecomputeCostOfOps(
            context->symbols, candidates[candidateCount].chain,
            candidates[candidateCount].chainCount);
        ++candidateCount;
      }
  }
  *count = candidateCount;
  return candidates;
}

/* True when `a` surely costs less per byte to regenerate than `b`. */
static bool cheaperPerByte(const MemoptShapeSymbols *symbols, const EvictionCandidate *a,
                           const EvictionCandidate *b) {
  if (!a->cost || !b->cost)
    return false;
  MemoptPolynomial *left = memoptPolynomialMultiply(a->cost, b->bytes);
  MemoptPolynomial *right = memoptPolynomialMultiply(b->cost, a->bytes);
  bool cheaper = memoptShapeSymbolsCompare(symbols, left, right) == MemoptComparisonLess;
  memoptPolynomialDestroy(left);
  memoptPolynomialDestroy(right);
  return cheaper;
}

/* Order of consideration: surely cheaper per byte first, then larger. */
static bool movesAhead(const MemoptShapeSymbols *symbols, const EvictionCandidate *moving,
                       const EvictionCandidate *ahead) {
  if (cheaperPerByte(symbols, moving, ahead))
    return true;
  if (cheaperPerByte(symbols, ahead, moving))
    return false;
  return memoptShapeSymbolsCompare(symbols, moving->bytes, ahead->bytes) == MemoptComparisonGreater;
}

/* Insertion sort by movesAhead: a candidate moves only ahead of those it
 * surely beats. */
void rematDynamicOrderCandidates(const MemoptShapeSymbols *symbols, EvictionCandidate *candidates,
                                 size_t count) {
  for (size_t i = 1; i < count; ++i) {
    EvictionCandidate moving = candidates[i];
    size_t j = i;
    while (j > 0 && movesAhead(symbols, &moving, &candidates[j - 1])) {
      candidates[j] = candidates[j - 1];
      --j;
    }
    candidates[j] = moving;
  }
}

/* True when `reader`'s chain, recomputed at `position`, reads `evicted`'s
 * value (or a view of it) while it may be evicted: after its evict and no
 * later than its own regenerate. */
bool rematDynamicReadsWhileEvicted(const EvictionCandidate *reader, size_t position,
                                   const EvictionCandidate *evicted) {
  if (position <= evicted->gapStart || position > evicted->gapEnd)
    return false;
  for (size_t i = 0; i < reader->inputCount; ++i)
    if (rematDynamicIsViewOf(reader->inputs[i], evicted->value))
      return true;
  return false;
}

/* The regenerates nested, at any depth, in the regeneration of `candidate`
 * at `position`, counted until they pass `limit`: each value its chain
 * reads while another candidate of `accepted` may have evicted it is
 * restored by a nested regenerate, whose own chain may read evicted values
 * in turn. Each is a copy of a chain in the IR, and what it restores stays
 * resident until the regeneration ends. */
static long long nestedRegenerates(const EvictionCandidate *candidate, size_t position,
                                   EvictionCandidate *const *accepted, size_t acceptedCount,
                                   long long limit) {
  long long total = 0;
  for (size_t i = 0; i < acceptedCount && total <= limit; ++i) {
    const EvictionCandidate *other = accepted[i];
    if (other != candidate && rematDynamicReadsWhileEvicted(candidate, position, other))
      total += 1 + nestedRegenerates(other, position, accepted, acceptedCount, limit - total - 1);
  }
  return total;
}

/* Accepts `candidate` (appending it to `accepted`) unless some regeneration
 * of it or of an accepted candidate would then nest more than max-nested
 * regenerates. */
static bool accept(const RematDynamicContext *context, EvictionCandidate *candidate,
                   EvictionCandidate **accepted, size_t *acceptedCount) {
  size_t count = *acceptedCount + 1;
  accepted[*acceptedCount] = candidate;
  for (size_t i = 0; i < count; ++i)
    if (nestedRegenerates(accepted[i], accepted[i]->gapEnd, accepted, count, context->maxNested) >
        context->maxNested)
      return false;
  *acceptedCount = count;
  return true;
}

EvictionCandidate **rematDynamicAcceptCandidates(const RematDynamicContext *context,
                                                 EvictionCandidate *candidates, size_t count,
                                                 size_t *acceptedCount) {
  EvictionCandidate **accepted = memoptAllocateZeroed(count, sizeof *accepted);
  *acceptedCount = 0;
  for (size_t i = 0; i < count; ++i)
    accept(context, &candidates[i], accepted, acceptedCount);
  return accepted;
}

/* True when an accepted candidate other than `candidate` has its evict or
 * regenerate go right before the op at `position`. */
static bool rematOpBefore(const EvictionCandidate *candidate, size_t position,
                          EvictionCandidate *const *accepted, size_t acceptedCount) {
  for (size_t i = 0; i < acceptedCount; ++i)
    if (accepted[i] != candidate &&
        (accepted[i]->gapEnd == position || accepted[i]->gapStart + 1 == position))
      return true;
  return false;
}

/* The position of the op the regenerate of `candidate` goes before: its
 * regenerateAt, unless an accepted candidate's evict or regenerate goes
 * between that op and the next use. It keeps its place relative to those
 * (whichever is inserted first), so that what each regeneration finds
 * evicted is what the nesting was decided on. */
static size_t regenerationPosition(const EvictionCandidate *candidate,
                                   EvictionCandidate *const *accepted, size_t acceptedCount) {
  size_t at = candidate->gapEnd;
  if (!rematOpBefore(candidate, at, accepted, acceptedCount))
    while (at > candidate->regenerateAt &&
           !rematOpBefore(candidate, at - 1, accepted, acceptedCount))
      --at;
  return at;
}

size_t *rematDynamicRegenerationPositions(EvictionCandidate *const *accepted,
                                          size_t acceptedCount) {
  size_t *regenerateAt = memoptAllocateZeroed(acceptedCount + 1, sizeof *regenerateAt);
  for (size_t i = 0; i < acceptedCount; ++i)
    regenerateAt[i] = regenerationPosition(accepted[i], accepted, acceptedCount);
  return regenerateAt;
}

/* The bytes resident, at least, while the regenerate of `accepted[index]`
 * runs (`regenerateAt`: the positions of the ops each accepted candidate's
 * regenerate goes before): the buffers live across that point, its own and
 * those its recomputation reads included, except those of other candidates
 * that may be evicted there. The inputs of a nested regeneration count as
 * evictable: they are restored only when the input they rebuild was
 * evicted too. Nothing counted can make room for the restoration, so
 * evicting the candidate to stay under a limit below this only moves the
 * excess to its regenerate. NULL when some size is unknown. */
static MemoptPolynomial *restoreFootprint(const RematDynamicContext *context,
                                          EvictionCandidate *const *accepted, size_t acceptedCount,
                                          const size_t *regenerateAt, size_t index) {
  const EvictionCandidate *candidate = accepted[index];
  size_t at = regenerateAt[index];
  bool *evictable = memoptAllocateZeroed(context->bufferCount + 1, sizeof(bool));
  for (size_t i = 0; i < acceptedCount; ++i) {
    size_t buffer;
    /* Ties (an evict or regenerate before the same op) count as evictable:
     * the footprint stays a lower bound. */
    if (i != index && !rematDynamicReadsWhileEvicted(candidate, candidate->gapEnd, accepted[i]) &&
        accepted[i]->gapStart < at && regenerateAt[i] >= at &&
        memoptMemoryProfileLookupBuffer(context->profile, accepted[i]->value, &buffer))
      evictable[buffer] = true;
  }
  size_t liveCount = memoptMemoryProfileGetLiveBuffers(context->profile, at, NULL, 0);
  size_t *live = memoptAllocateZeroed(liveCount + 1, sizeof *live);
  memoptMemoryProfileGetLiveBuffers(context->profile, at, live, liveCount);
  MemoptPolynomial *total = memoptPolynomialCreateConstant(0);
  for (size_t i = 0; i < liveCount && total; ++i) {
    MemoptBufferInfo buffer = memoptMemoryProfileGetBuffer(context->profile, live[i]);
    /* Buffers the op at `at` allocates come after the regenerate. */
    if (evictable[live[i]] || buffer.nested || buffer.firstPosition >= at)
      continue;
    MemoptPolynomial *bytes = memoptSymbolicBufferBytes(context->symbols, &buffer);
    if (!bytes) {
      memoptPolynomialDestroy(total);
      total = NULL;
      break;
    }
    memoptPolynomialAccumulate(total, bytes, 1);
    memoptPolynomialDestroy(bytes);
  }
  free(live);
  free(evictable);
  return total;
}

void rematDynamicMeasureRestoreFootprints(const RematDynamicContext *context,
                                          EvictionCandidate *const *accepted,
                                          size_t acceptedCount, const size_t *regenerateAt) {
  for (size_t i = 0; i < acceptedCount; ++i)
    accepted[i]->restoreBytes = restoreFootprint(context, accepted, acceptedCount, regenerateAt, i);
}

/* Static rematerialization's candidates (RematSearch.c has the model, steps
 * 2 and 3): for a buffer live across the peak, the chain of ops to clone at
 * the insertion point (recomputed operands within max-chain computing ops,
 * or extended leaves), and its score on the memory profile: the bytes it
 * frees at the peak, the new peak, and whether the clones stay below it.
 * Reads the IR and the profile; changes neither. */
#include "Remat/RematCandidate.h"

#include "Analysis/Analysis.h"
#include "IR/IR.h"

#include "mlir-c/BuiltinTypes.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
  return (memoptOperationIsA(op, "tensor.insert_slice") ||
          memoptOperationIsA(op, "tensor.insert")) &&
         index == 1;
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
  RematSearchState *search;
  RematCandidate *candidate;
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
  RematSearchState *search = build->search;
  RematCandidate *candidate = build->candidate;
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
static size_t bufferValues(const RematSearchState *search, size_t buffer, MlirValue **values) {
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
  const RematSearchState *search;
  const RematCandidate *candidate;
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

static uint64_t chainPeakBytes(const RematSearchState *search, const RematCandidate *candidate) {
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
bool rematBuildCandidate(RematSearchState *search, size_t peak, size_t buffer, bool extendLeaves,
                           bool atLowPoint, RematCandidate *candidate) {
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

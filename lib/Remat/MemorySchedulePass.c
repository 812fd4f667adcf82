/* memory-schedule: reorders the ops of a function body to lower its peak
 * activation memory (BladeDISC++'s op scheduling).
 *
 * The buffers and their sizes come from the memory profile (sizes as
 * polynomials over the shape symbols when shapes are dynamic). A buffer is
 * allocated at its op and freed after the last op that uses a value held in
 * it, so the order of the ops decides what is live together. The default
 * strategy schedules bottom-up, from the return towards the entry: among the
 * ops whose users are all placed, it places the one whose placement adds the
 * least memory above it (the buffers it allocates die there, the buffers it
 * reads become live), comparing symbolic deltas; ties and unknown
 * comparisons keep the original order. `strategy=top-down` is XLA's list
 * scheduler (hlo_memory_scheduler): from the entry, the ready op with the
 * most bytes freed minus bytes allocated, for comparison.
 *
 * Dependences are SSA def-use edges (uses inside an op's regions included);
 * ops with possible side effects (anything but arith, math, tensor and linalg
 * on tensors) keep their relative order. The result is checked on the
 * memory profile of the reordered function: when its peak is not lower (for
 * symbolic sizes: not provably at most the old peak everywhere), the original
 * order is restored. A remark reports the peak before and after. */
#include "Analysis/Analysis.h"
#include "Analysis/BufferizationModel.h"
#include "IR/IR.h"
#include "Remat/Remat.h"

#include "mlir-c/BuiltinTypes.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The ops of the body (terminator excluded), their dependences, and the
 * buffers each allocates and reads. */
typedef struct ScheduleGraph {
  size_t opCount;
  MlirOperation *ops;
  IrIndexList *predecessors; /* per op: ops it must follow */
  size_t *successorCount;    /* per op: ops that must follow it */
  IrIndexList *uses;         /* per op: buffers it reads or writes */
  IrIndexList *allocations;  /* per op: buffers it allocates */
  size_t bufferCount;
  MemoptPolynomial **bytes;  /* per buffer */
  bool *usedByTerminator;    /* per buffer: live until the function returns */
  size_t *userCount;         /* per buffer: ops (terminator excluded) that use it */
  IrIndexList *initChain;    /* per op: the ops that only prepare its init, placed with it */
  bool *inInitChain;         /* per op: part of another op's init chain */
} ScheduleGraph;

/* Ops known free of side effects: value semantics on tensors and scalars. */
static bool isPure(MlirOperation op) {
  return memoptOperationIsPure(op) || memoptOperationIsA(op, "bufferization.alloc_tensor");
}

typedef struct OperandVisit {
  ScheduleGraph *graph;
  const MemoptPointerMap *indexOf;
  const MemoptMemoryProfile *profile;
  MlirBlock body;
  size_t op;
} OperandVisit;

/* The op of the body that holds `op` (itself or an ancestor), or NO_INDEX. */
static size_t bodyOpOf(const OperandVisit *visit, MlirOperation op) {
  op = memoptOperationAncestorInBlock(op, visit->body);
  return mlirOperationIsNull(op) ? MEMOPT_NO_INDEX : memoptPointerMapLookup(visit->indexOf, op.ptr);
}

static void recordOperand(OperandVisit *visit, MlirValue value) {
  ScheduleGraph *graph = visit->graph;
  if (visit->op < graph->opCount && mlirValueIsAOpResult(value)) {
    size_t producer = bodyOpOf(visit, mlirOpResultGetOwner(value));
    if (producer != MEMOPT_NO_INDEX && producer != visit->op &&
        producer < graph->opCount)
      memoptIndexListPushUnique(&graph->predecessors[visit->op], producer);
  }
  size_t buffer;
  if (memoptMemoryProfileLookupBuffer(visit->profile, value, &buffer) &&
      !memoptMemoryProfileGetBuffer(visit->profile, buffer).nested) {
    if (visit->op == graph->opCount)
      graph->usedByTerminator[buffer] = true;
    else
      memoptIndexListPushUnique(&graph->uses[visit->op], buffer);
  }
}

static MlirWalkResult visitNested(MlirOperation op, void *userData) {
  OperandVisit *visit = userData;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i)
    recordOperand(visit, mlirOperationGetOperand(op, i));
  return MlirWalkResultAdvance;
}

static void destroyGraph(ScheduleGraph *graph) {
  for (size_t i = 0; i < graph->opCount; ++i) {
    memoptIndexListDestroy(&graph->predecessors[i]);
    memoptIndexListDestroy(&graph->uses[i]);
    memoptIndexListDestroy(&graph->allocations[i]);
    memoptIndexListDestroy(&graph->initChain[i]);
  }
  for (size_t b = 0; b < graph->bufferCount; ++b)
    memoptPolynomialDestroy(graph->bytes[b]);
  free(graph->ops);
  free(graph->predecessors);
  free(graph->successorCount);
  free(graph->uses);
  free(graph->allocations);
  free(graph->bytes);
  free(graph->usedByTerminator);
  free(graph->userCount);
  free(graph->initChain);
  free(graph->inInitChain);
}

/* An op that only creates or fills a destination (tensor.empty, a fill):
 * its buffer becomes the result of the op it prepares the init of. */
static bool preparesInit(MlirOperation op) {
  return memoptOperationIsA(op, "tensor.empty") ||
         memoptOperationIsA(op, "bufferization.alloc_tensor") ||
         memoptOperationIsA(op, "linalg.fill");
}

/* True when every use of a result of `producer` is inside body op `user`. */
static bool onlyUsedBy(const OperandVisit *visit, MlirOperation producer, size_t user) {
  for (intptr_t r = 0; r < mlirOperationGetNumResults(producer); ++r)
    for (MlirOpOperand use = mlirValueGetFirstUse(mlirOperationGetResult(producer, r));
         !mlirOpOperandIsNull(use); use = mlirOpOperandGetNextUse(use))
      if (bodyOpOf(visit, mlirOpOperandGetOwner(use)) != user)
        return false;
  return true;
}

/* True when the single result of `producer` lives in the buffer of a result of `owner`. */
static bool becomesResultOf(const MemoptMemoryProfile *profile, MlirOperation producer,
                            MlirOperation owner) {
  size_t buffer, resultBuffer;
  if (mlirOperationGetNumResults(producer) != 1 ||
      !memoptMemoryProfileLookupBuffer(profile, mlirOperationGetResult(producer, 0), &buffer))
    return false;
  for (intptr_t r = 0; r < mlirOperationGetNumResults(owner); ++r)
    if (memoptMemoryProfileLookupBuffer(profile, mlirOperationGetResult(owner, r),
                                        &resultBuffer) &&
        resultBuffer == buffer)
      return true;
  return false;
}

/* The init chain of op `owner`: the empties and fills only it uses
 * (directly or through each other) and that hold its result's buffer.
 * Bottom-up placement puts them right above it, so that placing the op
 * counts its result buffer as freed above it; otherwise the buffer of a
 * matmul looks live until its fill and empty are placed, and the op seems to
 * free nothing. Listed in the order they are placed. */
static void collectInitChain(ScheduleGraph *graph, const OperandVisit *visit, size_t owner,
                             size_t op) {
  for (size_t k = 0; k < graph->predecessors[op].count; ++k) {
    size_t producer = graph->predecessors[op].items[k];
    MlirOperation producerOp = graph->ops[producer];
    if (graph->inInitChain[producer] || !preparesInit(producerOp) ||
        graph->successorCount[producer] != 1 || !onlyUsedBy(visit, producerOp, op) ||
        !becomesResultOf(visit->profile, producerOp, graph->ops[owner]))
      continue;
    graph->inInitChain[producer] = true;
    memoptIndexListPushUnique(&graph->initChain[owner], producer);
    collectInitChain(graph, visit, owner, producer);
  }
}

static void buildGraph(ScheduleGraph *graph, MlirBlock body, const MemoptMemoryProfile *profile,
                       const MemoptShapeSymbols *symbols) {
  memset(graph, 0, sizeof *graph);
  MlirOperation terminator = mlirBlockGetTerminator(body);
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationEqual(op, terminator);
       op = mlirOperationGetNextInBlock(op))
    ++graph->opCount;
  size_t count = graph->opCount;
  graph->ops = memoptAllocateZeroed(count, sizeof *graph->ops);
  graph->predecessors = memoptAllocateZeroed(count, sizeof *graph->predecessors);
  graph->successorCount = memoptAllocateZeroed(count, sizeof *graph->successorCount);
  graph->uses = memoptAllocateZeroed(count, sizeof *graph->uses);
  graph->allocations = memoptAllocateZeroed(count, sizeof *graph->allocations);
  graph->bufferCount = memoptMemoryProfileGetNumBuffers(profile);
  graph->bytes = memoptAllocateZeroed(graph->bufferCount, sizeof *graph->bytes);
  graph->usedByTerminator =
      memoptAllocateZeroed(graph->bufferCount, sizeof *graph->usedByTerminator);
  graph->userCount = memoptAllocateZeroed(graph->bufferCount, sizeof *graph->userCount);
  graph->initChain = memoptAllocateZeroed(count, sizeof *graph->initChain);
  graph->inInitChain = memoptAllocateZeroed(count, sizeof *graph->inInitChain);
  MemoptPointerMap indexOf = memoptPointerMapCreate();
  size_t index = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationEqual(op, terminator);
       op = mlirOperationGetNextInBlock(op)) {
    graph->ops[index] = op;
    memoptPointerMapInsert(&indexOf, op.ptr, index++);
  }
  memoptPointerMapInsert(&indexOf, terminator.ptr, count);
  OperandVisit visit = {graph, &indexOf, profile, body, 0};
  size_t previousImpure = MEMOPT_NO_INDEX;
  for (size_t i = 0; i <= count; ++i) {
    visit.op = i;
    mlirOperationWalk(i < count ? graph->ops[i] : terminator, visitNested, &visit,
                      MlirWalkPreOrder);
    if (i < count && !isPure(graph->ops[i])) {
      if (previousImpure != MEMOPT_NO_INDEX)
        memoptIndexListPushUnique(&graph->predecessors[i], previousImpure);
      previousImpure = i;
    }
  }
  for (size_t i = 0; i < count; ++i) {
    for (size_t k = 0; k < graph->predecessors[i].count; ++k)
      ++graph->successorCount[graph->predecessors[i].items[k]];
    for (size_t k = 0; k < graph->uses[i].count; ++k)
      ++graph->userCount[graph->uses[i].items[k]];
  }
  for (size_t b = 0; b < graph->bufferCount; ++b) {
    MemoptBufferInfo buffer = memoptMemoryProfileGetBuffer(profile, b);
    if (buffer.nested)
      continue;
    graph->bytes[b] = memoptSymbolicBufferBytes(symbols, &buffer);
    if (!graph->bytes[b])
      graph->bytes[b] = memoptPolynomialCreateUnknown();
    size_t allocator = bodyOpOf(&visit, buffer.op);
    if (allocator < count)
      memoptIndexListPushUnique(&graph->allocations[allocator], b);
  }
  for (size_t i = count; i-- > 0;)
    if (!graph->inInitChain[i])
      collectInitChain(graph, &visit, i, i);
  memoptPointerMapDestroy(&indexOf);
}

/* True when `candidate` is surely lower (or, with !lower, surely higher)
 * than `best`: an unknown comparison never displaces the current choice. */
static bool surelyBetter(const MemoptShapeSymbols *symbols, const MemoptPolynomial *candidate,
                         const MemoptPolynomial *best, bool lower) {
  MemoptComparison comparison = memoptShapeSymbolsCompare(symbols, candidate, best);
  return lower ? comparison == MemoptComparisonLess : comparison == MemoptComparisonGreater;
}

/* The change of live memory above the placed ops when op i and its init
 * chain are placed (bottom-up): the buffers they read that are not live yet
 * start to be, the buffers they allocate end. `reading` is scratch, one flag
 * per buffer, left cleared. */
static MemoptPolynomial *placementDelta(const ScheduleGraph *graph, size_t i, const bool *live,
                                        bool *reading) {
  MemoptPolynomial *delta = memoptPolynomialCreateConstant(0);
  for (size_t c = 0; c <= graph->initChain[i].count; ++c) {
    size_t op = c == 0 ? i : graph->initChain[i].items[c - 1];
    for (size_t k = 0; k < graph->uses[op].count; ++k) {
      size_t b = graph->uses[op].items[k];
      if (!live[b] && !reading[b] && graph->bytes[b])
        memoptPolynomialAccumulate(delta, graph->bytes[b], 1);
      reading[b] = true;
    }
  }
  for (size_t c = 0; c <= graph->initChain[i].count; ++c) {
    size_t op = c == 0 ? i : graph->initChain[i].items[c - 1];
    for (size_t k = 0; k < graph->allocations[op].count; ++k) {
      size_t b = graph->allocations[op].items[k];
      if ((live[b] || reading[b]) && graph->bytes[b])
        memoptPolynomialAccumulate(delta, graph->bytes[b], -1);
    }
  }
  for (size_t c = 0; c <= graph->initChain[i].count; ++c) {
    size_t op = c == 0 ? i : graph->initChain[i].items[c - 1];
    for (size_t k = 0; k < graph->uses[op].count; ++k)
      reading[graph->uses[op].items[k]] = false;
  }
  return delta;
}

/* Places op `op` above what is placed (bottom-up) at order[*next - 1]. */
static void placeBottomUp(const ScheduleGraph *graph, size_t op, bool *live, bool *placed,
                          size_t *pendingSuccessors, size_t *order, size_t *next) {
  placed[op] = true;
  order[--*next] = op;
  for (size_t k = 0; k < graph->uses[op].count; ++k)
    live[graph->uses[op].items[k]] = true;
  for (size_t k = 0; k < graph->allocations[op].count; ++k)
    live[graph->allocations[op].items[k]] = false;
  for (size_t k = 0; k < graph->predecessors[op].count; ++k)
    --pendingSuccessors[graph->predecessors[op].items[k]];
}

/* Bottom-up: fills `order` from its end. Placing op i (with its init chain)
 * above what is placed changes the memory live there by `placementDelta`.
 * Greedy mode places the ready op of least delta; conservative mode lets
 * only an op that surely frees memory jump ahead and otherwise keeps the
 * original order. Ties and unknown comparisons keep the original order (the
 * op that came last). */
static void scheduleBottomUp(const ScheduleGraph *graph, const MemoptShapeSymbols *symbols,
                             bool greedy, size_t *order) {
  size_t count = graph->opCount;
  bool *live = memoptAllocateZeroed(graph->bufferCount, sizeof *live);
  bool *reading = memoptAllocateZeroed(graph->bufferCount, sizeof *reading);
  bool *placed = memoptAllocateZeroed(count, sizeof *placed);
  size_t *pendingSuccessors = memoptAllocateZeroed(count, sizeof *pendingSuccessors);
  memcpy(pendingSuccessors, graph->successorCount, count * sizeof *pendingSuccessors);
  for (size_t b = 0; b < graph->bufferCount; ++b)
    live[b] = graph->usedByTerminator[b];
  MemoptPolynomial *zero = memoptPolynomialCreateConstant(0);
  size_t next = count;
  while (next > 0) {
    size_t best = MEMOPT_NO_INDEX;
    MemoptPolynomial *bestDelta = NULL;
    for (size_t i = count; i-- > 0;) {
      if (placed[i] || graph->inInitChain[i] || pendingSuccessors[i] != 0)
        continue;
      MemoptPolynomial *delta = placementDelta(graph, i, live, reading);
      bool eligible = greedy || surelyBetter(symbols, delta, zero, true);
      if (!bestDelta || (eligible && surelyBetter(symbols, delta, bestDelta, true))) {
        memoptPolynomialDestroy(bestDelta);
        bestDelta = delta;
        best = i;
      } else {
        memoptPolynomialDestroy(delta);
      }
    }
    memoptPolynomialDestroy(bestDelta);
    placeBottomUp(graph, best, live, placed, pendingSuccessors, order, &next);
    for (size_t c = 0; c < graph->initChain[best].count; ++c)
      placeBottomUp(graph, graph->initChain[best].items[c], live, placed, pendingSuccessors, order,
                    &next);
  }
  memoptPolynomialDestroy(zero);
  free(live);
  free(reading);
  free(placed);
  free(pendingSuccessors);
}

/* An op that only allocates (tensor.empty): XLA has no such instruction, its
 * ops define their own outputs, so top-down places it with its first user. */
static bool isAllocationOnly(MlirOperation op) {
  return memoptOperationIsA(op, "tensor.empty") ||
         memoptOperationIsA(op, "bufferization.alloc_tensor");
}

/* Places op i in `order` at `*next`, after the allocation-only ops it reads. */
static void placeTopDown(const ScheduleGraph *graph, size_t i, bool *placed,
                         size_t *pendingPredecessors, size_t *pendingUsers, size_t *order,
                         size_t *next) {
  for (size_t k = 0; k < graph->predecessors[i].count; ++k) {
    size_t producer = graph->predecessors[i].items[k];
    if (!placed[producer])
      placeTopDown(graph, producer, placed, pendingPredecessors, pendingUsers, order, next);
  }
  placed[i] = true;
  order[(*next)++] = i;
  for (size_t k = 0; k < graph->uses[i].count; ++k)
    --pendingUsers[graph->uses[i].items[k]];
  for (size_t j = 0; j < graph->opCount; ++j)
    for (size_t k = 0; k < graph->predecessors[j].count; ++k)
      if (graph->predecessors[j].items[k] == i)
        --pendingPredecessors[j];
}

/* Top-down as XLA's list scheduler: the ready op with the most bytes freed
 * (buffers whose last user it is) minus bytes allocated; on a tie, the op
 * that came first originally. */
static void scheduleTopDown(const ScheduleGraph *graph, const MemoptShapeSymbols *symbols,
                            size_t *order) {
  size_t count = graph->opCount;
  bool *placed = memoptAllocateZeroed(count, sizeof *placed);
  size_t *pendingPredecessors = memoptAllocateZeroed(count, sizeof *pendingPredecessors);
  size_t *pendingUsers = memoptAllocateZeroed(graph->bufferCount, sizeof *pendingUsers);
  memcpy(pendingUsers, graph->userCount, graph->bufferCount * sizeof *pendingUsers);
  for (size_t i = 0; i < count; ++i)
    pendingPredecessors[i] = graph->predecessors[i].count;
  size_t next = 0;
  while (next < count) {
    size_t best = MEMOPT_NO_INDEX;
    MemoptPolynomial *bestGain = NULL;
    for (size_t i = 0; i < count; ++i) {
      if (placed[i] || isAllocationOnly(graph->ops[i]))
        continue;
      /* Ready once every producer is placed or allocation-only. */
      bool ready = true;
      MemoptPolynomial *gain = memoptPolynomialCreateConstant(0);
      for (size_t k = 0; k < graph->predecessors[i].count && ready; ++k) {
        size_t producer = graph->predecessors[i].items[k];
        if (placed[producer])
          continue;
        ready = isAllocationOnly(graph->ops[producer]);
        for (size_t a = 0; ready && a < graph->allocations[producer].count; ++a)
          memoptPolynomialAccumulate(gain, graph->bytes[graph->allocations[producer].items[a]], -1);
      }
      for (size_t k = 0; ready && k < graph->uses[i].count; ++k) {
        size_t b = graph->uses[i].items[k];
        if (pendingUsers[b] == 1 && !graph->usedByTerminator[b] && graph->bytes[b])
          memoptPolynomialAccumulate(gain, graph->bytes[b], 1);
      }
      for (size_t k = 0; ready && k < graph->allocations[i].count; ++k)
        memoptPolynomialAccumulate(gain, graph->bytes[graph->allocations[i].items[k]], -1);
      if (ready && (!bestGain || surelyBetter(symbols, gain, bestGain, false))) {
        memoptPolynomialDestroy(bestGain);
        bestGain = gain;
        best = i;
      } else {
        memoptPolynomialDestroy(gain);
      }
    }
    memoptPolynomialDestroy(bestGain);
    if (best == MEMOPT_NO_INDEX) {
      /* Only allocation-only ops are left: nothing uses them. */
      for (size_t i = 0; i < count; ++i)
        if (!placed[i])
          placeTopDown(graph, i, placed, pendingPredecessors, pendingUsers, order, &next);
      break;
    }
    placeTopDown(graph, best, placed, pendingPredecessors, pendingUsers, order, &next);
  }
  free(placed);
  free(pendingPredecessors);
  free(pendingUsers);
}

/* Puts the ops of `graph` in `order` (indices into graph->ops) before the terminator. */
static void applyOrder(const ScheduleGraph *graph, const size_t *order, MlirBlock body) {
  MlirOperation next = mlirBlockGetTerminator(body);
  for (size_t k = graph->opCount; k-- > 0;) {
    MlirOperation op = graph->ops[order[k]];
    mlirOperationMoveBefore(op, next);
    next = op;
  }
}

/* The live bytes of every position of `func` as polynomials; NULL on error. */
static MemoptPolynomial **liveBytesOf(MlirOperation func, const MemoptShapeSymbols *symbols,
                                      size_t *count, MemoptStringBuffer *error) {
  MemoptMemoryProfile *profile = memoptMemoryProfileCreate(func, false, error);
  if (!profile)
    return NULL;
  *count = memoptMemoryProfileGetNumPositions(profile);
  MemoptPolynomial **live = memoptAllocateZeroed(*count, sizeof *live);
  for (size_t p = 0; p < *count; ++p)
    live[p] = memoptSymbolicLiveBytes(profile, symbols, p);
  memoptMemoryProfileDestroy(profile);
  return live;
}

static void destroyLiveBytes(MemoptPolynomial **live, size_t count) {
  for (size_t p = 0; live && p < count; ++p)
    memoptPolynomialDestroy(live[p]);
  free(live);
}

/* True when every position of `after` surely holds at most what some
 * position of `before` holds: the new peak is not above the old one. */
static bool notAbove(const MemoptShapeSymbols *symbols, MemoptPolynomial *const *after,
                     size_t afterCount, MemoptPolynomial *const *before, size_t beforeCount) {
  for (size_t p = 0; p < afterCount; ++p) {
    bool covered = false;
    for (size_t q = 0; q < beforeCount && !covered; ++q) {
      MemoptComparison comparison = memoptShapeSymbolsCompare(symbols, after[p], before[q]);
      covered = comparison == MemoptComparisonLess || comparison == MemoptComparisonLessOrEqual ||
                comparison == MemoptComparisonEqual;
    }
    if (!covered)
      return false;
  }
  return true;
}

/* Appends the peak as "N bytes" or, symbolically, "max(p1, p2, ...)" over
 * the positions no other surely exceeds. */
static void appendPeak(MemoptStringBuffer *out, const MemoptShapeSymbols *symbols,
                       MemoptPolynomial *const *live, size_t count) {
  size_t candidates = 0;
  MemoptStringBuffer list = memoptStringBufferCreate();
  int64_t constantPeak = 0;
  bool allConstant = true;
  for (size_t p = 0; p < count; ++p) {
    int64_t value;
    if (memoptPolynomialIsConstant(live[p], &value)) {
      if (value > constantPeak)
        constantPeak = value;
    } else {
      allConstant = false;
    }
  }
  if (allConstant) {
    memoptStringBufferAppendFormat(out, "%lld bytes", (long long)constantPeak);
    memoptStringBufferDestroy(&list);
    return;
  }
  for (size_t p = 0; p < count; ++p) {
    bool dominated = false;
    for (size_t q = 0; q < count && !dominated; ++q) {
      if (q == p)
        continue;
      MemoptComparison comparison = memoptShapeSymbolsCompare(symbols, live[q], live[p]);
      dominated = comparison == MemoptComparisonGreater ||
                  ((comparison == MemoptComparisonEqual ||
                    comparison == MemoptComparisonGreaterOrEqual) && q < p);
    }
    if (dominated)
      continue;
    memoptStringBufferAppendCString(&list, candidates++ ? ", " : "");
    memoptPolynomialPrint(live[p], memoptShapeSymbolsGetNames(symbols),
                          memoptShapeSymbolsGetNumSymbols(symbols), &list);
  }
  if (candidates == 1)
    memoptStringBufferAppendFormat(out, "%s bytes", memoptStringBufferGet(&list));
  else
    memoptStringBufferAppendFormat(out, "max(%s) bytes", memoptStringBufferGet(&list));
  memoptStringBufferDestroy(&list);
}

static void remark(MlirOperation func, const MemoptStringBuffer *message) {
  memoptEmitDiagnostic(mlirOperationGetLocation(func), MlirDiagnosticRemark, message->data);
}

/* A candidate order and the live bytes of the function in that order. */
typedef struct Candidate {
  size_t *order;
  MemoptPolynomial **live;
  size_t liveCount;
} Candidate;

static void destroyCandidate(Candidate *candidate) {
  free(candidate->order);
  destroyLiveBytes(candidate->live, candidate->liveCount);
  memset(candidate, 0, sizeof *candidate);
}

/* Applies `candidate->order` and measures it on the estimator; false (and
 * `error`) when the reordered function cannot be estimated. */
static bool evaluate(const ScheduleGraph *graph, MlirBlock body, MlirOperation func,
                     const MemoptShapeSymbols *symbols, Candidate *candidate,
                     MemoptStringBuffer *error) {
  applyOrder(graph, candidate->order, body);
  candidate->live = liveBytesOf(func, symbols, &candidate->liveCount, error);
  return candidate->live != NULL;
}

static MlirLogicalResult runMemorySchedule(MlirOperation func, const MemoptPassOptions *options) {
  MlirRegion region = mlirOperationGetRegion(func, 0);
  MlirBlock body = mlirRegionGetFirstBlock(region);
  if (mlirBlockIsNull(body))
    return mlirLogicalResultSuccess(); /* a declaration */
  MemoptShapeSymbols *symbols = memoptPassCreateShapeSymbols(func);
  if (!symbols)
    return mlirLogicalResultFailure();
  MemoptStringBuffer message = memoptStringBufferCreate();
  memoptStringBufferAppendCString(&message, "memory-schedule: ");
  MemoptStringBuffer error = memoptStringBufferCreate();
  MemoptMemoryProfile *profile = memoptMemoryProfileCreate(func, false, &error);
  if (!profile) {
    memoptStringBufferAppendFormat(&message, "not scheduled: %s", error.data);
    remark(func, &message);
    memoptShapeSymbolsDestroy(symbols);
    memoptStringBufferDestroy(&error);
    memoptStringBufferDestroy(&message);
    return mlirLogicalResultSuccess();
  }
  Candidate original = {memoptAllocateZeroed(1, sizeof(size_t)), NULL, 0};
  original.liveCount = memoptMemoryProfileGetNumPositions(profile);
  original.live = memoptAllocateZeroed(original.liveCount, sizeof *original.live);
  for (size_t p = 0; p < original.liveCount; ++p)
    original.live[p] = memoptSymbolicLiveBytes(profile, symbols, p);
  ScheduleGraph graph;
  buildGraph(&graph, body, profile, symbols);
  memoptMemoryProfileDestroy(profile);
  free(original.order);
  original.order = memoptAllocateZeroed(graph.opCount, sizeof *original.order);
  for (size_t k = 0; k < graph.opCount; ++k)
    original.order[k] = k;

  /* The bottom-up strategy tries the greedy and the conservative variant
   * (neither dominates the other) and keeps the better. */
  bool topDown = strcmp(memoptPassOptionsGetString(options, "strategy"), "top-down") == 0;
  Candidate candidates[2];
  size_t candidateCount = topDown ? 1 : 2;
  for (size_t c = 0; c < candidateCount; ++c) {
    candidates[c] = (Candidate){memoptAllocateZeroed(graph.opCount, sizeof(size_t)), NULL, 0};
    if (topDown)
      scheduleTopDown(&graph, symbols, candidates[c].order);
    else
      scheduleBottomUp(&graph, symbols, c == 0, candidates[c].order);
  }
  Candidate *best = &original;
  for (size_t c = 0; c < candidateCount; ++c) {
    if (memcmp(candidates[c].order, original.order, graph.opCount * sizeof(size_t)) == 0)
      continue;
    if (!evaluate(&graph, body, func, symbols, &candidates[c], &error))
      continue;
    /* Better: surely nowhere above the best so far, and not the same peak. */
    if (notAbove(symbols, candidates[c].live, candidates[c].liveCount, best->live,
                 best->liveCount) &&
        !notAbove(symbols, best->live, best->liveCount, candidates[c].live,
                  candidates[c].liveCount))
      best = &candidates[c];
  }
  applyOrder(&graph, best->order, body);

  memoptStringBufferAppendCString(&message, "peak ");
  appendPeak(&message, symbols, original.live, original.liveCount);
  if (best != &original) {
    size_t moved = 0;
    for (size_t k = 0; k < graph.opCount; ++k)
      moved += best->order[k] != k;
    memoptStringBufferAppendCString(&message, " -> ");
    appendPeak(&message, symbols, best->live, best->liveCount);
    memoptStringBufferAppendFormat(&message, " (%zu of %zu ops moved)", moved, graph.opCount);
  } else {
    memoptStringBufferAppendCString(&message, "; the order is kept");
    size_t shown = 0;
    for (size_t c = 0; c < candidateCount; ++c) {
      if (!candidates[c].live)
        continue;
      memoptStringBufferAppendCString(&message, shown++ ? ", " : " (other schedules found: peak ");
      appendPeak(&message, symbols, candidates[c].live, candidates[c].liveCount);
    }
    memoptStringBufferAppendCString(&message, shown ? ")" : " (no other schedule found)");
  }
  remark(func, &message);
  for (size_t c = 0; c < candidateCount; ++c)
    destroyCandidate(&candidates[c]);
  destroyCandidate(&original);
  destroyGraph(&graph);
  memoptShapeSymbolsDestroy(symbols);
  memoptStringBufferDestroy(&error);
  memoptStringBufferDestroy(&message);
  return mlirLogicalResultSuccess();
}

static const MemoptPassOptionInfo memoryScheduleOptions[] = {
    {"strategy", MemoptOptionChoice, "bottom-up",
     "bottom-up: BladeDISC++ (place the op adding least memory, from the return up); "
     "top-down: XLA's list scheduler (most bytes freed first)",
     "bottom-up|top-down", 0, 0},
};

const MemoptPassInfo memoptMemorySchedulePass = {
    .argument = "memory-schedule",
    .summary = "Reorder the ops of each function body to lower its peak activation memory",
    .anchor = "func.func",
    .options = memoryScheduleOptions,
    .optionCount = sizeof memoryScheduleOptions / sizeof *memoryScheduleOptions,
    .run = runMemorySchedule,
};

/* AutoChunk's search: candidate ranges are contiguous ops around the peak;
 * each legal (range, chunk dimension) is built on a copy of the function and
 * measured with the memory estimator, so the memory a choice saves is what
 * the estimator (which agrees with the measured harness) predicts, not a
 * separate formula. For each range the chunk size is searched among the
 * divisors of the extent: the largest that meets the budget (fewest
 * iterations), else the smallest (most saving).
 *
 * Speed cost, in byte-equivalents: every chunk re-reads the tensors its ops
 * read whole (weights, hoisted values) and runs each op once more, so
 *   cost = chunks x (bytes read whole + chunked ops x launch cost),
 * plus, for a range that recomputes inputs (ChunkRederive.c), the bytes the
 * recomputing ops write again.
 * Slices of the innermost dimension of a value of rank 2 or more below
 * `minInnerChunk` elements are not considered: they would defeat
 * vectorization. (A 1-D value, such as a per-row maximum, is computed element
 * by element along its rows anyway.)
 *
 * Candidates are measured on a window around the peak cut out of the
 * function (AutoChunkWindow.c), with the positions outside it taken from one
 * profile of the whole function per stage; when the window does not
 * reproduce the function's live bytes exactly, on the whole function. */
#include "Chunk/AutoChunk.h"

#include "Analysis/Analysis.h"
#include "IR/IR.h"
#include "Chunk/ChunkRegion.h"

#include "Chunk/Chunk.h"
#include "IR/Builders.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdlib.h>
#include <string.h>

static MlirOperation nthOp(MlirBlock block, intptr_t index) {
  MlirOperation op = mlirBlockGetFirstOperation(block);
  for (intptr_t i = 0; i < index && !mlirOperationIsNull(op); ++i)
    op = mlirOperationGetNextInBlock(op);
  return op;
}

static intptr_t countOps(MlirBlock block) {
  intptr_t count = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    ++count;
  return count;
}

static MlirBlock functionBody(MlirOperation func) {
  return mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
}

/* The block a choice's ops live in. */
static MlirBlock blockOf(MlirOperation func, const AutoChunkChoice *choice) {
  MlirBlock block = functionBody(func);
  for (int level = 0; level < choice->depth; ++level)
    block = mlirRegionGetFirstBlock(
        mlirOperationGetRegion(nthOp(block, choice->blockPath[level]), 0));
  return block;
}

/* The values `plan` slices, into a new array (the caller frees it). */
static MlirValue *slicedInputs(const MemoptChunkPlan *plan) {
  intptr_t count = memoptChunkPlanNumInputs(plan);
  MlirValue *inputs = memoptAllocateZeroed((size_t)count, sizeof *inputs);
  for (intptr_t i = 0; i < count; ++i) {
    int64_t dim;
    inputs[i] = memoptChunkPlanInput(plan, i, &dim);
  }
  return inputs;
}

/* Recomputes in the range of `choice` the inputs that `plain`, its plan
 * without recomputation, slices (or, without `apply`, says what that would
 * do); [*first, *last] becomes the range with the clones. */
static MemoptRederive recomputeSliced(MlirBlock block, const AutoChunkChoice *choice,
                                      const MemoptChunkPlan *plain, intptr_t *first, intptr_t *last,
                                      intptr_t watched, bool apply) {
  MlirValue *inputs = slicedInputs(plain);
  MemoptRederive rederive =
      memoptChunkRederiveInputs(block, choice->recomputeFrom, first, last, inputs,
                                memoptChunkPlanNumInputs(plain), watched, apply);
  free(inputs);
  return rederive;
}

/* Plans the range of `choice` in `func`, recomputing the inputs it slices
 * first when the choice does (which rewrites the block before the range). */
static MemoptChunkPlan *planRange(MlirBlock block, intptr_t first, intptr_t last,
                                  const AutoChunkChoice *choice, MemoptStringBuffer *reason) {
  return choice->combining ? memoptChunkPlanCreateCombining(nthOp(block, first),
                                                            nthOp(block, last), choice->dim, reason)
                           : memoptChunkPlanCreate(nthOp(block, first), nthOp(block, last),
                                                   choice->dim, reason);
}

static MemoptChunkPlan *planOf(MlirOperation func, const AutoChunkChoice *choice,
                               MemoptStringBuffer *reason) {
  MlirBlock block = blockOf(func, choice);
  intptr_t first = choice->first, last = choice->last;
  MemoptChunkPlan *plan = planRange(block, first, last, choice, reason);
  if (!plan || !choice->recomputedOps)
    return plan;
  MemoptRederive rederive = recomputeSliced(block, choice, plan, &first, &last, -1, true);
  memoptChunkPlanDestroy(plan);
  /* The search recomputed the same ops on the same IR. */
  if (rederive.clones != choice->recomputedOps)
    abort();
  return planRange(block, first, last, choice, reason);
}

MlirOperation autoChunkApply(MlirOperation func, const AutoChunkChoice *choice) {
  MemoptStringBuffer reason = memoptStringBufferCreate();
  MemoptChunkPlan *plan = planOf(func, choice, &reason);
  memoptStringBufferDestroy(&reason);
  /* The same IR planned the same way during the search. */
  if (!plan)
    abort();
  MlirOperation region = memoptChunkRegionBuild(plan, choice->chunkSize);
  memoptChunkPlanDestroy(plan);
  return region;
}

/* The number of positions of a profile whose live bytes equal its peak. */
static size_t peakPositionsOf(const MemoptMemoryProfile *profile) {
  size_t count = 0;
  for (size_t i = 0; i < memoptMemoryProfileGetNumPositions(profile); ++i)
    count += memoptMemoryProfileGetLiveBytes(profile, i) == memoptMemoryProfileGetPeakBytes(profile);
  return count;
}

/* What a choice does to the function's memory. */
typedef struct Outcome {
  uint64_t peak;       /* of the whole function */
  uint64_t regionPeak; /* live bytes while the new region runs */
  double area;
  size_t peakPositions;   /* positions at the peak */
  uint64_t allocatedPeak; /* peak of the bytes the allocator hands out (alignment included) */
} Outcome;

/* A copy of `func` beside it (under a name of its own, so callees resolve)
 * for trying a choice; the caller destroys it. */
static MlirOperation copyBeside(MlirOperation func) {
  MlirOperation copy = mlirOperationClone(func);
  mlirOperationSetAttributeByName(
      copy, mlirStringRefCreateFromCString("sym_name"),
      mlirStringAttrGet(mlirOperationGetContext(func),
                        mlirStringRefCreateFromCString("__memopt_autochunk_candidate")));
  mlirBlockInsertOwnedOperationAfter(mlirOperationGetBlock(func), func, copy);
  return copy;
}

/* Profiles `copy` once its chunk regions are lowered by chunk-to-scf: the
 * memory of the loops that will actually run, not of the region ops. */
static MemoptMemoryProfile *profileLowered(MlirOperation copy) {
  if (mlirLogicalResultIsFailure(memoptLowerChunkRegions(copy)))
    return NULL;
  MemoptStringBuffer error = memoptStringBufferCreate();
  MemoptMemoryProfile *profile = memoptMemoryProfileCreate(copy, /*analyzeCallees=*/true, &error);
  memoptStringBufferDestroy(&error);
  return profile;
}

/* The discardable attribute that numbers the body's ops (and what they
 * contain) on a lowered copy, to find them again among the loops. */
static const char *const kBodyIndexAttribute = "memopt.autochunk_body_index";

typedef struct IndexTag {
  MlirIdentifier name;
  MlirAttribute value;
} IndexTag;

static MlirWalkResult tagNested(MlirOperation op, void *userData) {
  const IndexTag *tag = userData;
  mlirOperationSetDiscardableAttributeByName(op, mlirIdentifierStr(tag->name), tag->value);
  return MlirWalkResultAdvance;
}

/* The index `op` was tagged with, or -1. */
static intptr_t tagOf(MlirOperation op) {
  MlirAttribute index = mlirOperationGetDiscardableAttributeByName(
      op, mlirStringRefCreateFromCString(kBodyIndexAttribute));
  return mlirAttributeIsNull(index) ? -1 : (intptr_t)mlirIntegerAttrGetValueInt(index);
}

static MlirWalkResult findTag(MlirOperation op, void *userData) {
  intptr_t *index = userData;
  *index = tagOf(op);
  return *index < 0 ? MlirWalkResultAdvance : MlirWalkResultInterrupt;
}

/* A function with its chunk regions lowered, as it will run (the estimate of
 * an unlowered region counts its results as new buffers beside what its body
 * reads), and its profile; each op of the copy came tagged with its index in
 * the body of the original. */
typedef struct LoweredFunction {
  MlirOperation copy;
  MemoptMemoryProfile *profile; /* NULL when the lowered copy cannot be measured */
} LoweredFunction;

static LoweredFunction lowerTagged(MlirOperation func) {
  LoweredFunction lowered = {copyBeside(func), NULL};
  MlirContext context = mlirOperationGetContext(func);
  MlirIdentifier name =
      mlirIdentifierGet(context, mlirStringRefCreateFromCString(kBodyIndexAttribute));
  intptr_t count = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(functionBody(lowered.copy));
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op), ++count) {
    IndexTag tag = {name, mlirIntegerAttrGet(mlirIntegerTypeGet(context, 64), count)};
    mlirOperationWalk(op, tagNested, &tag, MlirWalkPreOrder);
  }
  lowered.profile = profileLowered(lowered.copy);
  return lowered;
}

static void loweredDestroy(LoweredFunction *lowered) {
  memoptMemoryProfileDestroy(lowered->profile);
  mlirOperationDestroy(lowered->copy);
}

/* The op of the lowered body that was op `index` of the original (no chunk
 * region: lowering replaces those), or the null op. */
static MlirOperation loweredOpAt(const LoweredFunction *lowered, intptr_t index) {
  for (MlirOperation op = mlirBlockGetFirstOperation(functionBody(lowered->copy));
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op))
    if (tagOf(op) == index)
      return op;
  return (MlirOperation){NULL};
}

/* The index in the original body of the op at the lowered function's peak,
 * or -1: a peak in a region's loop, or on an op its lowering created before
 * the loop, is the region's. */
static intptr_t loweredPeakIndex(const LoweredFunction *lowered) {
  if (!lowered->profile)
    return -1;
  MlirOperation op = memoptOperationAncestorInBlock(
      memoptMemoryProfileGetPositionOp(lowered->profile,
                                       memoptMemoryProfileGetPeakPosition(lowered->profile)),
      functionBody(lowered->copy));
  intptr_t index = -1;
  for (; !mlirOperationIsNull(op) && index < 0; op = mlirOperationGetNextInBlock(op))
    mlirOperationWalk(op, findTag, &index, MlirWalkPreOrder);
  return index;
}

/* The ops of the function body around the top-level op holding `region`
 * that lowering leaves in place (chunk regions are replaced by loops): the
 * positions between them are where the region's memory shows. */
static void stableNeighbours(MlirBlock body, MlirOperation region, MlirOperation *before,
                             MlirOperation *after) {
  MlirOperation top = region;
  while (!mlirBlockEqual(mlirOperationGetBlock(top), body))
    top = mlirOperationGetParentOperation(top);
  *before = (MlirOperation){NULL};
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationEqual(op, top);
       op = mlirOperationGetNextInBlock(op))
    if (!memoptOperationIsA(op, "chunk.region"))
      *before = op;
  *after = mlirOperationGetNextInBlock(top);
  while (memoptOperationIsA(*after, "chunk.region"))
    *after = mlirOperationGetNextInBlock(*after);
}

/* Where candidates are built and measured: the function itself, or a
 * window cut out of it. Positions of the function: `live` and `allocated`
 * hold its lowered profile, of which [windowStart, windowEnd) are the
 * window's ops; the others do not change with a choice in the window. */
typedef struct Frame {
  MlirOperation func;     /* choices index into its body */
  bool isWindow;          /* func is a window: its return is not one of the function's positions */
  intptr_t prologue;      /* ops of func before the window's first op */
  intptr_t shift;         /* index in the function of func's op `prologue`, minus prologue */
  intptr_t recomputeFrom; /* the first op of func's body that ranges may recompute */
  uint64_t passLive;      /* bytes live across the window that it does not use */
  uint64_t passAllocated; /* the same as allocated bytes */
  uint64_t *live, *allocated;
  size_t positions, windowStart, windowEnd;
} Frame;

/* The window's positions in a profile of (a lowered copy of) frame->func:
 * after the op `marker` of the prologue (if any), before the window's return. */
static bool windowPositions(const Frame *frame, const MemoptMemoryProfile *profile,
                            MlirOperation marker, size_t *start, size_t *end) {
  *start = 0;
  *end = memoptMemoryProfileGetNumPositions(profile) - (frame->isWindow ? 1 : 0);
  if (mlirOperationIsNull(marker))
    return true;
  size_t position;
  if (!memoptMemoryProfileLookupPosition(profile, marker, &position))
    return false;
  *start = position + 1;
  return *start <= *end;
}

/* Adds a position of the function with `live` and `allocated` bytes to `outcome`. */
static void addPosition(Outcome *outcome, uint64_t live, uint64_t allocated) {
  if (live > outcome->peak) {
    outcome->peak = live;
    outcome->peakPositions = 0;
  }
  outcome->peakPositions += live == outcome->peak;
  if (allocated > outcome->allocatedPeak)
    outcome->allocatedPeak = allocated;
  outcome->area += (double)live;
}

/* The outcome of applying `choice` to a copy of the frame's function. */
static bool evaluate(const Frame *frame, const AutoChunkChoice *choice, Outcome *outcome) {
  MlirOperation copy = copyBeside(frame->func);
  MlirOperation marker =
      frame->prologue ? nthOp(functionBody(copy), frame->prologue - 1) : (MlirOperation){NULL};
  MlirOperation region = autoChunkApply(copy, choice);
  MlirOperation before, after;
  stableNeighbours(functionBody(copy), region, &before, &after);
  MemoptMemoryProfile *profile = profileLowered(copy);
  size_t start, end;
  bool ok = profile != NULL && windowPositions(frame, profile, marker, &start, &end);
  if (ok) {
    /* The region's memory: the most live bytes between its neighbours, where
     * the lowering put its loops. */
    size_t first = start, last = end - 1, position;
    if (!mlirOperationIsNull(before) &&
        memoptMemoryProfileLookupPosition(profile, before, &position) && position + 1 > first)
      first = position + 1;
    if (memoptMemoryProfileLookupPosition(profile, after, &position) && position > 0 &&
        position - 1 < last)
      last = position - 1;
    *outcome = (Outcome){0};
    for (size_t i = first; i <= last; ++i)
      if (memoptMemoryProfileGetLiveBytes(profile, i) + frame->passLive > outcome->regionPeak)
        outcome->regionPeak = memoptMemoryProfileGetLiveBytes(profile, i) + frame->passLive;
    /* The function's positions: the window's as measured, the others as they were. */
    for (size_t i = start; i < end; ++i)
      addPosition(outcome, memoptMemoryProfileGetLiveBytes(profile, i) + frame->passLive,
                  memoptMemoryProfileGetAllocatedBytes(profile, i) + frame->passAllocated);
    for (size_t i = 0; i < frame->windowStart; ++i)
      addPosition(outcome, frame->live[i], frame->allocated[i]);
    for (size_t i = frame->windowEnd; i < frame->positions; ++i)
      addPosition(outcome, frame->live[i], frame->allocated[i]);
  }
  memoptMemoryProfileDestroy(profile);
  mlirOperationDestroy(copy);
  return ok;
}

/* Bytes of the tensors chunked ops read whole, re-read by every chunk. */
static uint64_t wholeReadBytes(const MemoptChunkPlan *plan) {
  uint64_t total = 0;
  for (intptr_t i = 0; i < memoptChunkPlanNumOps(plan); ++i) {
    if (memoptChunkPlanOpIsHoisted(plan, i))
      continue;
    MlirOperation op = memoptChunkPlanOp(plan, i);
    for (intptr_t o = 0; o < mlirOperationGetNumOperands(op); ++o) {
      uint64_t bytes;
      if (!memoptChunkPlanOperandIsChunked(plan, i, o) &&
          memoptTypeGetStaticByteSize(mlirValueGetType(mlirOperationGetOperand(op, o)), &bytes))
        total += bytes;
    }
  }
  return total;
}

/* Bytes of the outputs combined across chunks, into which every chunk adds
 * (or maximizes) its partial value: one more op per chunk, reading the
 * accumulator whole. Their number into `count`. */
static uint64_t combinedBytes(const MemoptChunkPlan *plan, intptr_t *count) {
  uint64_t total = 0;
  *count = 0;
  for (intptr_t i = 0; i < memoptChunkPlanNumOutputs(plan); ++i) {
    int64_t dim;
    uint64_t bytes;
    MlirValue output = memoptChunkPlanOutput(plan, i, &dim);
    if (memoptChunkPlanOutputCombiner(plan, i) == MemoptChunkCombineConcat)
      continue;
    ++*count;
    if (memoptTypeGetStaticByteSize(mlirValueGetType(output), &bytes))
      total += bytes;
  }
  return total;
}

/* True when every chunked value of rank 2 or more keeps at least `minimum`
 * elements in its innermost dimension, or is not chunked along it. */
static bool keepsInnerSlices(const MemoptChunkPlan *plan, int64_t chunks, int64_t minimum) {
  for (intptr_t i = 0; i < memoptChunkPlanNumOps(plan); ++i) {
    if (memoptChunkPlanOpIsHoisted(plan, i))
      continue;
    MlirOperation op = memoptChunkPlanOp(plan, i);
    for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r) {
      MlirValue result = mlirOperationGetResult(op, r);
      MlirType type = mlirValueGetType(result);
      int64_t dim = memoptChunkPlanDimOf(plan, result);
      if (dim >= 0 && mlirShapedTypeGetRank(type) >= 2 && dim == mlirShapedTypeGetRank(type) - 1 &&
          mlirShapedTypeGetDimSize(type, dim) / chunks < minimum)
        return false;
    }
  }
  return true;
}

/* Chunk sizes to try for `plan`, ascending; returns how many. Only divisors
 * of the extent keep every slice static, and they come from factoring it:
 * scanning 1..extent for them took minutes on a large prime extent. */
static intptr_t chunkSizes(const MemoptChunkPlan *plan, const AutoChunkLimits *limits,
                           int64_t *sizes, intptr_t capacity) {
  int64_t extent = memoptChunkPlanExtent(plan);
  size_t divisorCount;
  int64_t *divisors = memoptDivisors(extent, &divisorCount);
  intptr_t count = 0;
  for (size_t i = 0; i < divisorCount && divisors[i] < extent && count < capacity; ++i)
    if (memoptChunkRegionCanBuild(plan, divisors[i]) &&
        keepsInnerSlices(plan, extent / divisors[i], limits->minInnerChunk))
      sizes[count++] = divisors[i];
  free(divisors);
  return count;
}

/* Returns true when `candidate` should replace `best`: meeting the budget
 * beats not meeting it; among those that meet it the cheaper wins, among
 * those that do not the lower peak, then the lower area, wins. */
static bool better(const AutoChunkChoice *candidate, const AutoChunkChoice *best, bool haveBest,
                   uint64_t budget) {
  if (!haveBest)
    return true;
  bool candidateMeets = candidate->peakBytes <= budget, bestMeets = best->peakBytes <= budget;
  if (candidateMeets != bestMeets)
    return candidateMeets;
  if (candidateMeets && candidate->cost != best->cost)
    return candidate->cost < best->cost;
  if (candidate->peakBytes != best->peakBytes)
    return candidate->peakBytes < best->peakBytes;
  if (candidate->area != best->area)
    return candidate->area < best->area;
  return candidate->cost < best->cost;
}

typedef struct Search {
  const Frame *frame;
  const AutoChunkLimits *limits;
  uint64_t currentPeak;
  size_t currentPeakPositions;
  uint64_t currentAllocatedPeak;
  AutoChunkChoice best;
  bool haveBest;
  MemoptStringBuffer *reason; /* the first reason a range was illegal */
  bool anyPlan;               /* some range was legal */
} Search;

/* Sizes, measures and weighs `choice`, planned as `plan`: keeps it as the
 * best when it is. `recomputedBytes` are written again by recomputed inputs. */
static void weigh(Search *search, AutoChunkChoice choice, const MemoptChunkPlan *plan,
                  uint64_t recomputedBytes) {
  /* A range whose first or last op would be hoisted builds the region of
   * the range without that op, which is tried on its own. */
  if (choice.first < choice.last &&
      (memoptChunkPlanOpIsHoisted(plan, 0) ||
       memoptChunkPlanOpIsHoisted(plan, memoptChunkPlanNumOps(plan) - 1)))
    return;
  /* The recomputed ops lead the range: one computed whole before the loop
   * would only repeat work. */
  for (intptr_t i = 0; i < choice.recomputedOps; ++i)
    if (memoptChunkPlanOpIsHoisted(plan, i))
      return;
  int64_t sizes[256];
  intptr_t count = chunkSizes(plan, search->limits, sizes, 256);
  choice.extent = memoptChunkPlanExtent(plan);
  choice.chunkedOps = choice.hoistedOps = 0;
  for (intptr_t i = 0; i < memoptChunkPlanNumOps(plan); ++i)
    memoptChunkPlanOpIsHoisted(plan, i) ? ++choice.hoistedOps : ++choice.chunkedOps;
  intptr_t combines;
  uint64_t wholeBytes = wholeReadBytes(plan) + combinedBytes(plan, &combines);
  if (count == 0)
    return;
  /* The region itself must fit the budget: the largest size whose region
   * does is taken (fewest iterations), else the smallest (most saving).
   * Other peaks of the function are later stages' work. */
  Outcome outcome;
  choice.chunkSize = sizes[0];
  if (!evaluate(search->frame, &choice, &outcome))
    return;
  if (outcome.regionPeak <= search->limits->budget) {
    intptr_t low = 0, high = count - 1; /* sizes[low] fits */
    while (low < high) {
      intptr_t middle = (low + high + 1) / 2;
      AutoChunkChoice trial = choice;
      trial.chunkSize = sizes[middle];
      Outcome trialOutcome;
      if (evaluate(search->frame, &trial, &trialOutcome) &&
          trialOutcome.regionPeak <= search->limits->budget) {
        low = middle;
        outcome = trialOutcome;
      } else {
        high = middle - 1;
      }
    }
    choice.chunkSize = sizes[low];
  }
  choice.peakBytes = outcome.peak;
  choice.area = outcome.area;
  int64_t chunks = choice.extent / choice.chunkSize;
  choice.cost = (double)chunks * ((double)wholeBytes + (double)(choice.chunkedOps + combines) *
                                                          (double)search->limits->launchCost) +
                (double)recomputedBytes;
  /* With an equal peak elsewhere (two attention blocks), chunking one of
   * them keeps the peak but removes positions at it; a choice that only
   * shaves bytes off other positions is no progress. */
  /* Small chunks can cost more in allocator alignment than they save:
   * the bytes actually allocated must not rise. */
  /* Recomputing inputs must pay for itself: it lowers the peak. */
  bool progress = (choice.peakBytes < search->currentPeak ||
                   (choice.peakBytes == search->currentPeak && !choice.recomputedOps &&
                    outcome.peakPositions < search->currentPeakPositions)) &&
                  outcome.allocatedPeak <= search->currentAllocatedPeak;
  if (progress && better(&choice, &search->best, search->haveBest, search->limits->budget)) {
    search->best = choice;
    search->haveBest = true;
  }
}

/* Tries the range of `choice`, as it is (unless `watched` is an op index)
 * and recomputing the inputs it slices (function body only; then, when
 * `watched` is not -1, only if that erases op `watched` of the body). */
static void tryRange(Search *search, AutoChunkChoice choice, intptr_t watched) {
  const Frame *frame = search->frame;
  MlirBlock block = blockOf(frame->func, &choice);
  MlirOperation lastOp = nthOp(block, choice.last);
  int64_t rank = 0;
  for (intptr_t r = 0; r < mlirOperationGetNumResults(lastOp); ++r) {
    MlirType type = mlirValueGetType(mlirOperationGetResult(lastOp, r));
    if (mlirTypeIsARankedTensor(type) && mlirShapedTypeGetRank(type) > rank)
      rank = mlirShapedTypeGetRank(type);
  }
  choice.recomputedOps = 0;
  choice.recomputeFrom = frame->recomputeFrom;
  bool recompute = search->limits->recomputeInputs && choice.depth == 0;
  /* Each dimension of the primary output, then each loop its producer
   * reduces (a sum over the chunks of the tokens: weight gradients). */
  int64_t loops = memoptDimFlowLoopCount(lastOp);
  for (int64_t axis = 0; axis < rank + loops; ++axis) {
    choice.combining = axis >= rank;
    choice.dim = choice.combining ? axis - rank : axis;
    MemoptStringBuffer why = memoptStringBufferCreate();
    MemoptChunkPlan *plan = planOf(frame->func, &choice, &why);
    if (!plan) {
      if (!search->reason->length && watched < 0)
        memoptStringBufferAppendCString(search->reason, why.data);
      memoptStringBufferDestroy(&why);
      continue;
    }
    memoptStringBufferDestroy(&why);
    if (watched < 0) {
      search->anyPlan = true;
      weigh(search, choice, plan, 0);
    }
    intptr_t first = choice.first, last = choice.last;
    MemoptRederive rederive =
        recompute ? recomputeSliced(block, &choice, plan, &first, &last, watched, false)
                  : (MemoptRederive){0, 0, false};
    memoptChunkPlanDestroy(plan);
    if (!rederive.clones || (watched >= 0 && !rederive.removesWatched))
      continue;
    /* Recomputing rewrites the block: plan on a copy. */
    AutoChunkChoice recomputing = choice;
    recomputing.recomputedOps = rederive.clones;
    MlirOperation copy = copyBeside(frame->func);
    MemoptStringBuffer ignored = memoptStringBufferCreate();
    MemoptChunkPlan *recomputed = planOf(copy, &recomputing, &ignored);
    memoptStringBufferDestroy(&ignored);
    if (recomputed) {
      search->anyPlan = true;
      weigh(search, recomputing, recomputed, rederive.recomputedBytes);
    }
    memoptChunkPlanDestroy(recomputed);
    mlirOperationDestroy(copy);
  }
}

/* Tries the ranges of at most maxRegionOps ops in `choice`'s block that
 * contain op `peak` (every range when peak is -1), and those after it that
 * recompute it. */
static void tryRangesAround(Search *search, AutoChunkChoice choice, intptr_t peak) {
  MlirBlock block = blockOf(search->frame->func, &choice);
  intptr_t count = countOps(block) - 1; /* the terminator stays */
  intptr_t span = search->limits->maxRegionOps;
  for (intptr_t first = 0; first < count; ++first)
    for (intptr_t last = first; last < count && last - first < span; ++last) {
      choice.first = first;
      choice.last = last;
      /* A range after the peak (and within the window's span of it) takes
       * the peak away when it recomputes the peak's op, which then has no
       * reader left. */
      if (peak >= 0 && first > peak) {
        if (search->limits->recomputeInputs && last - peak < span)
          tryRange(search, choice, peak);
      } else if (peak < 0 || last >= peak)
        tryRange(search, choice, -1);
    }
}

/* Takes the lowered function's profile into `current` and the frame's
 * position arrays (choices' outcomes are measured lowered too); the window's
 * ops, [first, last] of the body, go to [windowStart, windowEnd). */
static bool measureFunction(const LoweredFunction *lowered, intptr_t first, intptr_t last,
                            Frame *frame, Outcome *current) {
  const MemoptMemoryProfile *profile = lowered->profile;
  MlirOperation before = first > 0 ? loweredOpAt(lowered, first - 1) : (MlirOperation){NULL};
  MlirOperation after = loweredOpAt(lowered, last + 1);
  size_t start = 0, end = 0;
  bool ok =
      profile && (first == 0 || !mlirOperationIsNull(before)) && !mlirOperationIsNull(after) &&
      (mlirOperationIsNull(before) || memoptMemoryProfileLookupPosition(profile, before, &start)) &&
      memoptMemoryProfileLookupPosition(profile, after, &end);
  if (!ok)
    return false;
  current->peak = memoptMemoryProfileGetPeakBytes(profile);
  current->peakPositions = peakPositionsOf(profile);
  current->allocatedPeak = memoptMemoryProfileGetPeakAllocatedBytes(profile);
  frame->positions = memoptMemoryProfileGetNumPositions(profile);
  frame->windowStart = mlirOperationIsNull(before) ? 0 : start + 1;
  frame->windowEnd = end;
  frame->live = memoptAllocateZeroed(frame->positions, sizeof *frame->live);
  frame->allocated = memoptAllocateZeroed(frame->positions, sizeof *frame->allocated);
  for (size_t i = 0; i < frame->positions; ++i) {
    frame->live[i] = memoptMemoryProfileGetLiveBytes(profile, i);
    frame->allocated[i] = memoptMemoryProfileGetAllocatedBytes(profile, i);
  }
  return true;
}

/* Makes `frame` a window of `func` of ops [first, last] when the window's
 * own lowered profile differs from the function's at every window position
 * by the same bytes (those live across it); else leaves it the function. */
static void cutWindow(MlirOperation func, const MemoptMemoryProfile *profile, intptr_t first,
                      intptr_t last, Frame *frame) {
  intptr_t prologue;
  MlirOperation window = autoChunkWindowCut(func, profile, first, last, &prologue);
  if (mlirOperationIsNull(window))
    return;
  Frame candidate = *frame;
  candidate.func = window;
  candidate.isWindow = true;
  candidate.prologue = prologue;
  MlirOperation copy = copyBeside(window);
  MlirOperation marker =
      prologue ? nthOp(functionBody(copy), prologue - 1) : (MlirOperation){NULL};
  MemoptMemoryProfile *windowProfile = profileLowered(copy);
  size_t start = 0, end = 0;
  bool exact = windowProfile && windowPositions(&candidate, windowProfile, marker, &start, &end) &&
               end - start == frame->windowEnd - frame->windowStart && end > start;
  for (size_t i = 0; exact && i < end - start; ++i) {
    uint64_t live = memoptMemoryProfileGetLiveBytes(windowProfile, start + i);
    uint64_t allocated = memoptMemoryProfileGetAllocatedBytes(windowProfile, start + i);
    uint64_t wholeLive = frame->live[frame->windowStart + i];
    uint64_t wholeAllocated = frame->allocated[frame->windowStart + i];
      exact = wholeLive >= live && wholeAllocated >= allocated;
    if (exact && i == 0) {
      candidate.passLive = wholeLive - live;
      candidate.passAllocated = wholeAllocated - allocated;
    }
    exact = exact && wholeLive - live == candidate.passLive &&
            wholeAllocated - allocated == candidate.passAllocated;
  }
  memoptMemoryProfileDestroy(windowProfile);
  mlirOperationDestroy(copy);
  if (!exact) {
    memoptEraseOp(window);
    return;
  }
  candidate.shift = first - prologue;
  *frame = candidate;
}

/* Chooses the ops around the peak position `peak` of `func` (positions are
 * ops of the body) that candidates may touch: maxRegionOps either side and,
 * when inputs may be recomputed, the chains before them that ranges could
 * recompute, up to maxRegionOps further back (a chain through residual sums
 * could otherwise reach the start of the model), widened so that the ops
 * just outside are not chunk regions (whose lowering would blur the
 * window's edge). Recomputation copies no op before the window, whether
 * candidates are measured on it or on the whole function. */
static void windowBounds(MlirOperation func, intptr_t peak, const AutoChunkLimits *limits,
                         intptr_t *first, intptr_t *last) {
  MlirBlock body = functionBody(func);
  intptr_t terminator = countOps(body) - 1, span = limits->maxRegionOps;
  *first = peak - span + 1 > 0 ? peak - span + 1 : 0;
  *last = peak + span - 1 < terminator - 1 ? peak + span - 1 : terminator - 1;
  if (limits->recomputeInputs) {
    intptr_t reach = memoptChunkRederiveReach(body, *first, *last);
    *first = reach > *first - span ? reach : (*first - span > 0 ? *first - span : 0);
  }
  while (*first > 0 && memoptOperationIsA(nthOp(body, *first - 1), "chunk.region"))
    --*first;
  while (memoptOperationIsA(nthOp(body, *last + 1), "chunk.region"))
    ++*last;
}

/* Maps a choice made in the frame's function back to `func`. */
static void choiceInFunction(const Frame *frame, AutoChunkChoice *choice) {
  if (!frame->isWindow)
    return;
  if (choice->depth == 0) {
    choice->first += frame->shift;
    choice->last += frame->shift;
    choice->recomputeFrom += frame->shift;
  } else {
    choice->blockPath[0] += frame->shift;
  }
}

bool autoChunkSearch(MlirOperation func, const AutoChunkLimits *limits, AutoChunkChoice *best,
                     MemoptStringBuffer *reason) {
  MemoptStringBuffer error = memoptStringBufferCreate();
  MemoptMemoryProfile *profile = memoptMemoryProfileCreate(func, /*analyzeCallees=*/true, &error);
  if (!profile) {
    memoptStringBufferAppendFormat(reason, "cannot estimate its memory: %s", error.data);
    memoptStringBufferDestroy(&error);
    return false;
  }
  memoptStringBufferDestroy(&error);
  LoweredFunction lowered = lowerTagged(func);
  intptr_t peak = loweredPeakIndex(&lowered);
  if (peak < 0)
    peak = (intptr_t)memoptMemoryProfileGetPeakPosition(profile);
  MlirOperation peakOp = nthOp(functionBody(func), peak);
  Outcome current = {memoptMemoryProfileGetPeakBytes(profile), 0, 0, 1,
                     memoptMemoryProfileGetPeakAllocatedBytes(profile)};
  Frame frame = {.func = func};
  intptr_t first, last;
  windowBounds(func, peak, limits, &first, &last);
  bool measured = measureFunction(&lowered, first, last, &frame, &current);
  loweredDestroy(&lowered);
  if (measured && !limits->wholeFunction && (first > 0 || last + 2 < countOps(functionBody(func))))
    cutWindow(func, profile, first, last, &frame);
  frame.recomputeFrom = frame.isWindow ? frame.prologue : first;
  if (!frame.isWindow)
    frame.positions = frame.windowStart = frame.windowEnd = 0; /* the copies hold every position */
  memoptMemoryProfileDestroy(profile);
  Search search = {&frame,
                   limits,
                   current.peak,
                   current.peakPositions,
                   current.allocatedPeak,
                   {{0}, 0, 0, 0, 0, 0, 0, false, 0, 0, 0, 0, 0, 0, 0, 0},
                   false,
                   reason,
                   false};
  AutoChunkChoice top = search.best;
  intptr_t peakIndex = peak - (frame.isWindow ? frame.shift : 0);
  tryRangesAround(&search, top, peakIndex);
  /* A peak inside a chunk region: chunk its body further (nested regions,
   * possibly along another dimension). */
  MlirOperation holder = peakOp;
  AutoChunkChoice nested = top;
  nested.blockPath[nested.depth++] = peakIndex;
  while (memoptOperationIsA(holder, "chunk.region")) {
    tryRangesAround(&search, nested, -1);
    /* Descend while the body's largest op is itself a chunk region. */
    MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(holder, 0));
    MlirOperation inner = mlirBlockGetFirstOperation(body);
    intptr_t innerIndex = 0, regionIndex = -1;
    for (; !mlirOperationIsNull(inner); inner = mlirOperationGetNextInBlock(inner), ++innerIndex)
      if (memoptOperationIsA(inner, "chunk.region"))
        regionIndex = innerIndex;
    if (regionIndex < 0 || nested.depth == MEMOPT_AUTOCHUNK_MAX_DEPTH)
      break;
    holder = nthOp(body, regionIndex);
    nested.blockPath[nested.depth++] = regionIndex;
  }
  if (!search.haveBest && !reason->length)
    memoptStringBufferAppendCString(reason, "no range of ops around the peak has a chunkable result");
  if (!search.haveBest && search.anyPlan) {
    /* Legal regions exist but none helps: say so rather than why others failed. */
    memoptStringBufferClear(reason);
    memoptStringBufferAppendFormat(reason, "no legal chunk region lowers the peak below %llu bytes",
                                   (unsigned long long)current.peak);
  }
  *best = search.best;
  best->measuredOps = countOps(functionBody(frame.func));
  choiceInFunction(&frame, best);
  if (frame.isWindow)
    memoptEraseOp(frame.func);
  free(frame.live);
  free(frame.allocated);
  return search.haveBest;
}

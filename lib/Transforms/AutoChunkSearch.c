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
 *   cost = chunks x (bytes read whole + chunked ops x launch cost).
 * Slices of the innermost dimension of a value of rank 2 or more below
 * `minInnerChunk` elements are not considered: they would defeat
 * vectorization. (A 1-D value, such as a per-row maximum, is computed element
 * by element along its rows anyway.) */
#include "Transforms/AutoChunk.h"

#include "Analysis/Analysis.h"
#include "Analysis/Analysis.h"
#include "IR/IR.h"
#include "Transforms/ChunkRegion.h"

#include "Conversion/Conversion.h"

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

static MemoptChunkPlan *planOf(MlirOperation func, const AutoChunkChoice *choice,
                               MemoptStringBuffer *reason) {
  MlirBlock block = blockOf(func, choice);
  return memoptChunkPlanCreate(nthOp(block, choice->first), nthOp(block, choice->last),
                               choice->dim, reason);
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

/* Live bytes summed over the positions of a profile. */
static double areaOf(const MemoptMemoryProfile *profile) {
  double area = 0;
  for (size_t i = 0; i < memoptMemoryProfileGetNumPositions(profile); ++i)
    area += (double)memoptMemoryProfileGetLiveBytes(profile, i);
  return area;
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

/* The outcome of applying `choice` to a copy of `func`. */
static bool evaluate(MlirOperation func, const AutoChunkChoice *choice, Outcome *outcome) {
  MlirOperation copy = copyBeside(func);
  MlirOperation region = autoChunkApply(copy, choice);
  MlirOperation before, after;
  stableNeighbours(functionBody(copy), region, &before, &after);
  MemoptMemoryProfile *profile = profileLowered(copy);
  bool ok = profile != NULL;
  if (ok) {
    /* The region's memory: the most live bytes between its neighbours, where
     * the lowering put its loops. */
    size_t first = 0, last = memoptMemoryProfileGetNumPositions(profile) - 1, position;
    if (!mlirOperationIsNull(before) &&
        memoptMemoryProfileLookupPosition(profile, before, &position))
      first = position + 1;
    if (memoptMemoryProfileLookupPosition(profile, after, &position) && position > 0)
      last = position - 1;
    outcome->regionPeak = 0;
    for (size_t i = first; i <= last; ++i)
      if (memoptMemoryProfileGetLiveBytes(profile, i) > outcome->regionPeak)
        outcome->regionPeak = memoptMemoryProfileGetLiveBytes(profile, i);
    outcome->peak = memoptMemoryProfileGetPeakBytes(profile);
    outcome->area = areaOf(profile);
    outcome->peakPositions = peakPositionsOf(profile);
    outcome->allocatedPeak = memoptMemoryProfileGetPeakAllocatedBytes(profile);
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

/* Chunk sizes to try for `plan`, ascending; returns how many. */
static intptr_t chunkSizes(const MemoptChunkPlan *plan, const AutoChunkLimits *limits,
                           int64_t *sizes, intptr_t capacity) {
  int64_t extent = memoptChunkPlanExtent(plan);
  intptr_t count = 0;
  for (int64_t size = 1; size < extent && count < capacity; ++size)
    if (extent % size == 0 && memoptChunkRegionCanBuild(plan, size) &&
        keepsInnerSlices(plan, extent / size, limits->minInnerChunk))
      sizes[count++] = size;
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
  MlirOperation func;
  const AutoChunkLimits *limits;
  uint64_t currentPeak;
  size_t currentPeakPositions;
  uint64_t currentAllocatedPeak;
  AutoChunkChoice best;
  bool haveBest;
  MemoptStringBuffer *reason; /* the first reason a range was illegal */
  bool anyPlan;               /* some range was legal */
} Search;

/* Tries every chunk dimension of the range [first, last] of the block
 * `choice` describes. */
static void tryRange(Search *search, AutoChunkChoice choice) {
  MlirBlock block = blockOf(search->func, &choice);
  MlirOperation lastOp = nthOp(block, choice.last);
  int64_t rank = 0;
  for (intptr_t r = 0; r < mlirOperationGetNumResults(lastOp); ++r) {
    MlirType type = mlirValueGetType(mlirOperationGetResult(lastOp, r));
    if (mlirTypeIsARankedTensor(type) && mlirShapedTypeGetRank(type) > rank)
      rank = mlirShapedTypeGetRank(type);
  }
  for (choice.dim = 0; choice.dim < rank; ++choice.dim) {
    MemoptStringBuffer why = memoptStringBufferCreate();
    MemoptChunkPlan *plan = planOf(search->func, &choice, &why);
    if (!plan) {
      if (!search->reason->length)
        memoptStringBufferAppendCString(search->reason, why.data);
      memoptStringBufferDestroy(&why);
      continue;
    }
    memoptStringBufferDestroy(&why);
    search->anyPlan = true;
    /* A range whose first or last op would be hoisted builds the region of
     * the range without that op, which is tried on its own. */
    if (choice.first < choice.last &&
        (memoptChunkPlanOpIsHoisted(plan, 0) ||
         memoptChunkPlanOpIsHoisted(plan, memoptChunkPlanNumOps(plan) - 1))) {
      memoptChunkPlanDestroy(plan);
      continue;
    }
    int64_t sizes[256];
    intptr_t count = chunkSizes(plan, search->limits, sizes, 256);
    choice.extent = memoptChunkPlanExtent(plan);
    choice.chunkedOps = choice.hoistedOps = 0;
    for (intptr_t i = 0; i < memoptChunkPlanNumOps(plan); ++i)
      memoptChunkPlanOpIsHoisted(plan, i) ? ++choice.hoistedOps : ++choice.chunkedOps;
    uint64_t wholeBytes = wholeReadBytes(plan);
    memoptChunkPlanDestroy(plan);
    if (count == 0)
      continue;
    /* The region itself must fit the budget: the largest size whose region
     * does is taken (fewest iterations), else the smallest (most saving).
     * Other peaks of the function are later stages' work. */
    Outcome outcome;
    choice.chunkSize = sizes[0];
    if (!evaluate(search->func, &choice, &outcome))
      continue;
    if (outcome.regionPeak <= search->limits->budget) {
      intptr_t low = 0, high = count - 1; /* sizes[low] fits */
      while (low < high) {
        intptr_t middle = (low + high + 1) / 2;
        AutoChunkChoice trial = choice;
        trial.chunkSize = sizes[middle];
        Outcome trialOutcome;
        if (evaluate(search->func, &trial, &trialOutcome) &&
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
    choice.cost = (double)chunks * ((double)wholeBytes +
                                    (double)choice.chunkedOps * (double)search->limits->launchCost);
    /* With an equal peak elsewhere (two attention blocks), chunking one of
     * them keeps the peak but removes positions at it; a choice that only
     * shaves bytes off other positions is no progress. */
    /* Small chunks can cost more in allocator alignment than they save:
     * the bytes actually allocated must not rise. */
    bool progress = (choice.peakBytes < search->currentPeak ||
                     (choice.peakBytes == search->currentPeak &&
                      outcome.peakPositions < search->currentPeakPositions)) &&
                    outcome.allocatedPeak <= search->currentAllocatedPeak;
    if (progress && better(&choice, &search->best, search->haveBest, search->limits->budget)) {
      search->best = choice;
      search->haveBest = true;
    }
  }
}

/* Tries the ranges of at most maxRegionOps ops in `choice`'s block that
 * contain op `peak` (every range when peak is -1). */
static void tryRangesAround(Search *search, AutoChunkChoice choice, intptr_t peak) {
  MlirBlock block = blockOf(search->func, &choice);
  intptr_t count = countOps(block) - 1; /* the terminator stays */
  intptr_t span = search->limits->maxRegionOps;
  for (intptr_t first = 0; first < count; ++first)
    for (intptr_t last = first; last < count && last - first < span; ++last) {
      if (peak >= 0 && (first > peak || last < peak))
        continue;
      choice.first = first;
      choice.last = last;
      tryRange(search, choice);
    }
}

/* The peak of `func` and the positions at it as the outcomes of choices
 * measure them: with its chunk regions lowered (the estimate of an unlowered
 * region counts its body's values at full size). */
static void measureCurrent(MlirOperation func, Outcome *current) {
  MlirOperation copy = copyBeside(func);
  MemoptMemoryProfile *profile = profileLowered(copy);
  if (profile) {
    current->peak = memoptMemoryProfileGetPeakBytes(profile);
    current->peakPositions = peakPositionsOf(profile);
    current->allocatedPeak = memoptMemoryProfileGetPeakAllocatedBytes(profile);
  }
  memoptMemoryProfileDestroy(profile);
  mlirOperationDestroy(copy);
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
  size_t peak = memoptMemoryProfileGetPeakPosition(profile);
  MlirOperation peakOp = memoptMemoryProfileGetPositionOp(profile, peak);
  uint64_t currentPeak = memoptMemoryProfileGetPeakBytes(profile);
  Outcome current = {currentPeak, 0, 0, 1, memoptMemoryProfileGetPeakAllocatedBytes(profile)};
  measureCurrent(func, &current);
  currentPeak = current.peak;
  Search search = {func, limits, currentPeak, current.peakPositions, current.allocatedPeak, {{0}, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
                   false, reason, false};
  memoptMemoryProfileDestroy(profile);
  AutoChunkChoice top = search.best;
  tryRangesAround(&search, top, (intptr_t)peak);
  /* A peak inside a chunk region: chunk its body further (nested regions,
   * possibly along another dimension). */
  MlirOperation holder = peakOp;
  AutoChunkChoice nested = top;
  nested.blockPath[nested.depth++] = (intptr_t)peak;
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
                                   (unsigned long long)currentPeak);
  }
  *best = search.best;
  return search.haveBest;
}

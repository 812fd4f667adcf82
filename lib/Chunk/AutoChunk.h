/* AutoChunk's search and selection (internal to lib/Chunk). */
#ifndef MEMOPT_CHUNK_AUTOCHUNK_H
#define MEMOPT_CHUNK_AUTOCHUNK_H

#include "Chunk/Chunk.h"
#include "Support/Support.h"

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stdint.h>

/// The deepest nesting of chunk regions the search descends into.
enum { MEMOPT_AUTOCHUNK_MAX_DEPTH = 8 };

/// What the search may choose and how it weighs speed.
typedef struct AutoChunkLimits {
  uint64_t budget;         /* activation bytes to reach */
  intptr_t maxRegionOps;   /* longest op range considered */
  uint64_t launchCost;     /* byte-equivalent cost of running one op once more */
  int64_t minInnerChunk;   /* smallest slice of a value's innermost dimension */
  bool wholeFunction;      /* measure candidates on the whole function, not a window around the peak */
  bool recomputeInputs;    /* also try ranges that recompute inputs from values live anyway */
} AutoChunkLimits;

/// One chunking decision: a range of ops in a block of the function, the
/// chunk dimension of its primary output (or, when `combining`, the reduced
/// loop of its producer whose chunks' partial results are combined), and the
/// chunk size.
typedef struct AutoChunkChoice {
  intptr_t blockPath[MEMOPT_AUTOCHUNK_MAX_DEPTH]; /* op indices down to the block */
  int depth;                                    /* 0: the function body */
  intptr_t first, last;                         /* op indices in that block */
  int64_t dim, chunkSize, extent;
  bool combining; /* `dim` is a reduced loop of the primary output's producer */
  uint64_t peakBytes; /* estimated activation peak of the function after it */
  double area;        /* live bytes summed over the positions after it: a second
                         peak elsewhere keeps the peak, but the area still falls */
  double cost;        /* modeled extra work, in byte-equivalents */
  intptr_t chunkedOps, hoistedOps;
  intptr_t recomputedOps; /* ops cloned into the range to recompute its inputs (0: none) */
  intptr_t recomputeFrom; /* the first op of the block such clones may copy */
  intptr_t measuredOps; /* ops of the function candidates were measured on: a window, or the body */
} AutoChunkChoice;

/// Searches the ranges around the peak of `func` (and inside the chunk
/// region holding the peak, if any) for the choice that meets the budget at
/// the least cost, else the one that lowers the peak (then the area) most.
/// Returns false when no legal choice lowers the peak, or keeps it and lowers
/// the area, with the reason in `reason`.
bool autoChunkSearch(MlirOperation func, const AutoChunkLimits *limits, AutoChunkChoice *best,
                     MemoptStringBuffer *reason);

/// Applies `choice` to `func`. Returns the new chunk.region.
MlirOperation autoChunkApply(MlirOperation func, const AutoChunkChoice *choice);

/// Cuts ops [first, last] of the body of `func` (whose memory profile is
/// `profile`) into a new function beside it that recreates the earlier
/// activations they read as tensor.empty ops and returns what later ops use;
/// `prologue` receives the number of ops before the cut ones. Returns the
/// null op when an earlier activation cannot be recreated (dynamic shape).
MlirOperation autoChunkWindowCut(MlirOperation func, const MemoptMemoryProfile *profile,
                                 intptr_t first, intptr_t last, intptr_t *prologue);

#endif /* MEMOPT_CHUNK_AUTOCHUNK_H */

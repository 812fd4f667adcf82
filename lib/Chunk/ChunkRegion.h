/* Building a chunk.region from a chunk plan (internal to lib/Chunk). */
#ifndef MEMOPT_CHUNK_CHUNKREGION_H
#define MEMOPT_CHUNK_CHUNKREGION_H

#include "Chunk/Chunk.h"
#include "IR/IR.h"

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stdint.h>

/// Returns true when `chunkSize` divides the plan's extent and the extent of
/// every chunked value into equal static slices, and the inputs and outputs
/// fit the op's slots, so the region can be built.
bool memoptChunkRegionCanBuild(const MemoptChunkPlan *plan, int64_t chunkSize);

/// Rewrites the plan's range in place: hoisted ops move before it, the other
/// ops move into a new chunk.region computing `chunkSize` elements of the
/// chunked dimension per iteration, and later uses read the region's results.
/// An output the plan combines across chunks keeps its type (every chunk
/// computes a partial value of it), has output_dims entry -1, and is named in
/// the op's `combiners`. Requires memoptChunkRegionCanBuild. Returns the new op.
MlirOperation memoptChunkRegionBuild(const MemoptChunkPlan *plan, int64_t chunkSize);

/// What recomputing the inputs of a range does (memoptChunkRederiveInputs).
typedef struct MemoptRederive {
  intptr_t clones;          /* ops cloned into the range; 0: nothing worth recomputing */
  uint64_t recomputedBytes; /* bytes the cloned ops write again */
  bool removesWatched;      /* the watched op is erased: nothing reads it any more */
} MemoptRederive;

/// Plans making ops [*first, *last] of `block` recompute those of `targets`
/// (values the range reads in chunks) that cheap ops at or after op `from`
/// compute from values live across the range anyway, when more bytes then die
/// before the range than the recomputation keeps alive into it. With `apply`,
/// clones those chains just before the range, redirects its reads, erases the
/// originals nothing else reads, and sets [*first, *last] to the range with
/// the clones; otherwise changes nothing. `watched` is an op index whose
/// erasure is reported (-1: none).
MemoptRederive memoptChunkRederiveInputs(MlirBlock block, intptr_t from, intptr_t *first,
                                         intptr_t *last, const MlirValue *targets,
                                         intptr_t targetCount, intptr_t watched, bool apply);

/// Recomputes, right before their first reader after a gap of more than
/// `minGap` ops, the values of `block` that have more bytes than the tensors
/// their chain reads, when that chain (at most `maxChainOps` computing ops)
/// reads only values live there anyway (attention probabilities from q and k
/// in a training step); the later readers read the clones. Returns the ops
/// cloned (0: the block is unchanged).
intptr_t memoptChunkRecomputeExpandedValues(MlirBlock block, intptr_t maxChainOps,
                                            intptr_t minGap);

/// Returns the first op of `block` that recomputing the inputs of a range
/// within ops [first, last] may clone (`first` when none before it).
intptr_t memoptChunkRederiveReach(MlirBlock block, intptr_t first, intptr_t last);

#endif /* MEMOPT_CHUNK_CHUNKREGION_H */

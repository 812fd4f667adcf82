/* Building a chunk.region from a chunk plan (internal to lib/Transforms). */
#ifndef MEMOPT_TRANSFORMS_CHUNKREGION_H
#define MEMOPT_TRANSFORMS_CHUNKREGION_H

#include "Analysis/Analysis.h"

#include "mlir-c/IR.h"

/// Returns true when `chunkSize` divides the plan's extent and the extent of
/// every chunked value into equal static slices, and the inputs and outputs
/// fit the op's slots, so the region can be built.
bool memoptChunkRegionCanBuild(const MemoptChunkPlan *plan, int64_t chunkSize);

/// Rewrites the plan's range in place: hoisted ops move before it, the other
/// ops move into a new chunk.region computing `chunkSize` elements of the
/// chunked dimension per iteration, and later uses read the region's results.
/// Requires memoptChunkRegionCanBuild. Returns the new op.
MlirOperation memoptChunkRegionBuild(const MemoptChunkPlan *plan, int64_t chunkSize);

#endif /* MEMOPT_TRANSFORMS_CHUNKREGION_H */

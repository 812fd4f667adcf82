/* memopt conversions: lowerings of memopt ops to upstream MLIR dialects, so
 * that the result runs through upstream pipelines and contains no memopt op.
 * Each lowering is a function on IR and a memopt pass that calls it
 * (python-free-docs/passes.md). */
#ifndef MEMOPT_CONVERSION_CONVERSION_H
#define MEMOPT_CONVERSION_CONVERSION_H

#include "Transforms/Passes.h"

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Replaces every chunk.region nested in `root` by an scf.for over full
/// chunks (tensor.extract_slice of each input, tensor.insert_slice of each
/// output slice into a tensor.empty destination carried in iter_args),
/// followed by a second scf.for for the partial last chunk when the chunk
/// size may not divide the extent. Emits an error on each region it cannot
/// lower and then returns failure without changing the IR.
MlirLogicalResult memoptLowerChunkRegions(MlirOperation root);

/// chunk-to-scf: the pass that runs memoptLowerChunkRegions on each function.
extern const MemoptPassInfo memoptChunkToScfPass;

/// place-to-shard: outlines each place.stage into a function on its own shard.grid with shard.shard annotations (PlaceToShard.c).
extern const MemoptPassInfo memoptPlaceToShardPass;

/// Lowers the spm ops of `func` (python-free-docs/dialects.md#lowering-spm-to-memref):
/// pins into one arena of `spmBytes` bytes (0: up to the highest pin end;
/// errors name it as `spmBytesSource`, "spm-bytes") in memory space
/// `memorySpace`, loads and stores to copies, groups to tile loops that
/// compute in that memory space. Emits an error on each op it cannot lower
/// and then fails; the IR is unchanged unless upstream tiling itself fails.
/// With `reportCopies`, emits a remark with the bytes the lowered program
/// copies between off-chip memory and the scratchpad.
MlirLogicalResult memoptLowerSpm(MlirOperation func, int64_t memorySpace, int64_t spmBytes,
                                 const char *spmBytesSource, bool reportCopies);

/// spm-to-memref: the pass that runs memoptLowerSpm on each function (SpmToMemref.c).
extern const MemoptPassInfo memoptSpmToMemrefPass;

/// remat-to-runtime: lowers remat.evict / remat.regenerate to memopt_rt calls and a guarded in-place recomputation (RematToRuntime.c).
extern const MemoptPassInfo memoptRematToRuntimePass;

#ifdef __cplusplus
}
#endif

#endif /* MEMOPT_CONVERSION_CONVERSION_H */

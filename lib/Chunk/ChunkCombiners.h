/* The combined results of a chunk.region in its scf lowering (internal to
 * lib/Chunk): the initial value of each accumulator and the linalg.generic
 * that combines one chunk into it. python-free-docs/autochunk.md
 * ("chunk-to-scf"). */
#ifndef MEMOPT_CHUNK_CHUNKCOMBINERS_H
#define MEMOPT_CHUNK_CHUNKCOMBINERS_H

#include "IR/Builders.h"
#include "IR/IR.h"

#include "mlir-c/IR.h"

/// Creates, at the builder's point, the initial value of a result combined
/// with `combiner` (not concat): linalg.fill of its identity (0 for "add" and
/// "rescaled-add"; -inf, or the smallest signed integer, for "max") into
/// tensor.empty(dynamicSizes) of `type`.
MlirValue memoptBuildCombinerInit(const MemoptBuilder *builder, MemoptChunkCombiner combiner,
                                  MlirType type, const MlirValue *dynamicSizes,
                                  intptr_t dynamicSizeCount);

/// Creates, at the builder's point, a linalg.generic that adds `chunk` to
/// `accumulator` ("add") or takes their maximum ("max") elementwise (both of
/// one type); returns the new accumulator.
MlirValue memoptBuildCombine(const MemoptBuilder *builder, MemoptChunkCombiner combiner,
                             MlirValue accumulator, MlirValue chunk);

/// Creates, at the builder's point, the linalg.generic of a "rescaled-add":
/// accumulator * exp(maxOld - maxNew) + chunk * exp(maxChunk - maxNew)
/// elementwise with maxNew = max(maxOld, maxChunk), each term 0 where its
/// maximum is -inf; the maxima, whose shape is a prefix of the accumulator's,
/// broadcast along its trailing dimensions. Returns the new accumulator.
MlirValue memoptBuildRescaledAdd(const MemoptBuilder *builder, MlirValue accumulator,
                                 MlirValue chunk, MlirValue maxOld, MlirValue maxChunk);

#endif /* MEMOPT_CHUNK_CHUNKCOMBINERS_H */

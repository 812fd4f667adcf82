/* The top-level ops of a block, indexed by position, and the questions the
 * recomputing rewrites ask of them (ChunkRederive.c, ChunkRecomputeExpanded.c):
 * which op holds an op or defines a value, whether a value is read at or
 * after a position; and the value map their clones are redirected through.
 * Internal to lib/Chunk. */
#ifndef MEMOPT_CHUNK_CHUNKBLOCKOPS_H
#define MEMOPT_CHUNK_CHUNKBLOCKOPS_H

#include "Analysis/BufferizationModel.h"

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stdint.h>

/// The ops of `block` in order and their positions (`ops` and `positions`
/// owned: free with memoptChunkBlockOpsDestroy).
typedef struct MemoptChunkBlockOps {
  MlirBlock block;
  MlirOperation *ops;
  intptr_t count;
  MemoptPointerMap positions; /* op -> its index in `ops` */
} MemoptChunkBlockOps;

/// Indexes the ops of `block` as they are now.
MemoptChunkBlockOps memoptChunkBlockOpsCreate(MlirBlock block);

/// Frees what `b` holds.
void memoptChunkBlockOpsDestroy(MemoptChunkBlockOps *b);

/// Returns the position of the op of the block that is or holds `op`, or -1.
intptr_t memoptChunkBlockOpsIndexOf(const MemoptChunkBlockOps *b, MlirOperation op);

/// Returns the position of the op defining `value`, or -1 (a block argument).
intptr_t memoptChunkBlockOpsProducerOf(const MemoptChunkBlockOps *b, MlirValue value);

/// Returns true when some reader of `value` is the op at `index` or a later one (or is nested in one).
bool memoptChunkBlockOpsReadFrom(const MemoptChunkBlockOps *b, MlirValue value, intptr_t index);

/// Returns true when `op` makes a destination (tensor.empty, linalg.fill): a
/// clone of a chain reading it needs a clone of it, a buffer of its own.
bool memoptChunkOpIsDestination(MlirOperation op);

/// Returns the bytes of `value` when it is a statically shaped tensor, else 0.
uint64_t memoptChunkValueBytes(MlirValue value);

/// Values and the clones that stand for them (`from` and `to` owned, of `capacity` entries).
typedef struct MemoptChunkValueMap {
  MlirValue *from, *to;
  intptr_t count;
} MemoptChunkValueMap;

/// Returns an empty map with room for `capacity` pairs.
MemoptChunkValueMap memoptChunkValueMapCreate(intptr_t capacity);

/// Frees what `map` holds.
void memoptChunkValueMapDestroy(MemoptChunkValueMap *map);

/// Walk callback (`userData`: a MemoptChunkValueMap): replaces each operand of `op` found in the map by its clone.
MlirWalkResult memoptChunkRedirectOperands(MlirOperation op, void *userData);

#endif /* MEMOPT_CHUNK_CHUNKBLOCKOPS_H */

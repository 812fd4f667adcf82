/* Narrowing a producer to the slice its only user takes: a linalg op whose
 * result is read by one tensor.extract_slice is rewritten to compute just
 * that slice, on slices of its operands. A regenerated value that is a
 * third of a fused projection (q of a qkv matmul) then recomputes a third
 * of the matmul, not all of it. Used by lib/Remat and by place-to-shard's
 * stage normalization (lib/Place/ShardNormalize.c). */
#ifndef MEMOPT_REMAT_SLICENARROWING_H
#define MEMOPT_REMAT_SLICENARROWING_H

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stddef.h>

/// Rewrites every unit-stride tensor.extract_slice in `block` whose source is
/// the only use of a linalg op result in `block` (each result dimension one
/// loop; the sliced loops indexed alone by the operands) into that op on
/// slices of its operands, repeatedly, so a slice moves up a chain; an init
/// made by an empty (and a fill) of its own is made at the slice's size.
/// Returns the number of ops narrowed.
size_t memoptNarrowSlicedProducers(MlirBlock block);

#endif /* MEMOPT_REMAT_SLICENARROWING_H */

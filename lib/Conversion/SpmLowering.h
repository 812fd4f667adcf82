/* Shared state and op builders of the spm-to-memref lowering
 * (SpmToMemref.c, SpmTileGroup.c, SpmTileCopies.c). Internal to
 * lib/Conversion. */
#ifndef MEMOPT_CONVERSION_SPMLOWERING_H
#define MEMOPT_CONVERSION_SPMLOWERING_H

#include "Conversion/UpstreamOps.h"

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <stdbool.h>
#include <stdint.h>

/// The lowering of one function: its target memory space and the tensors
/// already placed in the pin arena (which tiles read without copying).
typedef struct SpmLowering {
  int64_t memorySpace;
  MlirOperation func;
  MlirValue *pinned;
  size_t pinnedCount;
  size_t pinnedCapacity;
} SpmLowering;

/// Records `value` as living in the pin arena.
void spmLoweringAddPinned(SpmLowering *lowering, MlirValue value);

/// Returns true when `value` lives in the pin arena.
bool spmLoweringIsPinned(const SpmLowering *lowering, MlirValue value);

/// Frees what `lowering` holds.
void spmLoweringDestroy(SpmLowering *lowering);

/// Returns the scratchpad memory space as a memref memory-space attribute
/// (the null attribute for 0, the default space).
MlirAttribute spmMemorySpace(const SpmLowering *lowering, MlirContext context);

/// Returns `operandSegmentSizes = array<i32: sizes...>`.
MlirNamedAttribute spmSegmentSizes(MlirContext context, intptr_t count, const int32_t *sizes);

/// Creates op `name` with `operands`, one result of `resultType` and
/// `attributes` at the builder's point; returns the result.
MlirValue spmBuildOp(const MemoptBuilder *builder, const char *name, const MlirValue *operands,
                     intptr_t operandCount, MlirType resultType,
                     const MlirNamedAttribute *attributes, intptr_t attributeCount);

/// Creates `bufferization.alloc_tensor(dynamicSizes) {memory_space = N}` of
/// `type`: a tensor that bufferizes to a new buffer in the scratchpad.
MlirValue spmBuildAllocTensor(const MemoptBuilder *builder, MlirType type,
                              const MlirValue *dynamicSizes, intptr_t dynamicSizeCount,
                              const SpmLowering *lowering);

/// Creates `linalg.copy ins(source) outs(destination)`; returns its result.
MlirValue spmBuildCopy(const MemoptBuilder *builder, MlirValue source, MlirValue destination);

/// Checks that an spm.group can be tiled: its last op is a linalg op with one
/// static result whose rank is the length of `tile`, and every tile size is
/// between 1 and its extent. Emits an error at the group and returns false
/// otherwise.
bool spmCheckGroup(MlirOperation group);

/// Inlines a checked spm.group, tiles its last op by `tile` with its
/// producers fused into the tile loops, and makes the tiles work in the
/// scratchpad (spmLocalizeTiles). Emits an error and fails when upstream
/// tiling fails.
MlirLogicalResult spmLowerGroup(MlirOperation group, SpmLowering *lowering);

/// Rewrites the tile loop nest from `outer` to `inner` (the loop holding the
/// tiled ops) so every tile computes in the scratchpad: slices of off-chip
/// tensors are copied in (once before the nest when they do not depend on
/// the tile), intermediate and result tiles get scratchpad buffers, and each
/// result tile is copied out into the loop's destination.
void spmLocalizeTiles(MlirOperation outer, MlirOperation inner, const SpmLowering *lowering);

#endif /* MEMOPT_CONVERSION_SPMLOWERING_H */

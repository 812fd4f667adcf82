/* Shared state and op builders of the spm-to-memref lowering
 * (SpmToMemref.c, SpmTileGroup.c, SpmTileCopies.c). Internal to
 * lib/Spm. */
#ifndef MEMOPT_SPM_SPMLOWERING_H
#define MEMOPT_SPM_SPMLOWERING_H

#include "IR/Builders.h"

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <stdbool.h>
#include <stdint.h>

/// What a copy site moves between off-chip memory and the scratchpad.
typedef enum SpmCopyKind {
  SpmCopyNone,
  SpmCopyTileLoad,        /* a tile of a feature map read by a group (tensor.extract_slice) */
  SpmCopyTileStore,       /* a result tile written to its destination (tensor.insert_slice) */
  SpmCopyDestinationLoad, /* the initial value of a result tile (tensor.extract_slice) */
  SpmCopyWeightLoad,      /* a tensor every tile reads, loaded once, or a tile of a constant
                             tensor (tensor.extract_slice) */
  SpmCopyExplicit,        /* spm.load or spm.store (linalg.copy) */
} SpmCopyKind;

/// One copy site of the lowered program and the tile loop nest it is in
/// (null: it runs once).
typedef struct SpmCopySite {
  MlirOperation op;
  SpmCopyKind kind;
  MlirOperation nest;
} SpmCopySite;

/// Bytes the lowered program copies between off-chip memory and the
/// scratchpad, by kind (spmCountCopies).
typedef struct SpmCopyTotals {
  uint64_t loadedBytes;   /* feature-map tiles loaded, halos included */
  uint64_t storedBytes;   /* result tiles stored off-chip (not those written into a pin) */
  uint64_t weightBytes;   /* tensors loaded once per group, tiles of constant tensors */
  uint64_t explicitBytes; /* spm.load and spm.store */
} SpmCopyTotals;

/// The lowering of one function: its target memory space, the tensors
/// already placed in the pin arena (which tiles read without copying), and
/// the copy sites it created.
typedef struct SpmLowering {
  int64_t memorySpace;
  MlirOperation func;
  MlirValue *pinned;
  size_t pinnedCount;
  size_t pinnedCapacity;
  SpmCopySite *copies;
  size_t copyCount;
  size_t copyCapacity;
} SpmLowering;

/// Records a copy site.
void spmLoweringAddCopy(SpmLowering *lowering, MlirOperation op, SpmCopyKind kind,
                        MlirOperation nest);

/// Runs the lowered tile loop nests symbolically and fills `totals` with
/// the bytes their copy sites move. Returns false when some loop bound or
/// slice size could not be evaluated (those copies are left out).
bool spmCountCopies(const SpmLowering *lowering, SpmCopyTotals *totals);

/// Runs the tile loop nest `nest` symbolically; true when the slices the
/// tensor.extract_slice `slice` in it takes (unit strides, same rank) cover
/// every element of its static-shaped source.
bool spmSliceCoversSource(MlirOperation nest, MlirOperation slice);

/// Runs the tile loop nest `nest` symbolically; true when every time the
/// tensor.extract_slice `inner` runs, its box lies in the one `outer` (of the
/// same source, earlier in the same block) took last (unit strides).
bool spmSliceContains(MlirOperation nest, MlirOperation outer, MlirOperation inner);

/// True when `value` is computed from constants alone (arith.constant, and
/// empty tensors, linalg ops and region-free ops reading only such values):
/// weights to the cost model, as a broadcast bias is, never a feature map.
bool spmIsConstantData(MlirValue value);

/// Records `value` as living in the pin arena.
void spmLoweringAddPinned(SpmLowering *lowering, MlirValue value);

/// Returns true when `value` lives in the pin arena.
bool spmLoweringIsPinned(const SpmLowering *lowering, MlirValue value);

/// Frees what `lowering` holds.
void spmLoweringDestroy(SpmLowering *lowering);

/// Returns the scratchpad memory space as a memref memory-space attribute
/// (the null attribute for 0, the default space).
MlirAttribute spmMemorySpace(const SpmLowering *lowering, MlirContext context);

/// Returns true when operand `operand` of linalg op `op` is a destination
/// (init) whose block argument the op's body never uses: its initial value is
/// not read, as with linalg.fill.
bool spmInitIsUnread(MlirOperation op, intptr_t operand);

/// Returns `operandSegmentSizes = array<i32: sizes...>`.
MlirNamedAttribute spmSegmentSizes(MlirContext context, intptr_t count, const int32_t *sizes);

/// Creates `bufferization.alloc_tensor(dynamicSizes) {memory_space = N}` of
/// `type`: a tensor that bufferizes to a new buffer in the scratchpad.
MlirValue spmBuildAllocTensor(const MemoptBuilder *builder, MlirType type,
                              const MlirValue *dynamicSizes, intptr_t dynamicSizeCount,
                              const SpmLowering *lowering);

/// Creates `linalg.fill ins(value) outs(destination)`; returns its result.
MlirValue spmBuildFill(const MemoptBuilder *builder, MlirValue value, MlirValue destination);

/// Creates `linalg.copy ins(source) outs(destination)`; returns its result.
MlirValue spmBuildCopy(const MemoptBuilder *builder, MlirValue source, MlirValue destination);

/// Temporary tags on the ops of the group being lowered (SpmTileGroup.c):
/// an op of the group, a producer to fuse into the tile loop (its value is
/// the order of fusion), an output of the group besides its last op's.
extern const char spmGroupOpTag[];
extern const char spmFuseTag[];
extern const char spmPendingOutputTag[];

/// Removes the attribute `name` from `op`; true when it was there.
bool spmRemoveTag(MlirOperation op, const char *name);

/// True when `op` has the attribute `name`.
bool spmHasTag(MlirOperation op, const char *name);

/// True for a linalg op with a body (a structured op, not linalg.index).
bool spmIsLinalgOp(MlirOperation op);

/// The number of inputs (`ins`) of a linalg op; its inits follow them.
intptr_t spmLinalgInputCount(MlirOperation op);

/// Before fusion into the tile loop of `root` (in `block`): gives each
/// producer tagged for fusion that ops outside the group use an untagged
/// copy for those uses (fusing it would crash MLIR 22).
void spmDetachOutsideUses(MlirOperation root, MlirBlock block);

/// After fusion: makes the tile loop nest around `tiledRoot` (`loops` deep)
/// compute, store and yield the group's other outputs fused into it, where
/// its tiles cover them and their other users follow it; those outputs'
/// ops in `block` are replaced and erased.
void spmYieldFusedOutputs(MlirOperation tiledRoot, MlirBlock block, intptr_t loops);

/// Emits "'<opName>' op cannot be lowered to memref: <message>" at
/// `location`, the message printf-formatted.
void spmCannotLower(MlirLocation location, MlirStringRef opName, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

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
/// result tile is copied out into the loop's destination. Records the copy
/// sites in `lowering`.
void spmLocalizeTiles(MlirOperation outer, MlirOperation inner, SpmLowering *lowering);

#endif /* MEMOPT_SPM_SPMLOWERING_H */

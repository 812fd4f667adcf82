/* Internal to lib/Analysis: the memory profile's state, shared by the files
 * that build it (MemoryEstimate.c: callees and the driver; MemoryStorage.c:
 * which buffer holds each value; MemoryLiveness.c: where buffers die and the
 * live bytes per position) and MemoryProfileQueries.c, which reads it. */
#ifndef MEMOPT_ANALYSIS_MEMORYPROFILE_H
#define MEMOPT_ANALYSIS_MEMORYPROFILE_H

#include "Analysis/BufferizationModel.h"

/* One-shot-bufferize gives its allocations its default `buffer-alignment`. */
enum { oneShotBufferAlignment = 64 };

/* finalize-memref-to-llvm{use-aligned-alloc} aligns a memref.alloc without
 * an alignment attribute to its element size rounded up to a power of two,
 * and to at least this (its kMinAlignedAllocAlignment). */
enum { minimumAlignedAllocAlignment = 16 };

/* Notes per function beyond which only their number is kept. */
enum { maxNotes = 64 };

typedef enum StorageKind { StorageNone, StorageArgument, StorageGlobal, StorageBuffer } StorageKind;

/* Where the contents of one tensor or memref value live. */
typedef struct Storage {
  StorageKind kind;
  size_t buffer; /* StorageBuffer */
  IrLayout layout;
} Storage;

typedef struct Buffer {
  MemoptBufferInfo info;
  size_t block;        /* the block whose positions the buffer lives at */
  size_t countsFrom;   /* first position whose live bytes include it */
  bool droppable;      /* tensor.empty: erased by bufferization when unused */
  bool dropped;
  bool unknownOrigin;  /* a call result: the deallocation pipeline cannot tell what it aliases */
  bool freeAtBlockEnd; /* its dealloc cannot move up (region results) */
  size_t numUses;
} Buffer;

typedef struct Note {
  MlirOperation op;
  char *message;
} Note;

typedef struct BlockStats {
  uint64_t peakBytes;
  uint64_t peakAllocatedBytes;
  bool peakUnknown;
  size_t peakPosition;
} BlockStats;

struct MemoptMemoryProfile {
  IrFunction ir;
  Storage *storage;        /* per IrValue */
  size_t *operandCopy;     /* per IrOperand: the copy bufferization makes, or MEMOPT_NO_INDEX */
  bool *operandCopyOmitted; /* the copy is allocated but not filled from the operand */
  Buffer *buffers;
  size_t numBuffers;
  size_t buffersCapacity;
  IrCalleeSummary *callees;
  size_t numCallees;
  BlockStats *blockStats;
  size_t bodyBlock;
  size_t numPositions;
  uint64_t *liveBytes;
  uint64_t *allocatedBytes;
  uint64_t *calleeBytes;
  bool *unknownSize;
  size_t peakPosition;
  uint64_t peakAllocatedBytes;
  uint64_t bookkeepingBytes; /* the deallocation pipeline's alias-check arrays at the end */
  Note *notes;
  size_t numNotes;
  size_t numNotesDropped;
  /* Buffers are numbered without the dropped ones: public <-> internal
   * indices, computed once (passes query buffers in loops). */
  size_t numPublicBuffers;
  size_t *internalOfPublic; /* per public index */
  size_t *publicOfInternal; /* per internal index; MEMOPT_NO_INDEX when dropped */
};

/// Records a note about `op` (at most maxNotes per function; later ones are only counted).
void memoptProfileAddNote(MemoptMemoryProfile *profile, MlirOperation op, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/// Gives every tensor/memref value of the function a storage: arguments their own, the rest as bufferization does (MemoryStorage.c).
void memoptProfileAssignStorage(MemoptMemoryProfile *profile);

/// Finds each buffer's last use through all its aliases, dropping store-only allocations (MemoryLiveness.c).
void memoptProfileComputeLastUses(MemoptMemoryProfile *profile);

/// Returns the bytes of the deallocation pipeline's alias-check arrays at the end of the body (MemoryLiveness.c).
uint64_t memoptProfileDeallocationBookkeeping(const MemoptMemoryProfile *profile);

/// Computes the live, allocated and callee bytes of every position of `block` (its nested blocks
/// done first) into the arrays given (NULL for a nested block) and its BlockStats (MemoryLiveness.c).
void memoptProfileComputeBlockStats(MemoptMemoryProfile *profile, size_t block, uint64_t *live,
                                    uint64_t *allocated, uint64_t *callee, bool *unknown);

#endif /* MEMOPT_ANALYSIS_MEMORYPROFILE_H */

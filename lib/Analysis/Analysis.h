/* memopt analyses: what a program costs in memory, computed from the IR alone.
 *
 * The memory profile of a func.func on tensors predicts the heap activation
 * memory of the function once it is bufferized and run through the upstream
 * pipeline of ARCHITECTURE.md (one-shot-bufferize with
 * bufferize-function-boundaries, buffer-deallocation-pipeline,
 * optimize-allocation-liveness): which buffers exist, where each is allocated
 * and freed, and the live bytes at every op of the body. The model is
 * documented in python-free-docs/analysis.md.
 *
 * Analyses read the IR and never change it; they never run passes. Errors are
 * returned, never printed. */
#ifndef MEMOPT_ANALYSIS_ANALYSIS_H
#define MEMOPT_ANALYSIS_ANALYSIS_H

#include "Support/Support.h"

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===------------------------------------------------------------------===*
 * Type sizes
 *===------------------------------------------------------------------===*/

/// Returns the bytes one element of `elementType` occupies in a buffer once
/// lowered to LLVM on x86-64 (i1 takes a byte, index 8 bytes, complex<T> two
/// T); false when the type has no known buffer layout.
bool memoptTypeGetElementByteSize(MlirType elementType, uint64_t *bytes);

/// Returns the bytes of a statically shaped tensor or memref type in `bytes`;
/// false when the shape is dynamic or unranked, the element type has no
/// known size, or the size overflows 64 bits.
bool memoptTypeGetStaticByteSize(MlirType shapedType, uint64_t *bytes);

/*===------------------------------------------------------------------===*
 * Memory profile of a function
 *===------------------------------------------------------------------===*/

/// The activation-memory profile of one func.func (opaque). Positions are the
/// ops of the function body in order; an op with regions is one position that
/// includes the peak of its own temporaries, a call one that includes the
/// callee's peak.
typedef struct MemoptMemoryProfile MemoptMemoryProfile;

/// Why a buffer exists.
typedef enum MemoptBufferKind {
  MemoptBufferAllocation, /* an op that materializes a new tensor: tensor.empty, pad, concat, ... */
  MemoptBufferCopy,       /* a copy bufferization inserts for an operand it cannot write in place */
  MemoptBufferReturnCopy, /* the clone the deallocation pipeline returns for a buffer the function does not own */
  MemoptBufferCallResult, /* a buffer a callee returns */
  MemoptBufferRegionResult, /* a buffer yielded out of a region op (scf.if, ...) */
  MemoptBufferMemRefAlloc,  /* a memref.alloc already present in the input */
  MemoptBufferUnmodeled     /* the result of an op the model does not know (see the notes) */
} MemoptBufferKind;

/// One buffer of the bufferized function.
typedef struct MemoptBufferInfo {
  MemoptBufferKind kind;
  MlirValue value;        /* the tensor (or memref) value first held in the buffer */
  MlirOperation op;       /* the op at which the buffer is allocated */
  bool sizeKnown;         /* false for dynamic shapes: `bytes` is then 0 */
  uint64_t bytes;         /* payload bytes */
  uint64_t alignment;     /* its alignment in the lowered program: the alloc's alignment
                             attribute, else max(16, element size) as finalize-memref-to-llvm */
  size_t firstPosition;   /* positions in the block the buffer lives in */
  size_t lastPosition;    /* freed after this position */
  bool nested;            /* lives inside a region op, at that op's position only */
  bool escapes;           /* returned: still live when the function returns */
} MemoptBufferInfo;

/// Computes the profile of `func`, a func.func with a body. With
/// `analyzeCallees`, the callees of its func.call ops (found in the enclosing
/// symbol tables) are analyzed too: what they do to their arguments decides
/// copies in `func`, and their peak counts at the call. That reads other
/// functions, so no other thread may be changing them (a function pass must
/// not, unless threading is off). Without it, a call is assumed to read and
/// write its tensor arguments and to allocate its results, and a note says
/// so. Returns NULL and fills `error` when `func` cannot be analyzed. The
/// caller destroys the result.
MemoptMemoryProfile *memoptMemoryProfileCreate(MlirOperation func, bool analyzeCallees,
                                               MemoptStringBuffer *error);

/// Frees a profile (NULL is allowed).
void memoptMemoryProfileDestroy(MemoptMemoryProfile *profile);

/// Returns the function the profile describes.
MlirOperation memoptMemoryProfileGetFunction(const MemoptMemoryProfile *profile);

/// Returns the number of positions (top-level ops of the body, terminator included).
size_t memoptMemoryProfileGetNumPositions(const MemoptMemoryProfile *profile);

/// Returns the op at `position`.
MlirOperation memoptMemoryProfileGetPositionOp(const MemoptMemoryProfile *profile, size_t position);

/// Finds the position of `op`, a top-level op of the body or an op nested in
/// one (which maps to its top-level ancestor); false when `op` is not in the function.
bool memoptMemoryProfileLookupPosition(const MemoptMemoryProfile *profile, MlirOperation op,
                                       size_t *position);

/// Returns the payload bytes live while the op at `position` runs (buffers of
/// unknown size count as 0; see memoptMemoryProfileHasUnknownSize).
uint64_t memoptMemoryProfileGetLiveBytes(const MemoptMemoryProfile *profile, size_t position);

/// Returns the heap bytes the lowered program holds at `position` when it
/// allocates through aligned_alloc (finalize-memref-to-llvm with
/// use-aligned-alloc, as memopt-run lowers): each live buffer's size rounded
/// up to its alignment.
uint64_t memoptMemoryProfileGetAllocatedBytes(const MemoptMemoryProfile *profile,
                                              size_t position);

/// Returns true when a buffer of dynamic size is live at `position`, so the
/// live bytes there are a lower bound.
bool memoptMemoryProfileHasUnknownSize(const MemoptMemoryProfile *profile, size_t position);

/// Returns the position with the most live bytes (the first of equals).
size_t memoptMemoryProfileGetPeakPosition(const MemoptMemoryProfile *profile);

/// Returns the live bytes at the peak position.
uint64_t memoptMemoryProfileGetPeakBytes(const MemoptMemoryProfile *profile);

/// Returns the largest allocated bytes over all positions (the heap peak of
/// the lowered program; it may sit at another position than the live-byte peak).
uint64_t memoptMemoryProfileGetPeakAllocatedBytes(const MemoptMemoryProfile *profile);

/// Returns the number of buffers of the function, nested ones included.
size_t memoptMemoryProfileGetNumBuffers(const MemoptMemoryProfile *profile);

/// Returns buffer number `index`.
MemoptBufferInfo memoptMemoryProfileGetBuffer(const MemoptMemoryProfile *profile, size_t index);

/// Finds the buffer a tensor or memref value of the function lives in; false
/// for values that hold no activation (arguments, constants, scalars).
bool memoptMemoryProfileLookupBuffer(const MemoptMemoryProfile *profile, MlirValue value,
                                     size_t *buffer);

/// Writes to `buffers` (up to `capacity` entries) the indices of the buffers
/// live at `position` (for a region op: those live across it plus its own at
/// their peak) and returns how many there are.
size_t memoptMemoryProfileGetLiveBuffers(const MemoptMemoryProfile *profile, size_t position,
                                         size_t *buffers, size_t capacity);

/// Returns the bytes at `position` that belong to callees (their peak while
/// the call runs); these have no buffer in this profile.
uint64_t memoptMemoryProfileGetCalleeBytes(const MemoptMemoryProfile *profile, size_t position);

/// Returns the number of notes: places where the IR leaves the model (unknown
/// ops, unknown callees, ...) and the profile is an approximation.
size_t memoptMemoryProfileGetNumNotes(const MemoptMemoryProfile *profile);

/// Returns how many notes were left out once the profile held its maximum
/// (a model full of unknown ops would otherwise note every op).
size_t memoptMemoryProfileGetNumOmittedNotes(const MemoptMemoryProfile *profile);

/// Returns note number `index`: the op it is about and a message owned by the profile.
const char *memoptMemoryProfileGetNote(const MemoptMemoryProfile *profile, size_t index,
                                       MlirOperation *op);

/// Returns the name of a buffer kind ("allocation", "copy", ...).
const char *memoptBufferKindName(MemoptBufferKind kind);

#ifdef __cplusplus
}
#endif

#endif /* MEMOPT_ANALYSIS_ANALYSIS_H */

/* memopt_rt: the runtime that memopt's execution harness (memopt-run) loads
 * into mlir-runner next to MLIR's runner utilities.
 *
 * It does three things for lowered programs:
 *   - counts heap memory exactly: it defines the allocation functions that
 *     `finalize-memref-to-llvm{use-generic-functions}` makes every memref
 *     allocation call, and keeps live and peak byte counters;
 *   - records timed runs (wall clock and thread CPU time, peak and live bytes
 *     of each run);
 *   - checksums and prints memref outputs passed from IR.
 *
 * Everything here is plain C with no MLIR dependency. Functions meant to be
 * called from IR have stable C names; the memref ones follow MLIR's
 * `_mlir_ciface_` convention: declare them in IR as
 *   func.func private @memoptRtChecksumF32(i64, memref<*xf32>)
 *       attributes {llvm.emit_c_interface}
 * (or with tensor<*xf32> before bufferization) and the lowered call passes a
 * pointer to the unranked descriptor.
 *
 * Output lines all start with "memopt-rt: " and are key=value records, one
 * per line, flushed at once; memopt-run parses them (python-free-docs/harness.md).
 * Loading the library makes standard output line-buffered, so that what a
 * program prints before it aborts (a failed cf.assert) is not lost when
 * standard output is a file.
 *
 * This library is dlopen'ed into an uninstrumented mlir-runner, so it is
 * always built without sanitizers. */
#ifndef MEMOPT_RUNTIME_RUNTIME_H
#define MEMOPT_RUNTIME_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===------------------------------------------------------------------===*
 * Allocation counting
 *
 * Counted bytes are the sizes the program requests, exactly; the hidden
 * header in front of each block and malloc's own overhead are not counted.
 * Blocks must be freed with _mlir_memref_to_llvm_free; freeing a pointer this
 * library did not return, or freeing twice, aborts with a message.
 *===------------------------------------------------------------------===*/

/// Allocates `size` bytes (16-byte aligned) and counts them as live; when
/// memory runs out, aborts with a message naming the size (never NULL).
void *_mlir_memref_to_llvm_alloc(size_t size);

/// Allocates `size` bytes aligned to `alignment` (a power of two up to 2^30;
/// smaller values than 16 give 16) and counts `size` bytes as live; aborts
/// with a message on a bad alignment or when memory runs out.
void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size);

/// Frees a block from either allocation function (NULL is a no-op) and
/// subtracts its size from the live bytes.
void _mlir_memref_to_llvm_free(void *pointer);

/// Returns the bytes currently allocated and not yet freed.
int64_t memoptRtLiveBytes(void);

/// Returns the highest live byte count since the library was loaded or the
/// last memoptRtResetPeak.
int64_t memoptRtPeakBytes(void);

/// Sets the peak to the current live bytes, so that the next memoptRtPeakBytes
/// reports the peak from now on.
void memoptRtResetPeak(void);

/// Returns the number of allocations since the library was loaded.
int64_t memoptRtAllocationCount(void);

/// Returns the number of frees of non-NULL pointers since the library was loaded.
int64_t memoptRtFreeCount(void);

/// Prints "memopt-rt: counters live_bytes=L peak_bytes=P allocations=A frees=F"
/// on standard output.
void memoptRtPrintCounters(void);

/*===------------------------------------------------------------------===*
 * Timed runs
 *
 * A run is the interval between memoptRtRunBegin and memoptRtRunEnd; runs
 * do not nest and are numbered from 0 in the order they end.
 *===------------------------------------------------------------------===*/

/// What one run measured.
typedef struct MemoptRtRunRecord {
  int64_t index;            /* 0 for the first run */
  int64_t timeNanoseconds;  /* CLOCK_MONOTONIC wall time between begin and end */
  int64_t cpuNanoseconds;   /* CPU time of the running thread between begin and end */
  int64_t peakBytes;        /* highest live bytes during the run minus liveBeforeBytes */
  int64_t liveBeforeBytes;  /* live bytes when the run began */
  int64_t liveAfterBytes;   /* live bytes when the run ended */
  int64_t allocations;      /* allocations made during the run */
  int64_t evictions;        /* buffers evicted during the run (Eviction) */
  int64_t recomputedOperations; /* element operations of the regenerations run (Eviction) */
} MemoptRtRunRecord;

/// Starts a run: resets the peak to the live bytes, then reads the clocks
/// (last, so that the bookkeeping is not timed).
void memoptRtRunBegin(void);

/// Ends the run begun last: reads the clock first, then the counters, and
/// prints "memopt-rt: run index=I time_ns=T cpu_ns=C peak_bytes=P
/// live_before_bytes=B live_after_bytes=A allocations=N evictions=E
/// recomputed_ops=R" on standard output. Aborts with a message
/// when no run was begun.
void memoptRtRunEnd(void);

/// Returns the number of runs ended so far.
int64_t memoptRtRunCount(void);

/// Copies the record of the last run ended into `record`; returns 0, or -1
/// (leaving `record` untouched) when no run has ended yet.
int memoptRtLastRun(MemoptRtRunRecord *record);

/*===------------------------------------------------------------------===*
 * Outputs
 *===------------------------------------------------------------------===*/

/// An unranked memref as MLIR passes it through the C interface: the rank and
/// a pointer to a ranked descriptor {allocated, aligned, offset, sizes[rank],
/// strides[rank]}.
typedef struct MemoptRtUnrankedMemRef {
  int64_t rank;
  void *descriptor;
} MemoptRtUnrankedMemRef;

/// Element types the output functions understand.
typedef enum MemoptRtElementType {
  MemoptRtF64,
  MemoptRtF32,
  MemoptRtF16,
  MemoptRtBF16,
  MemoptRtI64,
  MemoptRtI32,
  MemoptRtI16,
  MemoptRtI8,
  MemoptRtI1, /* stored one byte per element, as MLIR lowers i1 memrefs */
} MemoptRtElementType;

/// A memref's contents summarized for equality checks.
typedef struct MemoptRtChecksum {
  uint64_t hash;     /* FNV-1a 64 of the element bytes in row-major order */
  double sum;        /* sum of the finite elements (compensated summation) */
  double absSum;     /* sum of |x| of the finite elements */
  int64_t nonfinite; /* NaN and infinite elements (0 for integer types) */
  int64_t count;     /* elements */
} MemoptRtChecksum;

/// Returns the name of an element type as MLIR spells it ("f32", "bf16", "i1").
const char *memoptRtElementTypeName(MemoptRtElementType type);

/// Returns the size in bytes of one stored element.
size_t memoptRtElementSize(MemoptRtElementType type);

/// Computes the checksum of `memref`, visiting elements in row-major order of
/// its logical shape whatever its strides, so that equal values give equal
/// checksums whatever the layout.
MemoptRtChecksum memoptRtChecksumCompute(const MemoptRtUnrankedMemRef *memref,
                                         MemoptRtElementType type);

/// Prints "memopt-rt: output index=I element=E shape=AxB count=N hash=0x...
/// sum=S abs_sum=A nonfinite=K" on standard output (shape is empty for rank 0).
void memoptRtChecksumPrint(int64_t index, const MemoptRtUnrankedMemRef *memref,
                           MemoptRtElementType type);

/// Prints the elements of `memref` between the lines "memopt-rt: values
/// index=I begin" and "memopt-rt: values index=I end", one innermost row per
/// line in nested brackets; floats print with enough digits to round-trip.
void memoptRtValuesPrint(int64_t index, const MemoptRtUnrankedMemRef *memref,
                         MemoptRtElementType type);

/// C-interface entry point: checksum of output `index`, an f64 memref.
void _mlir_ciface_memoptRtChecksumF64(int64_t index, MemoptRtUnrankedMemRef *memref);
/// C-interface entry point: checksum of output `index`, an f32 memref.
void _mlir_ciface_memoptRtChecksumF32(int64_t index, MemoptRtUnrankedMemRef *memref);
/// C-interface entry point: checksum of output `index`, an f16 memref.
void _mlir_ciface_memoptRtChecksumF16(int64_t index, MemoptRtUnrankedMemRef *memref);
/// C-interface entry point: checksum of output `index`, a bf16 memref.
void _mlir_ciface_memoptRtChecksumBF16(int64_t index, MemoptRtUnrankedMemRef *memref);
/// C-interface entry point: checksum of output `index`, an i64 memref.
void _mlir_ciface_memoptRtChecksumI64(int64_t index, MemoptRtUnrankedMemRef *memref);
/// C-interface entry point: checksum of output `index`, an i32 memref.
void _mlir_ciface_memoptRtChecksumI32(int64_t index, MemoptRtUnrankedMemRef *memref);
/// C-interface entry point: checksum of output `index`, an i16 memref.
void _mlir_ciface_memoptRtChecksumI16(int64_t index, MemoptRtUnrankedMemRef *memref);
/// C-interface entry point: checksum of output `index`, an i8 memref.
void _mlir_ciface_memoptRtChecksumI8(int64_t index, MemoptRtUnrankedMemRef *memref);
/// C-interface entry point: checksum of output `index`, an i1 memref.
void _mlir_ciface_memoptRtChecksumI1(int64_t index, MemoptRtUnrankedMemRef *memref);

/// C-interface entry point: prints the values of output `index`, an f64 memref.
void _mlir_ciface_memoptRtPrintF64(int64_t index, MemoptRtUnrankedMemRef *memref);
/// C-interface entry point: prints the values of output `index`, an f32 memref.
void _mlir_ciface_memoptRtPrintF32(int64_t index, MemoptRtUnrankedMemRef *memref);
/// C-interface entry point: prints the values of output `index`, an f16 memref.
void _mlir_ciface_memoptRtPrintF16(int64_t index, MemoptRtUnrankedMemRef *memref);
/// C-interface entry point: prints the values of output `index`, a bf16 memref.
void _mlir_ciface_memoptRtPrintBF16(int64_t index, MemoptRtUnrankedMemRef *memref);
/// C-interface entry point: prints the values of output `index`, an i64 memref.
void _mlir_ciface_memoptRtPrintI64(int64_t index, MemoptRtUnrankedMemRef *memref);
/// C-interface entry point: prints the values of output `index`, an i32 memref.
void _mlir_ciface_memoptRtPrintI32(int64_t index, MemoptRtUnrankedMemRef *memref);
/// C-interface entry point: prints the values of output `index`, an i16 memref.
void _mlir_ciface_memoptRtPrintI16(int64_t index, MemoptRtUnrankedMemRef *memref);
/// C-interface entry point: prints the values of output `index`, an i8 memref.
void _mlir_ciface_memoptRtPrintI8(int64_t index, MemoptRtUnrankedMemRef *memref);
/// C-interface entry point: prints the values of output `index`, an i1 memref.
void _mlir_ciface_memoptRtPrintI1(int64_t index, MemoptRtUnrankedMemRef *memref);

/*===------------------------------------------------------------------===*
 * Eviction (run-time rematerialization, BladeDISC++)
 *
 * remat-to-runtime lowers `remat.evict` to memoptRtEvictable and
 * `remat.regenerate` to memoptRtRestore plus a recomputation guarded by its
 * result. Between the two calls the buffer is evictable: when an allocation
 * would bring the live bytes of the current run (live bytes minus those
 * live when the run began; absolute outside a run) above the limit, the
 * registered buffers are evicted in decreasing order of size times distance
 * to their next use per element operation their recomputation costs (DTR's
 * heuristic, with the distance to the next use for its staleness; buffers
 * of unknown cost go after all others, by size times distance; buffers
 * whose restoration needs more resident bytes than the limit go after
 * every buffer whose restoration fits, and only while it needs fewer bytes
 * than the allocation would reach without them) until the allocation
 * fits: their pages are given back (madvise MADV_DONTNEED) and their bytes
 * stop counting, while the block stays allocated so that its address stays
 * valid. memoptRtRestore tells the program that a block was evicted; once
 * the inputs of its recomputation are restored (so that they cannot be
 * evicted for it), memoptRtRecommit counts it again and the program
 * recomputes its contents into it. Positions are the op numbers
 * remat-to-runtime gives the top-level ops of a function; the current
 * position is the last one a call reported.
 *===------------------------------------------------------------------===*/

/// Sets the limit in bytes (0: no limit, nothing is evicted); at load time it
/// is read from the environment variable MEMOPT_RT_LIMIT_BYTES, a
/// non-negative decimal integer (anything else aborts with a message).
void memoptRtSetLimitBytes(int64_t bytes);

/// Returns the current limit in bytes (0: none).
int64_t memoptRtLimitBytes(void);

/// Registers the block at `pointer` (an address this library's allocation
/// functions returned, as an integer) as evictable from op `position` until
/// its next use at op `nextUse`, recomputed then in `cost` element operations
/// (<= 0: unknown) with `restoreBytes` resident, itself included, counted as
/// the limit is (<= 0: unknown, taken to fit). A block registered and evicted stays evicted (a
/// regeneration makes its restored inputs evictable again, whether or not its
/// nested regenerate of that input ran). Aborts with a message for another
/// pointer.
void memoptRtEvictable(int64_t pointer, int64_t position, int64_t nextUse, int64_t cost,
                       int64_t restoreBytes);

/// Ends the evictable interval of the block at `pointer` at op `position`:
/// returns 1 when it was evicted (the caller must then restore the inputs of
/// its recomputation, call memoptRtRecommit and recompute its contents into
/// it), 0 when its contents are intact.
int32_t memoptRtRestore(int64_t pointer, int64_t position);

/// Counts the evicted block at `pointer` (restored by memoptRtRestore) again,
/// evicting registered buffers to make room for it under the limit. Aborts
/// with a message for any other pointer.
void memoptRtRecommit(int64_t pointer);

/// Returns the number of buffers evicted since the library was loaded.
int64_t memoptRtEvictionCount(void);

/// Returns the element operations the program was told to recompute since the library was loaded
/// (the costs of the evicted buffers restored; unknown costs count 0).
int64_t memoptRtRecomputedOperations(void);

/// Returns the number of buffers registered as evictable and not yet restored or freed.
int64_t memoptRtEvictableCount(void);

#ifdef __cplusplus
}
#endif

#endif /* MEMOPT_RUNTIME_RUNTIME_H */

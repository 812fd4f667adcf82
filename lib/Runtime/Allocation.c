/* Exact heap accounting for lowered memrefs.
 *
 * Every block carries a 16-byte header just before the pointer handed out,
 * holding the requested size and the distance back to the pointer malloc or
 * posix_memalign returned. free() therefore needs no lookup table, and
 * counting stays exact and O(1). The header is 16 bytes so that plain
 * allocations keep malloc's 16-byte alignment; aligned allocations put the
 * payload one alignment unit past the start of an aligned block so that the
 * header fits in front of it.
 *
 * Counters are C11 atomics: lowered code may allocate from several threads
 * (async, OpenMP), and the peak must never miss a concurrent maximum. */
#include "Runtime/Blocks.h"
#include "Runtime/Runtime.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

enum {
  HeaderSize = 16,
  /* Distinguishes our live blocks from foreign or already freed pointers
   * (best effort for the latter: malloc may reuse a freed header at once). */
  LiveMagic = 0x6d656d6f, /* "memo" */
  FreedMagic = 0x64656164, /* "dead" */
  /* Still allocated, but its pages were given back and its bytes are not
   * counted until it is refilled (Eviction.c). */
  EvictedMagic = 0x65766963, /* "evic" */
};

typedef struct BlockHeader {
  uint64_t size;       /* bytes requested, the amount counted */
  uint32_t baseOffset; /* payload minus the pointer to pass to free() */
  uint32_t magic;
} BlockHeader;

_Static_assert(sizeof(BlockHeader) == HeaderSize, "the header must keep 16-byte alignment");

static atomic_int_fast64_t liveBytes;
static atomic_int_fast64_t peakBytes;
static atomic_int_fast64_t allocationCount;
static atomic_int_fast64_t freeCount;

static BlockHeader *headerOf(void *payload) {
  return (BlockHeader *)((char *)payload - HeaderSize);
}

/* Raises the peak to `live` unless a concurrent update already went higher. */
static void raisePeak(int_fast64_t live) {
  int_fast64_t peak = atomic_load(&peakBytes);
  while (live > peak && !atomic_compare_exchange_weak(&peakBytes, &peak, live)) {
  }
}

static void *track(void *base, size_t baseOffset, size_t size) {
  char *payload = (char *)base + baseOffset;
  BlockHeader *header = headerOf(payload);
  header->size = size;
  header->baseOffset = (uint32_t)baseOffset;
  header->magic = LiveMagic;
  atomic_fetch_add(&allocationCount, 1);
  raisePeak(atomic_fetch_add(&liveBytes, (int_fast64_t)size) + (int_fast64_t)size);
  return payload;
}

/* Sizes beyond this cannot be counted in a signed 64-bit total. */
static bool sizeIsCountable(size_t size, size_t extra) {
  return size <= (size_t)INT64_MAX - extra;
}

/* Ends the program with the reason: lowered code stores through the pointer
 * an allocation returns without checking it, so NULL would only become a
 * segmentation fault that says nothing. */
static _Noreturn void allocationFailed(size_t size, size_t alignment, const char *reason) {
  fprintf(stderr, "memopt-rt: fatal: cannot allocate %zu bytes (alignment %zu): %s\n", size,
          alignment, reason);
  fflush(stdout);
  abort();
}

void *_mlir_memref_to_llvm_alloc(size_t size) {
  if (!sizeIsCountable(size, HeaderSize))
    allocationFailed(size, HeaderSize, "larger than a signed 64-bit byte count");
  memoptRtEvictionMakeRoom((int64_t)size);
  void *base = malloc(HeaderSize + size);
  if (!base)
    allocationFailed(size, HeaderSize, "out of memory");
  return track(base, HeaderSize, size);
}

void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0 || alignment > (1u << 30))
    allocationFailed(size, alignment, "the alignment is not a power of two up to 2^30");
  if (alignment < HeaderSize)
    alignment = HeaderSize;
  /* The payload starts one alignment unit in: aligned, with room for the header. */
  if (!sizeIsCountable(size, alignment))
    allocationFailed(size, alignment, "larger than a signed 64-bit byte count");
  memoptRtEvictionMakeRoom((int64_t)size);
  void *base = NULL;
  if (posix_memalign(&base, alignment, alignment + size) != 0)
    allocationFailed(size, alignment, "out of memory");
  return track(base, alignment, size);
}

void _mlir_memref_to_llvm_free(void *pointer) {
  if (!pointer)
    return;
  BlockHeader *header = headerOf(pointer);
  if (header->magic != LiveMagic && header->magic != EvictedMagic) {
    /* Continuing would corrupt the counters and probably the heap. */
    fprintf(stderr,
            "memopt-rt: fatal: _mlir_memref_to_llvm_free(%p): not allocated by memopt_rt, or "
            "already freed\n",
            pointer);
    fflush(stdout);
    abort();
  }
  memoptRtEvictionForget(pointer);
  /* An evicted block's bytes were subtracted when it was evicted. */
  if (header->magic == LiveMagic)
    atomic_fetch_sub(&liveBytes, (int_fast64_t)header->size);
  header->magic = FreedMagic;
  atomic_fetch_add(&freeCount, 1);
  free((char *)pointer - header->baseOffset);
}

int64_t memoptRtBlockResidentSize(const void *payload) {
  const BlockHeader *header = (const BlockHeader *)((const char *)payload - HeaderSize);
  return header->magic == LiveMagic ? (int64_t)header->size : -1;
}

int64_t memoptRtBlockEvictedSize(const void *payload) {
  const BlockHeader *header = (const BlockHeader *)((const char *)payload - HeaderSize);
  return header->magic == EvictedMagic ? (int64_t)header->size : -1;
}

int64_t memoptRtBlockUncount(void *payload) {
  BlockHeader *header = headerOf(payload);
  header->magic = EvictedMagic;
  atomic_fetch_sub(&liveBytes, (int_fast64_t)header->size);
  return (int64_t)header->size;
}

int64_t memoptRtBlockRecount(void *payload) {
  BlockHeader *header = headerOf(payload);
  header->magic = LiveMagic;
  raisePeak(atomic_fetch_add(&liveBytes, (int_fast64_t)header->size) + (int_fast64_t)header->size);
  return (int64_t)header->size;
}

int64_t memoptRtLiveBytes(void) { return atomic_load(&liveBytes); }

int64_t memoptRtPeakBytes(void) { return atomic_load(&peakBytes); }

void memoptRtResetPeak(void) { atomic_store(&peakBytes, atomic_load(&liveBytes)); }

int64_t memoptRtAllocationCount(void) { return atomic_load(&allocationCount); }

int64_t memoptRtFreeCount(void) { return atomic_load(&freeCount); }

void memoptRtPrintCounters(void) {
  printf("memopt-rt: counters live_bytes=%lld peak_bytes=%lld allocations=%lld frees=%lld\n",
         (long long)memoptRtLiveBytes(), (long long)memoptRtPeakBytes(),
         (long long)memoptRtAllocationCount(), (long long)memoptRtFreeCount());
  fflush(stdout);
}

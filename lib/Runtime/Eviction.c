/* Run-time eviction of buffers the program marked evictable (BladeDISC++'s
 * rematerialization decided at run time).
 *
 * The registry is a small array: a program registers a handful of buffers
 * at a time (one per remat.evict whose interval is open), so a linear scan
 * per allocation costs less than any index would. It is guarded by a mutex
 * because lowered code may allocate from several threads, while the
 * registrations themselves come from the program's calls.
 *
 * An evicted block keeps its address: only its pages are given back, and
 * its bytes stop counting. That way every memref descriptor that points
 * into it stays valid, and restoring needs no new allocation, only a
 * recomputation into the same memory. */
/* madvise(MADV_DONTNEED) is not POSIX (posix_madvise with POSIX_MADV_DONTNEED
 * is a no-op in glibc), hence the BSD/GNU feature set. */
#define _DEFAULT_SOURCE

#include "Runtime/Blocks.h"
#include "Runtime/Runtime.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct Evictable {
  void *payload;
  int64_t bytes;
  int64_t nextUse; /* op position of the matching restore */
  int64_t cost;    /* element operations of its recomputation; <= 0: unknown */
  int64_t restoreBytes; /* resident while it is restored, itself included; <= 0: unknown */
  bool evicted;
} Evictable;

static pthread_mutex_t registryLock = PTHREAD_MUTEX_INITIALIZER;
static Evictable *registry;
static size_t registryCount;
static size_t registryCapacity;
/* Read without the lock on every allocation and free: atomics. */
static atomic_int_fast64_t limitBytes;
static atomic_int_fast64_t registeredCount;
static atomic_int_fast64_t evictionCount;
static atomic_int_fast64_t recomputedOperations;
static int64_t currentPosition;

static void fatal(const char *message, long long value) {
  fprintf(stderr, "memopt-rt: fatal: %s%lld\n", message, value);
  fflush(stdout);
  abort();
}

/* The limit comes from the environment when the library is loaded, so that
 * a harness can set it without changing the program. */
__attribute__((constructor)) static void readLimitFromEnvironment(void) {
  const char *text = getenv("MEMOPT_RT_LIMIT_BYTES");
  if (!text || !*text)
    return;
  char *end;
  errno = 0;
  long long value = strtoll(text, &end, 10);
  if (*end != '\0' || errno != 0 || value < 0 || text[0] == '-' || text[0] == '+') {
    fprintf(stderr,
            "memopt-rt: fatal: MEMOPT_RT_LIMIT_BYTES='%s' is not a non-negative decimal integer\n",
            text);
    abort();
  }
  atomic_store(&limitBytes, value);
}

void memoptRtSetLimitBytes(int64_t bytes) {
  if (bytes < 0)
    fatal("memoptRtSetLimitBytes: negative limit ", (long long)bytes);
  atomic_store(&limitBytes, bytes);
}

int64_t memoptRtLimitBytes(void) { return atomic_load(&limitBytes); }

int64_t memoptRtEvictionCount(void) { return atomic_load(&evictionCount); }

int64_t memoptRtRecomputedOperations(void) { return atomic_load(&recomputedOperations); }

int64_t memoptRtEvictableCount(void) { return atomic_load(&registeredCount); }

/* Returns the index of `payload` in the registry, or registryCount. */
static size_t find(const void *payload) {
  size_t i = 0;
  while (i < registryCount && registry[i].payload != payload)
    ++i;
  return i;
}

static void removeAt(size_t index) {
  registry[index] = registry[--registryCount];
  atomic_fetch_sub(&registeredCount, 1);
}

/* Gives the whole pages inside the block back to the system; the partial
 * pages at its ends may hold the block header or a neighbour's data. */
static void releasePages(void *payload, int64_t bytes) {
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  uintptr_t first = ((uintptr_t)payload + page - 1) & ~(page - 1);
  uintptr_t last = ((uintptr_t)payload + (uintptr_t)bytes) & ~(page - 1);
  if (last > first)
    madvise((void *)first, last - first, MADV_DONTNEED);
}

/* Size times distance to the next use: the bytes an eviction saves, for
 * how long. */
static double savedByteSpan(const Evictable *entry) {
  int64_t distance = entry->nextUse - currentPosition;
  return (double)entry->bytes * (double)(distance > 0 ? distance : 1);
}

/* True when restoring `entry` fits under `limit`, or nobody knows. Evicting
 * a buffer whose restoration cannot fit only moves the excess to where it
 * is restored, where nothing counted can make room: LLaMA's SiLU output,
 * restored in the MLP backward beside the gate it is computed from, the
 * incoming gradient and its product with the up projection. */
static bool restoreFits(const Evictable *entry, int64_t limit) {
  return entry->restoreBytes <= 0 || entry->restoreBytes <= limit;
}

/* True when evicting `entry` can lower the peak: its restoration fits
 * `limit`, or needs fewer bytes than `demand`, the live bytes the allocation
 * reaches if nothing is evicted. Otherwise restoring it would peak higher
 * than what evicting it avoids now. */
static bool evictionPays(const Evictable *entry, int64_t limit, int64_t demand) {
  return restoreFits(entry, limit) || entry->restoreBytes < demand;
}

/* True when `a` should be evicted before `b` under `limit`: a buffer whose
 * restoration fits first; then the most byte-span saved per
 * element operation recomputed (DTR's heuristic). Without costs the largest
 * byte span goes first; a buffer of unknown cost goes after every known one,
 * as its recomputation may be the dearest. The cost is the regeneration's
 * own: recomputing the evictable inputs it reads too is needed only when
 * those were evicted as well, and ranking by that worst case kept the SiLU
 * output resident and evicted the gate matmul instead, also where restoring
 * the SiLU fits. */
static bool evictsBefore(const Evictable *a, const Evictable *b, int64_t limit) {
  bool aFits = restoreFits(a, limit), bFits = restoreFits(b, limit);
  if (aFits != bFits)
    return aFits;
  bool aKnown = a->cost > 0, bKnown = b->cost > 0;
  if (aKnown != bKnown)
    return aKnown;
  if (!aKnown)
    return savedByteSpan(a) > savedByteSpan(b);
  return savedByteSpan(a) / (double)a->cost > savedByteSpan(b) / (double)b->cost;
}

void memoptRtEvictionMakeRoom(int64_t size) {
  int64_t limit = atomic_load(&limitBytes);
  if (limit == 0 || atomic_load(&registeredCount) == 0)
    return;
  pthread_mutex_lock(&registryLock);
  for (;;) {
    int64_t used = memoptRtLiveBytes() - memoptRtRunBaselineBytes();
    if (used + size <= limit)
      break;
    size_t best = registryCount;
    for (size_t i = 0; i < registryCount; ++i)
      if (!registry[i].evicted && evictionPays(&registry[i], limit, used + size) &&
          (best == registryCount || evictsBefore(&registry[i], &registry[best], limit)))
        best = i;
    if (best == registryCount)
      break; /* nothing left worth evicting: the allocation goes over the limit */
    registry[best].evicted = true;
    memoptRtBlockUncount(registry[best].payload);
    releasePages(registry[best].payload, registry[best].bytes);
    atomic_fetch_add(&evictionCount, 1);
  }
  pthread_mutex_unlock(&registryLock);
}

void memoptRtEvictable(int64_t pointer, int64_t position, int64_t nextUse, int64_t cost,
                       int64_t restoreBytes) {
  void *payload = (void *)(uintptr_t)pointer;
  pthread_mutex_lock(&registryLock);
  currentPosition = position;
  size_t index = find(payload);
  if (index < registryCount && registry[index].evicted) {
    /* Made evictable again at the end of a regeneration whose nested
     * regenerate of it did not run (its own parent was resident): it is
     * still evicted, and its next top-level regenerate restores it. */
    pthread_mutex_unlock(&registryLock);
    return;
  }
  int64_t bytes = memoptRtBlockResidentSize(payload);
  if (bytes < 0) {
    pthread_mutex_unlock(&registryLock);
    fatal("memoptRtEvictable: not a live block of memopt_rt: pointer ", (long long)pointer);
  }
  if (index == registryCount) {
    if (registryCount == registryCapacity) {
      registryCapacity = registryCapacity ? 2 * registryCapacity : 16;
      registry = realloc(registry, registryCapacity * sizeof *registry);
      if (!registry)
        fatal("memoptRtEvictable: out of memory for entries: ", (long long)registryCapacity);
    }
    ++registryCount;
    atomic_fetch_add(&registeredCount, 1);
  }
  registry[index] = (Evictable){payload, bytes, nextUse, cost, restoreBytes, false};
  pthread_mutex_unlock(&registryLock);
}

int32_t memoptRtRestore(int64_t pointer, int64_t position) {
  void *payload = (void *)(uintptr_t)pointer;
  pthread_mutex_lock(&registryLock);
  currentPosition = position;
  size_t index = find(payload);
  bool evicted = index < registryCount && registry[index].evicted;
  if (evicted && registry[index].cost > 0)
    atomic_fetch_add(&recomputedOperations, registry[index].cost);
  if (index < registryCount)
    removeAt(index);
  pthread_mutex_unlock(&registryLock);
  return evicted;
}

void memoptRtRecommit(int64_t pointer) {
  void *payload = (void *)(uintptr_t)pointer;
  int64_t bytes = memoptRtBlockEvictedSize(payload);
  if (bytes < 0)
    fatal("memoptRtRecommit: not an evicted block of memopt_rt: pointer ", (long long)pointer);
  /* The block counts again before the recomputation writes into it; other
   * evictable buffers make room for it as for any allocation. Those its
   * recomputation reads were restored before, so none of them goes. */
  memoptRtEvictionMakeRoom(bytes);
  memoptRtBlockRecount(payload);
}

void memoptRtEvictionForget(const void *payload) {
  if (atomic_load(&registeredCount) == 0)
    return;
  pthread_mutex_lock(&registryLock);
  size_t index = find(payload);
  if (index < registryCount)
    removeAt(index);
  pthread_mutex_unlock(&registryLock);
}

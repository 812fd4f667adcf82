/* Unit tests of memopt_rt's eviction (lib/Runtime/Eviction.c): nothing is
 * evicted without a limit or under it; over it, the registered buffers go in
 * order of size times distance to their next use per element operation
 * their recomputation costs, those of unknown cost last, those whose
 * restoration cannot fit the limit after all others and only while it
 * needs less than the allocation would reach, until the allocation fits;
 * the costs of the restored ones add up; the counters drop and rise back
 * exactly; an evicted block keeps its
 * address and can be refilled (after recommit) and freed, and registering
 * it again leaves it evicted; restore ends the interval. The counters are
 * process-wide, so each test reasons in differences. */
#include "Runtime/Runtime.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { Block = 1 << 20 };

static int64_t address(void *payload) { return (int64_t)(uintptr_t)payload; }

static void nothingIsEvictedWithoutALimit(void **state) {
  (void)state;
  memoptRtSetLimitBytes(0);
  int64_t evictions0 = memoptRtEvictionCount();
  void *a = _mlir_memref_to_llvm_aligned_alloc(64, Block);
  memoptRtEvictable(address(a), 0, 10, -1, -1);
  void *b = _mlir_memref_to_llvm_aligned_alloc(64, 4 * Block);
  assert_int_equal(memoptRtEvictionCount(), evictions0);
  assert_int_equal(memoptRtRestore(address(a), 10), 0);
  assert_int_equal(memoptRtEvictableCount(), 0);
  _mlir_memref_to_llvm_free(a);
  _mlir_memref_to_llvm_free(b);
}

static void allocationOverTheLimitEvictsAndTheBytesStopCounting(void **state) {
  (void)state;
  int64_t live0 = memoptRtLiveBytes();
  memoptRtSetLimitBytes(live0 + 3 * Block);
  int64_t evictions0 = memoptRtEvictionCount();
  void *a = _mlir_memref_to_llvm_aligned_alloc(64, 2 * Block);
  memset(a, 7, 2 * Block);
  memoptRtEvictable(address(a), 1, 5, -1, -1);
  /* 2 + 1 fits exactly: no eviction. */
  void *b = _mlir_memref_to_llvm_aligned_alloc(64, Block);
  assert_int_equal(memoptRtEvictionCount(), evictions0);
  /* 3 + 1 does not: `a` goes, live drops by its 2 MiB. */
  void *c = _mlir_memref_to_llvm_aligned_alloc(64, Block);
  assert_int_equal(memoptRtEvictionCount(), evictions0 + 1);
  assert_int_equal(memoptRtLiveBytes(), live0 + 2 * Block);
  /* Restore says "recompute"; recommit counts it again (nothing is left to
   * evict, so it goes over the limit); the address is usable. */
  memoptRtResetPeak();
  assert_int_equal(memoptRtRestore(address(a), 5), 1);
  assert_int_equal(memoptRtLiveBytes(), live0 + 2 * Block);
  memoptRtRecommit(address(a));
  assert_int_equal(memoptRtLiveBytes(), live0 + 4 * Block);
  memset(a, 9, 2 * Block);
  _mlir_memref_to_llvm_free(a);
  _mlir_memref_to_llvm_free(b);
  _mlir_memref_to_llvm_free(c);
  assert_int_equal(memoptRtLiveBytes(), live0);
  memoptRtSetLimitBytes(0);
}

/* Registers `near` (2 MiB, next use at op 3) and `far` (1 MiB, next use at
 * op 20) with the given costs and restore footprints (bytes over the limit
 * when `nearRestoreOver` / `farRestoreOver` is positive, else exactly the
 * limit), under a limit that leaves room for 4 MiB, then allocates 2 MiB,
 * so that exactly one of them must go. Restores both and frees everything;
 * returns true when `near` was the one evicted, and sets `recomputed` to the
 * operations the restore counted. */
static bool nearIsEvictedRestoring(int64_t nearCost, int64_t farCost, int64_t nearRestoreOver,
                                   int64_t farRestoreOver, int64_t *recomputed) {
  int64_t live0 = memoptRtLiveBytes();
  int64_t limit = live0 + 4 * Block;
  memoptRtSetLimitBytes(limit);
  void *near = _mlir_memref_to_llvm_aligned_alloc(64, 2 * Block);
  void *far = _mlir_memref_to_llvm_aligned_alloc(64, Block);
  memoptRtEvictable(address(near), 0, 3, nearCost, limit + nearRestoreOver);
  memoptRtEvictable(address(far), 1, 20, farCost, limit + farRestoreOver);
  int64_t evictions0 = memoptRtEvictionCount();
  void *c = _mlir_memref_to_llvm_aligned_alloc(64, 2 * Block);
  assert_int_equal(memoptRtEvictionCount(), evictions0 + 1);
  /* Room for either restore, so that neither evicts the other. */
  _mlir_memref_to_llvm_free(c);
  int64_t recomputed0 = memoptRtRecomputedOperations();
  int32_t nearEvicted = memoptRtRestore(address(near), 3);
  int32_t farEvicted = memoptRtRestore(address(far), 20);
  assert_int_equal(nearEvicted + farEvicted, 1);
  *recomputed = memoptRtRecomputedOperations() - recomputed0;
  _mlir_memref_to_llvm_free(near);
  _mlir_memref_to_llvm_free(far);
  assert_int_equal(memoptRtLiveBytes(), live0);
  memoptRtSetLimitBytes(0);
  return nearEvicted == 1;
}

/* nearIsEvictedRestoring with both restorations fitting the limit exactly. */
static bool nearIsEvicted(int64_t nearCost, int64_t farCost, int64_t *recomputed) {
  return nearIsEvictedRestoring(nearCost, farCost, 0, 0, recomputed);
}

static void victimOfUnknownCostsIsTheLargestSizeTimesDistance(void **state) {
  (void)state;
  int64_t recomputed;
  /* near saves 2*2 MiB-ops, far 1*19. */
  assert_false(nearIsEvicted(-1, -1, &recomputed));
  assert_int_equal(recomputed, 0);
}

static void victimSavesMostPerRecomputedOperation(void **state) {
  (void)state;
  int64_t recomputed;
  /* `far` takes 100 operations per byte to recompute and `near` one: near
   * saves 2*2/2 per operation, far 1*19/100. Only the regeneration the
   * program is told to run counts. */
  assert_true(nearIsEvicted(2 * Block, 100 * Block, &recomputed));
  assert_int_equal(recomputed, 2 * Block);
}

static void unknownCostGoesAfterEveryKnownOne(void **state) {
  (void)state;
  int64_t recomputed;
  /* `far` saves the larger byte span, but its recomputation could cost anything. */
  assert_true(nearIsEvicted(1000 * Block, -1, &recomputed));
  assert_int_equal(recomputed, 1000 * Block);
}

static void victimIsOneWhoseRestorationFitsTheLimit(void **state) {
  (void)state;
  int64_t recomputed;
  /* `near` is cheaper per byte-span, but restoring it needs one byte more
   * than the limit resident: `far` goes. */
  assert_false(nearIsEvictedRestoring(2 * Block, 100 * Block, 1, 0, &recomputed));
  assert_int_equal(recomputed, 100 * Block);
  /* When neither restoration fits, the cost decides again. */
  assert_true(nearIsEvictedRestoring(2 * Block, 100 * Block, 1, 1, &recomputed));
  assert_int_equal(recomputed, 2 * Block);
}

static void restorationAboveWhatEvictingAvoidsEvictsNothing(void **state) {
  (void)state;
  int64_t live0 = memoptRtLiveBytes();
  int64_t limit = live0 + 2 * Block;
  memoptRtSetLimitBytes(limit);
  int64_t evictions0 = memoptRtEvictionCount();
  void *a = _mlir_memref_to_llvm_aligned_alloc(64, 2 * Block);
  /* Restoring `a` needs 2 MiB above the limit; allocating 1 MiB reaches
   * only 1 MiB above it, so `a` stays and the allocation goes over. */
  memoptRtEvictable(address(a), 0, 9, 5, limit + 2 * Block);
  void *b = _mlir_memref_to_llvm_aligned_alloc(64, Block);
  assert_int_equal(memoptRtEvictionCount(), evictions0);
  assert_int_equal(memoptRtLiveBytes(), live0 + 3 * Block);
  /* Reaching 3 MiB above the limit, evicting it pays. */
  void *c = _mlir_memref_to_llvm_aligned_alloc(64, 2 * Block);
  assert_int_equal(memoptRtEvictionCount(), evictions0 + 1);
  assert_int_equal(memoptRtRestore(address(a), 9), 1);
  _mlir_memref_to_llvm_free(a);
  _mlir_memref_to_llvm_free(b);
  _mlir_memref_to_llvm_free(c);
  assert_int_equal(memoptRtLiveBytes(), live0);
  memoptRtSetLimitBytes(0);
}

static void freeingAnEvictedBlockSubtractsNothingTwice(void **state) {
  (void)state;
  int64_t live0 = memoptRtLiveBytes();
  memoptRtSetLimitBytes(live0 + Block);
  void *a = _mlir_memref_to_llvm_aligned_alloc(64, Block);
  memoptRtEvictable(address(a), 0, 9, -1, -1);
  void *b = _mlir_memref_to_llvm_aligned_alloc(64, Block);
  assert_int_equal(memoptRtLiveBytes(), live0 + Block);
  _mlir_memref_to_llvm_free(a); /* evicted, never restored */
  assert_int_equal(memoptRtEvictableCount(), 0);
  assert_int_equal(memoptRtLiveBytes(), live0 + Block);
  _mlir_memref_to_llvm_free(b);
  assert_int_equal(memoptRtLiveBytes(), live0);
  memoptRtSetLimitBytes(0);
}

/* A regeneration makes the inputs its nested regenerates restored evictable
 * again at its end; when the nested regenerate of one did not run (its
 * parent was resident), that input is still evicted: registering it again
 * keeps it evicted, uncounted, until its own restore. */
static void registeringAnEvictedBlockAgainKeepsItEvicted(void **state) {
  (void)state;
  int64_t live0 = memoptRtLiveBytes();
  memoptRtSetLimitBytes(live0 + Block);
  void *a = _mlir_memref_to_llvm_aligned_alloc(64, Block);
  memoptRtEvictable(address(a), 0, 9, 5, -1);
  void *b = _mlir_memref_to_llvm_aligned_alloc(64, Block);
  int64_t evictions = memoptRtEvictionCount();
  memoptRtEvictable(address(a), 4, 9, 5, -1);
  assert_int_equal(memoptRtLiveBytes(), live0 + Block);
  assert_int_equal(memoptRtEvictableCount(), 1);
  assert_int_equal(memoptRtEvictionCount(), evictions);
  _mlir_memref_to_llvm_free(b);
  assert_int_equal(memoptRtRestore(address(a), 9), 1);
  memoptRtRecommit(address(a));
  assert_int_equal(memoptRtLiveBytes(), live0 + Block);
  _mlir_memref_to_llvm_free(a);
  memoptRtSetLimitBytes(0);
}

static void limitIsRelativeToTheRunsStart(void **state) {
  (void)state;
  void *before = _mlir_memref_to_llvm_aligned_alloc(64, 8 * Block);
  memoptRtSetLimitBytes(2 * Block);
  memoptRtRunBegin();
  void *a = _mlir_memref_to_llvm_aligned_alloc(64, Block);
  memoptRtEvictable(address(a), 0, 4, -1, -1);
  int64_t evictions0 = memoptRtEvictionCount();
  void *b = _mlir_memref_to_llvm_aligned_alloc(64, Block); /* 2 MiB in the run: fits */
  assert_int_equal(memoptRtEvictionCount(), evictions0);
  void *c = _mlir_memref_to_llvm_aligned_alloc(64, Block);
  assert_int_equal(memoptRtEvictionCount(), evictions0 + 1);
  _mlir_memref_to_llvm_free(a);
  _mlir_memref_to_llvm_free(b);
  _mlir_memref_to_llvm_free(c);
  memoptRtRunEnd();
  MemoptRtRunRecord record;
  assert_int_equal(memoptRtLastRun(&record), 0);
  assert_int_equal(record.evictions, 1);
  assert_int_equal(record.peakBytes, 2 * Block);
  _mlir_memref_to_llvm_free(before);
  memoptRtSetLimitBytes(0);
}

static int exitStatusOf(void (*body)(void)) {
  pid_t child = fork();
  if (child == 0) {
    body();
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  return status;
}

static void registerForeignBlock(void) {
  static char notOurs[64];
  memoptRtEvictable(address(notOurs + 32), 0, 1, -1, -1);
}

static void registeringAForeignPointerAborts(void **state) {
  (void)state;
  int status = exitStatusOf(registerForeignBlock);
  assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
}

static void recommitResidentBlock(void) {
  void *a = _mlir_memref_to_llvm_aligned_alloc(64, Block);
  memoptRtRecommit(address(a));
}

static void recommittingABlockNotEvictedAborts(void **state) {
  (void)state;
  int status = exitStatusOf(recommitResidentBlock);
  assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(nothingIsEvictedWithoutALimit),
      cmocka_unit_test(allocationOverTheLimitEvictsAndTheBytesStopCounting),
      cmocka_unit_test(victimOfUnknownCostsIsTheLargestSizeTimesDistance),
      cmocka_unit_test(victimSavesMostPerRecomputedOperation),
      cmocka_unit_test(unknownCostGoesAfterEveryKnownOne),
      cmocka_unit_test(victimIsOneWhoseRestorationFitsTheLimit),
      cmocka_unit_test(restorationAboveWhatEvictingAvoidsEvictsNothing),
      cmocka_unit_test(freeingAnEvictedBlockSubtractsNothingTwice),
      cmocka_unit_test(registeringAnEvictedBlockAgainKeepsItEvicted),
      cmocka_unit_test(limitIsRelativeToTheRunsStart),
      cmocka_unit_test(registeringAForeignPointerAborts),
      cmocka_unit_test(recommittingABlockNotEvictedAborts),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests of memopt_rt: exact live/peak counting (plain, aligned, zero-size,
 * free(NULL), concurrent), misuse detection, run records and output checksums.
 * The counters are process-wide, so every test reasons in differences from
 * the state it starts in. */
#include "Runtime/Runtime.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void countsLiveAndPeakExactly(void **state) {
  int64_t live0 = memoptRtLiveBytes();
  int64_t allocations0 = memoptRtAllocationCount();
  int64_t frees0 = memoptRtFreeCount();
  memoptRtResetPeak();
  assert_int_equal(memoptRtPeakBytes(), live0);

  /* 1000 + 24 live, then 1000 freed, then 500 more: peak is 1024 above start. */
  void *a = _mlir_memref_to_llvm_alloc(1000);
  void *b = _mlir_memref_to_llvm_alloc(24);
  assert_non_null(a);
  assert_non_null(b);
  assert_int_equal((uintptr_t)a % 16, 0);
  assert_int_equal((uintptr_t)b % 16, 0);
  memset(a, 0xab, 1000); /* the whole block is usable */
  assert_int_equal(memoptRtLiveBytes(), live0 + 1024);
  _mlir_memref_to_llvm_free(a);
  assert_int_equal(memoptRtLiveBytes(), live0 + 24);
  void *c = _mlir_memref_to_llvm_alloc(500);
  assert_int_equal(memoptRtLiveBytes(), live0 + 524);
  assert_int_equal(memoptRtPeakBytes(), live0 + 1024);

  /* A reset forgets the earlier peak. */
  memoptRtResetPeak();
  assert_int_equal(memoptRtPeakBytes(), live0 + 524);
  _mlir_memref_to_llvm_free(b);
  _mlir_memref_to_llvm_free(c);
  assert_int_equal(memoptRtLiveBytes(), live0);
  assert_int_equal(memoptRtPeakBytes(), live0 + 524);
  assert_int_equal(memoptRtAllocationCount() - allocations0, 3);
  assert_int_equal(memoptRtFreeCount() - frees0, 3);
}

static void twoLive256x256F32BuffersPeakAt512KiB(void **state) {
  int64_t live0 = memoptRtLiveBytes();
  memoptRtResetPeak();
  size_t bytes = 256 * 256 * sizeof(float); /* 262144 */
  void *a = _mlir_memref_to_llvm_alloc(bytes);
  void *b = _mlir_memref_to_llvm_aligned_alloc(64, bytes);
  _mlir_memref_to_llvm_free(a);
  _mlir_memref_to_llvm_free(b);
  assert_int_equal(memoptRtPeakBytes() - live0, 524288);
}

static void alignedAllocationRespectsAlignmentAndCountsOnlyThePayload(void **state) {
  int64_t live0 = memoptRtLiveBytes();
  size_t alignments[] = {1, 2, 8, 16, 32, 64, 128, 4096, 65536};
  void *blocks[sizeof alignments / sizeof *alignments];
  int64_t expected = 0;
  for (size_t i = 0; i < sizeof alignments / sizeof *alignments; ++i) {
    size_t size = 100 + i;
    blocks[i] = _mlir_memref_to_llvm_aligned_alloc(alignments[i], size);
    assert_non_null(blocks[i]);
    size_t effective = alignments[i] < 16 ? 16 : alignments[i];
    assert_int_equal((uintptr_t)blocks[i] % effective, 0);
    memset(blocks[i], 0x5a, size);
    expected += (int64_t)size;
    assert_int_equal(memoptRtLiveBytes(), live0 + expected);
  }
  for (size_t i = 0; i < sizeof alignments / sizeof *alignments; ++i)
    _mlir_memref_to_llvm_free(blocks[i]);
  assert_int_equal(memoptRtLiveBytes(), live0);
}

static void freeOfNullAndZeroSizedBlocksAreHarmless(void **state) {
  int64_t live0 = memoptRtLiveBytes();
  int64_t frees0 = memoptRtFreeCount();
  _mlir_memref_to_llvm_free(NULL);
  assert_int_equal(memoptRtFreeCount(), frees0);
  void *empty = _mlir_memref_to_llvm_alloc(0);
  void *emptyAligned = _mlir_memref_to_llvm_aligned_alloc(64, 0);
  assert_non_null(empty);
  assert_non_null(emptyAligned);
  assert_ptr_not_equal(empty, emptyAligned);
  assert_int_equal(memoptRtLiveBytes(), live0);
  _mlir_memref_to_llvm_free(empty);
  _mlir_memref_to_llvm_free(emptyAligned);
  assert_int_equal(memoptRtLiveBytes(), live0);
  assert_int_equal(memoptRtFreeCount(), frees0 + 2);
}

/* Each thread keeps `BlocksPerThread` blocks of its own size live, then frees them. */
enum { ThreadCount = 4, BlocksPerThread = 2000 };

static void *allocateAndFree(void *argument) {
  size_t size = (size_t)(uintptr_t)argument;
  void **blocks = malloc(BlocksPerThread * sizeof *blocks);
  for (int i = 0; i < BlocksPerThread; ++i)
    blocks[i] = i % 2 ? _mlir_memref_to_llvm_alloc(size) : _mlir_memref_to_llvm_aligned_alloc(64, size);
  for (int i = 0; i < BlocksPerThread; ++i)
    _mlir_memref_to_llvm_free(blocks[i]);
  free(blocks);
  return NULL;
}

static void countsStayExactUnderConcurrency(void **state) {
  int64_t live0 = memoptRtLiveBytes();
  int64_t allocations0 = memoptRtAllocationCount();
  memoptRtResetPeak();
  pthread_t threads[ThreadCount];
  int64_t largestStash = 0, allStashes = 0;
  for (int t = 0; t < ThreadCount; ++t) {
    size_t size = 8 * (size_t)(t + 1);
    int64_t stash = (int64_t)size * BlocksPerThread;
    largestStash = stash > largestStash ? stash : largestStash;
    allStashes += stash;
    assert_int_equal(pthread_create(&threads[t], NULL, allocateAndFree, (void *)(uintptr_t)size), 0);
  }
  for (int t = 0; t < ThreadCount; ++t)
    pthread_join(threads[t], NULL);
  assert_int_equal(memoptRtLiveBytes(), live0);
  assert_int_equal(memoptRtAllocationCount() - allocations0, ThreadCount * BlocksPerThread);
  /* The peak saw at least one complete stash and never more than all of them. */
  int64_t peak = memoptRtPeakBytes() - live0;
  assert_true(peak >= largestStash);
  assert_true(peak <= allStashes);
}

/* Runs `body` in a child process and returns the signal that ended it (0 if none). */
static int terminatingSignal(void (*body)(void)) {
  fflush(NULL);
  pid_t child = fork();
  if (child == 0) {
    /* Keep the expected fatal message out of the test's output. */
    if (!freopen("/dev/null", "w", stderr))
      _exit(3);
    body();
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

static void freeTwice(void) {
  void *block = _mlir_memref_to_llvm_alloc(32);
  _mlir_memref_to_llvm_free(block);
  _mlir_memref_to_llvm_free(block);
}

static void freeForeignPointer(void) {
  char *block = calloc(1, 64);
  _mlir_memref_to_llvm_free(block + 32);
}

static void endWithoutBegin(void) { memoptRtRunEnd(); }

static void alignmentZero(void) { _mlir_memref_to_llvm_aligned_alloc(0, 64); }

static void alignmentNotAPowerOfTwo(void) { _mlir_memref_to_llvm_aligned_alloc(24, 64); }

static void sizeBeyondInt64(void) { _mlir_memref_to_llvm_alloc(SIZE_MAX - 8); }

/* Lowered code stores through what an allocation returns without a check:
 * a failed one ends the program with a message rather than returning NULL. */
static void misuseAborts(void **state) {
  assert_int_equal(terminatingSignal(freeTwice), SIGABRT);
  assert_int_equal(terminatingSignal(freeForeignPointer), SIGABRT);
  assert_int_equal(terminatingSignal(endWithoutBegin), SIGABRT);
  assert_int_equal(terminatingSignal(alignmentZero), SIGABRT);
  assert_int_equal(terminatingSignal(alignmentNotAPowerOfTwo), SIGABRT);
  assert_int_equal(terminatingSignal(sizeBeyondInt64), SIGABRT);
}

static void runRecordsMeasureEachRunFromItsStart(void **state) {
  void *before = _mlir_memref_to_llvm_alloc(4096); /* live before the run, so excluded */
  int64_t live0 = memoptRtLiveBytes();
  int64_t runs0 = memoptRtRunCount();

  memoptRtRunBegin();
  void *temporary = _mlir_memref_to_llvm_alloc(10000);
  void *result = _mlir_memref_to_llvm_aligned_alloc(64, 300);
  _mlir_memref_to_llvm_free(temporary);
  struct timespec pause = {0, 2000000}; /* 2 ms */
  nanosleep(&pause, NULL);
  memoptRtRunEnd();

  MemoptRtRunRecord record;
  assert_int_equal(memoptRtLastRun(&record), 0);
  assert_int_equal(record.index, runs0);
  assert_int_equal(memoptRtRunCount(), runs0 + 1);
  assert_int_equal(record.peakBytes, 10300);
  assert_int_equal(record.liveBeforeBytes, live0);
  assert_int_equal(record.liveAfterBytes, live0 + 300);
  assert_int_equal(record.allocations, 2);
  assert_true(record.timeNanoseconds >= 2000000);
  assert_true(record.timeNanoseconds < 2000000000);

  /* The next run starts from what is live now, including the previous result. */
  memoptRtRunBegin();
  _mlir_memref_to_llvm_free(result);
  memoptRtRunEnd();
  assert_int_equal(memoptRtLastRun(&record), 0);
  assert_int_equal(record.peakBytes, 0);
  assert_int_equal(record.liveAfterBytes, live0);
  _mlir_memref_to_llvm_free(before);
}

/* A ranked descriptor of rank 2 as MLIR lays it out. */
typedef struct Descriptor2D {
  void *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} Descriptor2D;

static MemoptRtUnrankedMemRef unranked(Descriptor2D *descriptor) {
  MemoptRtUnrankedMemRef memref = {2, descriptor};
  return memref;
}

static void checksumFollowsLogicalOrderNotLayout(void **state) {
  /* rows = [[1, 2, 3], [4, 5, 6]] stored contiguously, and its transpose
   * [[1, 4], [2, 5], [3, 6]] viewed through strides of the same buffer. */
  float data[6] = {1, 2, 3, 4, 5, 6};
  float transposedCopy[6] = {1, 4, 2, 5, 3, 6};
  Descriptor2D rows = {data, data, 0, {2, 3}, {3, 1}};
  Descriptor2D transposedView = {data, data, 0, {3, 2}, {1, 3}};
  Descriptor2D transposed = {transposedCopy, transposedCopy, 0, {3, 2}, {2, 1}};
  MemoptRtUnrankedMemRef m1 = unranked(&rows), m2 = unranked(&transposedView),
                         m3 = unranked(&transposed);
  MemoptRtChecksum c1 = memoptRtChecksumCompute(&m1, MemoptRtF32);
  MemoptRtChecksum c2 = memoptRtChecksumCompute(&m2, MemoptRtF32);
  MemoptRtChecksum c3 = memoptRtChecksumCompute(&m3, MemoptRtF32);
  assert_int_equal(c1.count, 6);
  assert_true(c1.sum == 21.0 && c1.absSum == 21.0);
  assert_int_equal(c2.hash, c3.hash);
  /* Same values in another order: same sums, different hash. */
  assert_true(c1.sum == c2.sum);
  assert_int_not_equal(c1.hash, c2.hash);

  /* An offset window: the last row [4, 5, 6]. */
  Descriptor2D lastRow = {data, data, 3, {1, 3}, {3, 1}};
  MemoptRtUnrankedMemRef m4 = unranked(&lastRow);
  assert_true(memoptRtChecksumCompute(&m4, MemoptRtF32).sum == 15.0);

  /* One flipped bit changes the hash but hardly the sum. */
  float flipped[6];
  memcpy(flipped, data, sizeof data);
  uint32_t bits;
  memcpy(&bits, &flipped[5], 4);
  bits ^= 1;
  memcpy(&flipped[5], &bits, 4);
  Descriptor2D flippedRows = {flipped, flipped, 0, {2, 3}, {3, 1}};
  MemoptRtUnrankedMemRef m5 = unranked(&flippedRows);
  MemoptRtChecksum c5 = memoptRtChecksumCompute(&m5, MemoptRtF32);
  assert_int_not_equal(c5.hash, c1.hash);
  assert_true(fabs(c5.sum - c1.sum) < 1e-5);
}

static void checksumCountsNonfiniteAndSumsTheRest(void **state) {
  double data[4] = {1.5, NAN, -INFINITY, -2.5};
  Descriptor2D d = {data, data, 0, {2, 2}, {2, 1}};
  MemoptRtUnrankedMemRef m = unranked(&d);
  MemoptRtChecksum c = memoptRtChecksumCompute(&m, MemoptRtF64);
  assert_int_equal(c.nonfinite, 2);
  assert_true(c.sum == -1.0);
  assert_true(c.absSum == 4.0);
}

static void checksumDecodesHalfBFloatAndI1(void **state) {
  /* f16: 1.0 = 0x3c00, -2.0 = 0xc000, 65504 = 0x7bff, smallest subnormal 0x0001. */
  uint16_t halves[4] = {0x3c00, 0xc000, 0x7bff, 0x0001};
  Descriptor2D h = {halves, halves, 0, {1, 4}, {4, 1}};
  MemoptRtUnrankedMemRef mh = unranked(&h);
  MemoptRtChecksum ch = memoptRtChecksumCompute(&mh, MemoptRtF16);
  assert_true(ch.sum == 1.0 - 2.0 + 65504.0 + ldexp(1, -24));
  assert_true(ch.absSum == 1.0 + 2.0 + 65504.0 + ldexp(1, -24));

  /* bf16: 1.0 = 0x3f80, -0.5 = 0xbf00, +inf = 0x7f80. */
  uint16_t brains[3] = {0x3f80, 0xbf00, 0x7f80};
  Descriptor2D b = {brains, brains, 0, {1, 3}, {3, 1}};
  MemoptRtUnrankedMemRef mb = unranked(&b);
  MemoptRtChecksum cb = memoptRtChecksumCompute(&mb, MemoptRtBF16);
  assert_true(cb.sum == 0.5);
  assert_int_equal(cb.nonfinite, 1);

  /* i1: only the low bit counts, so 0x03 hashes like 0x01. */
  unsigned char bools[2] = {1, 0}, dirtyBools[2] = {3, 0};
  Descriptor2D i1 = {bools, bools, 0, {1, 2}, {2, 1}};
  Descriptor2D dirty = {dirtyBools, dirtyBools, 0, {1, 2}, {2, 1}};
  MemoptRtUnrankedMemRef m1 = unranked(&i1), m2 = unranked(&dirty);
  MemoptRtChecksum c1 = memoptRtChecksumCompute(&m1, MemoptRtI1);
  assert_int_equal(c1.hash, memoptRtChecksumCompute(&m2, MemoptRtI1).hash);
  assert_true(c1.sum == 1.0);
}

static void checksumOfAnEmptyMemrefIsTheHashBasis(void **state) {
  int32_t unused = 7;
  Descriptor2D d = {&unused, &unused, 0, {0, 5}, {5, 1}};
  MemoptRtUnrankedMemRef m = unranked(&d);
  MemoptRtChecksum c = memoptRtChecksumCompute(&m, MemoptRtI32);
  assert_int_equal(c.count, 0);
  assert_int_equal(c.hash, 0xcbf29ce484222325ull);
  assert_true(c.sum == 0.0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(countsLiveAndPeakExactly),
      cmocka_unit_test(twoLive256x256F32BuffersPeakAt512KiB),
      cmocka_unit_test(alignedAllocationRespectsAlignmentAndCountsOnlyThePayload),
      cmocka_unit_test(freeOfNullAndZeroSizedBlocksAreHarmless),
      cmocka_unit_test(countsStayExactUnderConcurrency),
      cmocka_unit_test(misuseAborts),
      cmocka_unit_test(runRecordsMeasureEachRunFromItsStart),
      cmocka_unit_test(checksumFollowsLogicalOrderNotLayout),
      cmocka_unit_test(checksumCountsNonfiniteAndSumsTheRest),
      cmocka_unit_test(checksumDecodesHalfBFloatAndI1),
      cmocka_unit_test(checksumOfAnEmptyMemrefIsTheHashBasis),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

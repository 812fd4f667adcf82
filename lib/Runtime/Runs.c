/* Timed runs: wall and CPU time, peak and live bytes of each call the harness
 * makes.
 *
 * The clock is read as close to the measured code as possible: last in
 * memoptRtRunBegin and first in memoptRtRunEnd, so neither the counter
 * bookkeeping nor the printing is timed. Runs are driven from one thread
 * (the harness's wrapper), so their state is plain static data. */
#include "Runtime/Blocks.h"
#include "Runtime/Runtime.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static bool runOpen;
static int64_t runStartNanoseconds;
static int64_t runStartCpuNanoseconds;
static int64_t runLiveBefore;
static int64_t runAllocationsBefore;
static int64_t runEvictionsBefore;
static int64_t runRecomputedBefore;
static int64_t runsEnded;
static MemoptRtRunRecord lastRecord;

/* The program's own messages (a failed cf.assert prints one, then aborts)
 * must survive a crash, and memopt-run reads standard output from a file,
 * where it would be fully buffered and lost on abort. So standard output is
 * line-buffered from the moment mlir-runner loads this library. */
__attribute__((constructor)) static void lineBufferStandardOutput(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
}

static int64_t nanosecondsOf(clockid_t clock) {
  struct timespec now;
  clock_gettime(clock, &now);
  return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

void memoptRtRunBegin(void) {
  runOpen = true;
  runLiveBefore = memoptRtLiveBytes();
  runAllocationsBefore = memoptRtAllocationCount();
  runEvictionsBefore = memoptRtEvictionCount();
  runRecomputedBefore = memoptRtRecomputedOperations();
  memoptRtResetPeak();
  runStartCpuNanoseconds = nanosecondsOf(CLOCK_THREAD_CPUTIME_ID);
  runStartNanoseconds = nanosecondsOf(CLOCK_MONOTONIC);
}

void memoptRtRunEnd(void) {
  int64_t end = nanosecondsOf(CLOCK_MONOTONIC);
  int64_t cpuEnd = nanosecondsOf(CLOCK_THREAD_CPUTIME_ID);
  if (!runOpen) {
    fprintf(stderr, "memopt-rt: fatal: memoptRtRunEnd without memoptRtRunBegin\n");
    fflush(stdout);
    abort();
  }
  runOpen = false;
  MemoptRtRunRecord record = {
      .index = runsEnded,
      .timeNanoseconds = end - runStartNanoseconds,
      .cpuNanoseconds = cpuEnd - runStartCpuNanoseconds,
      .peakBytes = memoptRtPeakBytes() - runLiveBefore,
      .liveBeforeBytes = runLiveBefore,
      .liveAfterBytes = memoptRtLiveBytes(),
      .allocations = memoptRtAllocationCount() - runAllocationsBefore,
      .evictions = memoptRtEvictionCount() - runEvictionsBefore,
      .recomputedOperations = memoptRtRecomputedOperations() - runRecomputedBefore,
  };
  lastRecord = record;
  ++runsEnded;
  printf("memopt-rt: run index=%lld time_ns=%lld cpu_ns=%lld peak_bytes=%lld "
         "live_before_bytes=%lld live_after_bytes=%lld allocations=%lld evictions=%lld "
         "recomputed_ops=%lld\n",
         (long long)record.index, (long long)record.timeNanoseconds,
         (long long)record.cpuNanoseconds, (long long)record.peakBytes,
         (long long)record.liveBeforeBytes, (long long)record.liveAfterBytes,
         (long long)record.allocations, (long long)record.evictions,
         (long long)record.recomputedOperations);
  fflush(stdout);
}

int64_t memoptRtRunCount(void) { return runsEnded; }

int memoptRtLastRun(MemoptRtRunRecord *record) {
  if (runsEnded == 0)
    return -1;
  *record = lastRecord;
  return 0;
}

int64_t memoptRtRunBaselineBytes(void) { return runOpen ? runLiveBefore : 0; }

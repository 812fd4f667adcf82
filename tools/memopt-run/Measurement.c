/* Reading memopt_rt's report back, summarizing runs and comparing outputs.
 * The report format is defined by lib/Runtime/Runtime.h. */
#include "Harness.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char ReportPrefix[] = "memopt-rt: ";

/* Returns a copy of the value of `key=` in the space-separated `line`
 * (caller frees), or NULL when absent. */
static char *fieldValue(const char *line, size_t lineLength, const char *key) {
  size_t keyLength = strlen(key);
  const char *end = line + lineLength;
  for (const char *p = line; p < end;) {
    const char *space = memchr(p, ' ', (size_t)(end - p));
    const char *tokenEnd = space ? space : end;
    if ((size_t)(tokenEnd - p) > keyLength && memcmp(p, key, keyLength) == 0 && p[keyLength] == '=')
      return memoptStrndup(p + keyLength + 1, (size_t)(tokenEnd - p) - keyLength - 1);
    p = tokenEnd + 1;
  }
  return NULL;
}

static bool integerField(const char *line, size_t length, const char *key, int64_t *out) {
  char *text = fieldValue(line, length, key);
  long long value;
  bool ok = text && memoptParseInt64(text, &value);
  if (ok)
    *out = value;
  free(text);
  return ok;
}

/* Sums may legitimately overflow to infinity, which memoptParseDouble refuses. */
static bool doubleField(const char *line, size_t length, const char *key, double *out) {
  char *text = fieldValue(line, length, key);
  bool ok = false;
  if (text && *text) {
    char *end;
    errno = 0;
    *out = strtod(text, &end);
    ok = *end == '\0';
  }
  free(text);
  return ok;
}

static bool hashField(const char *line, size_t length, const char *key, uint64_t *out) {
  char *text = fieldValue(line, length, key);
  bool ok = false;
  if (text && memoptStartsWith(text, "0x") && text[2]) {
    char *end;
    errno = 0;
    unsigned long long value = strtoull(text + 2, &end, 16);
    ok = *end == '\0' && errno == 0;
    *out = value;
  }
  free(text);
  return ok;
}

static bool parseRun(const char *line, size_t length, size_t expectedIndex, HarnessRun *run) {
  int64_t index;
  /* Evictions are optional: only a limit (--limit-bytes) causes any. */
  if (!integerField(line, length, "evictions", &run->evictions))
    run->evictions = 0;
  if (!integerField(line, length, "recomputed_ops", &run->recomputedOperations))
    run->recomputedOperations = 0;
  return integerField(line, length, "index", &index) && index == (int64_t)expectedIndex &&
         integerField(line, length, "time_ns", &run->timeNanoseconds) &&
         integerField(line, length, "cpu_ns", &run->cpuNanoseconds) &&
         integerField(line, length, "peak_bytes", &run->peakBytes) &&
         integerField(line, length, "live_before_bytes", &run->liveBeforeBytes) &&
         integerField(line, length, "live_after_bytes", &run->liveAfterBytes) &&
         integerField(line, length, "allocations", &run->allocations);
}

static bool parseOutput(const char *line, size_t length, size_t expectedIndex,
                        HarnessOutput *output) {
  int64_t index;
  output->element = fieldValue(line, length, "element");
  output->shape = fieldValue(line, length, "shape");
  return integerField(line, length, "index", &index) && index == (int64_t)expectedIndex &&
         output->element && output->shape && integerField(line, length, "count", &output->count) &&
         hashField(line, length, "hash", &output->hash) &&
         doubleField(line, length, "sum", &output->sum) &&
         doubleField(line, length, "abs_sum", &output->absSum) &&
         integerField(line, length, "nonfinite", &output->nonfinite);
}

void harnessMeasurementDestroy(HarnessMeasurement *measurement) {
  for (size_t i = 0; i < measurement->outputCount; ++i) {
    free(measurement->outputs[i].element);
    free(measurement->outputs[i].shape);
    free(measurement->outputs[i].values);
  }
  free(measurement->runs);
  free(measurement->outputs);
  memset(measurement, 0, sizeof *measurement);
}

bool harnessMeasurementParse(const char *text, size_t runs, size_t outputs,
                             HarnessMeasurement *measurement, MemoptStringBuffer *error) {
  memset(measurement, 0, sizeof *measurement);
  measurement->runs = memoptAllocateZeroed(runs + 1, sizeof *measurement->runs);
  measurement->outputs = memoptAllocateZeroed(outputs + 1, sizeof *measurement->outputs);
  MemoptStringBuffer values = memoptStringBufferCreate();
  long long valuesIndex = -1; /* the output whose values are being read */
  bool ok = true;
  for (const char *line = text; ok && *line;) {
    const char *newline = strchr(line, '\n');
    size_t length = newline ? (size_t)(newline - line) : strlen(line);
    const char *next = newline ? newline + 1 : line + length;
    bool isReport = length >= sizeof ReportPrefix - 1 && memoptStartsWith(line, ReportPrefix);
    const char *body = line + sizeof ReportPrefix - 1;
    size_t bodyLength = isReport ? length - (sizeof ReportPrefix - 1) : 0;
    if (valuesIndex >= 0) {
      if (isReport && memoptStartsWith(body, "values ")) {
        /* The end marker: attach the values (minus the trailing newline) to their output. */
        if (values.length && values.data[values.length - 1] == '\n')
          values.data[--values.length] = '\0';
        measurement->outputs[valuesIndex].values = memoptStringBufferRelease(&values);
        valuesIndex = -1;
      } else {
        memoptStringBufferAppend(&values, line, (size_t)(next - line));
      }
    } else if (isReport && memoptStartsWith(body, "run ")) {
      ok = measurement->runCount < runs &&
           parseRun(body, bodyLength, measurement->runCount, &measurement->runs[measurement->runCount]);
      if (ok)
        ++measurement->runCount;
      else
        memoptStringBufferAppendFormat(error, "unexpected run record '%.*s'", (int)length, line);
    } else if (isReport && memoptStartsWith(body, "output ")) {
      ok = measurement->outputCount < outputs &&
           parseOutput(body, bodyLength, measurement->outputCount,
                       &measurement->outputs[measurement->outputCount]);
      ++measurement->outputCount; /* counted even when malformed, so it is freed */
      if (!ok)
        memoptStringBufferAppendFormat(error, "unexpected output record '%.*s'", (int)length, line);
    } else if (isReport && memoptStartsWith(body, "values ")) {
      int64_t index;
      ok = integerField(body, bodyLength, "index", &index) && index >= 0 &&
           (size_t)index < measurement->outputCount && !measurement->outputs[index].values;
      if (ok)
        valuesIndex = index;
      else
        memoptStringBufferAppendFormat(error, "unexpected values record '%.*s'", (int)length, line);
    }
    line = next;
  }
  memoptStringBufferDestroy(&values);
  if (ok && valuesIndex >= 0) {
    memoptStringBufferAppendFormat(error, "the values of output %lld are incomplete", valuesIndex);
    ok = false;
  }
  if (ok && (measurement->runCount != runs || measurement->outputCount != outputs)) {
    memoptStringBufferAppendFormat(error,
                                   "the program reported %zu of %zu runs and %zu of %zu outputs",
                                   measurement->runCount, runs, measurement->outputCount, outputs);
    ok = false;
  }
  if (!ok)
    harnessMeasurementDestroy(measurement);
  return ok;
}

static int compareTimes(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static int64_t runNanoseconds(const HarnessRun *run, HarnessClock clock) {
  return clock == HarnessCpuClock ? run->cpuNanoseconds : run->timeNanoseconds;
}

double harnessMedianMilliseconds(const HarnessMeasurement *measurement, HarnessClock clock) {
  size_t n = measurement->runCount;
  if (n == 0)
    return 0;
  int64_t *times = memoptAllocateZeroed(n, sizeof *times);
  for (size_t i = 0; i < n; ++i)
    times[i] = runNanoseconds(&measurement->runs[i], clock);
  qsort(times, n, sizeof *times, compareTimes);
  double median = n % 2 ? (double)times[n / 2] : ((double)times[n / 2 - 1] + (double)times[n / 2]) / 2;
  free(times);
  return median / 1e6;
}

double harnessMinimumMilliseconds(const HarnessMeasurement *measurement, HarnessClock clock) {
  int64_t minimum = measurement->runCount ? runNanoseconds(&measurement->runs[0], clock) : 0;
  for (size_t i = 1; i < measurement->runCount; ++i)
    if (runNanoseconds(&measurement->runs[i], clock) < minimum)
      minimum = runNanoseconds(&measurement->runs[i], clock);
  return (double)minimum / 1e6;
}

int64_t harnessPeakBytes(const HarnessMeasurement *measurement) {
  int64_t peak = 0;
  for (size_t i = 0; i < measurement->runCount; ++i)
    if (measurement->runs[i].peakBytes > peak)
      peak = measurement->runs[i].peakBytes;
  return peak;
}

/* |a - b| relative to `scale`; 0 when both are equal (also when scale is 0). */
static double relativeDifference(double a, double b, double scale) {
  if (a == b)
    return 0;
  return scale > 0 ? fabs(a - b) / scale : INFINITY;
}

HarnessVerdict harnessOutputCompare(const HarnessOutput *a, const HarnessOutput *b,
                                    double tolerance, double absTolerance,
                                    MemoptStringBuffer *why) {
  if (strcmp(a->element, b->element) != 0 || strcmp(a->shape, b->shape) != 0) {
    memoptStringBufferAppendFormat(why, "type differs: %s [%s] vs %s [%s]", a->element, a->shape,
                                   b->element, b->shape);
    return HarnessDifferent;
  }
  if (a->hash == b->hash)
    return HarnessBitIdentical;
  if (a->nonfinite != b->nonfinite) {
    memoptStringBufferAppendFormat(why, "non-finite elements differ: %lld vs %lld",
                                   (long long)a->nonfinite, (long long)b->nonfinite);
    return HarnessDifferent;
  }
  /* Both differences are measured against the magnitude of the values
   * (abs_sum): a sum that cancels to nearly 0 must not make a rounding
   * difference look huge. */
  double scale = fmax(a->absSum, b->absSum);
  double sumDifference = relativeDifference(a->sum, b->sum, scale);
  double absSumDifference = relativeDifference(a->absSum, b->absSum, scale);
  double allowed = absTolerance + tolerance * scale;
  bool within = fabs(a->sum - b->sum) <= allowed && fabs(a->absSum - b->absSum) <= allowed;
  memoptStringBufferAppendFormat(why, "relative difference: sum %.3g, abs_sum %.3g %s tolerance %g",
                                 sumDifference, absSumDifference, within ? "<=" : ">", tolerance);
  if (absTolerance > 0)
    memoptStringBufferAppendFormat(why, " + absolute %g", absTolerance);
  return within ? HarnessWithinTolerance : HarnessDifferent;
}

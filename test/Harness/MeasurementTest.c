/* Unit tests of memopt-run's report reading and output comparison
 * (tools/memopt-run/Measurement.c): malformed or incomplete reports are
 * refused, statistics, and the tolerance rules of --compare. */
#include "Harness.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const goodReport =
    "program output is ignored\n"
    "memopt-rt: run index=0 time_ns=3000 cpu_ns=2500 peak_bytes=4096 live_before_bytes=100 "
    "live_after_bytes=612 allocations=3\n"
    "memopt-rt: run index=1 time_ns=1000 cpu_ns=900 peak_bytes=4160 live_before_bytes=100 "
    "live_after_bytes=612 allocations=3\n"
    "memopt-rt: run index=2 time_ns=2000 cpu_ns=1500 peak_bytes=4096 live_before_bytes=100 "
    "live_after_bytes=612 allocations=3\n"
    "memopt-rt: output index=0 element=f32 shape=2x2 count=4 hash=0x00000000000000ff "
    "sum=1.5 abs_sum=2.5 nonfinite=0\n"
    "memopt-rt: values index=0 begin\n"
    "[[1, 2],\n"
    " [3, 4]]\n"
    "memopt-rt: values index=0 end\n"
    "memopt-rt: output index=1 element=i1 shape= count=1 hash=0xcbf29ce484222325 "
    "sum=inf abs_sum=inf nonfinite=0\n";

static void parsesRunsOutputsAndValues(void **state) {
  HarnessMeasurement m;
  MemoptStringBuffer error = memoptStringBufferCreate();
  assert_true(harnessMeasurementParse(goodReport, 3, 2, &m, &error));
  assert_int_equal(m.runCount, 3);
  assert_int_equal(m.outputCount, 2);
  assert_int_equal(m.runs[1].peakBytes, 4160);
  assert_int_equal(m.runs[2].allocations, 3);
  assert_int_equal(harnessPeakBytes(&m), 4160);
  assert_true(harnessMedianMilliseconds(&m, HarnessWallClock) == 0.002);
  assert_true(harnessMinimumMilliseconds(&m, HarnessWallClock) == 0.001);
  assert_true(harnessMedianMilliseconds(&m, HarnessCpuClock) == 0.0015);
  assert_true(harnessMinimumMilliseconds(&m, HarnessCpuClock) == 0.0009);
  assert_string_equal(m.outputs[0].shape, "2x2");
  assert_int_equal(m.outputs[0].hash, 0xff);
  assert_true(m.outputs[0].absSum == 2.5);
  assert_string_equal(m.outputs[0].values, "[[1, 2],\n [3, 4]]");
  assert_string_equal(m.outputs[1].shape, "");
  assert_true(isinf(m.outputs[1].sum)); /* an overflowing sum is still a report */
  assert_null(m.outputs[1].values);
  harnessMeasurementDestroy(&m);
  memoptStringBufferDestroy(&error);
}

static void medianOfAnEvenCountIsTheMeanOfTheMiddleTwo(void **state) {
  const char *report = "memopt-rt: run index=0 time_ns=1000 cpu_ns=1000 peak_bytes=0 live_before_bytes=0 "
                       "live_after_bytes=0 allocations=0\n"
                       "memopt-rt: run index=1 time_ns=4000 cpu_ns=4000 peak_bytes=0 live_before_bytes=0 "
                       "live_after_bytes=0 allocations=0\n";
  HarnessMeasurement m;
  MemoptStringBuffer error = memoptStringBufferCreate();
  assert_true(harnessMeasurementParse(report, 2, 0, &m, &error));
  assert_true(harnessMedianMilliseconds(&m, HarnessWallClock) == 0.0025);
  harnessMeasurementDestroy(&m);
  memoptStringBufferDestroy(&error);
}

/* Returns the error harnessMeasurementParse gives for `report` (caller frees). */
static char *parseError(const char *report, size_t runs, size_t outputs) {
  HarnessMeasurement m;
  MemoptStringBuffer error = memoptStringBufferCreate();
  assert_false(harnessMeasurementParse(report, runs, outputs, &m, &error));
  assert_null(m.runs); /* nothing left to free on failure */
  return memoptStringBufferRelease(&error);
}

static void refusesIncompleteOrMalformedReports(void **state) {
  const char *run0 = "memopt-rt: run index=0 time_ns=1 cpu_ns=1 peak_bytes=0 live_before_bytes=0 "
                     "live_after_bytes=0 allocations=0\n";
  char *error = parseError(run0, 2, 0);
  assert_string_equal(error, "the program reported 1 of 2 runs and 0 of 0 outputs");
  free(error);

  error = parseError("memopt-rt: run index=0 time_ns=x cpu_ns=1 peak_bytes=0 live_before_bytes=0 "
                     "live_after_bytes=0 allocations=0\n",
                     1, 0);
  assert_true(strstr(error, "unexpected run record") != NULL);
  free(error);

  /* Runs out of order. */
  error = parseError("memopt-rt: run index=1 time_ns=1 cpu_ns=1 peak_bytes=0 live_before_bytes=0 "
                     "live_after_bytes=0 allocations=0\n",
                     1, 0);
  assert_true(strstr(error, "unexpected run record") != NULL);
  free(error);

  MemoptStringBuffer report = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&report, "%smemopt-rt: output index=0 element=f32 shape=2 count=2 "
                                          "hash=12 sum=0 abs_sum=0 nonfinite=0\n",
                                 run0);
  error = parseError(report.data, 1, 1);
  assert_true(strstr(error, "unexpected output record") != NULL); /* hash without 0x */
  free(error);

  memoptStringBufferClear(&report);
  memoptStringBufferAppendFormat(&report, "%smemopt-rt: output index=0 element=f32 shape=2 count=2 "
                                          "hash=0x12 sum=0 abs_sum=0 nonfinite=0\n"
                                          "memopt-rt: values index=0 begin\n[1, 2]\n",
                                 run0);
  error = parseError(report.data, 1, 1);
  assert_string_equal(error, "the values of output 0 are incomplete");
  free(error);

  memoptStringBufferClear(&report);
  memoptStringBufferAppendFormat(&report, "%smemopt-rt: output index=0 element=f32 shape=2 count=2 "
                                          "hash=0x12 sum=0 abs_sum=0 nonfinite=0\n",
                                 run0);
  error = parseError(report.data, 1, 0); /* one output more than the entry has */
  assert_true(strstr(error, "unexpected output record") != NULL);
  free(error);
  memoptStringBufferDestroy(&report);
}

static HarnessOutput output(const char *element, const char *shape, uint64_t hash, double sum,
                            double absSum, int64_t nonfinite) {
  HarnessOutput o = {(char *)element, (char *)shape, 4, hash, sum, absSum, nonfinite, NULL};
  return o;
}

static HarnessVerdict compare(HarnessOutput a, HarnessOutput b, double tolerance) {
  MemoptStringBuffer why = memoptStringBufferCreate();
  HarnessVerdict verdict = harnessOutputCompare(&a, &b, tolerance, 0, &why);
  /* Every verdict but bit-identical says why. */
  assert_true((verdict == HarnessBitIdentical) == (why.length == 0));
  memoptStringBufferDestroy(&why);
  return verdict;
}

static void comparesByHashThenRelativeToTheMagnitude(void **state) {
  HarnessOutput base = output("f32", "4", 0x1, 10.0, 20.0, 0);
  assert_int_equal(compare(base, base, 0), HarnessBitIdentical);
  /* Same values, other type or shape: different even with an equal hash. */
  assert_int_equal(compare(base, output("f16", "4", 0x1, 10.0, 20.0, 0), 1), HarnessDifferent);
  assert_int_equal(compare(base, output("f32", "2x2", 0x1, 10.0, 20.0, 0), 1), HarnessDifferent);
  /* |10 - 10.0001| / 20 = 5e-6. */
  HarnessOutput close = output("f32", "4", 0x2, 10.0001, 20.0, 0);
  assert_int_equal(compare(base, close, 1e-5), HarnessWithinTolerance);
  assert_int_equal(compare(base, close, 1e-6), HarnessDifferent);
  assert_int_equal(compare(base, close, 0), HarnessDifferent);
  /* A sum that cancels to nearly 0 is judged against abs_sum, not itself. */
  HarnessOutput cancelling = output("f32", "4", 0x3, 1e-9, 1000.0, 0);
  HarnessOutput cancellingToo = output("f32", "4", 0x4, -1e-9, 1000.0, 0);
  assert_int_equal(compare(cancelling, cancellingToo, 1e-9), HarnessWithinTolerance);
  /* A different count of NaN/inf is never within tolerance. */
  assert_int_equal(compare(base, output("f32", "4", 0x5, 10.0, 20.0, 1), 1), HarnessDifferent);
  /* All zeros against anything else: no magnitude to be relative to. */
  HarnessOutput zeros = output("f32", "4", 0x6, 0.0, 0.0, 0);
  assert_int_equal(compare(zeros, output("f32", "4", 0x7, 0.0, 0.0, 0), 0), HarnessWithinTolerance);
  assert_int_equal(compare(zeros, output("f32", "4", 0x8, 0.0, 1e-30, 0), 1e-3), HarnessDifferent);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(parsesRunsOutputsAndValues),
      cmocka_unit_test(medianOfAnEvenCountIsTheMeanOfTheMiddleTwo),
      cmocka_unit_test(refusesIncompleteOrMalformedReports),
      cmocka_unit_test(comparesByHashThenRelativeToTheMagnitude),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

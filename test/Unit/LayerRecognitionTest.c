/* Layer recognition's period finding: memoptFindLayerRun (common extensions
 * from the multiples of each period, O(n log n)) must return exactly what
 * the scan of every period at every position returns (O(n^2), kept here as
 * the reference): the same run start, length, period and repeats, with ties
 * broken alike (most signatures covered, then shortest period, then
 * earliest run) and runs covering less than half the sequence ignored. The
 * sequences come from a fixed-seed generator: small alphabets, where
 * repeats and ties abound, and layers planted between a prologue and an
 * epilogue with a few signatures changed, of lengths 0 to 2000. */
#include "Place/Place.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

static uint64_t seed = 4242;

/* A value in [0, bound) from a 64-bit linear congruential generator. */
static size_t draw(size_t bound) {
  seed = seed * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
  return (size_t)((seed >> 33) % bound);
}

/* The reference: for every period p, the maximal stretches of positions i
 * with signatures[i] == signatures[i + p]. */
static bool referenceLayerRun(const uint64_t *signatures, size_t count, MemoptLayerRun *run) {
  size_t bestCoverage = 0, runStart = 0, runLength = 0, period = count, repeats = 1;
  for (size_t p = 1; 2 * p <= count; ++p) {
    size_t length = 0;
    for (size_t i = 0; i + p <= count; ++i) {
      if (i + p < count && signatures[i] == signatures[i + p]) {
        ++length;
        continue;
      }
      size_t k = (length + p) / p;
      if (k >= 2 && k * p > bestCoverage) {
        bestCoverage = k * p;
        runStart = i - length;
        runLength = length + p;
        period = p;
        repeats = k;
      }
      length = 0;
    }
  }
  if (2 * bestCoverage < count || bestCoverage == 0) {
    *run = (MemoptLayerRun){0, 0, count, 1};
    return false;
  }
  *run = (MemoptLayerRun){runStart, runLength, period, repeats};
  return true;
}

static void expectSameRun(const uint64_t *signatures, size_t count) {
  MemoptLayerRun expected, found;
  bool expectedFound = referenceLayerRun(signatures, count, &expected);
  bool foundFound = memoptFindLayerRun(signatures, count, &found);
  assert_int_equal(foundFound, expectedFound);
  assert_int_equal(found.start, expected.start);
  assert_int_equal(found.length, expected.length);
  assert_int_equal(found.period, expected.period);
  assert_int_equal(found.repeats, expected.repeats);
}

/* Uniformly random signatures over 1 to 4 values, every length to 300. */
static void randomSequencesMatchTheScan(void **state) {
  (void)state;
  uint64_t signatures[300];
  for (size_t count = 0; count <= 300; ++count)
    for (size_t trial = 0; trial < 8; ++trial) {
      size_t alphabet = 1 + trial % 4;
      for (size_t i = 0; i < count; ++i)
        signatures[i] = draw(alphabet);
      expectSameRun(signatures, count);
    }
}

/* A prologue, repeated layers (or two runs of different periods, which
 * compete), an epilogue, then a few signatures changed at random. */
static void plantedLayersMatchTheScan(void **state) {
  (void)state;
  enum { Longest = 2000 };
  static uint64_t signatures[Longest];
  for (size_t trial = 0; trial < 600; ++trial) {
    size_t count = draw(Longest + 1), alphabet = 1 + draw(trial % 3 ? 4 : 1000);
    size_t i = 0, prologue = draw(count / 4 + 1);
    for (; i < prologue; ++i)
      signatures[i] = draw(alphabet);
    size_t runs = 1 + draw(2);
    for (size_t r = 0; r < runs && i < count; ++r) {
      size_t period = 1 + draw(trial % 2 ? 8 : count / 2 + 1), end = count;
      if (r + 1 < runs)
        end = i + draw(count - i + 1);
      size_t from = i;
      for (; i < end; ++i)
        signatures[i] = i - from < period ? draw(alphabet) : signatures[i - period];
    }
    for (; i < count; ++i)
      signatures[i] = draw(alphabet);
    for (size_t noise = draw(4); noise > 0 && count; --noise)
      signatures[draw(count)] = draw(alphabet);
    expectSameRun(signatures, count);
  }
}

/* Sequences known by hand. */
static void handPickedRuns(void **state) {
  (void)state;
  MemoptLayerRun run;
  /* Every signature equal: period 1 covers all 5. */
  uint64_t same[] = {7, 7, 7, 7, 7};
  assert_true(memoptFindLayerRun(same, 5, &run));
  assert_int_equal(run.period, 1);
  assert_int_equal(run.repeats, 5);
  /* p a b c a b c a b q: period 3 repeats over the 8 from 1, two windows
   * covering 6 of 10; the windows may start at 1, 2 or 3. */
  uint64_t layers[] = {9, 1, 2, 3, 1, 2, 3, 1, 2, 8};
  assert_true(memoptFindLayerRun(layers, 10, &run));
  assert_int_equal(run.start, 1);
  assert_int_equal(run.length, 8);
  assert_int_equal(run.period, 3);
  assert_int_equal(run.repeats, 2);
  /* a b a b x y z w: 4 of 8 covered by period 2, exactly half: kept. */
  uint64_t half[] = {1, 2, 1, 2, 3, 4, 5, 6};
  assert_true(memoptFindLayerRun(half, 8, &run));
  assert_int_equal(run.repeats, 2);
  /* a b a b x y z w v: 4 of 9, below half: one window of the whole. */
  uint64_t below[] = {1, 2, 1, 2, 3, 4, 5, 6, 7};
  assert_false(memoptFindLayerRun(below, 9, &run));
  assert_int_equal(run.period, 9);
  assert_int_equal(run.repeats, 1);
  assert_false(memoptFindLayerRun(NULL, 0, &run));
  assert_false(memoptFindLayerRun(same, 1, &run));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(handPickedRuns),
      cmocka_unit_test(randomSequencesMatchTheScan),
      cmocka_unit_test(plantedLayersMatchTheScan),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

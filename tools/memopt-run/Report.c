/* memopt-run's reports: one variant's measurements, two side by side
 * (--compare), and every rank's against the single-device run (--ranks). */
#include "Harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The result's type with its actual extents: tensor<8x4xf32> for tensor<?x4xf32>. */
static void appendActualType(MemoptStringBuffer *out, const HarnessValueType *result,
                             const HarnessOutput *output) {
  if (!result->isTensor) {
    memoptStringBufferAppendCString(out, result->spelling);
    return;
  }
  memoptStringBufferAppendFormat(out, "tensor<%s%s%s>", output->shape, *output->shape ? "x" : "",
                                 result->elementSpelling);
}

static void appendOutputFields(MemoptStringBuffer *out, const HarnessValueType *result,
                               const HarnessOutput *output) {
  appendActualType(out, result, output);
  memoptStringBufferAppendFormat(out, " hash=0x%016llx sum=%.17g abs_sum=%.17g nonfinite=%lld",
                                 (unsigned long long)output->hash, output->sum, output->absSum,
                                 (long long)output->nonfinite);
}

static void appendValues(MemoptStringBuffer *out, const HarnessOutput *output) {
  if (output->values)
    memoptStringBufferAppendFormat(out, "%s\n", output->values);
}

/* The time rows of a report: wall time first, then the thread's CPU time,
 * which other processes sharing the cores do not inflate. */
static const struct {
  const char *median, *minimum;
  HarnessClock clock;
} timeRows[] = {{"time_ms_median:", "time_ms_min:", HarnessWallClock},
                {"cpu_ms_median:", "cpu_ms_min:", HarnessCpuClock}};

void harnessPrintSingle(const Harness *harness, const Variant *variant) {
  const HarnessMeasurement *m = &variant->measurement;
  const HarnessRun *last = &m->runs[m->runCount - 1];
  MemoptStringBuffer out = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&out, "entry: %s\n", variant->entryName);
  memoptStringBufferAppendFormat(&out, "pipeline: %s\n", variant->pipeline ? variant->pipeline : "none");
  memoptStringBufferAppendFormat(&out, "runs: %zu\n", m->runCount);
  memoptStringBufferAppendFormat(&out, "inputs_bytes: %lld\n", (long long)m->runs[0].liveBeforeBytes);
  memoptStringBufferAppendFormat(&out, "peak_bytes: %lld\n", (long long)harnessPeakBytes(m));
  memoptStringBufferAppendFormat(&out, "allocations_per_run: %lld\n", (long long)last->allocations);
  if (harness->options.limitBytes > 0) {
    memoptStringBufferAppendFormat(&out, "evictions_per_run: %lld\n", (long long)last->evictions);
    memoptStringBufferAppendFormat(&out, "recomputed_ops_per_run: %lld\n",
                                   (long long)last->recomputedOperations);
  }
  for (size_t i = 0; i < sizeof timeRows / sizeof *timeRows; ++i) {
    memoptStringBufferAppendFormat(&out, "%s %.6f\n", timeRows[i].median,
                                   harnessMedianMilliseconds(m, timeRows[i].clock));
    memoptStringBufferAppendFormat(&out, "%s %.6f\n", timeRows[i].minimum,
                                   harnessMinimumMilliseconds(m, timeRows[i].clock));
  }
  for (size_t i = 0; i < m->outputCount; ++i) {
    memoptStringBufferAppendFormat(&out, "output %zu: ", i);
    appendOutputFields(&out, &variant->results[i], &m->outputs[i]);
    memoptStringBufferAppendCString(&out, "\n");
    appendValues(&out, &m->outputs[i]);
  }
  fputs(out.data, stdout);
  memoptStringBufferDestroy(&out);
}

static void appendRatio(MemoptStringBuffer *out, double baseline, double candidate) {
  if (baseline > 0)
    memoptStringBufferAppendFormat(out, "%.3f", candidate / baseline);
  else
    memoptStringBufferAppendCString(out, candidate == baseline ? "1.000" : "n/a");
}

static void appendIntegerRow(MemoptStringBuffer *out, const char *key, int64_t baseline,
                             int64_t candidate, bool ratio) {
  if (!ratio) {
    memoptStringBufferAppendFormat(out, "%-21s %-14lld %lld\n", key, (long long)baseline,
                                   (long long)candidate);
    return;
  }
  memoptStringBufferAppendFormat(out, "%-21s %-14lld %-14lld ", key, (long long)baseline,
                                 (long long)candidate);
  appendRatio(out, (double)baseline, (double)candidate);
  memoptStringBufferAppendCString(out, "\n");
}

static void appendTimeRow(MemoptStringBuffer *out, const char *key, double baseline,
                          double candidate) {
  memoptStringBufferAppendFormat(out, "%-21s %-14.6f %-14.6f ", key, baseline, candidate);
  appendRatio(out, baseline, candidate);
  memoptStringBufferAppendCString(out, "\n");
}

static const char *const verdictNames[] = {
    [HarnessBitIdentical] = "bit-identical",
    [HarnessWithinTolerance] = "within tolerance",
    [HarnessDifferent] = "DIFFERENT",
};

/* Appends the largest difference between the elements of two outputs of
 * the same type and shape whose values were printed (--print-outputs),
 * relative to the baseline's largest magnitude, as " max_rel_error=E"; nothing
 * when the values are not there. */
static void appendMaxRelativeError(MemoptStringBuffer *out, const HarnessOutput *baseline,
                                   const HarnessOutput *candidate) {
  if (!baseline->values || !candidate->values || baseline->count != candidate->count ||
      strcmp(baseline->shape, candidate->shape) != 0)
    return;
  double *expected = memoptAllocateZeroed((size_t)baseline->count + 1, sizeof *expected);
  double *actual = memoptAllocateZeroed((size_t)candidate->count + 1, sizeof *actual);
  if (harnessValuesParse(baseline->values, baseline->count, expected) &&
      harnessValuesParse(candidate->values, candidate->count, actual)) {
    /* One flat dimension: the whole output is its own slice. */
    int64_t extent = baseline->count, offset = 0, worst;
    double scale;
    double error = harnessSliceMaxRelativeError(expected, &extent, actual, &extent, &offset, 1,
                                                &worst, &scale);
    memoptStringBufferAppendFormat(out, " max_rel_error=%.3g", error);
  }
  free(actual);
  free(expected);
}

/* Prints both columns and the verdict; returns true when the outputs agree
 * within the tolerance. */
bool harnessPrintComparison(const Harness *harness, const Variant *baseline,
                            const Variant *candidate) {
  const HarnessMeasurement *b = &baseline->measurement, *c = &candidate->measurement;
  const HarnessRun *bLast = &b->runs[b->runCount - 1], *cLast = &c->runs[c->runCount - 1];
  MemoptStringBuffer out = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&out, "entry: %s\n", baseline->entryName);
  memoptStringBufferAppendFormat(&out, "baseline: %s\n", baseline->modelPath);
  memoptStringBufferAppendFormat(&out, "candidate: %s%s%s\n", candidate->modelPath,
                                 candidate->pipeline ? " with pipeline " : "",
                                 candidate->pipeline ? candidate->pipeline : "");
  memoptStringBufferAppendFormat(&out, "runs: %zu\n", b->runCount);
  memoptStringBufferAppendFormat(&out, "%-21s %-14s %-14s %s\n", "", "baseline", "candidate", "ratio");
  appendIntegerRow(&out, "inputs_bytes:", b->runs[0].liveBeforeBytes, c->runs[0].liveBeforeBytes, false);
  appendIntegerRow(&out, "peak_bytes:", harnessPeakBytes(b), harnessPeakBytes(c), true);
  appendIntegerRow(&out, "allocations_per_run:", bLast->allocations, cLast->allocations, true);
  if (harness->options.limitBytes > 0) {
    appendIntegerRow(&out, "evictions_per_run:", bLast->evictions, cLast->evictions, false);
    appendIntegerRow(&out, "recomputed_ops_per_run:", bLast->recomputedOperations,
                     cLast->recomputedOperations, false);
  }
  for (size_t i = 0; i < sizeof timeRows / sizeof *timeRows; ++i) {
    appendTimeRow(&out, timeRows[i].median, harnessMedianMilliseconds(b, timeRows[i].clock),
                  harnessMedianMilliseconds(c, timeRows[i].clock));
    appendTimeRow(&out, timeRows[i].minimum, harnessMinimumMilliseconds(b, timeRows[i].clock),
                  harnessMinimumMilliseconds(c, timeRows[i].clock));
  }

  HarnessVerdict worst = HarnessBitIdentical;
  for (size_t i = 0; i < b->outputCount; ++i) {
    memoptStringBufferAppendFormat(&out, "output %zu baseline:  ", i);
    appendOutputFields(&out, &baseline->results[i], &b->outputs[i]);
    memoptStringBufferAppendCString(&out, "\n");
    appendValues(&out, &b->outputs[i]);
    memoptStringBufferAppendFormat(&out, "output %zu candidate: ", i);
    appendOutputFields(&out, &candidate->results[i], &c->outputs[i]);
    memoptStringBufferAppendCString(&out, "\n");
    appendValues(&out, &c->outputs[i]);
    MemoptStringBuffer why = memoptStringBufferCreate();
    HarnessVerdict verdict =
        harnessOutputCompare(&b->outputs[i], &c->outputs[i], harness->options.tolerance,
                             harness->options.absTolerance, &why);
    memoptStringBufferAppendFormat(&out, "output %zu: %s%s%s%s", i, verdictNames[verdict],
                                   why.length ? " (" : "", memoptStringBufferGet(&why),
                                   why.length ? ")" : "");
    appendMaxRelativeError(&out, &b->outputs[i], &c->outputs[i]);
    memoptStringBufferAppendCString(&out, "\n");
    memoptStringBufferDestroy(&why);
    if (verdict > worst)
      worst = verdict;
  }
  memoptStringBufferAppendFormat(&out, "outputs: %s\n",
                                 b->outputCount ? verdictNames[worst] : "none (the entry returns nothing)");
  fputs(out.data, stdout);
  memoptStringBufferDestroy(&out);
  return worst != HarnessDifferent;
}

/* Prints each rank's measurements and the comparison of its slice of every
 * output with the reference; returns true when every slice agrees within
 * the tolerance. */
bool harnessPrintRanks(const Harness *harness, const Variant *unsharded, const Variant *ranked) {
  const HarnessShardPlan *plan = &ranked->plan;
  const HarnessMeasurement *single = &unsharded->measurement;
  MemoptStringBuffer out = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&out, "entry: %s\n", ranked->entryName);
  memoptStringBufferAppendFormat(&out, "ranks: %lld\n", ranked->ranks);
  if (plan->pipelineStages > 0) {
    memoptStringBufferAppendFormat(&out, "pipeline: %lld stages, one per rank\n",
                                   (long long)plan->pipelineStages);
    memoptStringBufferAppendFormat(&out, "reference: %s\n",
                                   ranked->pipeline && !unsharded->pipeline
                                       ? "the model before --pipeline"
                                       : "the driver's stages in sequence on one process");
  } else {
    memoptStringBufferAppendFormat(&out, "grid: @%s ", plan->gridName);
    for (intptr_t a = 0; a < plan->gridRank; ++a)
      memoptStringBufferAppendFormat(&out, "%s%lld", a ? "x" : "", (long long)plan->gridShape[a]);
    memoptStringBufferAppendCString(&out, "\n");
  }
  memoptStringBufferAppendFormat(&out, "runs: %zu\n", single->runCount);
  memoptStringBufferAppendFormat(&out,
                                 "single-device: inputs_bytes=%lld peak_bytes=%lld "
                                 "allocations_per_run=%lld time_ms_median=%.6f cpu_ms_median=%.6f\n",
                                 (long long)single->runs[0].liveBeforeBytes,
                                 (long long)harnessPeakBytes(single),
                                 (long long)single->runs[single->runCount - 1].allocations,
                                 harnessMedianMilliseconds(single, HarnessWallClock),
                                 harnessMedianMilliseconds(single, HarnessCpuClock));
  for (long long r = 0; r < ranked->ranks; ++r) {
    const HarnessMeasurement *m = &ranked->rankMeasurements[r];
    int64_t held = m->runs[0].liveBeforeBytes + harnessPeakBytes(m);
    int64_t predicted = plan->predictedBytes;
    memoptStringBufferAppendFormat(&out, "rank %lld: ", r);
    if (plan->pipelineStages > 0) {
      /* Every rank generates every input; its stage reads only some. */
      memoptStringBufferAppendFormat(&out, "stage=@%s stage_inputs_bytes=%lld ", plan->stageNames[r],
                                     (long long)plan->stageInputBytes[r]);
      held = plan->stageInputBytes[r] + harnessPeakBytes(m);
      predicted = plan->stagePredictedBytes[r];
    }
    memoptStringBufferAppendFormat(&out, "inputs_bytes=%lld peak_bytes=%lld ",
                                   (long long)m->runs[0].liveBeforeBytes,
                                   (long long)harnessPeakBytes(m));
    /* What the rank holds at its peak (its inputs and what the call
     * allocates) against place-search's memory per device. */
    if (predicted >= 0) {
      memoptStringBufferAppendFormat(&out, "held_bytes=%lld predicted_bytes=%lld predicted/held=",
                                     (long long)held, (long long)predicted);
      appendRatio(&out, (double)held, (double)predicted);
      memoptStringBufferAppendCString(&out, " ");
    }
    memoptStringBufferAppendFormat(&out,
                                   "allocations_per_run=%lld time_ms_median=%.6f cpu_ms_median=%.6f\n",
                                   (long long)m->runs[m->runCount - 1].allocations,
                                   harnessMedianMilliseconds(m, HarnessWallClock),
                                   harnessMedianMilliseconds(m, HarnessCpuClock));
  }
  bool agree = true;
  double worstOverall = 0;
  for (size_t i = 0; i < ranked->resultCount; ++i) {
    const HarnessShardedValue *value = &plan->results[i];
    const HarnessOutput *whole = &single->outputs[i];
    double *expected = memoptAllocateZeroed((size_t)whole->count + 1, sizeof *expected);
    bool parsed = whole->values && harnessValuesParse(whole->values, whole->count, expected);
    int64_t *offsets = memoptAllocateZeroed((size_t)value->rank + 1, sizeof *offsets);
    for (long long r = 0; r < ranked->ranks; ++r) {
      const HarnessOutput *part = &ranked->rankMeasurements[r].outputs[i];
      double *slice = memoptAllocateZeroed((size_t)part->count + 1, sizeof *slice);
      harnessShardOffsets(plan, value, r, offsets);
      memoptStringBufferAppendFormat(&out, "output %zu rank %lld: ", i, r);
      appendActualType(&out, &ranked->results[i], part);
      memoptStringBufferAppendCString(&out, " at [");
      for (intptr_t d = 0; d < value->rank; ++d)
        memoptStringBufferAppendFormat(&out, "%s%lld", d ? ", " : "", (long long)offsets[d]);
      memoptStringBufferAppendCString(&out, "] of ");
      appendActualType(&out, &unsharded->results[i], whole);
      if (!parsed || !part->values || !harnessValuesParse(part->values, part->count, slice)) {
        memoptStringBufferAppendCString(&out, ": DIFFERENT (the values cannot be read)\n");
        agree = false;
        free(slice);
        continue;
      }
      int64_t worstIndex = 0;
      double scale;
      double error = harnessSliceMaxRelativeError(expected, value->globalShape, slice,
                                                  value->localShape, offsets, value->rank,
                                                  &worstIndex, &scale);
      bool within = error * scale <=
                    harness->options.absTolerance + harness->options.tolerance * scale;
      memoptStringBufferAppendFormat(&out, ": max_rel_error=%.3g %s", error,
                                     error == 0 ? "equal" : within ? "within tolerance" : "DIFFERENT");
      if (!within)
        memoptStringBufferAppendFormat(&out, " (element %lld of the slice is %.9g)",
                                       (long long)worstIndex, slice[worstIndex]);
      memoptStringBufferAppendCString(&out, "\n");
      if (harness->options.printOutputs)
        appendValues(&out, part);
      agree = agree && within;
      if (error > worstOverall || error != error)
        worstOverall = error;
      free(slice);
    }
    free(expected);
    free(offsets);
  }
  if (ranked->resultCount)
    memoptStringBufferAppendFormat(&out, "outputs: %s (max_rel_error=%.3g, tolerance %g)\n",
                                   !agree ? "DIFFERENT" : worstOverall == 0 ? "equal" : "within tolerance",
                                   worstOverall, harness->options.tolerance);
  else
    memoptStringBufferAppendCString(&out, "outputs: none (the entry returns nothing)\n");
  fputs(out.data, stdout);
  memoptStringBufferDestroy(&out);
  return agree;
}


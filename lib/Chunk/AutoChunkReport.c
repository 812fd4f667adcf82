/* The autochunk report: JSON through jansson, the timeline through the
 * support library's SVG chart. */
#include "Chunk/Chunk.h"
#include "Chunk/AutoChunkReport.h"

#include "IR/IR.h"

#include "mlir-c/BuiltinAttributes.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

typedef struct Stage {
  AutoChunkChoice choice;
  uint64_t peakBefore;
} Stage;

/* Live bytes by position of one profile. */
typedef struct Timeline {
  unsigned long long *bytes;
  size_t count;
  uint64_t peak;
} Timeline;

struct AutoChunkReportFunction {
  char *name;
  uint64_t budget;
  Timeline before, after;
  Stage *stages;
  size_t stageCount;
  AutoChunkReportFunction *next;
};

struct AutoChunkReport {
  AutoChunkReportFunction *first, *last;
};

AutoChunkReport *autoChunkReportCreate(void) {
  AutoChunkReport *report = memoptAllocateZeroed(1, sizeof *report);
  return report;
}

void autoChunkReportDestroy(AutoChunkReport *report) {
  for (AutoChunkReportFunction *entry = report->first, *next; entry; entry = next) {
    next = entry->next;
    free(entry->name);
    free(entry->before.bytes);
    free(entry->after.bytes);
    free(entry->stages);
    free(entry);
  }
  free(report);
}

static Timeline timelineOf(const MemoptMemoryProfile *profile) {
  Timeline timeline;
  timeline.count = memoptMemoryProfileGetNumPositions(profile);
  timeline.bytes = memoptAllocateZeroed(timeline.count, sizeof *timeline.bytes);
  for (size_t i = 0; i < timeline.count; ++i)
    timeline.bytes[i] = memoptMemoryProfileGetLiveBytes(profile, i);
  timeline.peak = memoptMemoryProfileGetPeakBytes(profile);
  return timeline;
}

AutoChunkReportFunction *autoChunkReportAddFunction(AutoChunkReport *report, MlirOperation func,
                                                    uint64_t budget,
                                                    const MemoptMemoryProfile *before) {
  AutoChunkReportFunction *entry = memoptAllocateZeroed(1, sizeof *entry);
  MlirStringRef name = mlirStringAttrGetValue(
      mlirOperationGetAttributeByName(func, mlirStringRefCreateFromCString("sym_name")));
  entry->name = memoptStrndup(name.data, name.length);
  entry->budget = budget;
  entry->before = timelineOf(before);
  if (report->last)
    report->last->next = entry;
  else
    report->first = entry;
  report->last = entry;
  return entry;
}

void autoChunkReportAddStage(AutoChunkReportFunction *entry, const AutoChunkChoice *choice,
                             uint64_t peakBefore) {
  entry->stages = memoptReallocArray(entry->stages, entry->stageCount + 1, sizeof *entry->stages);
  entry->stages[entry->stageCount++] = (Stage){*choice, peakBefore};
}

void autoChunkReportFinish(AutoChunkReportFunction *entry, const MemoptMemoryProfile *after) {
  entry->after = timelineOf(after);
}

static json_t *bytesArray(const Timeline *timeline) {
  json_t *array = json_array();
  for (size_t i = 0; i < timeline->count; ++i)
    json_array_append_new(array, json_integer((json_int_t)timeline->bytes[i]));
  return array;
}

static json_t *stageJson(const Stage *stage) {
  const AutoChunkChoice *choice = &stage->choice;
  json_t *path = json_array();
  for (int level = 0; level < choice->depth; ++level)
    json_array_append_new(path, json_integer(choice->blockPath[level]));
  return json_pack("{s:o, s:I, s:I, s:I, s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:I}",
                   "block_path", path, "first_op", (json_int_t)choice->first, "last_op",
                   (json_int_t)choice->last, "chunk_dim", (json_int_t)choice->dim,
                   "combines_reduced_loop", (int)choice->combining, "chunk_size",
                   (json_int_t)choice->chunkSize, "chunks",
                   (json_int_t)(choice->extent / choice->chunkSize), "chunked_ops",
                   (json_int_t)choice->chunkedOps, "hoisted_ops", (json_int_t)choice->hoistedOps,
                   "recomputed_ops", (json_int_t)choice->recomputedOps, "peak_before_bytes",
                   (json_int_t)stage->peakBefore, "peak_after_bytes", (json_int_t)choice->peakBytes,
                   "speed_cost", choice->cost, "measured_on_ops", (json_int_t)choice->measuredOps);
}

bool autoChunkReportWriteJson(const AutoChunkReport *report, const char *path,
                              MemoptStringBuffer *error) {
  json_t *functions = json_array();
  for (const AutoChunkReportFunction *entry = report->first; entry; entry = entry->next) {
    json_t *stages = json_array();
    for (size_t i = 0; i < entry->stageCount; ++i)
      json_array_append_new(stages, stageJson(&entry->stages[i]));
    json_array_append_new(
        functions,
        json_pack("{s:s, s:I, s:I, s:I, s:o, s:o, s:o}", "name", entry->name, "budget_bytes",
                  (json_int_t)entry->budget, "peak_before_bytes", (json_int_t)entry->before.peak,
                  "peak_after_bytes", (json_int_t)entry->after.peak, "stages", stages,
                  "live_bytes_before", bytesArray(&entry->before), "live_bytes_after",
                  bytesArray(&entry->after)));
  }
  json_t *root = json_pack("{s:s, s:o}", "pass", "autochunk", "functions", functions);
  bool ok = memoptJsonWriteFile(root, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER, error);
  json_decref(root);
  return ok;
}

bool autoChunkReportWriteTimeline(const AutoChunkReport *report, const char *path,
                                  MemoptStringBuffer *error) {
  size_t count = 0;
  for (const AutoChunkReportFunction *entry = report->first; entry; entry = entry->next)
    ++count;
  MemoptTimelineSeries *series = memoptAllocateZeroed(2 * count, sizeof *series);
  MemoptFunctionTimeline *charts = memoptAllocateZeroed(count, sizeof *charts);
  size_t index = 0;
  for (const AutoChunkReportFunction *entry = report->first; entry; entry = entry->next, ++index) {
    series[2 * index] = (MemoptTimelineSeries){"before", "#c0392b", entry->before.bytes,
                                               entry->before.count};
    series[2 * index + 1] = (MemoptTimelineSeries){"after autochunk", "#2471a3",
                                                   entry->after.bytes, entry->after.count};
    charts[index] = (MemoptFunctionTimeline){entry->name, &series[2 * index], 2, entry->budget};
  }
  bool ok = memoptSvgTimelinesWriteFile(path, charts, count, error);
  free(charts);
  free(series);
  return ok;
}

/* The memory report of one memopt-opt run: JSON through jansson, the chart
 * through the support library's SVG timeline. Functions are matched between
 * input and output by name; one present on one side only has no live bytes
 * on the other. */
#include "MemoryReport.h"

#include "Analysis/Analysis.h"
#include "Chunk/Chunk.h"

#include "mlir-c/BuiltinAttributes.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* Live bytes by op position of one function on one side of the pipeline. */
typedef struct Side {
  bool measured;
  unsigned long long *live;
  size_t count;
  unsigned long long peak;
  char *error; /* why the estimator could not measure it, or NULL */
} Side;

typedef struct FunctionEntry {
  char *name;
  Side input, output;
} FunctionEntry;

struct MemoryReport {
  char *sourceName;
  char *pipeline;
  FunctionEntry *functions;
  size_t functionCount;
  json_t *diagnostics;
};

MemoryReport *memoryReportCreate(const char *sourceName, const char *pipeline) {
  MemoryReport *report = memoptAllocateZeroed(1, sizeof *report);
  report->sourceName = memoptStrndup(sourceName, strlen(sourceName));
  report->pipeline = memoptStrndup(pipeline, strlen(pipeline));
  report->diagnostics = json_array();
  return report;
}

static void sideDestroy(Side *side) {
  free(side->live);
  free(side->error);
}

void memoryReportDestroy(MemoryReport *report) {
  if (!report)
    return;
  for (size_t i = 0; i < report->functionCount; ++i) {
    free(report->functions[i].name);
    sideDestroy(&report->functions[i].input);
    sideDestroy(&report->functions[i].output);
  }
  free(report->functions);
  free(report->sourceName);
  free(report->pipeline);
  json_decref(report->diagnostics);
  free(report);
}

/* The entry of the function named `name`, added when new. */
static FunctionEntry *entryNamed(MemoryReport *report, MlirStringRef name) {
  for (size_t i = 0; i < report->functionCount; ++i)
    if (strlen(report->functions[i].name) == name.length &&
        memcmp(report->functions[i].name, name.data, name.length) == 0)
      return &report->functions[i];
  report->functions =
      memoptReallocArray(report->functions, report->functionCount + 1, sizeof *report->functions);
  FunctionEntry *entry = &report->functions[report->functionCount++];
  memset(entry, 0, sizeof *entry);
  entry->name = memoptStrndup(name.data, name.length);
  return entry;
}

static void measure(MlirOperation func, Side *side) {
  sideDestroy(side);
  memset(side, 0, sizeof *side);
  side->measured = true;
  MemoptStringBuffer error = memoptStringBufferCreate();
  MemoptMemoryProfile *profile = memoptMemoryProfileCreate(func, /*analyzeCallees=*/true, &error);
  if (!profile) {
    side->error = memoptStringBufferRelease(&error);
    return;
  }
  memoptStringBufferDestroy(&error);
  side->count = memoptMemoryProfileGetNumPositions(profile);
  side->live = memoptAllocateZeroed(side->count, sizeof *side->live);
  for (size_t i = 0; i < side->count; ++i)
    side->live[i] = memoptMemoryProfileGetLiveBytes(profile, i);
  side->peak = memoptMemoryProfileGetPeakBytes(profile);
  memoptMemoryProfileDestroy(profile);
}

/* Measures every function with a body of `module` into the input or output side. */
static void recordModule(MemoryReport *report, MlirOperation module, bool output) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!memoptOperationIsA(op, "func.func") ||
        mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0))))
      continue;
    MlirStringRef name = mlirStringAttrGetValue(
        mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("sym_name")));
    FunctionEntry *entry = entryNamed(report, name);
    measure(op, output ? &entry->output : &entry->input);
  }
}

void memoryReportRecordInput(MemoryReport *report, MlirOperation module) {
  recordModule(report, module, false);
}

void memoryReportRecordOutput(MemoryReport *report, MlirOperation module) {
  /* The estimate of a chunk region op counts its body at full size; the
   * loops chunk-to-scf makes of it hold one chunk at a time. */
  MlirOperation lowered = mlirOperationClone(module);
  if (mlirLogicalResultIsSuccess(memoptLowerChunkRegions(lowered)))
    recordModule(report, lowered, true);
  else
    recordModule(report, module, true);
  mlirOperationDestroy(lowered);
}

void memoryReportAddDiagnostics(MemoryReport *report, const MemoptDiagnosticLog *log) {
  for (size_t i = 0; i < log->count; ++i) {
    const MemoptDiagnostic *diagnostic = &log->entries[i];
    json_array_append_new(
        report->diagnostics,
        json_pack("{s:s, s:s?, s:I, s:I, s:s}", "severity", memoptSeverityName(diagnostic->severity),
                  "file", diagnostic->file, "line", (json_int_t)diagnostic->line, "column",
                  (json_int_t)diagnostic->column, "message", diagnostic->message));
  }
}

static json_t *sideJson(const Side *side) {
  if (!side->measured)
    return json_null();
  if (side->error)
    return json_pack("{s:s}", "error", side->error);
  json_t *live = json_array();
  for (size_t i = 0; i < side->count; ++i)
    json_array_append_new(live, json_integer((json_int_t)side->live[i]));
  return json_pack("{s:I, s:o}", "peak_bytes", (json_int_t)side->peak, "live_bytes", live);
}

static bool bothMeasured(const FunctionEntry *entry) {
  return entry->input.measured && !entry->input.error && entry->output.measured &&
         !entry->output.error;
}

bool memoryReportWriteJson(const MemoryReport *report, const char *path, MemoptStringBuffer *error) {
  json_t *functions = json_array();
  for (size_t i = 0; i < report->functionCount; ++i) {
    const FunctionEntry *entry = &report->functions[i];
    json_t *function = json_pack("{s:s, s:o, s:o}", "name", entry->name, "input",
                                 sideJson(&entry->input), "output", sideJson(&entry->output));
    if (bothMeasured(entry) && entry->input.peak)
      json_object_set_new(function, "peak_ratio",
                          json_real((double)entry->output.peak / (double)entry->input.peak));
    json_array_append_new(functions, function);
  }
  json_t *root = json_pack("{s:s, s:s, s:s, s:o, s:O}", "tool", "memopt-opt", "input",
                           report->sourceName, "pipeline", report->pipeline, "functions", functions,
                           "diagnostics", report->diagnostics);
  bool ok = memoptJsonWriteFile(root, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER, error);
  json_decref(root);
  return ok;
}

bool memoryReportWriteTimeline(const MemoryReport *report, const char *path,
                               MemoptStringBuffer *error) {
  MemoptTimelineSeries *series = memoptAllocateZeroed(2 * report->functionCount, sizeof *series);
  MemoptFunctionTimeline *charts =
      memoptAllocateZeroed(report->functionCount, sizeof *charts);
  size_t count = 0;
  for (size_t i = 0; i < report->functionCount; ++i) {
    const FunctionEntry *entry = &report->functions[i];
    if (!bothMeasured(entry))
      continue;
    series[2 * count] = (MemoptTimelineSeries){"input", "#c0392b", entry->input.live,
                                               entry->input.count};
    series[2 * count + 1] = (MemoptTimelineSeries){"output", "#2471a3", entry->output.live,
                                                   entry->output.count};
    charts[count] = (MemoptFunctionTimeline){entry->name, &series[2 * count], 2, 0};
    ++count;
  }
  bool ok = memoptSvgTimelinesWriteFile(path, charts, count, error);
  free(charts);
  free(series);
  return ok;
}

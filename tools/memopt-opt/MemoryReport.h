/* The memory report of one memopt-opt run (--memopt-report, --memopt-timeline):
 * the live activation bytes of every function before and after the pipeline,
 * and what the passes said about it. */
#ifndef MEMOPT_OPT_MEMORYREPORT_H
#define MEMOPT_OPT_MEMORYREPORT_H

#include "IR/IR.h"
#include "Support/Support.h"

#include "mlir-c/IR.h"

#include <stdbool.h>

/// What one run collects for its report (opaque).
typedef struct MemoryReport MemoryReport;

/// Returns an empty report for input `sourceName` run through `pipeline`; the caller destroys it.
MemoryReport *memoryReportCreate(const char *sourceName, const char *pipeline);

/// Frees a report (NULL is allowed).
void memoryReportDestroy(MemoryReport *report);

/// Records the live bytes of every function of `module` before the pipeline runs.
void memoryReportRecordInput(MemoryReport *report, MlirOperation module);

/// Records them after the pipeline (chunk regions measured as chunk-to-scf lowers them).
void memoryReportRecordOutput(MemoryReport *report, MlirOperation module);

/// Records the diagnostics of the run (remarks are the passes' decisions).
void memoryReportAddDiagnostics(MemoryReport *report, const MemoptDiagnosticLog *log);

/// Writes the report as JSON to `path` (atomically); false with `error` set on failure.
bool memoryReportWriteJson(const MemoryReport *report, const char *path, MemoptStringBuffer *error);

/// Writes an SVG chart per function of live bytes by op position, before and
/// after, to `path` (atomically); false with `error` set on failure.
bool memoryReportWriteTimeline(const MemoryReport *report, const char *path,
                               MemoptStringBuffer *error);

#endif /* MEMOPT_OPT_MEMORYREPORT_H */

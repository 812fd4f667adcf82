/* Recording and printing diagnostics the way mlir-opt shows them. */
#include "IR/IR.h"

#include <stdlib.h>
#include <string.h>

bool memoptLocationPosition(MlirLocation location, MlirStringRef *file, unsigned *line,
                            unsigned *column) {
  if (mlirLocationIsAFileLineColRange(location)) {
    *file = mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(location));
    *line = (unsigned)mlirLocationFileLineColRangeGetStartLine(location);
    *column = (unsigned)mlirLocationFileLineColRangeGetStartColumn(location);
    return true;
  }
  if (mlirLocationIsAName(location))
    return memoptLocationPosition(mlirLocationNameGetChildLoc(location), file, line, column);
  if (mlirLocationIsACallSite(location))
    return memoptLocationPosition(mlirLocationCallSiteGetCallee(location), file, line, column);
  if (mlirLocationIsAFused(location)) {
    intptr_t count = mlirLocationFusedGetNumLocations(location);
    MlirLocation *parts = malloc((size_t)(count ? count : 1) * sizeof *parts);
    if (!parts)
      abort();
    mlirLocationFusedGetLocations(location, parts);
    bool found = false;
    for (intptr_t i = 0; i < count && !found; ++i)
      found = memoptLocationPosition(parts[i], file, line, column);
    free(parts);
    return found;
  }
  return false;
}

static void record(MemoptDiagnosticLog *log, MlirDiagnostic diagnostic,
                   MlirDiagnosticSeverity severity) {
  if (log->count == log->capacity) {
    log->capacity = log->capacity ? 2 * log->capacity : 16;
    log->entries = realloc(log->entries, log->capacity * sizeof *log->entries);
    if (!log->entries)
      abort();
  }
  MemoptDiagnostic *entry = &log->entries[log->count++];
  memset(entry, 0, sizeof *entry);
  entry->severity = severity;
  MlirStringRef file;
  if (memoptLocationPosition(mlirDiagnosticGetLocation(diagnostic), &file, &entry->line,
                             &entry->column)) {
    bool unnamed = file.length == 1 && file.data[0] == '-';
    entry->file = unnamed && log->sourceName
                      ? memoptStrndup(log->sourceName, strlen(log->sourceName))
                      : memoptStrndup(file.data, file.length);
  }
  MemoptStringBuffer message = memoptStringBufferCreate();
  mlirDiagnosticPrint(diagnostic, memoptAppendToBuffer, &message);
  entry->message = memoptStringBufferRelease(&message);
  for (intptr_t i = 0; i < mlirDiagnosticGetNumNotes(diagnostic); ++i)
    record(log, mlirDiagnosticGetNote(diagnostic, i), MlirDiagnosticNote);
}

static MlirLogicalResult handle(MlirDiagnostic diagnostic, void *userData) {
  record((MemoptDiagnosticLog *)userData, diagnostic, mlirDiagnosticGetSeverity(diagnostic));
  return mlirLogicalResultSuccess();
}

void memoptDiagnosticLogAttach(MemoptDiagnosticLog *log, MlirContext context,
                               const char *sourceName) {
  memset(log, 0, sizeof *log);
  log->sourceName = sourceName;
  log->context = context;
  log->handler = mlirContextAttachDiagnosticHandler(context, handle, log, NULL);
}

void memoptDiagnosticLogDetach(MemoptDiagnosticLog *log) {
  mlirContextDetachDiagnosticHandler(log->context, log->handler);
}

void memoptDiagnosticLogDestroy(MemoptDiagnosticLog *log) {
  for (size_t i = 0; i < log->count; ++i) {
    free(log->entries[i].file);
    free(log->entries[i].message);
  }
  free(log->entries);
  log->entries = NULL;
  log->count = log->capacity = 0;
}

const char *memoptSeverityName(MlirDiagnosticSeverity severity) {
  switch (severity) {
  case MlirDiagnosticError:
    return "error";
  case MlirDiagnosticWarning:
    return "warning";
  case MlirDiagnosticNote:
    return "note";
  case MlirDiagnosticRemark:
    return "remark";
  }
  return "error";
}

/* Returns the start of 1-based line `line` in `source`, or NULL. */
static const char *findLine(const char *source, unsigned line) {
  const char *p = source;
  for (unsigned i = 1; i < line && p; ++i) {
    p = strchr(p, '\n');
    if (p)
      ++p;
  }
  return p;
}

void memoptDiagnosticFormat(const MemoptDiagnostic *diagnostic, const char *source,
                            MemoptStringBuffer *out) {
  if (diagnostic->file)
    memoptStringBufferAppendFormat(out, "%s:%u:%u: ", diagnostic->file, diagnostic->line,
                                   diagnostic->column);
  else
    memoptStringBufferAppendCString(out, "<unknown>:0: ");
  memoptStringBufferAppendFormat(out, "%s: %s\n", memoptSeverityName(diagnostic->severity),
                                 diagnostic->message);
  const char *line = source && diagnostic->line ? findLine(source, diagnostic->line) : NULL;
  if (!line || !*line)
    return;
  const char *end = strchr(line, '\n');
  size_t length = end ? (size_t)(end - line) : strlen(line);
  memoptStringBufferAppend(out, line, length);
  memoptStringBufferAppendCString(out, "\n");
  /* The caret keeps tabs so it lines up under the column. */
  for (unsigned i = 1; i < diagnostic->column && i <= length; ++i)
    memoptStringBufferAppend(out, line[i - 1] == '\t' ? "\t" : " ", 1);
  memoptStringBufferAppendCString(out, "^\n");
}

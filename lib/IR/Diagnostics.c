/* Recording and printing diagnostics the way mlir-opt shows them. */
#include "IR/IR.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The logs attached to contexts, for the remarks and warnings memopt
 * delivers itself; passes may emit them from several threads. */
static pthread_mutex_t attachedLock = PTHREAD_MUTEX_INITIALIZER;
static MemoptDiagnosticLog *attachedLogs;

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
    MlirLocation *parts = memoptAllocateZeroed((size_t)count, sizeof *parts);
    mlirLocationFusedGetLocations(location, parts);
    bool found = false;
    for (intptr_t i = 0; i < count && !found; ++i)
      found = memoptLocationPosition(parts[i], file, line, column);
    free(parts);
    return found;
  }
  return false;
}

static MemoptDiagnostic *appendEntry(MemoptDiagnosticLog *log) {
  log->entries =
      memoptGrowArray(log->entries, &log->capacity, log->count + 1, sizeof *log->entries);
  MemoptDiagnostic *entry = &log->entries[log->count++];
  memset(entry, 0, sizeof *entry);
  return entry;
}

/* Fills the position of `entry` from `location`. */
static void setPosition(const MemoptDiagnosticLog *log, MemoptDiagnostic *entry,
                        MlirLocation location) {
  MlirStringRef file;
  if (memoptLocationPosition(location, &file, &entry->line, &entry->column)) {
    bool unnamed = file.length == 1 && file.data[0] == '-';
    entry->file = unnamed && log->sourceName
                      ? memoptStrndup(log->sourceName, strlen(log->sourceName))
                      : memoptStrndup(file.data, file.length);
  }
}

static void record(MemoptDiagnosticLog *log, MlirDiagnostic diagnostic,
                   MlirDiagnosticSeverity severity) {
  MemoptDiagnostic *entry = appendEntry(log);
  entry->severity = severity;
  setPosition(log, entry, mlirDiagnosticGetLocation(diagnostic));
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
  pthread_mutex_lock(&attachedLock);
  log->nextAttached = attachedLogs;
  attachedLogs = log;
  pthread_mutex_unlock(&attachedLock);
}

void memoptDiagnosticLogDetach(MemoptDiagnosticLog *log) {
  mlirContextDetachDiagnosticHandler(log->context, log->handler);
  pthread_mutex_lock(&attachedLock);
  for (MemoptDiagnosticLog **link = &attachedLogs; *link; link = &(*link)->nextAttached)
    if (*link == log) {
      *link = log->nextAttached;
      break;
    }
  pthread_mutex_unlock(&attachedLock);
}

void memoptEmitDiagnostic(MlirLocation location, MlirDiagnosticSeverity severity,
                          const char *message) {
  if (severity == MlirDiagnosticError) {
    mlirEmitError(location, message);
    return;
  }
  MlirContext context = mlirLocationGetContext(location);
  pthread_mutex_lock(&attachedLock);
  MemoptDiagnosticLog *log = attachedLogs;
  while (log && !mlirContextEqual(log->context, context))
    log = log->nextAttached;
  if (log) {
    MemoptDiagnostic *entry = appendEntry(log);
    entry->severity = severity;
    setPosition(log, entry, location);
    entry->message = memoptStrndup(message, strlen(message));
  }
  pthread_mutex_unlock(&attachedLock);
  if (!log) {
    MemoptDiagnosticLog unattached = {0};
    MemoptDiagnostic entry = {severity, NULL, 0, 0, (char *)message};
    setPosition(&unattached, &entry, location);
    MemoptStringBuffer text = memoptStringBufferCreate();
    memoptDiagnosticFormat(&entry, mlirStringRefCreate(NULL, 0), &text);
    fputs(memoptStringBufferGet(&text), stderr);
    memoptStringBufferDestroy(&text);
    free(entry.file);
  }
}

void memoptEmitOpDiagnostic(MlirOperation op, MlirDiagnosticSeverity severity, const char *format,
                            ...) {
  MemoptStringBuffer message = memoptStringBufferCreate();
  va_list args;
  va_start(args, format);
  memoptStringBufferAppendFormatV(&message, format, args);
  va_end(args);
  memoptEmitDiagnostic(mlirOperationGetLocation(op), severity, message.data);
  memoptStringBufferDestroy(&message);
}

void memoptEmitOpErrorV(MlirOperation op, const char *format, va_list args) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  MemoptStringBuffer message = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&message, "'%.*s' op ", (int)name.length, name.data);
  memoptStringBufferAppendFormatV(&message, format, args);
  memoptEmitDiagnostic(mlirOperationGetLocation(op), MlirDiagnosticError, message.data);
  memoptStringBufferDestroy(&message);
}

void memoptEmitOpError(MlirOperation op, const char *format, ...) {
  va_list args;
  va_start(args, format);
  memoptEmitOpErrorV(op, format, args);
  va_end(args);
}

/* Diagnostics with no file position sort after those with one. */
static int comparePositions(const MemoptDiagnostic *a, const MemoptDiagnostic *b) {
  if (!a->file || !b->file)
    return (a->file == NULL) - (b->file == NULL);
  int byFile = strcmp(a->file, b->file);
  if (byFile)
    return byFile;
  if (a->line != b->line)
    return a->line < b->line ? -1 : 1;
  return a->column < b->column ? -1 : a->column > b->column;
}

/* A diagnostic and its notes, and where they were in the log. */
typedef struct DiagnosticGroup {
  const MemoptDiagnostic *head;
  size_t start, end;
} DiagnosticGroup;

/* By position, then by order in the log: a stable sort. */
static int compareGroups(const void *a, const void *b) {
  const DiagnosticGroup *x = a, *y = b;
  int byPosition = comparePositions(x->head, y->head);
  if (byPosition)
    return byPosition;
  return (x->start > y->start) - (x->start < y->start);
}

void memoptDiagnosticLogSort(MemoptDiagnosticLog *log) {
  if (log->count < 2)
    return;
  DiagnosticGroup *groups = memoptAllocateZeroed(log->count, sizeof *groups);
  size_t groupCount = 0;
  for (size_t start = 0; start < log->count;) {
    size_t end = start + 1;
    while (end < log->count && log->entries[end].severity == MlirDiagnosticNote)
      ++end;
    groups[groupCount++] = (DiagnosticGroup){&log->entries[start], start, end};
    start = end;
  }
  qsort(groups, groupCount, sizeof *groups, compareGroups);
  MemoptDiagnostic *sorted = memoptAllocateZeroed(log->count, sizeof *sorted);
  size_t sortedCount = 0;
  for (size_t g = 0; g < groupCount; ++g) {
    size_t length = groups[g].end - groups[g].start;
    memcpy(&sorted[sortedCount], &log->entries[groups[g].start], length * sizeof *sorted);
    sortedCount += length;
  }
  memcpy(log->entries, sorted, log->count * sizeof *sorted);
  free(sorted);
  free(groups);
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
static const char *findLine(MlirStringRef source, unsigned line) {
  const char *p = source.data;
  const char *end = source.data + source.length;
  for (unsigned i = 1; i < line && p; ++i) {
    p = memchr(p, '\n', (size_t)(end - p));
    if (p)
      ++p;
  }
  return p;
}

/* Formats `diagnostic`, showing `line` (its source line, or NULL) of `source`. */
static void formatAtLine(const MemoptDiagnostic *diagnostic, MlirStringRef source, const char *line,
                         MemoptStringBuffer *out) {
  if (diagnostic->file)
    memoptStringBufferAppendFormat(out, "%s:%u:%u: ", diagnostic->file, diagnostic->line,
                                   diagnostic->column);
  else
    memoptStringBufferAppendCString(out, "<unknown>:0: ");
  memoptStringBufferAppendFormat(out, "%s: %s\n", memoptSeverityName(diagnostic->severity),
                                 diagnostic->message);
  if (!line)
    return;
  const char *sourceEnd = source.data + source.length;
  if (line == sourceEnd)
    return;
  const char *end = memchr(line, '\n', (size_t)(sourceEnd - line));
  size_t length = end ? (size_t)(end - line) : (size_t)(sourceEnd - line);
  /* A NUL byte shows as a space, as mlir-opt shows it. */
  for (size_t i = 0; i < length; ++i)
    memoptStringBufferAppend(out, line[i] ? &line[i] : " ", 1);
  memoptStringBufferAppendCString(out, "\n");
  /* The caret keeps tabs so it lines up under the column. */
  for (unsigned i = 1; i < diagnostic->column && i <= length; ++i)
    memoptStringBufferAppend(out, line[i - 1] == '\t' ? "\t" : " ", 1);
  memoptStringBufferAppendCString(out, "^\n");
}

void memoptDiagnosticFormat(const MemoptDiagnostic *diagnostic, MlirStringRef source,
                            MemoptStringBuffer *out) {
  const char *line = source.data && diagnostic->line ? findLine(source, diagnostic->line) : NULL;
  formatAtLine(diagnostic, source, line, out);
}

void memoptDiagnosticLogFormat(const MemoptDiagnosticLog *log, MlirStringRef source,
                               MemoptStringBuffer *out) {
  /* Where each line starts, found once: a diagnostic per op would otherwise
   * scan the source from its start for each. */
  size_t lineCount = 1;
  for (size_t i = 0; source.data && i < source.length; ++i)
    lineCount += source.data[i] == '\n';
  const char **starts = memoptAllocateZeroed(lineCount, sizeof *starts);
  if (source.data) {
    size_t line = 0;
    starts[line++] = source.data;
    for (size_t i = 0; i < source.length; ++i)
      if (source.data[i] == '\n')
        starts[line++] = source.data + i + 1;
  }
  for (size_t i = 0; i < log->count; ++i) {
    const MemoptDiagnostic *diagnostic = &log->entries[i];
    const char *line = source.data && diagnostic->line && diagnostic->line <= lineCount
                           ? starts[diagnostic->line - 1]
                           : NULL;
    formatAtLine(diagnostic, source, line, out);
  }
  free(starts);
}

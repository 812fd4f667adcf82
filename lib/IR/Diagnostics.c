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
    return memoptLocationPosition(mlirLocationCallSiteGetCallee(location), file, line, column) ||
           memoptLocationPosition(mlirLocationCallSiteGetCaller(location), file, line, column);
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

/* The call site a location stands for, looking through names and the parts
 * of fused locations, as mlir-opt's getCallSiteLoc; false when none. */
static bool callSiteOf(MlirLocation location, MlirLocation *callSite) {
  if (mlirLocationIsAName(location))
    return callSiteOf(mlirLocationNameGetChildLoc(location), callSite);
  if (mlirLocationIsACallSite(location)) {
    *callSite = location;
    return true;
  }
  if (!mlirLocationIsAFused(location))
    return false;
  intptr_t count = mlirLocationFusedGetNumLocations(location);
  MlirLocation *parts = memoptAllocateZeroed((size_t)count, sizeof *parts);
  mlirLocationFusedGetLocations(location, parts);
  bool found = false;
  for (intptr_t i = 0; i < count && !found; ++i)
    found = callSiteOf(parts[i], callSite);
  free(parts);
  return found;
}

static MemoptDiagnostic *appendEntry(MemoptDiagnosticLog *log) {
  log->entries =
      memoptGrowArray(log->entries, &log->capacity, log->count + 1, sizeof *log->entries);
  MemoptDiagnostic *entry = &log->entries[log->count++];
  memset(entry, 0, sizeof *entry);
  return entry;
}

/* Fills the position of `entry` from `location`, or, when it has no file
 * position and is not the unknown location, the location as printed. */
static void setPosition(const MemoptDiagnosticLog *log, MemoptDiagnostic *entry,
                        MlirLocation location) {
  MlirStringRef file;
  if (memoptLocationPosition(location, &file, &entry->line, &entry->column)) {
    bool unnamed = file.length == 1 && file.data[0] == '-';
    entry->file = unnamed && log->sourceName
                      ? memoptStrndup(log->sourceName, strlen(log->sourceName))
                      : memoptStrndup(file.data, file.length);
    return;
  }
  if (mlirLocationEqual(location, mlirLocationUnknownGet(mlirLocationGetContext(location))))
    return;
  MemoptStringBuffer where = memoptStringBufferCreate();
  mlirLocationPrint(location, memoptAppendToBuffer, &where);
  entry->where = memoptStringBufferRelease(&where);
}

/* mlir-opt's SourceMgrDiagnosticHandler shows at most this many callers. */
enum { callStackLimit = 10 };

/* Appends a diagnostic and, when its location is a call site, a "called from"
 * note for each caller. Returns the location mlir-opt compares the first
 * note's location with (the last caller, or the diagnostic's own). */
static MlirLocation appendDiagnostic(MemoptDiagnosticLog *log, MlirLocation location,
                                     MlirDiagnosticSeverity severity, char *message) {
  MemoptDiagnostic *entry = appendEntry(log);
  entry->severity = severity;
  entry->message = message;
  setPosition(log, entry, location);
  MlirLocation callSite;
  if (!callSiteOf(location, &callSite))
    return location;
  MlirLocation caller = mlirLocationCallSiteGetCaller(callSite);
  for (unsigned depth = 0; depth < callStackLimit; ++depth) {
    MemoptDiagnostic *note = appendEntry(log);
    note->severity = MlirDiagnosticNote;
    note->message = memoptStrndup("called from", strlen("called from"));
    note->isCallerNote = true;
    setPosition(log, note, caller);
    if (!callSiteOf(caller, &callSite))
      break;
    caller = mlirLocationCallSiteGetCaller(callSite);
  }
  return caller;
}

static char *printMessage(MlirDiagnostic diagnostic) {
  MemoptStringBuffer message = memoptStringBufferCreate();
  mlirDiagnosticPrint(diagnostic, memoptAppendToBuffer, &message);
  return memoptStringBufferRelease(&message);
}

/* Records a diagnostic, its callers and its notes; as mlir-opt, a note at the
 * location shown just before it gets no source line. */
static void record(MemoptDiagnosticLog *log, MlirDiagnostic diagnostic) {
  MlirLocation shown = appendDiagnostic(log, mlirDiagnosticGetLocation(diagnostic),
                                        mlirDiagnosticGetSeverity(diagnostic),
                                        printMessage(diagnostic));
  for (intptr_t i = 0; i < mlirDiagnosticGetNumNotes(diagnostic); ++i) {
    MlirDiagnostic note = mlirDiagnosticGetNote(diagnostic, i);
    MlirLocation location = mlirDiagnosticGetLocation(note);
    MemoptDiagnostic *entry = appendEntry(log);
    entry->severity = MlirDiagnosticNote;
    entry->message = printMessage(note);
    entry->hideSourceLine = mlirLocationEqual(location, shown);
    setPosition(log, entry, location);
    shown = location;
  }
}

static MlirLogicalResult handle(MlirDiagnostic diagnostic, void *userData) {
  /* memoptEmitDiagnostic appends to the same log from other threads. */
  pthread_mutex_lock(&attachedLock);
  record((MemoptDiagnosticLog *)userData, diagnostic);
  pthread_mutex_unlock(&attachedLock);
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
  if (log)
    appendDiagnostic(log, location, severity, memoptStrndup(message, strlen(message)));
  pthread_mutex_unlock(&attachedLock);
  if (!log) {
    MemoptDiagnosticLog unattached = {0};
    appendDiagnostic(&unattached, location, severity, memoptStrndup(message, strlen(message)));
    MemoptStringBuffer text = memoptStringBufferCreate();
    memoptDiagnosticLogFormat(&unattached, mlirStringRefCreate(NULL, 0), &text);
    fputs(memoptStringBufferGet(&text), stderr);
    memoptStringBufferDestroy(&text);
    memoptDiagnosticLogDestroy(&unattached);
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
    free(log->entries[i].where);
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

/* The line starting at `start` that `diagnostic` shows, as LLVM's
 * SourceMgr::FindLocForLineAndColumn: none when the column is 0 or lies past
 * the line's end. A line ends at '\n' or '\r'. */
static bool shownLine(const MemoptDiagnostic *diagnostic, MlirStringRef source, const char *start,
                      MlirStringRef *line) {
  if (!start || diagnostic->column == 0)
    return false;
  const char *sourceEnd = source.data + source.length;
  size_t before = diagnostic->column - 1;
  if (before > (size_t)(sourceEnd - start))
    return false;
  for (size_t i = 0; i < before; ++i)
    if (start[i] == '\n' || start[i] == '\r')
      return false;
  const char *end = start;
  while (end != sourceEnd && *end != '\n' && *end != '\r')
    ++end;
  *line = mlirStringRefCreate(start, (size_t)(end - start));
  return true;
}

enum { tabStop = 8 };

/* Appends `line` as LLVM's printSourceLine, tabs expanded to tab stops; a NUL
 * byte shows as a space, as mlir-opt shows it. */
static void appendSourceLine(MlirStringRef line, MemoptStringBuffer *out) {
  unsigned column = 0;
  for (size_t i = 0; i < line.length; ++i) {
    if (line.data[i] != '\t') {
      memoptStringBufferAppend(out, line.data[i] ? &line.data[i] : " ", 1);
      ++column;
      continue;
    }
    do {
      memoptStringBufferAppend(out, " ", 1);
      ++column;
    } while (column % tabStop != 0);
  }
  memoptStringBufferAppend(out, "\n", 1);
}

/* Appends the caret line under `line`: '~' under the range, '^' at the
 * column (or just past the line's end), each tab of the line widened as it
 * is shown, trailing spaces dropped. */
static void appendCaretLine(MlirStringRef line, unsigned column, unsigned rangeLength,
                            MemoptStringBuffer *out) {
  size_t caret = column - 1 < line.length ? column - 1 : line.length;
  size_t rangeEnd = caret;
  if (rangeLength && column - 1 <= line.length)
    rangeEnd = line.length - (column - 1) < rangeLength ? line.length : column - 1 + rangeLength;
  size_t last = rangeEnd > caret + 1 ? rangeEnd : caret + 1; /* one past the last mark */
  unsigned shownColumn = 0;
  for (size_t i = 0; i < last; ++i) {
    char mark = i == caret ? '^' : i >= caret && i < rangeEnd ? '~' : ' ';
    do {
      memoptStringBufferAppend(out, &mark, 1);
      ++shownColumn;
    } while (i < line.length && line.data[i] == '\t' && shownColumn % tabStop != 0);
  }
  memoptStringBufferAppend(out, "\n", 1);
}

/* Formats `diagnostic`, showing the source line starting at `start` (or none
 * when NULL) as LLVM's SMDiagnostic::print. */
static void formatAtLine(const MemoptDiagnostic *diagnostic, MlirStringRef source, const char *start,
                         MemoptStringBuffer *out) {
  if (diagnostic->file)
    memoptStringBufferAppendFormat(out, "%s:%u:%u: ", diagnostic->file, diagnostic->line,
                                   diagnostic->column);
  else
    memoptStringBufferAppendCString(out, "<unknown>:0: ");
  memoptStringBufferAppendFormat(out, "%s: ", memoptSeverityName(diagnostic->severity));
  if (diagnostic->where)
    memoptStringBufferAppendFormat(out, "%s: ", diagnostic->where);
  memoptStringBufferAppendFormat(out, "%s\n", diagnostic->message);
  MlirStringRef line;
  if (diagnostic->hideSourceLine || !shownLine(diagnostic, source, start, &line))
    return;
  appendSourceLine(line, out);
  /* SMDiagnostic shows no caret under a line with non-ASCII bytes, whose
   * columns it cannot tell. */
  for (size_t i = 0; i < line.length; ++i)
    if (line.data[i] & 0x80)
      return;
  appendCaretLine(line, diagnostic->column, diagnostic->rangeLength, out);
}

void memoptDiagnosticFormat(const MemoptDiagnostic *diagnostic, MlirStringRef source,
                            MemoptStringBuffer *out) {
  const char *start = source.data && diagnostic->line ? findLine(source, diagnostic->line) : NULL;
  formatAtLine(diagnostic, source, start, out);
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
    /* Only lines of the source file are at hand; mlir-opt shows another
     * file's line when it can read that file. */
    bool inSource = source.data && diagnostic->file && log->sourceName &&
                    strcmp(diagnostic->file, log->sourceName) == 0;
    const char *start = inSource && diagnostic->line && diagnostic->line <= lineCount
                            ? starts[diagnostic->line - 1]
                            : NULL;
    formatAtLine(diagnostic, source, start, out);
  }
  free(starts);
}

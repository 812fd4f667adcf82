/* Expected diagnostics, with mlir-opt's syntax:
 *   // expected-error {{message}}          on the same line
 *   // expected-error @+2 {{message}}      two lines below (also @-N)
 *   // expected-error @above {{message}}   the last line without an expectation
 *   // expected-error @below {{message}}   the next line without an expectation
 *   // expected-error @unknown {{message}} a diagnostic with no file position
 *   // expected-error-re {{op #{{[0-9]+}}}} literal text with {{regex}} parts
 * Each expectation must be matched by exactly one diagnostic. */
#include "DiagnosticVerifier.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

typedef struct Expectation {
  MlirDiagnosticSeverity severity;
  unsigned line;        /* the line the diagnostic must be on; 0 for @unknown */
  unsigned sourceLine;  /* where the expectation is written */
  unsigned sourceColumn;
  char *text;           /* substring, or pattern when isRegex */
  bool isRegex;
  bool matched;
} Expectation;

typedef struct Expectations {
  Expectation *items;
  size_t count;
  size_t capacity;
} Expectations;

static Expectation *append(Expectations *list) {
  list->items = memoptGrowArray(list->items, &list->capacity, list->count + 1, sizeof *list->items);
  Expectation *item = &list->items[list->count++];
  memset(item, 0, sizeof *item);
  return item;
}

static const struct {
  const char *word;
  MlirDiagnosticSeverity severity;
} kinds[] = {{"error", MlirDiagnosticError},
             {"warning", MlirDiagnosticWarning},
             {"remark", MlirDiagnosticRemark},
             {"note", MlirDiagnosticNote}};

/* Parses the expectation on one line, if any; returns false when none. */
static bool parseLine(const char *line, size_t length, unsigned lineNumber, Expectation *out,
                      char *designator /* "", "+", "-", "above", "below", "unknown" */,
                      long *offset) {
  char *copy = memoptStrndup(line, length);
  char *marker = strstr(copy, "expected-");
  bool found = false;
  if (!marker)
    goto done;
  char *p = marker + strlen("expected-");
  size_t kind = 0;
  for (; kind < sizeof kinds / sizeof *kinds; ++kind)
    if (memoptStartsWith(p, kinds[kind].word))
      break;
  if (kind == sizeof kinds / sizeof *kinds)
    goto done;
  p += strlen(kinds[kind].word);
  out->isRegex = memoptStartsWith(p, "-re");
  if (out->isRegex)
    p += 3;
  while (*p == ' ')
    ++p;
  designator[0] = '\0';
  *offset = 0;
  if (*p == '@') {
    ++p;
    if (*p == '+' || *p == '-') {
      designator[0] = *p;
      designator[1] = '\0';
      *offset = strtol(p + 1, &p, 10);
    } else {
      const char *words[] = {"above", "below", "unknown"};
      size_t w = 0;
      for (; w < 3; ++w)
        if (memoptStartsWith(p, words[w]))
          break;
      if (w == 3)
        goto done;
      strcpy(designator, words[w]);
      p += strlen(words[w]);
    }
    while (*p == ' ')
      ++p;
  }
  /* The message runs from the first "{{" to the last "}}" ending the line. */
  char *end = copy + length;
  while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
    --end;
  if (!memoptStartsWith(p, "{{") || end - p < 4 || end[-1] != '}' || end[-2] != '}')
    goto done;
  out->severity = kinds[kind].severity;
  out->text = memoptStrndup(p + 2, (size_t)(end - 2 - (p + 2)));
  out->sourceLine = lineNumber;
  out->sourceColumn = (unsigned)(marker - copy) + 1;
  found = true;
done:
  free(copy);
  return found;
}

static Expectations collect(const char *source) {
  Expectations list = {NULL, 0, 0};
  size_t *below = NULL; /* indices of @below items waiting for the next plain line */
  size_t belowCount = 0;
  unsigned lastPlainLine = 0;
  unsigned lineNumber = 1;
  for (const char *line = source; *line; ++lineNumber) {
    const char *newline = strchr(line, '\n');
    size_t length = newline ? (size_t)(newline - line) : strlen(line);
    Expectation parsed;
    memset(&parsed, 0, sizeof parsed);
    char designator[8];
    long offset;
    if (parseLine(line, length, lineNumber, &parsed, designator, &offset)) {
      Expectation *item = append(&list);
      *item = parsed;
      if (strcmp(designator, "+") == 0)
        item->line = lineNumber + (unsigned)offset;
      else if (strcmp(designator, "-") == 0)
        item->line = lineNumber - (unsigned)offset;
      else if (strcmp(designator, "above") == 0)
        item->line = lastPlainLine;
      else if (strcmp(designator, "unknown") == 0)
        item->line = 0;
      else if (strcmp(designator, "below") == 0) {
        below = memoptReallocArray(below, belowCount + 1, sizeof *below);
        below[belowCount++] = list.count - 1;
      } else
        item->line = lineNumber;
    } else {
      lastPlainLine = lineNumber;
      for (size_t i = 0; i < belowCount; ++i)
        list.items[below[i]].line = lineNumber;
      belowCount = 0;
    }
    line = newline ? newline + 1 : line + length;
  }
  free(below);
  return list;
}

/* Turns "literal{{regex}}literal" into one POSIX extended regex. */
static char *toRegex(const char *pattern) {
  MemoptStringBuffer out = memoptStringBufferCreate();
  for (const char *p = pattern; *p;) {
    if (memoptStartsWith(p, "{{")) {
      const char *close = strstr(p + 2, "}}");
      if (close) {
        memoptStringBufferAppendCString(&out, "(");
        memoptStringBufferAppend(&out, p + 2, (size_t)(close - p - 2));
        memoptStringBufferAppendCString(&out, ")");
        p = close + 2;
        continue;
      }
    }
    if (strchr(".[]{}()\\*+?|^$", *p))
      memoptStringBufferAppend(&out, "\\", 1);
    memoptStringBufferAppend(&out, p, 1);
    ++p;
  }
  return memoptStringBufferRelease(&out);
}

static bool matches(const Expectation *expectation, const char *message) {
  if (!expectation->isRegex)
    return strstr(message, expectation->text) != NULL;
  char *pattern = toRegex(expectation->text);
  regex_t compiled;
  bool ok = regcomp(&compiled, pattern, REG_EXTENDED | REG_NOSUB) == 0;
  bool found = ok && regexec(&compiled, message, 0, NULL, 0) == 0;
  if (ok)
    regfree(&compiled);
  free(pattern);
  return found;
}

bool memoptVerifyDiagnostics(const char *source, const char *sourceName,
                             const MemoptDiagnosticLog *log, MemoptStringBuffer *out) {
  Expectations list = collect(source);
  bool ok = true;
  for (size_t d = 0; d < log->count; ++d) {
    const MemoptDiagnostic *diagnostic = &log->entries[d];
    /* mlir-opt does not attach the failing op to diagnostics it verifies;
     * the C API cannot turn that off, so the note is dropped here. */
    if (diagnostic->severity == MlirDiagnosticNote &&
        memoptStartsWith(diagnostic->message, "see current operation:"))
      continue;
    bool found = false;
    for (size_t e = 0; e < list.count && !found; ++e) {
      Expectation *expectation = &list.items[e];
      if (!expectation->matched && expectation->severity == diagnostic->severity &&
          expectation->line == (diagnostic->file ? diagnostic->line : 0) &&
          matches(expectation, diagnostic->message))
        found = expectation->matched = true;
    }
    if (found)
      continue;
    ok = false;
    MemoptDiagnostic report = *diagnostic;
    MemoptStringBuffer message = memoptStringBufferCreate();
    memoptStringBufferAppendFormat(&message, "unexpected %s: %s",
                                   memoptSeverityName(diagnostic->severity), diagnostic->message);
    report.severity = MlirDiagnosticError;
    report.message = message.data;
    memoptDiagnosticFormat(&report, mlirStringRefCreateFromCString(source), out);
    memoptStringBufferDestroy(&message);
  }
  for (size_t e = 0; e < list.count; ++e) {
    Expectation *expectation = &list.items[e];
    if (!expectation->matched) {
      ok = false;
      MemoptStringBuffer message = memoptStringBufferCreate();
      memoptStringBufferAppendFormat(&message, "expected %s \"%s\" was not produced",
                                     memoptSeverityName(expectation->severity), expectation->text);
      MemoptDiagnostic report = {.severity = MlirDiagnosticError,
                                 .file = (char *)sourceName,
                                 .line = expectation->sourceLine,
                                 .column = expectation->sourceColumn,
                                 .message = message.data};
      memoptDiagnosticFormat(&report, mlirStringRefCreateFromCString(source), out);
      memoptStringBufferDestroy(&message);
    }
    free(expectation->text);
  }
  free(list.items);
  return ok;
}

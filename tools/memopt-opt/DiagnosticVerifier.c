/* Expected diagnostics, with the syntax and meaning of mlir-opt's
 * SourceMgrDiagnosticVerifierHandler (mlir/lib/IR/Diagnostics.cpp):
 *   // expected-error {{message}}          on the same line
 *   // expected-error @+2 {{message}}      two lines below (also @-N)
 *   // expected-error @above {{message}}   the last line without an expectation
 *   // expected-error @below {{message}}   the next line without an expectation
 *   // expected-error @unknown {{message}} a diagnostic with no file position
 *   // expected-error-re {{op #{{[0-9]+}}}} literal text with {{regex}} parts
 * An expectation is met by every diagnostic of its severity on its line
 * whose message contains the text (or matches the pattern): one expectation
 * covers a diagnostic reported several times. A diagnostic that matches the
 * text of an expectation on its line but not its severity is a near miss. */
#include "DiagnosticVerifier.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

typedef struct Expectation {
  MlirDiagnosticSeverity severity;
  unsigned line;        /* the line the diagnostic must be on */
  bool atUnknown;       /* @unknown: a diagnostic without file position */
  unsigned sourceLine;  /* where the expectation is written */
  unsigned sourceColumn;
  char *text;           /* substring, or the pattern's text for -re */
  bool isRegex;
  regex_t regex;        /* the compiled pattern, when isRegex */
  bool matched;
} Expectation;

struct MemoptDiagnosticVerifier {
  MlirStringRef source;
  const char *sourceName;
  MemoptVerifyLevel level;
  Expectation *items;
  size_t count;
  size_t capacity;
  bool ok; /* no error reported so far */
};

bool memoptVerifyLevelParse(const char *value, MemoptVerifyLevel *level) {
  if (strcmp(value, "all") == 0 || strcmp(value, "") == 0)
    *level = MemoptVerifyAll;
  else if (strcmp(value, "only-expected") == 0)
    *level = MemoptVerifyOnlyExpected;
  else
    return false;
  return true;
}

static const struct {
  const char *word;
  MlirDiagnosticSeverity severity;
} kinds[] = {{"error", MlirDiagnosticError},
             {"note", MlirDiagnosticNote},
             {"remark", MlirDiagnosticRemark},
             {"warning", MlirDiagnosticWarning}};

/* What a designator says about the line of an expectation. */
typedef enum Designator { OnLine, Plus, Minus, Above, Below, Unknown } Designator;

/* A parsed `expected-*` comment. */
typedef struct Parsed {
  size_t kind;          /* index in kinds */
  bool isRegex;
  Designator designator;
  unsigned long offset; /* for Plus and Minus */
  const char *marker;   /* the "expected-" it starts with */
  const char *text;     /* the text between the braces */
  size_t textLength;
} Parsed;

static bool startsWith(const char *p, const char *end, const char *prefix) {
  size_t length = strlen(prefix);
  return (size_t)(end - p) >= length && memcmp(p, prefix, length) == 0;
}

static const char *skipSpaces(const char *p, const char *end) {
  while (p < end && *p == ' ')
    ++p;
  return p;
}

/* Matches upstream's pattern
 *   expected-(error|note|remark|warning)(-re)? *(@([+-][0-9]+|above|below|unknown))? *{{(.*)}}$
 * at `p`, in the line [p, end) without its trailing white space. */
static bool parseAt(const char *p, const char *end, Parsed *out) {
  memset(out, 0, sizeof *out);
  out->marker = p;
  p += strlen("expected-");
  for (out->kind = 0; out->kind < sizeof kinds / sizeof *kinds; ++out->kind)
    if (startsWith(p, end, kinds[out->kind].word))
      break;
  if (out->kind == sizeof kinds / sizeof *kinds)
    return false;
  p += strlen(kinds[out->kind].word);
  out->isRegex = startsWith(p, end, "-re");
  if (out->isRegex)
    p += strlen("-re");
  p = skipSpaces(p, end);
  if (p < end && *p == '@') {
    ++p;
    static const struct {
      const char *word;
      Designator designator;
    } words[] = {{"above", Above}, {"below", Below}, {"unknown", Unknown}};
    size_t w = 0;
    while (w < sizeof words / sizeof *words && !startsWith(p, end, words[w].word))
      ++w;
    if (w < sizeof words / sizeof *words) {
      out->designator = words[w].designator;
      p += strlen(words[w].word);
    } else if (p + 1 < end && (*p == '+' || *p == '-') && p[1] >= '0' && p[1] <= '9') {
      out->designator = *p == '+' ? Plus : Minus;
      const char *digits = ++p;
      while (p < end && *p >= '0' && *p <= '9')
        ++p;
      /* Upstream reads the number with radix 0: a leading 0 means octal. */
      char *number = memoptStrndup(digits, (size_t)(p - digits));
      out->offset = strtoul(number, NULL, 0);
      free(number);
    } else {
      return false;
    }
    p = skipSpaces(p, end);
  }
  if (end - p < 4 || !startsWith(p, end, "{{") || end[-2] != '}' || end[-1] != '}')
    return false;
  out->text = p + 2;
  out->textLength = (size_t)(end - 2 - out->text);
  return true;
}

/* Finds the expectation on the line [line, end), if any: the leftmost
 * "expected-" from which the whole pattern matches. */
static bool parseLine(const char *line, const char *end, Parsed *out) {
  while (end > line && end[-1] != '\0' && strchr(" \t\n\v\f\r", end[-1]))
    --end;
  for (const char *p = line; end - p >= (long)strlen("expected-"); ++p)
    if (startsWith(p, end, "expected-") && parseAt(p, end, out))
      return true;
  return false;
}

/* llvm::Regex's messages (LLVM's regerror.c) for the error codes of POSIX
 * regcomp, which both use. */
static const char *regexErrorMessage(int code) {
  switch (code) {
  case REG_BADPAT:
    return "invalid regular expression";
  case REG_ECOLLATE:
    return "invalid collating element";
  case REG_ECTYPE:
    return "invalid character class";
  case REG_EESCAPE:
    return "trailing backslash (\\)";
  case REG_ESUBREG:
    return "invalid backreference number";
  case REG_EBRACK:
    return "brackets ([ ]) not balanced";
  case REG_EPAREN:
#ifdef REG_ERPAREN
  case REG_ERPAREN:
#endif
    return "parentheses not balanced";
  case REG_EBRACE:
    return "braces not balanced";
  case REG_BADBR:
    return "invalid repetition count(s)";
  case REG_ERANGE:
    return "invalid character range";
  case REG_ESPACE:
#ifdef REG_ESIZE
  case REG_ESIZE:
#endif
    return "out of memory";
  case REG_BADRPT:
    return "repetition-operator operand invalid";
  }
  return "invalid regular expression";
}

/* Compiles "literal{{regex}}literal" into one extended regex, the literal
 * parts escaped, as upstream's ExpectedDiag::computeRegex. On a malformed
 * pattern returns false with upstream's message in `error`. */
static bool compileRegex(const char *text, regex_t *regex, MemoptStringBuffer *error) {
  MemoptStringBuffer pattern = memoptStringBufferCreate();
  bool ok = true;
  for (const char *p = text; *p && ok;) {
    if (!memoptStartsWith(p, "{{")) {
      if (strchr("()^$|*+?.[]\\{}", *p))
        memoptStringBufferAppend(&pattern, "\\", 1);
      memoptStringBufferAppend(&pattern, p++, 1);
      continue;
    }
    const char *close = strstr(p + 2, "}}");
    if (!close) {
      memoptStringBufferAppendCString(error, "found start of regex with no end '}}'");
      ok = false;
      break;
    }
    char *part = memoptStrndup(p + 2, (size_t)(close - p - 2));
    regex_t check;
    int code = regcomp(&check, part, REG_EXTENDED | REG_NOSUB);
    if (code == 0) {
      regfree(&check);
      memoptStringBufferAppendFormat(&pattern, "(%s)", part);
    } else {
      memoptStringBufferAppendFormat(error, "invalid regex: %s", regexErrorMessage(code));
      ok = false;
    }
    free(part);
    p = close + 2;
  }
  if (ok) {
    int code = regcomp(regex, memoptStringBufferGet(&pattern), REG_EXTENDED | REG_NOSUB);
    if (code != 0) {
      memoptStringBufferAppendFormat(error, "invalid regex: %s", regexErrorMessage(code));
      ok = false;
    }
  }
  memoptStringBufferDestroy(&pattern);
  return ok;
}

/* Reports `message` as an error at the expectation written at `line`:`column`
 * of the source, underlining as many columns as its text has. */
static void reportAt(const char *sourceName, MlirStringRef source, unsigned line, unsigned column,
                     size_t length, const char *message, MemoptStringBuffer *out) {
  MemoptDiagnostic report = {.severity = MlirDiagnosticError,
                             .file = (char *)sourceName,
                             .line = line,
                             .column = column,
                             .message = (char *)message,
                             .rangeLength = (unsigned)length};
  memoptDiagnosticFormat(&report, source, out);
}

/* Collects the expectations of the source, as upstream's
 * computeExpectedDiags; a malformed pattern is reported to `out`. */
static void collect(MemoptDiagnosticVerifier *verifier, MemoptStringBuffer *out) {
  MlirStringRef source = verifier->source;
  size_t *below = NULL; /* @below expectations waiting for the next plain line */
  size_t belowCount = 0;
  unsigned lineCount = 1;
  for (size_t i = 0; i < source.length; ++i)
    lineCount += source.data[i] == '\n';
  unsigned lastPlainLine = 1;
  const char *sourceEnd = source.data + source.length;
  const char *line = source.data;
  for (unsigned lineNumber = 1; lineNumber <= lineCount; ++lineNumber) {
    const char *newline = memchr(line, '\n', (size_t)(sourceEnd - line));
    const char *end = newline ? newline : sourceEnd;
    Parsed parsed;
    if (!parseLine(line, end, &parsed)) {
      for (size_t b = 0; b < belowCount; ++b)
        verifier->items[below[b]].line = lineNumber;
      belowCount = 0;
      lastPlainLine = lineNumber;
      line = newline ? newline + 1 : sourceEnd;
      continue;
    }
    Expectation expectation = {.severity = kinds[parsed.kind].severity,
                               .line = lineNumber,
                               .sourceLine = lineNumber,
                               .sourceColumn = (unsigned)(parsed.marker - line) + 1,
                               .text = memoptStrndup(parsed.text, parsed.textLength),
                               .isRegex = parsed.isRegex};
    line = newline ? newline + 1 : sourceEnd;
    MemoptStringBuffer error = memoptStringBufferCreate();
    if (expectation.isRegex && !compileRegex(expectation.text, &expectation.regex, &error)) {
      reportAt(verifier->sourceName, source, expectation.sourceLine, expectation.sourceColumn,
               parsed.textLength, error.data, out);
      memoptStringBufferDestroy(&error);
      free(expectation.text);
      verifier->ok = false;
      continue;
    }
    memoptStringBufferDestroy(&error);
    switch (parsed.designator) {
    case OnLine:
      break;
    case Plus:
      expectation.line += (unsigned)parsed.offset;
      break;
    case Minus:
      expectation.line -= (unsigned)parsed.offset;
      break;
    case Above:
      expectation.line = lastPlainLine;
      break;
    case Below:
      /* A dangling @below is left at the last line. */
      expectation.line = lineCount;
      below = memoptReallocArray(below, belowCount + 1, sizeof *below);
      below[belowCount++] = verifier->count;
      break;
    case Unknown:
      expectation.atUnknown = true;
      break;
    }
    verifier->items = memoptGrowArray(verifier->items, &verifier->capacity, verifier->count + 1,
                                      sizeof *verifier->items);
    verifier->items[verifier->count++] = expectation;
  }
  free(below);
}

static bool matches(const Expectation *expectation, const char *message) {
  if (!expectation->isRegex)
    return strstr(message, expectation->text) != NULL;
  return regexec(&expectation->regex, message, 0, NULL, 0) == 0;
}

/* Reports an expectation that no diagnostic met. */
static void reportUnmet(const Expectation *expectation, const char *sourceName,
                        MlirStringRef source, MemoptStringBuffer *out) {
  MemoptStringBuffer message = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&message, "expected %s \"%s\" was not produced",
                                 memoptSeverityName(expectation->severity), expectation->text);
  if (expectation->atUnknown)
    memoptStringBufferAppendFormat(out, "<unknown>:0: error: %s\n", message.data);
  else
    reportAt(sourceName, source, expectation->sourceLine, expectation->sourceColumn,
             strlen(expectation->text), message.data, out);
  memoptStringBufferDestroy(&message);
}

MemoptDiagnosticVerifier *memoptDiagnosticVerifierCreate(MlirStringRef source,
                                                         const char *sourceName,
                                                         MemoptVerifyLevel level,
                                                         MemoptStringBuffer *out) {
  MemoptDiagnosticVerifier *verifier = memoptAllocateZeroed(1, sizeof *verifier);
  verifier->source = source;
  verifier->sourceName = sourceName;
  verifier->level = level;
  verifier->ok = true;
  collect(verifier, out);
  return verifier;
}

void memoptDiagnosticVerifierCheck(MemoptDiagnosticVerifier *verifier,
                                   const MemoptDiagnosticLog *log, MemoptStringBuffer *out) {
  const char *sourceName = verifier->sourceName;
  MlirStringRef source = verifier->source;
  for (size_t d = 0; d < log->count; ++d) {
    const MemoptDiagnostic *diagnostic = &log->entries[d];
    /* mlir-opt neither attaches the failing op to diagnostics it verifies
     * nor checks the "called from" notes it prints; the C API cannot turn
     * the first off, so both are dropped here. */
    if (diagnostic->isCallerNote ||
        (diagnostic->severity == MlirDiagnosticNote &&
         memoptStartsWith(diagnostic->message, "see current operation:")))
      continue;
    /* Expectations are in the source file only; mlir-opt also reads those
     * of another file a location names when it can. */
    bool inSource = diagnostic->file && strcmp(diagnostic->file, sourceName) == 0;
    const Expectation *nearMiss = NULL;
    bool found = false;
    for (size_t e = 0; e < verifier->count && !found; ++e) {
      Expectation *expectation = &verifier->items[e];
      bool here = diagnostic->file ? inSource && !expectation->atUnknown &&
                                         expectation->line == diagnostic->line
                                   : expectation->atUnknown;
      if (!here || !matches(expectation, diagnostic->message))
        continue;
      if (expectation->severity == diagnostic->severity)
        found = expectation->matched = true;
      else
        nearMiss = expectation;
    }
    if (found || verifier->level == MemoptVerifyOnlyExpected)
      continue;
    verifier->ok = false;
    MemoptStringBuffer message = memoptStringBufferCreate();
    if (nearMiss) {
      memoptStringBufferAppendFormat(&message,
                                     "'%s' diagnostic emitted when expecting a '%s'",
                                     memoptSeverityName(diagnostic->severity),
                                     memoptSeverityName(nearMiss->severity));
      if (nearMiss->atUnknown)
        memoptStringBufferAppendFormat(out, "<unknown>:0: error: %s\n", message.data);
      else
        reportAt(sourceName, source, nearMiss->sourceLine, nearMiss->sourceColumn, 0,
                 message.data, out);
    } else {
      MemoptDiagnostic report = *diagnostic;
      memoptStringBufferAppendFormat(&message, "unexpected %s: %s",
                                     memoptSeverityName(diagnostic->severity),
                                     diagnostic->message);
      report.severity = MlirDiagnosticError;
      report.message = message.data;
      report.hideSourceLine = false;
      memoptDiagnosticFormat(&report, inSource ? source : mlirStringRefCreate(NULL, 0), out);
    }
    memoptStringBufferDestroy(&message);
  }
}

bool memoptDiagnosticVerifierFinish(MemoptDiagnosticVerifier *verifier, MemoptStringBuffer *out) {
  /* Unmet expectations: those of the file in order, then the @unknown ones. */
  for (int unknownPass = 0; unknownPass < 2; ++unknownPass)
    for (size_t e = 0; e < verifier->count; ++e) {
      const Expectation *expectation = &verifier->items[e];
      if (expectation->atUnknown == (unknownPass == 1) && !expectation->matched) {
        verifier->ok = false;
        reportUnmet(expectation, verifier->sourceName, verifier->source, out);
      }
    }
  for (size_t e = 0; e < verifier->count; ++e) {
    if (verifier->items[e].isRegex)
      regfree(&verifier->items[e].regex);
    free(verifier->items[e].text);
  }
  bool ok = verifier->ok;
  free(verifier->items);
  free(verifier);
  return ok;
}

/* generate-checks: printed MLIR to FileCheck lines (see CheckWriter.h). */
#include "CheckWriter.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A printed name (`%arg0`, `#map`) and the FileCheck variable standing for it,
 * visible while `depth` scopes are open. */
typedef struct Binding {
  char *name;
  char *variable;
  size_t depth;
} Binding;

typedef struct BindingList {
  Binding *items;
  size_t count;
  size_t capacity;
} BindingList;

/* The state of one split: SSA names by scope, attribute aliases, counters. */
typedef struct Namer {
  BindingList values;
  BindingList aliases;
  size_t depth;
  unsigned nextValue;
  unsigned nextAlias;
} Namer;

/* Where the captures of one processed line start, so that a label line can be
 * cut before each of them into CHECK-SAME lines. */
typedef struct CutList {
  size_t *offsets;
  size_t count;
  size_t capacity;
} CutList;

/* A line of the checked text: where it starts and how long it is without its
 * line break and trailing blanks. */
typedef struct Line {
  const char *text;
  size_t length;
} Line;

/* Signature lines longer than this many characters get one CHECK-SAME line
 * per argument, shorter ones a single CHECK-SAME line. */
static const size_t kLongSignatureColumns = 80;

static void bindingListAdd(BindingList *list, const char *name, size_t nameLength,
                           const char *variable, size_t depth) {
  if (list->count == list->capacity) {
    list->capacity = list->capacity ? 2 * list->capacity : 16;
    list->items = realloc(list->items, list->capacity * sizeof(Binding));
    if (!list->items)
      abort();
  }
  Binding *binding = &list->items[list->count++];
  binding->name = memoptStrndup(name, nameLength);
  binding->variable = memoptStrndup(variable, strlen(variable));
  binding->depth = depth;
}

/* Drops the bindings of scopes deeper than `depth`. */
static void bindingListTruncate(BindingList *list, size_t depth) {
  while (list->count > 0 && list->items[list->count - 1].depth > depth) {
    Binding *binding = &list->items[--list->count];
    free(binding->name);
    free(binding->variable);
  }
}

static void bindingListDestroy(BindingList *list) {
  while (list->count > 0) {
    Binding *binding = &list->items[--list->count];
    free(binding->name);
    free(binding->variable);
  }
  free(list->items);
  *list = (BindingList){0};
}

/* The innermost binding of a name, or NULL. */
static const Binding *bindingListFind(const BindingList *list, const char *name,
                                      size_t nameLength) {
  for (size_t i = list->count; i > 0; --i) {
    const Binding *binding = &list->items[i - 1];
    if (strlen(binding->name) == nameLength && memcmp(binding->name, name, nameLength) == 0)
      return binding;
  }
  return NULL;
}

static void cutListAdd(CutList *cuts, size_t offset) {
  if (cuts->count == cuts->capacity) {
    cuts->capacity = cuts->capacity ? 2 * cuts->capacity : 16;
    cuts->offsets = realloc(cuts->offsets, cuts->capacity * sizeof(size_t));
    if (!cuts->offsets)
      abort();
  }
  cuts->offsets[cuts->count++] = offset;
}

/* Length of the SSA name starting at `text` (after its '%'): digits, or an
 * identifier of letters, digits and `$._-`; 0 when there is none. */
static size_t ssaNameLength(const char *text, size_t available) {
  size_t length = 0;
  if (available > 0 && isdigit((unsigned char)text[0])) {
    while (length < available && isdigit((unsigned char)text[length]))
      ++length;
    return length;
  }
  while (length < available) {
    char c = text[length];
    bool identifierChar = isalpha((unsigned char)c) || c == '$' || c == '.' || c == '_' ||
                          c == '-' || (length > 0 && isdigit((unsigned char)c));
    if (!identifierChar)
      break;
    ++length;
  }
  return length;
}

/* Length of the alias name starting at `text` (after its '#' or '!'). */
static size_t aliasNameLength(const char *text, size_t available) {
  size_t length = 0;
  while (length < available) {
    char c = text[length];
    if (!(isalnum((unsigned char)c) || c == '$' || c == '.' || c == '_' || c == '-'))
      break;
    ++length;
  }
  return length;
}

/* Appends literal IR text, escaping what FileCheck would read as a variable
 * (`[[`) or a regular expression (`{{`). */
static void appendLiteral(MemoptStringBuffer *out, const char *text, size_t length) {
  for (size_t i = 0; i < length; ++i) {
    if (i + 1 < length && text[i] == '[' && text[i + 1] == '[') {
      memoptStringBufferAppendCString(out, "{{\\[\\[}}");
      ++i;
    } else if (i + 1 < length && text[i] == '{' && text[i + 1] == '{') {
      memoptStringBufferAppendCString(out, "{{\\{\\{}}");
      ++i;
    } else {
      memoptStringBufferAppend(out, &text[i], 1);
    }
  }
}

/* Returns the index just past the results of an op line (`%a, %b:2 = ...`),
 * or 0 when the line defines no results. */
static size_t resultsEnd(Line line) {
  size_t start = 0;
  while (start < line.length && line.text[start] == ' ')
    ++start;
  if (start >= line.length || line.text[start] != '%')
    return 0;
  for (size_t i = start; i + 2 < line.length; ++i)
    if (line.text[i] == ' ' && line.text[i + 1] == '=' && line.text[i + 2] == ' ')
      return i;
  return 0;
}

/* Appends one line with its names replaced by captures, defining names in
 * the namer as it goes, and records in `cuts` where each capture begins. A
 * line ending in '{' opens a scope just after its results, so that the
 * results stay visible after the region and its block arguments do not. */
static void processLine(Line line, Namer *namer, MemoptStringBuffer *out, CutList *cuts) {
  size_t definedUntil = resultsEnd(line);
  bool opensScope = line.length > 0 && line.text[line.length - 1] == '{';
  size_t contentStart = 0;
  while (contentStart < line.length && line.text[contentStart] == ' ')
    ++contentStart;
  bool blockHeader = contentStart < line.length && line.text[contentStart] == '^';
  size_t literalStart = 0;
  size_t i = 0;
  while (i < line.length) {
    char c = line.text[i];
    size_t nameLength = 0;
    if (c == '%')
      nameLength = ssaNameLength(line.text + i + 1, line.length - i - 1);
    else if (c == '#')
      nameLength = aliasNameLength(line.text + i + 1, line.length - i - 1);
    const char *name = line.text + i + 1;
    const Binding *alias =
        c == '#' && nameLength > 0 ? bindingListFind(&namer->aliases, name, nameLength) : NULL;
    if (nameLength == 0 || (c == '#' && !alias)) {
      ++i;
      continue;
    }
    appendLiteral(out, line.text + literalStart, i - literalStart);
    cutListAdd(cuts, out->length);
    if (alias) {
      memoptStringBufferAppendFormat(out, "#[[%s]]", alias->variable);
    } else {
      if (opensScope && i >= definedUntil) {
        ++namer->depth;
        opensScope = false;
      }
      const Binding *known = bindingListFind(&namer->values, name, nameLength);
      bool definition = i < definedUntil || blockHeader || !known;
      if (definition) {
        char variable[32];
        snprintf(variable, sizeof variable, "VAL_%u", namer->nextValue++);
        bindingListAdd(&namer->values, name, nameLength, variable, namer->depth);
        memoptStringBufferAppendFormat(out, "%%[[%s:[-0-9A-Za-z_.$]+]]", variable);
      } else {
        memoptStringBufferAppendFormat(out, "%%[[%s]]", known->variable);
      }
    }
    i += 1 + nameLength;
    literalStart = i;
  }
  appendLiteral(out, line.text + literalStart, line.length - literalStart);
  if (opensScope)
    ++namer->depth;
}

/* Appends `length` bytes without trailing blanks, then a line break. */
static void appendTrimmedLine(MemoptStringBuffer *out, const char *text, size_t length) {
  while (length > 0 && (text[length - 1] == ' ' || text[length - 1] == '\t'))
    --length;
  memoptStringBufferAppend(out, text, length);
  memoptStringBufferAppendCString(out, "\n");
}

/* Emits a top-level op's first line: CHECK-LABEL with the text before the
 * first capture (a label may hold no variables), CHECK-SAME for the rest. */
static void emitLabel(const char *prefix, const MemoptStringBuffer *processed,
                      const CutList *cuts, MemoptStringBuffer *out) {
  const char *text = memoptStringBufferGet(processed);
  size_t labelEnd = cuts->count > 0 ? cuts->offsets[0] : processed->length;
  memoptStringBufferAppendFormat(out, "// %s-LABEL: ", prefix);
  appendTrimmedLine(out, text, labelEnd);
  if (cuts->count == 0)
    return;
  if (processed->length <= kLongSignatureColumns) {
    memoptStringBufferAppendFormat(out, "// %s-SAME:  ", prefix);
    appendTrimmedLine(out, text + labelEnd, processed->length - labelEnd);
    return;
  }
  for (size_t k = 0; k < cuts->count; ++k) {
    size_t end = k + 1 < cuts->count ? cuts->offsets[k + 1] : processed->length;
    memoptStringBufferAppendFormat(out, "// %s-SAME:  ", prefix);
    appendTrimmedLine(out, text + cuts->offsets[k], end - cuts->offsets[k]);
  }
}

/* True when the line (from its first non-blank) starts with `word`. */
static bool lineStartsWith(Line line, const char *word) {
  size_t start = 0;
  while (start < line.length && line.text[start] == ' ')
    ++start;
  size_t wordLength = strlen(word);
  return line.length - start >= wordLength && memcmp(line.text + start, word, wordLength) == 0;
}

/* Splits `text` into lines without trailing blanks; the caller frees the array. */
static Line *splitLines(const char *text, size_t length, size_t *count) {
  size_t capacity = 16;
  Line *lines = malloc(capacity * sizeof(Line));
  *count = 0;
  size_t start = 0;
  while (lines && start < length) {
    const char *newline = memchr(text + start, '\n', length - start);
    size_t end = newline ? (size_t)(newline - text) : length;
    size_t trimmed = end;
    while (trimmed > start && (text[trimmed - 1] == ' ' || text[trimmed - 1] == '\t' ||
                               text[trimmed - 1] == '\r'))
      --trimmed;
    if (*count == capacity) {
      capacity *= 2;
      lines = realloc(lines, capacity * sizeof(Line));
      if (!lines)
        break;
    }
    lines[(*count)++] = (Line){text + start, trimmed - start};
    start = end + 1;
  }
  if (!lines)
    abort();
  return lines;
}

/* An attribute alias definition at the top of a module: `#name = value`. */
static bool isAliasDefinition(Line line, size_t *nameLength) {
  if (line.length < 2 || line.text[0] != '#')
    return false;
  *nameLength = aliasNameLength(line.text + 1, line.length - 1);
  return *nameLength > 0 && line.length >= *nameLength + 4 &&
         memcmp(line.text + 1 + *nameLength, " = ", 3) == 0;
}

void generateChecksForSplit(const char *text, size_t length, const char *prefix,
                            MemoptStringBuffer *out) {
  size_t lineCount = 0;
  Line *lines = splitLines(text, length, &lineCount);
  Namer namer = {0};
  /* Ops directly inside the printed `module {` are the labelled ones; IR
   * printed without a module wrapper has its ops at depth 0. */
  size_t topDepth = 0;
  for (size_t i = 0; i < lineCount; ++i) {
    size_t aliasLength;
    if (lines[i].length == 0 || lineStartsWith(lines[i], "//") ||
        isAliasDefinition(lines[i], &aliasLength))
      continue;
    topDepth =
        lineStartsWith(lines[i], "module") || lineStartsWith(lines[i], "\"builtin.module\"") ? 1 : 0;
    break;
  }
  MemoptStringBuffer processed = memoptStringBufferCreate();
  CutList cuts = {0};
  for (size_t i = 0; i < lineCount; ++i) {
    Line line = lines[i];
    size_t aliasLength;
    if (line.length == 0 || lineStartsWith(line, "//"))
      continue;
    memoptStringBufferClear(&processed);
    cuts.count = 0;
    if (namer.depth == 0 && isAliasDefinition(line, &aliasLength)) {
      char variable[32];
      snprintf(variable, sizeof variable, "$ATTR_%u", namer.nextAlias++);
      Line value = {line.text + 1 + aliasLength, line.length - 1 - aliasLength};
      processLine(value, &namer, &processed, &cuts);
      bindingListAdd(&namer.aliases, line.text + 1, aliasLength, variable, 0);
      memoptStringBufferAppendFormat(out, "// %s: #[[%s:[-0-9A-Za-z_.$]+]]", prefix, variable);
      appendTrimmedLine(out, memoptStringBufferGet(&processed), processed.length);
      continue;
    }
    if (lineStartsWith(line, "}") && namer.depth > 0) {
      --namer.depth;
      bindingListTruncate(&namer.values, namer.depth);
    }
    size_t level = namer.depth;
    if (lineStartsWith(line, "^")) {
      /* Block headers end in a `// pred: ^bb0` comment the printer adds. */
      for (size_t k = line.length; k >= 2; --k)
        if (line.text[k - 2] == '/' && line.text[k - 1] == '/') {
          line.length = k - 2;
          while (line.length > 0 && line.text[line.length - 1] == ' ')
            --line.length;
          break;
        }
    }
    bool label = level == topDepth && !lineStartsWith(line, "}");
    if (label) {
      bindingListTruncate(&namer.values, level);
      namer.nextValue = 0;
    }
    processLine(line, &namer, &processed, &cuts);
    if (level < topDepth)
      continue;
    size_t labelEnd = cuts.count > 0 ? cuts.offsets[0] : processed.length;
    bool labelHasText = false;
    for (size_t k = 0; k < labelEnd; ++k)
      labelHasText |= memoptStringBufferGet(&processed)[k] != ' ';
    if (label && labelHasText) {
      emitLabel(prefix, &processed, &cuts, out);
    } else {
      /* Padded like the text after "-LABEL:", so the IR stays aligned. */
      memoptStringBufferAppendFormat(out, "// %s:       ", prefix);
      appendTrimmedLine(out, memoptStringBufferGet(&processed), processed.length);
    }
  }
  memoptStringBufferDestroy(&processed);
  free(cuts.offsets);
  bindingListDestroy(&namer.values);
  bindingListDestroy(&namer.aliases);
  free(lines);
}

/* True when the line is a split marker, `// -----`. */
static bool isSplitMarker(Line line) {
  return line.length == 8 && memcmp(line.text, "// -----", 8) == 0;
}

void generateChecks(const char *text, const char *prefix, MemoptStringBuffer *out) {
  size_t length = strlen(text);
  size_t lineCount = 0;
  Line *lines = splitLines(text, length, &lineCount);
  const char *splitStart = text;
  for (size_t i = 0; i <= lineCount; ++i) {
    if (i < lineCount && !isSplitMarker(lines[i]))
      continue;
    const char *splitEnd = i < lineCount ? lines[i].text : text + length;
    if (splitStart != text)
      memoptStringBufferAppendCString(out, "\n// -----\n\n");
    generateChecksForSplit(splitStart, (size_t)(splitEnd - splitStart), prefix, out);
    if (i < lineCount)
      splitStart = lines[i].text + lines[i].length;
  }
  free(lines);
}

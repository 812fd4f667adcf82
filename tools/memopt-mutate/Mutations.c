/* The mutations: line level (delete, duplicate, swap, splice from another
 * seed, truncate, insert NUL), token level (digits, integers replaced by
 * boundary values, element types, SSA names, op names) and structure-aware
 * ones that are cheap on text (a tensor's dimension or rank, an attribute's
 * value, an attribute dropped). Each edits the bytes in place; none needs the
 * input to parse. */
#include "Mutate.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Integers that break arithmetic on sizes: zero, signs, the limits of 32, 64
 * and 128 bits, one past them, 2^64+3 (3 once truncated to 64 bits), a large
 * prime extent. */
static const char *const boundaryIntegers[] = {
    "0", "1", "-1", "2", "3", "7", "13", "127", "128", "255", "256", "65536",
    "2147483647", "2147483648", "-2147483648", "4294967295", "4294967296",
    "9223372036854775807", "9223372036854775808", "-9223372036854775808",
    "18446744073709551615", "18446744073709551619", "1000003",
    "340282366920938463463374607431768211457"};

static const char *const elementTypes[] = {"f32", "f16", "bf16", "f64", "i1", "i8", "i16",
                                           "i32", "i64", "i128", "index", "f8E4M3FN",
                                           "complex<f32>"};

/* Attribute values of the kinds memopt's ops carry, and wrong kinds. */
static const char *const attributeValues[] = {
    "0", "-1", "9223372036854775807", "18446744073709551619", "0 : i64", "-1 : i64",
    "4294967296 : i64", "true", "false", "unit", "[]", "[0, 0]", "[-1]", "array<i64>",
    "array<i64: -1, 0>", "array<i64: 9223372036854775807>", "\"\"", "\"x\"", "1.0e+300",
    "dense<0.0> : tensor<f32>", "@missing", "affine_map<(d0) -> (d0)>", "{}"};

/* The memopt ops, so a spliced op name can become one of them. */
static const char *const memoptOps[] = {"chunk.region", "chunk.cluster", "place.stage",
                                        "remat.evict", "remat.regenerate", "remat.dim_symbol",
                                        "spm.group", "spm.pin", "spm.load", "spm.store"};

#define COUNT(array) (sizeof(array) / sizeof *(array))

/* Replaces bytes [start, end) of `text` with `with` (`withLength` bytes). */
static void replaceRange(MemoptStringBuffer *text, size_t start, size_t end, const char *with,
                         size_t withLength) {
  MemoptStringBuffer result = memoptStringBufferCreate();
  memoptStringBufferAppend(&result, text->data, start);
  memoptStringBufferAppend(&result, with, withLength);
  memoptStringBufferAppend(&result, text->data + end, text->length - end);
  /* Keep the terminator even when the result is empty. */
  memoptStringBufferAppend(&result, "", 0);
  memoptStringBufferDestroy(text);
  *text = result;
}

static void replaceWithString(MemoptStringBuffer *text, size_t start, size_t end,
                              const char *with) {
  replaceRange(text, start, end, with, strlen(with));
}

/* The 1-based line of byte `offset`, for the descriptions. */
static size_t lineOf(const MemoptStringBuffer *text, size_t offset) {
  size_t line = 1;
  for (size_t i = 0; i < offset && i < text->length; ++i)
    line += text->data[i] == '\n';
  return line;
}

/* Start offsets of the lines of `text`; `*count` lines (the last may lack a newline). */
static size_t *lineStarts(const char *text, size_t length, size_t *count) {
  size_t capacity = 0, n = 0;
  size_t *starts = NULL;
  for (size_t i = 0; i < length; ++i)
    if (i == 0 || text[i - 1] == '\n') {
      starts = memoptGrowArray(starts, &capacity, n + 1, sizeof *starts);
      starts[n++] = i;
    }
  *count = n;
  return starts;
}

/* End (exclusive, after the newline if any) of line `line`. */
static size_t lineEnd(const size_t *starts, size_t count, size_t line, size_t length) {
  return line + 1 < count ? starts[line + 1] : length;
}

/* The spans of the tokens a predicate picks: a flat list of (start, end) pairs. */
typedef struct Spans {
  size_t *bounds;
  size_t count;
  size_t capacity;
} Spans;

static void spansAdd(Spans *spans, size_t start, size_t end) {
  spans->bounds = memoptGrowArray(spans->bounds, &spans->capacity, 2 * (spans->count + 1),
                                  sizeof *spans->bounds);
  spans->bounds[2 * spans->count] = start;
  spans->bounds[2 * spans->count + 1] = end;
  ++spans->count;
}

static bool isIdentifierChar(char c) {
  return isalnum((unsigned char)c) || c == '_' || c == '$' || c == '.' || c == '-';
}

/* Digit runs (with a leading '-' when there is one). */
static Spans integerSpans(const MemoptStringBuffer *text) {
  Spans spans = {0};
  for (size_t i = 0; i < text->length;) {
    if (!isdigit((unsigned char)text->data[i])) {
      ++i;
      continue;
    }
    size_t start = i > 0 && text->data[i - 1] == '-' ? i - 1 : i;
    while (i < text->length && isdigit((unsigned char)text->data[i]))
      ++i;
    spansAdd(&spans, start, i);
  }
  return spans;
}

/* Occurrences of `word` not inside a longer identifier. */
static void wordSpans(const MemoptStringBuffer *text, const char *word, Spans *spans) {
  size_t length = strlen(word);
  if (!text->data)
    return;
  /* strstr stops at a NUL byte: the words after one are not candidates. */
  for (const char *p = text->data; (p = strstr(p, word)); p += length) {
    size_t start = (size_t)(p - text->data), end = start + length;
    bool before = start > 0 && (isalnum((unsigned char)text->data[start - 1]) ||
                                text->data[start - 1] == '_');
    bool after = end < text->length && (isalnum((unsigned char)text->data[end]) ||
                                        text->data[end] == '_');
    if (!before && !after)
      spansAdd(spans, start, end);
  }
}

/* SSA value names: '%' and the identifier after it. */
static Spans valueSpans(const MemoptStringBuffer *text) {
  Spans spans = {0};
  for (size_t i = 0; i < text->length; ++i)
    if (text->data[i] == '%') {
      size_t end = i + 1;
      while (end < text->length && (isIdentifierChar(text->data[end]) || text->data[end] == '#'))
        ++end;
      if (end > i + 1)
        spansAdd(&spans, i, end);
      i = end - 1;
    }
  return spans;
}

/* Op names: `dialect.op` after whitespace or a quote, followed by a space, '(' or '<'. */
static Spans opNameSpans(const MemoptStringBuffer *text) {
  Spans spans = {0};
  for (size_t i = 0; i < text->length; ++i) {
    char previous = i ? text->data[i - 1] : '\n';
    if (!islower((unsigned char)text->data[i]) || !(isspace((unsigned char)previous) || previous == '"'))
      continue;
    size_t end = i;
    bool dot = false;
    while (end < text->length && (islower((unsigned char)text->data[end]) ||
                                  isdigit((unsigned char)text->data[end]) ||
                                  text->data[end] == '_' || text->data[end] == '.'))
      dot |= text->data[end++] == '.';
    if (dot && end < text->length && strchr(" (<\"", text->data[end]))
      spansAdd(&spans, i, end);
    i = end;
  }
  return spans;
}

/* Attribute entries `name = value` inside `{...}`: the span of the name. */
static Spans attributeSpans(const MemoptStringBuffer *text) {
  Spans spans = {0};
  for (size_t i = 0; i + 3 < text->length; ++i) {
    if (!(isalpha((unsigned char)text->data[i]) || text->data[i] == '_'))
      continue;
    size_t before = i;
    while (before > 0 && text->data[before - 1] == ' ')
      --before;
    if (before == 0 || (text->data[before - 1] != '{' && text->data[before - 1] != ','))
      continue;
    size_t end = i;
    while (end < text->length && isIdentifierChar(text->data[end]))
      ++end;
    if (end + 2 < text->length && memcmp(text->data + end, " = ", 3) == 0)
      spansAdd(&spans, i, end);
    i = end;
  }
  return spans;
}

/* End of the attribute value starting at `start`: the ',' or '}' that closes
 * it at bracket depth 0 (an arrow's '>' does not close anything). */
static size_t valueEnd(const MemoptStringBuffer *text, size_t start) {
  int depth = 0;
  bool quoted = false;
  for (size_t i = start; i < text->length; ++i) {
    char c = text->data[i];
    if (quoted) {
      quoted = c != '"' || text->data[i - 1] == '\\';
      continue;
    }
    if (c == '"')
      quoted = true;
    else if (c == '(' || c == '[' || c == '{' || c == '<')
      ++depth;
    else if ((c == ')' || c == ']' || c == '}' || (c == '>' && text->data[i - 1] != '-')) &&
             depth > 0)
      --depth;
    else if (depth == 0 && (c == ',' || c == '}' || c == '\n'))
      return i;
  }
  return text->length;
}

/* Each mutation returns false when the text offers nothing to apply it to. */
typedef bool (*Mutation)(MemoptStringBuffer *, const MutateSeed *, MutateRng *,
                         MemoptStringBuffer *);

static bool deleteLine(MemoptStringBuffer *text, const MutateSeed *donor, MutateRng *rng,
                       MemoptStringBuffer *log) {
  size_t count;
  size_t *starts = lineStarts(text->data, text->length, &count);
  bool done = count > 0;
  if (done) {
    size_t line = mutateRngBelow(rng, count);
    replaceRange(text, starts[line], lineEnd(starts, count, line, text->length), "", 0);
    memoptStringBufferAppendFormat(log, "deleted line %zu\n", line + 1);
  }
  free(starts);
  return done;
}

static bool duplicateLine(MemoptStringBuffer *text, const MutateSeed *donor, MutateRng *rng,
                          MemoptStringBuffer *log) {
  size_t count;
  size_t *starts = lineStarts(text->data, text->length, &count);
  bool done = count > 0;
  if (done) {
    size_t line = mutateRngBelow(rng, count);
    size_t end = lineEnd(starts, count, line, text->length);
    char *copy = memoptStrndup(text->data + starts[line], end - starts[line]);
    replaceRange(text, end, end, copy, end - starts[line]);
    free(copy);
    memoptStringBufferAppendFormat(log, "duplicated line %zu\n", line + 1);
  }
  free(starts);
  return done;
}

static bool swapLines(MemoptStringBuffer *text, const MutateSeed *donor, MutateRng *rng,
                      MemoptStringBuffer *log) {
  size_t count;
  size_t *starts = lineStarts(text->data, text->length, &count);
  bool done = count > 1 && text->length && text->data[text->length - 1] == '\n';
  if (done) {
    size_t a = mutateRngBelow(rng, count), b = mutateRngBelow(rng, count);
    if (a > b) {
      size_t t = a;
      a = b;
      b = t;
    }
    size_t aEnd = lineEnd(starts, count, a, text->length);
    size_t bEnd = lineEnd(starts, count, b, text->length);
    if (a != b) {
      /* a, the lines between, b  ->  b, the lines between, a */
      MemoptStringBuffer middle = memoptStringBufferCreate();
      memoptStringBufferAppend(&middle, text->data + starts[b], bEnd - starts[b]);
      memoptStringBufferAppend(&middle, text->data + aEnd, starts[b] - aEnd);
      memoptStringBufferAppend(&middle, text->data + starts[a], aEnd - starts[a]);
      replaceRange(text, starts[a], bEnd, middle.data, middle.length);
      memoptStringBufferDestroy(&middle);
    }
    memoptStringBufferAppendFormat(log, "swapped lines %zu and %zu\n", a + 1, b + 1);
  }
  free(starts);
  return done;
}

static bool spliceLine(MemoptStringBuffer *text, const MutateSeed *donor, MutateRng *rng,
                       MemoptStringBuffer *log) {
  size_t donorCount, count;
  size_t *donorStarts = lineStarts(donor->text, donor->length, &donorCount);
  size_t *starts = lineStarts(text->data, text->length, &count);
  bool done = donorCount > 0;
  if (done) {
    size_t from = mutateRngBelow(rng, donorCount);
    size_t fromEnd = lineEnd(donorStarts, donorCount, from, donor->length);
    size_t at = count ? starts[mutateRngBelow(rng, count)] : 0;
    MemoptStringBuffer line = memoptStringBufferCreate();
    memoptStringBufferAppend(&line, donor->text + donorStarts[from], fromEnd - donorStarts[from]);
    if (!line.length || line.data[line.length - 1] != '\n')
      memoptStringBufferAppend(&line, "\n", 1);
    replaceRange(text, at, at, line.data, line.length);
    memoptStringBufferDestroy(&line);
    memoptStringBufferAppendFormat(log, "inserted line %zu of %s at line %zu\n", from + 1,
                                   donor->name, lineOf(text, at));
  }
  free(donorStarts);
  free(starts);
  return done;
}

static bool truncateText(MemoptStringBuffer *text, const MutateSeed *donor, MutateRng *rng,
                         MemoptStringBuffer *log) {
  if (!text->length)
    return false;
  size_t at = mutateRngBelow(rng, text->length);
  memoptStringBufferAppendFormat(log, "truncated at line %zu (byte %zu of %zu)\n",
                                 lineOf(text, at), at, text->length);
  replaceRange(text, at, text->length, "", 0);
  return true;
}

static bool insertNul(MemoptStringBuffer *text, const MutateSeed *donor, MutateRng *rng,
                      MemoptStringBuffer *log) {
  size_t at = mutateRngBelow(rng, text->length + 1);
  replaceRange(text, at, at, "\0", 1);
  memoptStringBufferAppendFormat(log, "inserted a NUL byte at line %zu (byte %zu)\n",
                                 lineOf(text, at), at);
  return true;
}

static bool flipDigit(MemoptStringBuffer *text, const MutateSeed *donor, MutateRng *rng,
                      MemoptStringBuffer *log) {
  size_t digits = 0;
  for (size_t i = 0; i < text->length; ++i)
    digits += isdigit((unsigned char)text->data[i]) != 0;
  if (!digits)
    return false;
  size_t pick = mutateRngBelow(rng, digits);
  for (size_t i = 0; i < text->length; ++i)
    if (isdigit((unsigned char)text->data[i]) && pick-- == 0) {
      char old = text->data[i];
      text->data[i] = (char)('0' + mutateRngBelow(rng, 10));
      memoptStringBufferAppendFormat(log, "digit %c -> %c at line %zu\n", old, text->data[i],
                                     lineOf(text, i));
      break;
    }
  return true;
}

/* Replaces a random span of `spans` with `with` and logs it under `what`. */
static bool replaceSpan(MemoptStringBuffer *text, Spans *spans, MutateRng *rng,
                        const char *with, const char *what, MemoptStringBuffer *log) {
  bool done = spans->count > 0;
  if (done) {
    size_t pick = mutateRngBelow(rng, spans->count);
    size_t start = spans->bounds[2 * pick], end = spans->bounds[2 * pick + 1];
    memoptStringBufferAppendFormat(log, "%s %.*s -> %s at line %zu\n", what, (int)(end - start),
                                   text->data + start, with, lineOf(text, start));
    replaceWithString(text, start, end, with);
  }
  free(spans->bounds);
  return done;
}

static bool boundaryInteger(MemoptStringBuffer *text, const MutateSeed *donor, MutateRng *rng,
                            MemoptStringBuffer *log) {
  Spans spans = integerSpans(text);
  return replaceSpan(text, &spans, rng,
                     boundaryIntegers[mutateRngBelow(rng, COUNT(boundaryIntegers))], "integer",
                     log);
}

static bool swapElementType(MemoptStringBuffer *text, const MutateSeed *donor, MutateRng *rng,
                            MemoptStringBuffer *log) {
  Spans spans = {0};
  for (size_t i = 0; i < COUNT(elementTypes); ++i)
    wordSpans(text, elementTypes[i], &spans);
  return replaceSpan(text, &spans, rng, elementTypes[mutateRngBelow(rng, COUNT(elementTypes))],
                     "element type", log);
}

/* Uses another value's name: a use of the wrong type, a use before its
 * definition, a value redefined. */
static bool swapValueName(MemoptStringBuffer *text, const MutateSeed *donor, MutateRng *rng,
                          MemoptStringBuffer *log) {
  Spans spans = valueSpans(text);
  if (spans.count < 2) {
    free(spans.bounds);
    return false;
  }
  size_t other = mutateRngBelow(rng, spans.count);
  char *name = memoptStrndup(text->data + spans.bounds[2 * other],
                             spans.bounds[2 * other + 1] - spans.bounds[2 * other]);
  bool done = replaceSpan(text, &spans, rng, name, "value", log);
  free(name);
  return done;
}

static bool swapOpName(MemoptStringBuffer *text, const MutateSeed *donor, MutateRng *rng,
                       MemoptStringBuffer *log) {
  Spans spans = opNameSpans(text);
  if (!spans.count) {
    free(spans.bounds);
    return false;
  }
  char *name;
  if (mutateRngBelow(rng, 2)) {
    const char *op = memoptOps[mutateRngBelow(rng, COUNT(memoptOps))];
    name = memoptStrndup(op, strlen(op));
  } else {
    size_t other = mutateRngBelow(rng, spans.count);
    name = memoptStrndup(text->data + spans.bounds[2 * other],
                         spans.bounds[2 * other + 1] - spans.bounds[2 * other]);
  }
  bool done = replaceSpan(text, &spans, rng, name, "op", log);
  free(name);
  return done;
}

/* A dimension of a shaped type `tensor<AxBx...>` (or memref, vector) made
 * dynamic, zero, huge or negative, dropped, or a dimension added. */
static bool changeDimension(MemoptStringBuffer *text, const MutateSeed *donor, MutateRng *rng,
                            MemoptStringBuffer *log) {
  Spans shapes = {0};
  wordSpans(text, "tensor", &shapes);
  wordSpans(text, "memref", &shapes);
  wordSpans(text, "vector", &shapes);
  /* Only those followed by '<': the type, not an op name like tensor.empty. */
  Spans dims = {0};
  for (size_t s = 0; s < shapes.count; ++s) {
    size_t i = shapes.bounds[2 * s + 1];
    if (i >= text->length || text->data[i] != '<')
      continue;
    ++i;
    /* Every "N" or "?" followed by 'x' is a dimension. */
    for (;;) {
      size_t start = i;
      while (i < text->length && (isdigit((unsigned char)text->data[i]) || text->data[i] == '?'))
        ++i;
      if (i == start || i >= text->length || text->data[i] != 'x')
        break;
      spansAdd(&dims, start, i);
      ++i;
    }
    /* The empty span before the element type: where a dimension is added. */
    spansAdd(&dims, i, i);
  }
  free(shapes.bounds);
  if (!dims.count) {
    free(dims.bounds);
    return false;
  }
  size_t pick = mutateRngBelow(rng, dims.count);
  size_t start = dims.bounds[2 * pick], end = dims.bounds[2 * pick + 1];
  free(dims.bounds);
  static const char *const extents[] = {"?", "0", "1", "3", "1000003", "2147483648",
                                        "4294967296", "9223372036854775807",
                                        "18446744073709551619"};
  MemoptStringBuffer with = memoptStringBufferCreate();
  const char *what;
  if (start == end) {
    memoptStringBufferAppendFormat(&with, "%sx", extents[mutateRngBelow(rng, COUNT(extents))]);
    what = "added dimension";
  } else if (mutateRngBelow(rng, 4) == 0) {
    ++end; /* the 'x' after it */
    what = "dropped dimension";
  } else {
    memoptStringBufferAppendCString(&with, extents[mutateRngBelow(rng, COUNT(extents))]);
    what = "dimension";
  }
  memoptStringBufferAppendFormat(log, "%s %.*s -> %s at line %zu\n", what, (int)(end - start),
                                 text->data + start, memoptStringBufferGet(&with),
                                 lineOf(text, start));
  replaceRange(text, start, end, memoptStringBufferGet(&with), with.length);
  memoptStringBufferDestroy(&with);
  return true;
}

static bool changeAttribute(MemoptStringBuffer *text, const MutateSeed *donor, MutateRng *rng,
                            MemoptStringBuffer *log) {
  Spans spans = attributeSpans(text);
  bool done = spans.count > 0;
  if (done) {
    size_t pick = mutateRngBelow(rng, spans.count);
    size_t name = spans.bounds[2 * pick], start = spans.bounds[2 * pick + 1] + 3;
    size_t end = valueEnd(text, start);
    const char *value = attributeValues[mutateRngBelow(rng, COUNT(attributeValues))];
    memoptStringBufferAppendFormat(log, "attribute %.*s = %s at line %zu\n",
                                   (int)(start - 3 - name), text->data + name, value,
                                   lineOf(text, name));
    replaceWithString(text, start, end, value);
  }
  free(spans.bounds);
  return done;
}

static bool dropAttribute(MemoptStringBuffer *text, const MutateSeed *donor, MutateRng *rng,
                          MemoptStringBuffer *log) {
  Spans spans = attributeSpans(text);
  bool done = spans.count > 0;
  if (done) {
    size_t pick = mutateRngBelow(rng, spans.count);
    size_t start = spans.bounds[2 * pick];
    size_t end = valueEnd(text, spans.bounds[2 * pick + 1] + 3);
    if (end < text->length && text->data[end] == ',') {
      ++end;
      while (end < text->length && text->data[end] == ' ')
        ++end;
    } else if (start >= 2 && text->data[start - 2] == ',') {
      start -= 2; /* the ", " before the last entry */
    }
    memoptStringBufferAppendFormat(log, "dropped attribute %.*s at line %zu\n",
                                   (int)(spans.bounds[2 * pick + 1] - spans.bounds[2 * pick]),
                                   text->data + spans.bounds[2 * pick], lineOf(text, start));
    replaceRange(text, start, end, "", 0);
  }
  free(spans.bounds);
  return done;
}

static const Mutation mutations[] = {
    deleteLine,      duplicateLine, swapLines,     spliceLine,      truncateText,
    insertNul,       flipDigit,     boundaryInteger, swapElementType, swapValueName,
    swapOpName,      changeDimension, changeAttribute, dropAttribute,
};

void mutateApply(MemoptStringBuffer *text, const MutateSeed *donor, MutateRng *rng,
                 MemoptStringBuffer *log) {
  /* NUL bytes and truncation end most inputs at the parser: rarer. */
  size_t wanted = 1 + mutateRngBelow(rng, 4);
  for (size_t applied = 0, tries = 0; applied < wanted && tries < 4 * wanted; ++tries) {
    size_t pick = mutateRngBelow(rng, COUNT(mutations));
    if ((mutations[pick] == insertNul || mutations[pick] == truncateText) &&
        mutateRngBelow(rng, 4) != 0)
      continue;
    applied += mutations[pick](text, donor, rng, log);
  }
}

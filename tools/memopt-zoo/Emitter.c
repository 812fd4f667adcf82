/* The emitter core: SSA names, tensor types, function framing and the
 * per-function caches of constants and dynamic sizes.
 *
 * Naming scheme, chosen so that names can never collide: fresh values are
 * `%<hint>.<n>` (a dot never appears in argument names), arguments are
 * `%<name>` made of letters, digits and '_', dynamic sizes `%<symbol>.size`,
 * index constants are `%c<n>`, and
 * values inside linalg.generic bodies are `%in<n>`, `%out<n>`, `%t<n>`. */
#include "Emitter.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Returns a heap copy of vprintf-formatted text; the caller frees it. */
static char *heapFormatV(const char *format, va_list args) {
  MemoptStringBuffer text = memoptStringBufferCreate();
  memoptStringBufferAppendFormatV(&text, format, args);
  return memoptStringBufferRelease(&text);
}

/* Returns a heap copy of printf-formatted text; the caller frees it. */
static char *heapFormat(const char *format, ...) __attribute__((format(printf, 1, 2)));
static char *heapFormat(const char *format, ...) {
  va_list args;
  va_start(args, format);
  char *text = heapFormatV(format, args);
  va_end(args);
  return text;
}

static char *ownString(ZooEmitter *e, char *string) {
  e->strings = memoptGrowArray(e->strings, &e->stringCapacity, (size_t)e->stringCount + 1,
                               sizeof(char *));
  e->strings[e->stringCount++] = string;
  return string;
}

const char *zooElementTypeName(ZooElementType type) {
  switch (type) {
  case ZOO_F32: return "f32";
  case ZOO_F16: return "f16";
  case ZOO_BF16: return "bf16";
  case ZOO_F64: return "f64";
  case ZOO_I64: return "i64";
  }
  return "?";
}

int zooElementTypeBytes(ZooElementType type) {
  switch (type) {
  case ZOO_F16:
  case ZOO_BF16: return 2;
  case ZOO_F32: return 4;
  case ZOO_F64:
  case ZOO_I64: return 8;
  }
  return 0;
}

ZooValue zooNoValue(void) {
  ZooValue value;
  memset(&value, 0, sizeof value);
  value.id = -1;
  return value;
}

bool zooHasValue(ZooValue value) { return value.id >= 0; }

void zooEmitterInit(ZooEmitter *e, ZooElementType floatType) {
  memset(e, 0, sizeof *e);
  e->body = memoptStringBufferCreate();
  e->error = memoptStringBufferCreate();
  e->floatType = floatType;
  e->maxTensorBytes = 1LL << 48;
}

static void clearFunctionState(ZooEmitter *e) {
  for (int i = 0; i < e->symbolCount; ++i)
    free(e->symbols[i].name);
  e->symbolCount = 0;
  for (int i = 0; i < e->sizeCacheCount; ++i)
    free(e->sizeCache[i].name);
  e->sizeCacheCount = 0;
  for (int i = 0; i < e->constantCacheCount; ++i) {
    free(e->constantCache[i].key);
    free(e->constantCache[i].name);
  }
  e->constantCacheCount = 0;
  e->argumentCount = 0;
  memoptStringBufferClear(&e->body);
}

void zooEmitterDestroy(ZooEmitter *e) {
  clearFunctionState(e);
  for (int i = 0; i < e->nameCount; ++i)
    free(e->names[i]);
  free(e->names);
  for (int i = 0; i < e->stringCount; ++i)
    free(e->strings[i]);
  free(e->strings);
  free(e->arguments);
  free(e->sizeCache);
  free(e->constantCache);
  memoptStringBufferDestroy(&e->body);
  memoptStringBufferDestroy(&e->error);
  memset(e, 0, sizeof *e);
}

void zooEmitterObserve(ZooEmitter *e, ZooValueObserver observer) { e->observer = observer; }

static void notifyObserver(ZooEmitter *e, int id, bool isParameter) {
  if (e->observer.valueCreated)
    e->observer.valueCreated(e->observer.context, id, isParameter);
}

void zooFail(ZooEmitter *e, const char *format, ...) {
  if (e->failed)
    return;
  e->failed = true;
  va_list args;
  va_start(args, format);
  memoptStringBufferAppendFormatV(&e->error, format, args);
  va_end(args);
}

bool zooEmitterFailed(const ZooEmitter *e) { return e->failed; }

const char *zooTakeString(ZooEmitter *e, MemoptStringBuffer *text) {
  return ownString(e, memoptStringBufferRelease(text));
}

const char *zooFormat(ZooEmitter *e, const char *format, ...) {
  va_list args;
  va_start(args, format);
  char *text = heapFormatV(format, args);
  va_end(args);
  return ownString(e, text);
}

const char *zooName(const ZooEmitter *e, ZooValue value) {
  if (value.id < 0 || value.id >= e->nameCount)
    return "%<invalid>";
  return e->names[value.id];
}

const char *zooElementName(ZooValue value) { return zooElementTypeName(value.type); }

const char *zooType(ZooEmitter *e, ZooValue value) {
  MemoptStringBuffer text = memoptStringBufferCreate();
  memoptStringBufferAppendCString(&text, "tensor<");
  for (int i = 0; i < value.rank; ++i) {
    if (zooSizeIsStatic(value.dims[i]))
      memoptStringBufferAppendFormat(&text, "%lldx", value.dims[i].factor);
    else
      memoptStringBufferAppendCString(&text, "?x");
  }
  memoptStringBufferAppendFormat(&text, "%s>", zooElementName(value));
  return zooTakeString(e, &text);
}

static int addName(ZooEmitter *e, char *name) {
  e->names = memoptGrowArray(e->names, &e->nameCapacity, (size_t)e->nameCount + 1, sizeof(char *));
  e->names[e->nameCount] = name;
  return e->nameCount++;
}

static void symbolNominals(const ZooEmitter *e, long long *values) {
  for (int i = 0; i < ZOO_MAX_SYMBOLS; ++i)
    values[i] = i < e->symbolCount ? e->symbols[i].nominal : 1;
}

/* The user-facing memory check: every tensor the model creates, at the
 * nominal sizes of its dynamic dimensions, must fit in 2^48 bytes. */
static void checkTensorSize(ZooEmitter *e, ZooValue value) {
  long long nominals[ZOO_MAX_SYMBOLS];
  symbolNominals(e, nominals);
  long long bytes = zooElementTypeBytes(value.type);
  bool dynamic = false;
  MemoptStringBuffer shape = memoptStringBufferCreate();
  for (int i = 0; i < value.rank; ++i) {
    long long extent = zooSizeNominal(value.dims[i], nominals);
    dynamic = dynamic || !zooSizeIsStatic(value.dims[i]);
    memoptStringBufferAppendFormat(&shape, "%s%lld", i ? "x" : "", extent);
    if (bytes != LLONG_MAX && (extent == LLONG_MAX || __builtin_mul_overflow(bytes, extent, &bytes)))
      bytes = LLONG_MAX;
  }
  if (bytes > e->maxTensorBytes) {
    const char *type = zooType(e, value);
    const char *at = dynamic ? zooFormat(e, " (%s at the given sizes)", memoptStringBufferGet(&shape)) : "";
    if (bytes == LLONG_MAX)
      zooFail(e, "the model needs a %s%s whose size overflows 64 bits, beyond addressable "
                 "memory (2^48 bytes); choose smaller sizes", type, at);
    else
      zooFail(e, "the model needs a %s%s of %lld bytes, beyond addressable memory (2^48 "
                 "bytes); choose smaller sizes", type, at, bytes);
  }
  memoptStringBufferDestroy(&shape);
}

ZooValue zooNewValue(ZooEmitter *e, const char *hint, ZooElementType type, int rank,
                     const ZooSize *dims) {
  ZooValue value = zooNoValue();
  if (rank < 0 || rank > ZOO_MAX_RANK) {
    zooFail(e, "internal: rank %d out of range", rank);
    rank = 0;
  }
  value.type = type;
  value.rank = rank;
  for (int i = 0; i < rank; ++i)
    value.dims[i] = dims[i];
  value.id = addName(e, heapFormat("%%%s.%u", hint, e->nextSuffix++));
  checkTensorSize(e, value);
  notifyObserver(e, value.id, false);
  return value;
}

ZooValue zooNewValueLike(ZooEmitter *e, const char *hint, ZooElementType type, ZooValue like) {
  return zooNewValue(e, hint, type, like.rank, like.dims);
}

void zooLine(ZooEmitter *e, const char *format, ...) {
  memoptStringBufferAppendCString(&e->body, "  ");
  va_list args;
  va_start(args, format);
  memoptStringBufferAppendFormatV(&e->body, format, args);
  va_end(args);
  memoptStringBufferAppendCString(&e->body, "\n");
}

/*===------------------------------------------------------------------===*
 * Functions
 *===------------------------------------------------------------------===*/

void zooFunctionBegin(ZooEmitter *e) { clearFunctionState(e); }

static void bindSymbols(ZooEmitter *e, int argumentIndex);

ZooValue zooArgument(ZooEmitter *e, const char *name, ZooElementType type, int rank,
                     const ZooSize *dims, bool isParameter, ZooFill fill) {
  /* Argument names are `[A-Za-z0-9_]`; a clash gets a numeric suffix. */
  MemoptStringBuffer unique = memoptStringBufferCreate();
  memoptStringBufferAppendCString(&unique, "%");
  for (const char *c = name; *c; ++c) {
    char ch = (char)((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                             (*c >= '0' && *c <= '9')
                         ? *c
                         : '_');
    memoptStringBufferAppend(&unique, &ch, 1);
  }
  size_t baseLength = unique.length;
  for (int attempt = 2;; ++attempt) {
    bool clash = false;
    for (int i = 0; i < e->argumentCount && !clash; ++i)
      clash = strcmp(zooName(e, e->arguments[i].value), unique.data) == 0;
    if (!clash)
      break;
    unique.length = baseLength;
    memoptStringBufferAppendFormat(&unique, "_v%d", attempt);
  }
  ZooValue value = zooNoValue();
  value.type = type;
  value.rank = rank;
  for (int i = 0; i < rank; ++i)
    value.dims[i] = dims[i];
  value.id = addName(e, memoptStringBufferRelease(&unique));
  checkTensorSize(e, value);
  notifyObserver(e, value.id, isParameter);
  e->arguments = memoptGrowArray(e->arguments, &e->argumentCapacity, (size_t)e->argumentCount + 1,
                                 sizeof(ZooArgument));
  ZooArgument *argument = &e->arguments[e->argumentCount++];
  argument->value = value;
  argument->isParameter = isParameter;
  argument->fill = fill;
  bindSymbols(e, e->argumentCount - 1);
  return value;
}

int zooDeclareSymbol(ZooEmitter *e, const char *name, long long nominal) {
  if (e->symbolCount == ZOO_MAX_SYMBOLS) {
    zooFail(e, "internal: too many dynamic symbols");
    return 0;
  }
  ZooSymbol *symbol = &e->symbols[e->symbolCount];
  /* `%<name>.size`: the dot keeps it apart from argument names. */
  symbol->name = heapFormat("%%%s.size", name);
  symbol->argumentIndex = -1;
  symbol->argumentDim = 0;
  symbol->nominal = nominal;
  return e->symbolCount++;
}

/* Binds every still-unbound symbol that is a bare dimension of `argument`. */
static void bindSymbols(ZooEmitter *e, int argumentIndex) {
  ZooValue value = e->arguments[argumentIndex].value;
  for (int dim = 0; dim < value.rank; ++dim)
    for (int s = 0; s < e->symbolCount; ++s)
      if (e->symbols[s].argumentIndex < 0 && zooSizeEqual(value.dims[dim], zooSizeSymbol(s))) {
        e->symbols[s].argumentIndex = argumentIndex;
        e->symbols[s].argumentDim = dim;
      }
}

void zooFunctionEnd(ZooEmitter *e, MemoptStringBuffer *module, const char *name,
                    const char *attributes, const ZooValue *results, int resultCount) {
  memoptStringBufferAppendFormat(module, "func.func @%s(", name);
  for (int i = 0; i < e->argumentCount; ++i)
    memoptStringBufferAppendFormat(module, "%s%s: %s", i ? ", " : "",
                                   zooName(e, e->arguments[i].value),
                                   zooType(e, e->arguments[i].value));
  memoptStringBufferAppendCString(module, ")");
  if (resultCount > 0) {
    memoptStringBufferAppendCString(module, " -> (");
    for (int i = 0; i < resultCount; ++i)
      memoptStringBufferAppendFormat(module, "%s%s", i ? ", " : "", zooType(e, results[i]));
    memoptStringBufferAppendCString(module, ")");
  }
  if (attributes)
    memoptStringBufferAppendFormat(module, " attributes {%s}", attributes);
  memoptStringBufferAppendCString(module, " {\n");
  memoptStringBufferAppendCString(module, memoptStringBufferGet(&e->body));
  memoptStringBufferAppendCString(module, "  return");
  for (int i = 0; i < resultCount; ++i)
    memoptStringBufferAppendFormat(module, "%s %s", i ? "," : "", zooName(e, results[i]));
  if (resultCount > 0) {
    memoptStringBufferAppendCString(module, " :");
    for (int i = 0; i < resultCount; ++i)
      memoptStringBufferAppendFormat(module, "%s %s", i ? "," : "", zooType(e, results[i]));
  }
  memoptStringBufferAppendCString(module, "\n}\n");
}

/*===------------------------------------------------------------------===*
 * Constants and sizes (cached per function; emitted at first use, which
 * dominates every later use because a function body is one block and
 * generic bodies are written out only after their constants)
 *===------------------------------------------------------------------===*/

static const char *lookupConstant(ZooEmitter *e, const char *key) {
  for (int i = 0; i < e->constantCacheCount; ++i)
    if (strcmp(e->constantCache[i].key, key) == 0)
      return e->constantCache[i].name;
  return NULL;
}

static const char *rememberConstant(ZooEmitter *e, const char *key, const char *name) {
  e->constantCache = memoptGrowArray(e->constantCache, &e->constantCacheCapacity,
                                     (size_t)e->constantCacheCount + 1,
                                     sizeof(ZooConstantCacheEntry));
  ZooConstantCacheEntry *entry = &e->constantCache[e->constantCacheCount++];
  entry->key = memoptStrndup(key, strlen(key));
  entry->name = memoptStrndup(name, strlen(name));
  return entry->name;
}

void zooFormatFloat(char *out, size_t capacity, double value) {
  /* MLIR float literals need a '.' before any exponent: "1e-05" is not one. */
  char text[64];
  snprintf(text, sizeof text, "%.9g", value);
  if (strchr(text, '.') || strchr(text, 'n') || strchr(text, 'i')) {
    snprintf(out, capacity, "%s", text);
    return;
  }
  char *exponent = strchr(text, 'e');
  if (exponent) {
    *exponent = '\0';
    snprintf(out, capacity, "%s.0e%s", text, exponent + 1);
  } else {
    snprintf(out, capacity, "%s.0", text);
  }
}

static const char *emitConstantLiteral(ZooEmitter *e, const char *literal, const char *typeName,
                                       const char *hint) {
  char key[128];
  snprintf(key, sizeof key, "%s %s", typeName, literal);
  const char *cached = lookupConstant(e, key);
  if (cached)
    return cached;
  char name[64];
  snprintf(name, sizeof name, "%%%s.%u", hint, e->nextSuffix++);
  zooLine(e, "%s = arith.constant %s : %s", name, literal, typeName);
  return rememberConstant(e, key, name);
}

const char *zooConstant(ZooEmitter *e, ZooElementType type, double value) {
  char literal[64];
  if (type == ZOO_I64)
    snprintf(literal, sizeof literal, "%lld", (long long)value);
  else
    zooFormatFloat(literal, sizeof literal, value);
  return emitConstantLiteral(e, literal, zooElementTypeName(type), "cst");
}

const char *zooNegativeInfinity(ZooEmitter *e, ZooElementType type) {
  const char *bits = "0xFF800000";
  switch (type) {
  case ZOO_F16: bits = "0xFC00"; break;
  case ZOO_BF16: bits = "0xFF80"; break;
  case ZOO_F64: bits = "0xFFF0000000000000"; break;
  default: break;
  }
  return emitConstantLiteral(e, bits, zooElementTypeName(type), "ninf");
}

const char *zooIndexConstant(ZooEmitter *e, long long value) {
  char key[64], name[64];
  snprintf(key, sizeof key, "index %lld", value);
  const char *cached = lookupConstant(e, key);
  if (cached)
    return cached;
  snprintf(name, sizeof name, "%%c%lld", value);
  zooLine(e, "%s = arith.constant %lld : index", name, value);
  return rememberConstant(e, key, name);
}

static const char *cachedSize(ZooEmitter *e, ZooSize size) {
  for (int i = 0; i < e->sizeCacheCount; ++i)
    if (zooSizeEqual(e->sizeCache[i].size, size))
      return e->sizeCache[i].name;
  return NULL;
}

static const char *rememberSize(ZooEmitter *e, ZooSize size, const char *name) {
  e->sizeCache = memoptGrowArray(e->sizeCache, &e->sizeCacheCapacity,
                                 (size_t)e->sizeCacheCount + 1, sizeof(ZooSizeCacheEntry));
  ZooSizeCacheEntry *entry = &e->sizeCache[e->sizeCacheCount++];
  entry->size = size;
  entry->name = memoptStrndup(name, strlen(name));
  return entry->name;
}

const char *zooSizeValue(ZooEmitter *e, ZooSize size) {
  if (zooSizeIsStatic(size))
    return zooIndexConstant(e, size.factor);
  const char *cached = cachedSize(e, size);
  if (cached)
    return cached;
  /* Peel one symbol (or the constant factor) off and multiply. */
  ZooSize rest = size;
  ZooSize peeled;
  if (rest.factor != 1) {
    peeled = zooSizeStatic(rest.factor);
    rest.factor = 1;
  } else {
    int symbol = 0;
    while (symbol < ZOO_MAX_SYMBOLS && rest.powers[symbol] == 0)
      ++symbol;
    peeled = zooSizeSymbol(symbol);
    rest.powers[symbol]--;
    if (zooSizeIsStatic(rest)) {
      /* A bare symbol: read it off the argument that defines it. */
      if (symbol >= e->symbolCount || e->symbols[symbol].argumentIndex < 0) {
        zooFail(e, "internal: dynamic symbol %d is not a dimension of any argument", symbol);
        return "%<invalid>";
      }
      ZooSymbol *definition = &e->symbols[symbol];
      ZooValue argument = e->arguments[definition->argumentIndex].value;
      const char *dim = zooIndexConstant(e, definition->argumentDim);
      zooLine(e, "%s = tensor.dim %s, %s : %s", definition->name, zooName(e, argument), dim,
              zooType(e, argument));
      return rememberSize(e, size, definition->name);
    }
  }
  const char *left = zooSizeValue(e, rest);
  const char *right = zooSizeValue(e, peeled);
  char name[64];
  snprintf(name, sizeof name, "%%size.%u", e->nextSuffix++);
  zooLine(e, "%s = arith.muli %s, %s : index", name, left, right);
  return rememberSize(e, size, name);
}

const char *zooSizeAsFloat(ZooEmitter *e, ZooSize size, ZooElementType type) {
  if (zooSizeIsStatic(size))
    return zooConstant(e, type, (double)size.factor);
  const char *index = zooSizeValue(e, size);
  char key[128];
  snprintf(key, sizeof key, "float-of %s %s", index, zooElementTypeName(type));
  const char *cached = lookupConstant(e, key);
  if (cached)
    return cached;
  char asInteger[64], name[64];
  snprintf(asInteger, sizeof asInteger, "%%count.%u", e->nextSuffix++);
  snprintf(name, sizeof name, "%%countf.%u", e->nextSuffix++);
  zooLine(e, "%s = arith.index_cast %s : index to i64", asInteger, index);
  zooLine(e, "%s = arith.sitofp %s : i64 to %s", name, asInteger, zooElementTypeName(type));
  return rememberConstant(e, key, name);
}

const char *zooReciprocalOfSize(ZooEmitter *e, ZooSize size, ZooElementType type) {
  if (zooSizeIsStatic(size))
    return zooConstant(e, type, 1.0 / (double)size.factor);
  const char *count = zooSizeAsFloat(e, size, type);
  char key[128];
  snprintf(key, sizeof key, "reciprocal-of %s", count);
  const char *cached = lookupConstant(e, key);
  if (cached)
    return cached;
  const char *one = zooConstant(e, type, 1.0);
  char name[64];
  snprintf(name, sizeof name, "%%inv.%u", e->nextSuffix++);
  zooLine(e, "%s = arith.divf %s, %s : %s", name, one, count, zooElementTypeName(type));
  return rememberConstant(e, key, name);
}

/* The metadata block of an MLIR file, `{-# key: { key: "value", ... } #-}`,
 * is a dictionary attribute with ':' for '=' (its values are strings, true
 * or false), so it is read with MLIR's attribute parser rather than by hand. mlir-opt reads the mlir_reproducer
 * resource with a resource parser attached to its ParserConfig, which the C
 * API's parsers do not take. */
#include "Reproducer.h"

#include "Support/Support.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"

#include <stdlib.h>
#include <string.h>

/* Returns the offset of `token` in `source` outside comments and string
 * literals at or after `from`, or `source.length` when there is none. */
static size_t findToken(MlirStringRef source, size_t from, const char *token) {
  size_t tokenLength = strlen(token);
  for (size_t i = from; i < source.length; ++i) {
    char c = source.data[i];
    if (c == '/' && i + 1 < source.length && source.data[i + 1] == '/') {
      while (i < source.length && source.data[i] != '\n')
        ++i;
    } else if (c == '"') {
      for (++i; i < source.length && source.data[i] != '"' && source.data[i] != '\n'; ++i)
        if (source.data[i] == '\\')
          ++i;
    } else if (source.length - i >= tokenLength && memcmp(source.data + i, token, tokenLength) == 0) {
      return i;
    }
  }
  return source.length;
}

/* The location of byte `offset` of `source`. */
static MlirLocation locationAt(MlirContext context, MlirStringRef source, const char *sourceName,
                               size_t offset) {
  unsigned line = 1, column = 1;
  for (size_t i = 0; i < offset && i < source.length; ++i) {
    if (source.data[i] == '\n')
      ++line, column = 1;
    else
      ++column;
  }
  return mlirLocationFileLineColGet(context, mlirStringRefCreateFromCString(sourceName), line,
                                    column);
}

/* Emits `message` about the key `key` of the mlir_reproducer entry found
 * after byte `from`: at the key, or at its value when `atValue`. */
static void emitAtKey(MlirContext context, MlirStringRef source, const char *sourceName,
                      size_t from, MlirStringRef key, bool atValue, const char *message) {
  size_t offset = from;
  for (size_t i = from; i + key.length <= source.length; ++i)
    if (memcmp(source.data + i, key.data, key.length) == 0) {
      offset = i;
      break;
    }
  if (atValue) {
    offset = findToken(source, offset, ":");
    while (offset + 1 < source.length && strchr(": \t\n", source.data[offset]))
      ++offset;
  }
  MemoptStringBuffer text = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&text, message, (int)key.length, key.data);
  mlirEmitError(locationAt(context, source, sourceName, offset), text.data);
  memoptStringBufferDestroy(&text);
}

static MlirLogicalResult swallowDiagnostic(MlirDiagnostic diagnostic, void *userData) {
  (void)diagnostic;
  (void)userData;
  return mlirLogicalResultSuccess();
}

MlirLogicalResult reproducerRead(MlirContext context, MlirStringRef source,
                                 const char *sourceName, Reproducer *reproducer) {
  memset(reproducer, 0, sizeof *reproducer);
  size_t begin = findToken(source, 0, "{-#");
  if (begin == source.length)
    return mlirLogicalResultSuccess();
  size_t end = findToken(source, begin + 3, "#-}");
  if (end == source.length)
    return mlirLogicalResultSuccess(); /* the parser reported it */
  MemoptStringBuffer body = memoptStringBufferCreate();
  memoptStringBufferAppendCString(&body, "{");
  for (size_t from = begin + 3;;) {
    size_t colon = findToken(source, from, ":");
    if (colon > end)
      colon = end;
    memoptStringBufferAppend(&body, source.data + from, colon - from);
    if (colon == end)
      break;
    memoptStringBufferAppendCString(&body, " =");
    from = colon + 1;
  }
  memoptStringBufferAppendCString(&body, "}");
  /* The input parsed, so this does; its diagnostics would point into the copy. */
  MlirDiagnosticHandlerID quiet =
      mlirContextAttachDiagnosticHandler(context, swallowDiagnostic, NULL, NULL);
  MlirAttribute metadata =
      mlirAttributeParseGet(context, mlirStringRefCreate(body.data, body.length));
  mlirContextDetachDiagnosticHandler(context, quiet);
  memoptStringBufferDestroy(&body);
  if (mlirAttributeIsNull(metadata) || !mlirAttributeIsADictionary(metadata)) {
    mlirEmitError(locationAt(context, source, sourceName, begin),
                  "cannot read the file metadata for --run-reproducer");
    return mlirLogicalResultFailure();
  }
  MlirAttribute external = mlirDictionaryAttrGetElementByName(
      metadata, mlirStringRefCreateFromCString("external_resources"));
  if (mlirAttributeIsNull(external) || !mlirAttributeIsADictionary(external))
    return mlirLogicalResultSuccess();
  MlirAttribute entry = mlirDictionaryAttrGetElementByName(
      external, mlirStringRefCreateFromCString("mlir_reproducer"));
  if (mlirAttributeIsNull(entry) || !mlirAttributeIsADictionary(entry))
    return mlirLogicalResultSuccess();
  size_t entryOffset = findToken(source, begin, "mlir_reproducer");
  for (intptr_t i = 0; i < mlirDictionaryAttrGetNumElements(entry); ++i) {
    MlirNamedAttribute named = mlirDictionaryAttrGetElement(entry, i);
    MlirStringRef key = mlirIdentifierStr(named.name);
    MlirAttribute value = named.attribute;
    bool isPipeline = key.length == 8 && memcmp(key.data, "pipeline", 8) == 0;
    bool isThreading = key.length == 17 && memcmp(key.data, "disable_threading", 17) == 0;
    bool isVerify = key.length == 11 && memcmp(key.data, "verify_each", 11) == 0;
    /* mlir-opt's messages, at the key or at the value as there. */
    const char *problem = NULL;
    bool atValue = true;
    if (!isPipeline && !isThreading && !isVerify) {
      problem = "unknown 'mlir_reproducer' resource key '%.*s'";
      atValue = false;
    } else if (isPipeline && !mlirAttributeIsAString(value)) {
      problem = "expected string value for key '%.*s'";
    } else if (!isPipeline && !mlirAttributeIsABool(value)) {
      problem = "expected 'true' or 'false' value for key '%.*s'";
    }
    if (problem) {
      emitAtKey(context, source, sourceName, entryOffset, key, atValue, problem);
      reproducerDestroy(reproducer);
      return mlirLogicalResultFailure();
    }
    if (isPipeline) {
      MlirStringRef pipeline = mlirStringAttrGetValue(value);
      free(reproducer->pipeline);
      reproducer->pipeline = memoptStrndup(pipeline.data, pipeline.length);
    } else if (isThreading) {
      reproducer->hasDisableThreading = true;
      reproducer->disableThreading = mlirBoolAttrGetValue(value);
    } else {
      reproducer->hasVerifyEach = true;
      reproducer->verifyEach = mlirBoolAttrGetValue(value);
    }
  }
  return mlirLogicalResultSuccess();
}

void reproducerDestroy(Reproducer *reproducer) {
  free(reproducer->pipeline);
  reproducer->pipeline = NULL;
}

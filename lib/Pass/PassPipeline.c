/* Textual pass pipelines mixing memopt and upstream passes.
 *
 * Grammar (MLIR's): pipeline ::= op-name '(' elements ')'
 *                   elements ::= element (',' element)*
 *                   element  ::= op-name '(' elements ')' | pass-name ('{' options '}')?
 * memopt passes become external passes; upstream passes go to MLIR's parser
 * one element at a time. The C API's pass manager nests explicitly, so a pass
 * anchored on another op is nested under that op here, as mlir-opt does. */
#include "IR/IR.h"
#include "Pass/Pass.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef struct Parser {
  const char *text; /* the whole pipeline, for error offsets */
  const char *p;    /* the next character */
  MemoptStringBuffer *error;
  size_t *errorOffset;
} Parser;

static MlirLogicalResult fail(Parser *parser, const char *at) {
  *parser->errorOffset = (size_t)(at - parser->text);
  return mlirLogicalResultFailure();
}

static void skipSpace(Parser *parser) {
  while (isspace((unsigned char)*parser->p))
    ++parser->p;
}

static bool isNameChar(char c) {
  return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '-' || c == '$';
}

/* Returns the anchor named in an upstream "restricted to 'X'" error, or NULL. */
static char *restrictedAnchor(const char *message) {
  const char *marker = strstr(message, "restricted to '");
  if (!marker)
    return NULL;
  marker += strlen("restricted to '");
  const char *end = strchr(marker, '\'');
  return end ? memoptStrndup(marker, (size_t)(end - marker)) : NULL;
}

/* Keeps the first line of an upstream message, without MLIR's parser prefix,
 * and returns the column it names (1-based; 0 when none). */
static size_t appendUpstreamMessage(MemoptStringBuffer *error, const char *message) {
  size_t column = 0;
  const char *prefix = "MLIR Textual PassPipeline Parser:";
  if (memoptStartsWith(message, prefix)) {
    const char *p = message + strlen(prefix);
    char *end;
    strtol(p, &end, 10); /* line */
    if (*end == ':') {
      column = (size_t)strtol(end + 1, &end, 10);
      if (memoptStartsWith(end, ": error: "))
        message = end + strlen(": error: ");
    }
  }
  const char *optionsPrefix = "<Pass-Options-Parser>: ";
  if (memoptStartsWith(message, optionsPrefix))
    message += strlen(optionsPrefix);
  const char *newline = strchr(message, '\n');
  memoptStringBufferAppend(error, message, newline ? (size_t)(newline - message) : strlen(message));
  return column;
}

static MlirLogicalResult addMemoptPass(MlirOpPassManager passManager, const char *anchor,
                                       const MemoptPassInfo *pass, const char *options,
                                       MemoptStringBuffer *error, size_t *optionOffset) {
  MemoptPassOptions *values = memoptPassOptionsParse(pass, options, error, optionOffset);
  if (!values)
    return mlirLogicalResultFailure();
  if (*pass->anchor && strcmp(pass->anchor, anchor) != 0) {
    if (strcmp(anchor, "builtin.module") != 0) {
      memoptStringBufferAppendFormat(error, "pass '%s' runs on '%s' and cannot be nested under '%s'",
                                     pass->argument, pass->anchor, anchor);
      *optionOffset = 0;
      memoptPassOptionsDestroy(values);
      return mlirLogicalResultFailure();
    }
    passManager = mlirOpPassManagerGetNestedUnder(passManager,
                                                  mlirStringRefCreateFromCString(pass->anchor));
  }
  mlirOpPassManagerAddOwnedPass(passManager, memoptPassCreate(pass, values));
  memoptPassOptionsDestroy(values);
  return mlirLogicalResultSuccess();
}

static MlirLogicalResult addUpstreamPass(MlirOpPassManager passManager, const char *anchor,
                                         const char *name, const char *options,
                                         MemoptStringBuffer *error, size_t *column) {
  MemoptStringBuffer element = memoptStringBufferCreate();
  memoptStringBufferAppendCString(&element, name);
  if (*options)
    memoptStringBufferAppendFormat(&element, "{%s}", options);
  MemoptStringBuffer message = memoptStringBufferCreate();
  MlirStringRef text = mlirStringRefCreate(element.data, element.length);
  MlirLogicalResult result =
      mlirOpPassManagerAddPipeline(passManager, text, memoptAppendToBuffer, &message);
  char *nestUnder = mlirLogicalResultIsFailure(result) && strcmp(anchor, "builtin.module") == 0
                        ? restrictedAnchor(memoptStringBufferGet(&message))
                        : NULL;
  if (nestUnder) {
    /* Implicit nesting, as mlir-opt: run the pass on every nested op it is anchored on. */
    memoptStringBufferClear(&message);
    MlirOpPassManager nested =
        mlirOpPassManagerGetNestedUnder(passManager, mlirStringRefCreateFromCString(nestUnder));
    result = mlirOpPassManagerAddPipeline(nested, text, memoptAppendToBuffer, &message);
    free(nestUnder);
  }
  if (mlirLogicalResultIsFailure(result))
    *column = appendUpstreamMessage(error, memoptStringBufferGet(&message));
  memoptStringBufferDestroy(&message);
  memoptStringBufferDestroy(&element);
  return result;
}

static bool isUpstreamPass(const char *name) {
  for (size_t i = 0; i < memoptUpstreamPassCount(); ++i)
    if (strcmp(memoptUpstreamPassName(i), name) == 0)
      return true;
  return false;
}

static void appendUnknownPass(MemoptStringBuffer *error, const char *name) {
  memoptStringBufferAppendFormat(error, "'%s' is neither a memopt pass nor an upstream pass", name);
  MemoptStringBuffer suggestions = memoptStringBufferCreate();
  memoptPassSuggest(name, &suggestions);
  if (suggestions.length)
    memoptStringBufferAppendFormat(error, "; did you mean %s?", suggestions.data);
  memoptStringBufferDestroy(&suggestions);
}

/* Adds one pass with options text to `passManager` anchored on `anchor`;
 * `at` is where the pass name starts and `optionsAt` where its options do. */
static MlirLogicalResult addPass(Parser *parser, MlirOpPassManager passManager,
                                 const char *anchor, const char *name, const char *options,
                                 const char *at, const char *optionsAt) {
  const MemoptPassInfo *pass = memoptPassLookup(name, strlen(name));
  if (pass) {
    size_t optionOffset = 0;
    if (mlirLogicalResultIsFailure(
            addMemoptPass(passManager, anchor, pass, options, parser->error, &optionOffset)))
      return fail(parser, optionsAt ? optionsAt + optionOffset : at);
    return mlirLogicalResultSuccess();
  }
  if (!isUpstreamPass(name)) {
    appendUnknownPass(parser->error, name);
    return fail(parser, at);
  }
  size_t column = 0;
  if (mlirLogicalResultIsFailure(
          addUpstreamPass(passManager, anchor, name, options, parser->error, &column))) {
    /* MLIR's column counts in "name{options}"; map it back into the pipeline. */
    size_t nameLength = strlen(name);
    const char *where = at;
    if (column > nameLength + 1 && optionsAt)
      where = optionsAt + (column - nameLength - 2);
    return fail(parser, where);
  }
  return mlirLogicalResultSuccess();
}

static MlirLogicalResult parseElements(Parser *parser, MlirOpPassManager passManager,
                                       const char *anchor);

/* Parses one element: a nested pipeline or a pass with optional options. */
static MlirLogicalResult parseElement(Parser *parser, MlirOpPassManager passManager,
                                      const char *anchor) {
  skipSpace(parser);
  const char *nameBegin = parser->p;
  while (isNameChar(*parser->p))
    ++parser->p;
  if (parser->p == nameBegin) {
    memoptStringBufferAppendCString(parser->error, "expected a pass name or an op name");
    return fail(parser, nameBegin);
  }
  char *name = memoptStrndup(nameBegin, (size_t)(parser->p - nameBegin));
  skipSpace(parser);
  MlirLogicalResult result;
  if (*parser->p == '(') {
    ++parser->p;
    MlirOpPassManager nested =
        mlirOpPassManagerGetNestedUnder(passManager, mlirStringRefCreateFromCString(name));
    result = parseElements(parser, nested, name);
    if (mlirLogicalResultIsSuccess(result)) {
      if (*parser->p != ')') {
        memoptStringBufferAppendFormat(parser->error, "expected ')' to close '%s('", name);
        result = fail(parser, parser->p);
      } else {
        ++parser->p;
      }
    }
  } else if (*parser->p == '{') {
    const char *optionsBegin = parser->p + 1;
    int depth = 0;
    const char *end = parser->p;
    for (; *end; ++end) {
      if (*end == '{')
        ++depth;
      else if (*end == '}' && --depth == 0)
        break;
    }
    if (!*end) {
      memoptStringBufferAppendFormat(parser->error, "unbalanced '{' in the options of '%s'", name);
      free(name);
      return fail(parser, parser->p);
    }
    char *options = memoptStrndup(optionsBegin, (size_t)(end - optionsBegin));
    parser->p = end + 1;
    result = addPass(parser, passManager, anchor, name, options, nameBegin, optionsBegin);
    free(options);
  } else {
    result = addPass(parser, passManager, anchor, name, "", nameBegin, NULL);
  }
  free(name);
  return result;
}

static MlirLogicalResult parseElements(Parser *parser, MlirOpPassManager passManager,
                                       const char *anchor) {
  skipSpace(parser);
  if (*parser->p == ')')
    return mlirLogicalResultSuccess(); /* an empty pipeline */
  for (;;) {
    if (mlirLogicalResultIsFailure(parseElement(parser, passManager, anchor)))
      return mlirLogicalResultFailure();
    skipSpace(parser);
    if (*parser->p != ',')
      return mlirLogicalResultSuccess();
    ++parser->p;
  }
}

MlirLogicalResult memoptPipelineParse(MlirPassManager passManager, const char *pipeline,
                                      MemoptStringBuffer *error, size_t *errorOffset) {
  Parser parser = {pipeline, pipeline, error, errorOffset};
  skipSpace(&parser);
  const char *anchorBegin = parser.p;
  while (isNameChar(*parser.p))
    ++parser.p;
  size_t anchorLength = (size_t)(parser.p - anchorBegin);
  skipSpace(&parser);
  if (anchorLength != strlen("builtin.module") ||
      memcmp(anchorBegin, "builtin.module", anchorLength) != 0 || *parser.p != '(') {
    memoptStringBufferAppendCString(
        error, "a pass pipeline must be wrapped in the op it runs on: 'builtin.module(...)'");
    return fail(&parser, anchorBegin);
  }
  ++parser.p;
  MlirOpPassManager top = mlirPassManagerGetAsOpPassManager(passManager);
  if (mlirLogicalResultIsFailure(parseElements(&parser, top, "builtin.module")))
    return mlirLogicalResultFailure();
  if (*parser.p != ')') {
    memoptStringBufferAppendCString(error, "expected ',' or ')' in the pass pipeline");
    return fail(&parser, parser.p);
  }
  ++parser.p;
  skipSpace(&parser);
  if (*parser.p) {
    memoptStringBufferAppendCString(error, "unexpected text after the pass pipeline");
    return fail(&parser, parser.p);
  }
  return mlirLogicalResultSuccess();
}

MlirLogicalResult memoptPipelineAddPass(MlirPassManager passManager, const char *name,
                                        const char *options, MemoptStringBuffer *error) {
  size_t ignoredOffset;
  Parser parser = {name, name, error, &ignoredOffset};
  return addPass(&parser, mlirPassManagerGetAsOpPassManager(passManager), "builtin.module", name,
                 options, name, options);
}

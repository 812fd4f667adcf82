/* Parsing a source buffer into a module the way mlir-opt does. The C API's
 * mlirModuleCreateParse wraps top-level ops into a module but names the
 * source "-"; mlirOperationCreateParse takes a name but does not wrap. So the
 * module is parsed with the former and its locations renamed afterwards.
 *
 * One failure of MLIR's parser says nothing: an op of an IRDL dialect written
 * in custom form (`remat.dim_symbol() : ...`), since IRDL gives its ops only
 * the generic form and their parse hook fails silently. When parsing fails
 * without a diagnostic, the source is scanned for such an op to point at. */
#include "IR/IR.h"

#include <ctype.h>
#include <string.h>

typedef struct Rename {
  MlirContext context;
  MlirIdentifier unnamed;
  MlirStringRef sourceName;
} Rename;

static MlirLocation renamed(const Rename *rename, MlirLocation location) {
  if (!mlirLocationIsAFileLineColRange(location) ||
      !mlirIdentifierEqual(mlirLocationFileLineColRangeGetFilename(location), rename->unnamed))
    return location;
  return mlirLocationFileLineColRangeGet(
      rename->context, rename->sourceName,
      (unsigned)mlirLocationFileLineColRangeGetStartLine(location),
      (unsigned)mlirLocationFileLineColRangeGetStartColumn(location),
      (unsigned)mlirLocationFileLineColRangeGetEndLine(location),
      (unsigned)mlirLocationFileLineColRangeGetEndColumn(location));
}

static MlirWalkResult renameOp(MlirOperation op, void *userData) {
  const Rename *rename = userData;
  mlirOperationSetLocation(op, renamed(rename, mlirOperationGetLocation(op)));
  for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); ++r)
    for (MlirBlock block = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r));
         !mlirBlockIsNull(block); block = mlirBlockGetNextInRegion(block))
      for (intptr_t a = 0; a < mlirBlockGetNumArguments(block); ++a) {
        MlirValue argument = mlirBlockGetArgument(block, a);
        mlirBlockArgumentSetLocation(argument, renamed(rename, mlirValueGetLocation(argument)));
      }
  return MlirWalkResultAdvance;
}

/* Counts a diagnostic without handling it, so that the context's other
 * handlers still see it. */
static MlirLogicalResult countDiagnostic(MlirDiagnostic diagnostic, void *userData) {
  ++*(size_t *)userData;
  return mlirLogicalResultFailure();
}

static bool isIdentifierStart(char c) { return isalpha((unsigned char)c) || c == '_'; }

static bool isIdentifierChar(char c) {
  return isalnum((unsigned char)c) || c == '_' || c == '$' || c == '.';
}

/* Emits the error a silent parse failure lacks: at the first op of a memopt
 * (IRDL) dialect written in custom form, else at the start of the source. */
static void diagnoseSilentFailure(MlirContext context, MlirStringRef source,
                                  const char *sourceName) {
  const char *p = source.data, *end = source.data + source.length;
  unsigned line = 1, column = 1;
  char previous = ' ';
  while (p < end) {
    if (*p == '/' && p + 1 < end && p[1] == '/') {
      while (p < end && *p != '\n')
        ++p, ++column;
      continue;
    }
    if (*p == '"') {
      for (++p, ++column; p < end && *p != '"' && *p != '\n'; ++p, ++column)
        if (*p == '\\' && p + 1 < end && p[1] != '\n')
          ++p, ++column;
      previous = '"';
      if (p < end && *p == '"')
        ++p, ++column;
      continue;
    }
    if (isIdentifierStart(*p)) {
      const char *start = p;
      unsigned startColumn = column;
      while (p < end && isIdentifierChar(*p))
        ++p, ++column;
      const char *dot = memchr(start, '.', (size_t)(p - start));
      /* Value, block, symbol, type and attribute names are not op names. */
      bool named = strchr("%^@!#", previous) != NULL;
      MlirStringRef opName = mlirStringRefCreate(start, (size_t)(p - start));
      if (!named && dot &&
          memoptIsMemoptDialect(mlirStringRefCreate(start, (size_t)(dot - start))) &&
          mlirContextIsRegisteredOperation(context, opName)) {
        MemoptStringBuffer message = memoptStringBufferCreate();
        memoptStringBufferAppendFormat(
            &message,
            "'%.*s' is written in custom form, which memopt's ops do not have (their dialects "
            "are defined in IRDL): write it in generic form, \"%.*s\"(...) : (...) -> (...)",
            (int)opName.length, opName.data, (int)opName.length, opName.data);
        mlirEmitError(mlirLocationFileLineColGet(context, mlirStringRefCreateFromCString(sourceName),
                                                 line, startColumn),
                      message.data);
        memoptStringBufferDestroy(&message);
        return;
      }
      previous = p[-1];
      continue;
    }
    if (*p == '\n')
      ++line, column = 1;
    else
      ++column;
    previous = *p++;
  }
  mlirEmitError(mlirLocationFileLineColGet(context, mlirStringRefCreateFromCString(sourceName), 1, 1),
                "cannot parse the input, and MLIR's parser gave no reason");
}

MlirModule memoptParseModule(MlirContext context, MlirStringRef source, const char *sourceName) {
  size_t diagnostics = 0;
  MlirDiagnosticHandlerID counter =
      mlirContextAttachDiagnosticHandler(context, countDiagnostic, &diagnostics, NULL);
  MlirModule module = mlirModuleCreateParse(context, source);
  mlirContextDetachDiagnosticHandler(context, counter);
  if (mlirModuleIsNull(module) && diagnostics == 0)
    diagnoseSilentFailure(context, source, sourceName);
  if (mlirModuleIsNull(module))
    return module;
  MlirOperation root = mlirModuleGetOperation(module);
  if (strcmp(sourceName, "-") != 0) {
    Rename rename = {context, mlirIdentifierGet(context, mlirStringRefCreateFromCString("-")),
                     mlirStringRefCreateFromCString(sourceName)};
    mlirOperationWalk(root, renameOp, &rename, MlirWalkPreOrder);
  }
  /* The module wrapped around top-level ops is at line 0 of the file; an
   * error about the whole module then points at its first line. */
  MlirLocation location = mlirOperationGetLocation(root);
  if (mlirLocationIsAFileLineColRange(location) &&
      mlirLocationFileLineColRangeGetStartLine(location) == 0)
    mlirOperationSetLocation(
        root, mlirLocationFileLineColGet(
                  context, mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(location)),
                  1, 1));
  return module;
}

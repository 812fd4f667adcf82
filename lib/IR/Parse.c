/* Parsing a source buffer into a module the way mlir-opt does. The C API's
 * mlirModuleCreateParse wraps top-level ops into a module but names the
 * source "-"; mlirOperationCreateParse takes a name but does not wrap. So the
 * module is parsed with the former and its locations renamed afterwards.
 *
 * One failure of MLIR's parser says nothing: an op of an IRDL dialect written
 * in custom form (`remat.dim_symbol() : ...`), since IRDL gives its ops only
 * the generic form and their parse hook fails silently. When parsing fails
 * without a diagnostic, the source is scanned for such an op to point at.
 *
 * One op MLIR's verifier accepts cannot be printed: a tensor.pad whose
 * `low[...]` or `high[...]` holds -9223372036854775808, the marker of a
 * padding given by an operand, without that operand. Its printer reads an
 * operand past the end (SIGSEGV in mlir-opt too); the slice ops' verifier
 * checks the same counts, tensor.pad's does not. Such a pad is rejected
 * here, with the slice ops' message. */
#include "IR/IR.h"

#include "mlir-c/BuiltinAttributes.h"

#include <ctype.h>
#include <stdint.h>
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

/* Checks that list `list` (0: low, 1: high) of the tensor.pad `pad` has
 * as many operands as its static list has dynamic markers; emits the error
 * at the pad and returns false when not. */
static bool padListMatches(MlirOperation pad, intptr_t list) {
  static const char *const names[] = {"low", "high"};
  static const char *const staticNames[] = {"static_low", "static_high"};
  MlirAttribute values =
      mlirOperationGetAttributeByName(pad, mlirStringRefCreateFromCString(staticNames[list]));
  MlirAttribute segments =
      mlirOperationGetAttributeByName(pad, mlirStringRefCreateFromCString("operandSegmentSizes"));
  /* MLIR's verifier checked the kinds and that the segments cover the operands. */
  if (!mlirAttributeIsADenseI64Array(values) || !mlirAttributeIsADenseI32Array(segments) ||
      mlirDenseArrayGetNumElements(segments) != 3)
    return true;
  intptr_t markers = 0;
  for (intptr_t i = 0; i < mlirDenseArrayGetNumElements(values); ++i)
    markers += mlirDenseI64ArrayGetElement(values, i) == INT64_MIN;
  int32_t operands = mlirDenseI32ArrayGetElement(segments, 1 + list);
  if (markers == operands)
    return true;
  memoptEmitOpError(pad,
                    "expected the number of '%s' to match the number of dynamic entries in '%s' "
                    "(%d vs %ld): %lld is the marker of a padding given by an operand",
                    names[list], staticNames[list], (int)operands, (long)markers,
                    (long long)INT64_MIN);
  return false;
}

static MlirWalkResult checkPrintable(MlirOperation op, void *userData) {
  if (memoptOperationIsA(op, "tensor.pad") && !(padListMatches(op, 0) && padListMatches(op, 1))) {
    *(bool *)userData = false;
    return MlirWalkResultInterrupt;
  }
  return MlirWalkResultAdvance;
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
  bool printable = true;
  mlirOperationWalk(root, checkPrintable, &printable, MlirWalkPreOrder);
  if (!printable) {
    mlirModuleDestroy(module);
    return (MlirModule){NULL};
  }
  return module;
}

MlirOperation memoptParseOperation(MlirContext context, MlirStringRef source,
                                   const char *sourceName) {
  size_t diagnostics = 0;
  MlirDiagnosticHandlerID counter =
      mlirContextAttachDiagnosticHandler(context, countDiagnostic, &diagnostics, NULL);
  MlirOperation root =
      mlirOperationCreateParse(context, source, mlirStringRefCreateFromCString(sourceName));
  mlirContextDetachDiagnosticHandler(context, counter);
  if (mlirOperationIsNull(root)) {
    if (diagnostics == 0)
      diagnoseSilentFailure(context, source, sourceName);
    return root;
  }
  bool printable = true;
  mlirOperationWalk(root, checkPrintable, &printable, MlirWalkPreOrder);
  if (!printable) {
    mlirOperationDestroy(root);
    return (MlirOperation){NULL};
  }
  return root;
}

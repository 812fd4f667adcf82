/* Parsing a source buffer into a module the way mlir-opt does. The C API's
 * mlirModuleCreateParse wraps top-level ops into a module but names the
 * source "-"; mlirOperationCreateParse takes a name but does not wrap. So the
 * module is parsed with the former and its locations renamed afterwards. */
#include "IR/IR.h"

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

MlirModule memoptParseModule(MlirContext context, const char *source, const char *sourceName) {
  MlirModule module = mlirModuleCreateParse(context, mlirStringRefCreateFromCString(source));
  if (mlirModuleIsNull(module) || strcmp(sourceName, "-") == 0)
    return module;
  Rename rename = {context, mlirIdentifierGet(context, mlirStringRefCreateFromCString("-")),
                   mlirStringRefCreateFromCString(sourceName)};
  mlirOperationWalk(mlirModuleGetOperation(module), renameOp, &rename, MlirWalkPreOrder);
  return module;
}

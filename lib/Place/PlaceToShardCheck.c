/* What place-to-shard checks before it changes anything: where the stages
 * are, what is outside them, what refers to the functions it removes, and,
 * for the pipeline driver, that each stage of a pipeline runs on one device
 * (memoptPipelineDriverCheck). Every problem is a located error. */
#include "IR/IR.h"
#include "Place/Place.h"
#include "Place/PlaceToShard.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/IR.h"

#include <stdlib.h>

bool memoptPlaceHoldsStages(MlirOperation func) {
  if (!memoptOperationIsA(func, "func.func"))
    return false;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  for (MlirOperation op = mlirBlockIsNull(body) ? (MlirOperation){NULL}
                                                : mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op))
    if (memoptOperationIsA(op, "place.stage"))
      return true;
  return false;
}

/* What the checks before lowering share: the functions that hold stages
 * (all removed), and whether an error was reported. */
typedef struct StageCheck {
  MlirOperation *staged;
  size_t count, capacity;
  bool failed;
} StageCheck;

/* Reports a place.stage that is not directly in a function body (its
 * function would not be outlined around it), and an op that refers to a
 * function about to be removed. */
static MlirWalkResult checkNestingAndUses(MlirOperation op, void *userData) {
  StageCheck *check = userData;
  if (memoptOperationIsA(op, "place.stage")) {
    MlirOperation parent = mlirOperationGetParentOperation(op);
    if (!memoptOperationIsA(parent, "func.func")) {
      MlirStringRef parentName = mlirIdentifierStr(mlirOperationGetName(parent));
      memoptEmitOpDiagnostic(op, MlirDiagnosticError,
                             "place-to-shard: a place.stage must be directly in a function "
                             "body, this one is in '%.*s'",
                             (int)parentName.length, parentName.data);
      check->failed = true;
    }
  }
  for (intptr_t a = 0; a < mlirOperationGetNumAttributes(op); ++a) {
    MlirAttribute attr = mlirOperationGetAttribute(op, a).attribute;
    if (!mlirAttributeIsAFlatSymbolRef(attr))
      continue;
    MlirStringRef target = mlirFlatSymbolRefAttrGetValue(attr);
    for (size_t f = 0; f < check->count; ++f) {
      MlirStringRef name = mlirStringAttrGetValue(mlirOperationGetAttributeByName(
          check->staged[f], mlirSymbolTableGetSymbolAttributeName()));
      if (!mlirStringRefEqual(name, target) || memoptOperationIsInside(op, check->staged[f]))
        continue;
      memoptEmitOpDiagnostic(op, MlirDiagnosticError,
                             "place-to-shard: refers to @%.*s, which holds place.stage ops: its "
                             "stages become functions of their own and it is removed",
                             (int)name.length, name.data);
      check->failed = true;
    }
  }
  return MlirWalkResultAdvance;
}

/* Checks a function that holds stages: every stage holds ops, and nothing
 * but stages, constants (cloned into the stages that use them), the casts
 * that unpack a stage's packed results and the return is outside them,
 * since the function is removed. */
static bool checkStagedFunction(MlirOperation func) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  bool ok = true;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (memoptOperationIsA(op, "place.stage")) {
      /* Stages with empty bodies describe layers the IR does not hold. */
      MlirBlock stageBody = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
      if (mlirOperationEqual(mlirBlockGetFirstOperation(stageBody),
                             mlirBlockGetTerminator(stageBody))) {
        memoptEmitDiagnostic(mlirOperationGetLocation(op), MlirDiagnosticError,
                             "place-to-shard: this stage holds no ops: place-search describes "
                             "stages by layer range when one layer stands for many (layers=N)");
        ok = false;
      }
    } else if (!memoptOperationIsA(op, "arith.constant") &&
               !memoptOperationIsA(op, "func.return") && !memoptPlaceIsStageUnpack(op)) {
      MlirStringRef funcName = mlirStringAttrGetValue(
          mlirOperationGetAttributeByName(func, mlirSymbolTableGetSymbolAttributeName()));
      memoptEmitOpDiagnostic(op, MlirDiagnosticError,
                             "place-to-shard: op outside every place.stage of @%.*s: the stages "
                             "become functions of their own and @%.*s is removed, so it would be "
                             "lost; put it in a stage",
                             (int)funcName.length, funcName.data, (int)funcName.length,
                             funcName.data);
      ok = false;
    }
  }
  return ok;
}

bool memoptPlaceToShardCheck(MlirOperation module, bool driven) {
  MlirBlock moduleBody = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  StageCheck check = {NULL, 0, 0, false};
  for (MlirOperation op = mlirBlockGetFirstOperation(moduleBody); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (memoptPlaceHoldsStages(op)) {
      check.failed |= !checkStagedFunction(op);
      check.failed |= driven && memoptPlaceStageCount(op) > 1 && !memoptPipelineDriverCheck(op);
      check.staged =
          memoptGrowArray(check.staged, &check.capacity, check.count + 1, sizeof *check.staged);
      check.staged[check.count++] = op;
    }
  mlirOperationWalk(module, checkNestingAndUses, &check, MlirWalkPreOrder);
  free(check.staged);
  return !check.failed;
}

intptr_t memoptPlaceStageCount(MlirOperation func) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  intptr_t count = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    count += memoptOperationIsA(op, "place.stage");
  return count;
}

/* Nesting of ops and redirecting the uses of a value by where its users sit:
 * what every pass that moves ops into or out of a region needs. */
#include "IR/IR.h"

#include <stdlib.h>

bool memoptOperationIsInside(MlirOperation op, MlirOperation ancestor) {
  for (; !mlirOperationIsNull(op); op = mlirOperationGetParentOperation(op))
    if (mlirOperationEqual(op, ancestor))
      return true;
  return false;
}

bool memoptValueIsReadInRegion(MlirValue value, MlirBlock block) {
  for (MlirOpOperand use = mlirValueGetFirstUse(value); !mlirOpOperandIsNull(use);
       use = mlirOpOperandGetNextUse(use))
    if (!mlirBlockEqual(mlirOperationGetBlock(mlirOpOperandGetOwner(use)), block))
      return true;
  return false;
}

bool memoptValueHasOneUse(MlirValue value) {
  MlirOpOperand use = mlirValueGetFirstUse(value);
  return !mlirOpOperandIsNull(use) && mlirOpOperandIsNull(mlirOpOperandGetNextUse(use));
}

MlirOperation memoptOperationAncestorInBlock(MlirOperation op, MlirBlock block) {
  while (!mlirOperationIsNull(op) && !mlirBlockEqual(mlirOperationGetBlock(op), block))
    op = mlirOperationGetParentOperation(op);
  return op;
}

bool memoptValueIsDefinedInside(MlirValue value, MlirOperation ancestor) {
  MlirOperation owner = mlirValueIsAOpResult(value)
                            ? mlirOpResultGetOwner(value)
                            : mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(value));
  return !mlirOperationIsNull(owner) && memoptOperationIsInside(owner, ancestor);
}

typedef struct CaptureWalk {
  MlirOperation root;
  MemoptValueVisitor visit;
  void *userData;
  bool stopped;
} CaptureWalk;

static MlirWalkResult visitCaptures(MlirOperation op, void *userData) {
  CaptureWalk *walk = userData;
  if (mlirOperationEqual(op, walk->root))
    return MlirWalkResultAdvance;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i) {
    MlirValue value = mlirOperationGetOperand(op, i);
    if (!memoptValueIsDefinedInside(value, walk->root) && !walk->visit(value, walk->userData)) {
      walk->stopped = true;
      return MlirWalkResultInterrupt;
    }
  }
  return MlirWalkResultAdvance;
}

bool memoptOperationForEachCapture(MlirOperation op, MemoptValueVisitor visit, void *userData) {
  CaptureWalk walk = {op, visit, userData, false};
  mlirOperationWalk(op, visitCaptures, &walk, MlirWalkPreOrder);
  return !walk.stopped;
}

void memoptValueReplaceUsesByScope(MlirValue from, MlirValue to, MlirOperation scope,
                                   bool inside) {
  /* Collect first: rewriting a use unlinks it from the list being walked. */
  intptr_t count = 0;
  for (MlirOpOperand use = mlirValueGetFirstUse(from); !mlirOpOperandIsNull(use);
       use = mlirOpOperandGetNextUse(use))
    ++count;
  MlirOperation *owners = memoptAllocateZeroed((size_t)count, sizeof *owners);
  unsigned *numbers = memoptAllocateZeroed((size_t)count, sizeof *numbers);
  count = 0;
  for (MlirOpOperand use = mlirValueGetFirstUse(from); !mlirOpOperandIsNull(use);
       use = mlirOpOperandGetNextUse(use), ++count) {
    owners[count] = mlirOpOperandGetOwner(use);
    numbers[count] = mlirOpOperandGetOperandNumber(use);
  }
  for (intptr_t i = 0; i < count; ++i)
    if (memoptOperationIsInside(owners[i], scope) == inside)
      mlirOperationSetOperand(owners[i], numbers[i], to);
  free(numbers);
  free(owners);
}

MlirOperation *memoptBlockGetOperations(MlirBlock block, size_t *count) {
  *count = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    ++*count;
  MlirOperation *ops = memoptAllocateZeroed(*count ? *count : 1, sizeof *ops);
  size_t index = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    ops[index++] = op;
  return ops;
}

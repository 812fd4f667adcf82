/* Writing a Pin-or-Fuse plan into the IR: each fused group becomes an
 * spm.group holding its layers (with their pads and output initializations),
 * and each pinned output is wrapped in an spm.pin with its SPM offset. */
#include "Spm/Spm.h"
#include "Spm/Transforms/SpmPinFuse.h"

#include "IR/IR.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdlib.h>

static bool inGroup(const MemoptLayerGraph *graph, const SpmGroup *group, MlirOperation op) {
  intptr_t owner = memoptLayerGraphOwner(graph, op);
  return owner >= (intptr_t)group->first && owner <= (intptr_t)group->last;
}

/* Collects the values the group's ops define and ops outside it use. */
static size_t groupOutputs(const MemoptLayerGraph *graph, const SpmGroup *group, MlirBlock body,
                           MlirValue *outputs, size_t capacity) {
  size_t count = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!inGroup(graph, group, op))
      continue;
    for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r) {
      MlirValue result = mlirOperationGetResult(op, r);
      bool usedOutside = false;
      for (MlirOpOperand use = mlirValueGetFirstUse(result); !mlirOpOperandIsNull(use);
           use = mlirOpOperandGetNextUse(use))
        if (!inGroup(graph, group,
                     memoptOperationAncestorInBlock(mlirOpOperandGetOwner(use), body)))
          usedOutside = true;
      if (usedOutside) {
        if (count < capacity)
          outputs[count] = result;
        ++count;
      }
    }
  }
  return count;
}

static bool definedBy(MlirValue value, MlirOperation op) {
  return mlirValueIsAOpResult(value) && mlirOperationEqual(mlirOpResultGetOwner(value), op);
}

/* Builds the spm.group of `group`; returns false (changing nothing) when it
 * would have more outputs than the op has slots. */
static bool buildGroup(const MemoptLayerGraph *graph, const SpmPlan *plan, const SpmGroup *group,
                       MlirBlock body) {
  MlirValue outputs[MEMOPT_MAX_SLOTS];
  size_t outputCount = groupOutputs(graph, group, body, outputs, MEMOPT_MAX_SLOTS);
  if (outputCount > MEMOPT_MAX_SLOTS)
    return false;
  MlirOperation firstOwned = {NULL}, lastOwned = {NULL};
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (inGroup(graph, group, op)) {
      if (mlirOperationIsNull(firstOwned))
        firstOwned = op;
      lastOwned = op;
    }
  const MemoptLayer *last = memoptLayerGraphAt(graph, group->last);
  MlirContext context = mlirOperationGetContext(last->op);
  MlirLocation location = mlirOperationGetLocation(last->op);
  MlirType outputType = mlirValueGetType(last->output);
  int64_t tile[16];
  intptr_t rank = mlirShapedTypeGetRank(outputType);
  for (intptr_t d = 0; d < rank && d < 16; ++d)
    tile[d] = d == last->rowDim ? group->tileRows : mlirShapedTypeGetDimSize(outputType, d);

  MlirType resultTypes[MEMOPT_MAX_SLOTS];
  for (size_t i = 0; i < outputCount; ++i)
    resultTypes[i] = mlirValueGetType(outputs[i]);
  MlirRegion region = mlirRegionCreate();
  MlirBlock block = mlirBlockCreate(0, NULL, NULL);
  mlirRegionAppendOwnedBlock(region, block);
  MlirOperationState yieldState =
      mlirOperationStateGet(mlirStringRefCreateFromCString(MEMOPT_REGION_TERMINATOR), location);
  mlirOperationStateAddOperands(&yieldState, (intptr_t)outputCount, outputs);
  MlirOperation yield = mlirOperationCreate(&yieldState);
  mlirBlockAppendOwnedOperation(block, yield);
  MlirNamedAttribute attributes[] = {
      mlirNamedAttributeGet(mlirIdentifierGet(context, mlirStringRefCreateFromCString("tile")),
                            mlirDenseI64ArrayGet(context, rank < 16 ? rank : 16, tile)),
      memoptSlotSegments(context, "resultSegmentSizes", (intptr_t)outputCount),
  };
  MlirOperationState state =
      mlirOperationStateGet(mlirStringRefCreateFromCString("spm.group"), location);
  mlirOperationStateAddResults(&state, (intptr_t)outputCount, resultTypes);
  mlirOperationStateAddAttributes(&state, 2, attributes);
  mlirOperationStateAddOwnedRegions(&state, 1, &region);
  MlirOperation groupOp = mlirOperationCreate(&state);
  mlirBlockInsertOwnedOperationAfter(body, lastOwned, groupOp);

  /* The ops in between that stay outside, in order, before moving the group's. */
  size_t betweenCount = 0, betweenCapacity = 16;
  MlirOperation *between = memoptAllocateZeroed(betweenCapacity, sizeof *between);
  for (MlirOperation op = firstOwned; !mlirOperationEqual(op, groupOp);) {
    MlirOperation next = mlirOperationGetNextInBlock(op);
    if (inGroup(graph, group, op)) {
      mlirOperationMoveBefore(op, yield);
    } else {
      if (betweenCount == betweenCapacity) {
        betweenCapacity *= 2;
        between = memoptReallocArray(between, betweenCapacity, sizeof *between);
      }
      between[betweenCount++] = op;
    }
    op = next;
  }
  for (size_t i = 0; i < outputCount; ++i)
    memoptValueReplaceUsesByScope(outputs[i], mlirOperationGetResult(groupOp, (intptr_t)i), groupOp, false);
  /* Ops that stayed outside but read the group's results move after it. */
  MlirOperation insertAfter = groupOp;
  size_t movedCount = 0;
  for (size_t i = 0; i < betweenCount; ++i) {
    bool depends = false;
    for (intptr_t o = 0; o < mlirOperationGetNumOperands(between[i]) && !depends; ++o) {
      MlirValue operand = mlirOperationGetOperand(between[i], o);
      depends = definedBy(operand, groupOp);
      for (size_t m = 0; m < movedCount && !depends; ++m)
        depends = definedBy(operand, between[m]);
    }
    if (depends) {
      mlirOperationMoveAfter(between[i], insertAfter);
      insertAfter = between[i];
      between[movedCount++] = between[i];
    }
  }
  free(between);

  /* Pinned outputs stay in the SPM until their last reader. */
  for (size_t i = 0; i < outputCount; ++i)
    for (size_t l = group->first; l <= group->last; ++l) {
      const MemoptLayer *layer = memoptLayerGraphAt(graph, l);
      if (!plan->pinned[l] || !mlirValueEqual(layer->output, outputs[i]))
        continue;
      MlirValue result = mlirOperationGetResult(groupOp, (intptr_t)i);
      uint64_t size = memoptLayerBytes(graph, l, &(MemoptSpmTarget){.elementBytes = 0});
      MlirType i64 = mlirIntegerTypeGet(context, 64);
      MlirNamedAttribute pinAttributes[] = {
          mlirNamedAttributeGet(
              mlirIdentifierGet(context, mlirStringRefCreateFromCString("offset")),
              mlirIntegerAttrGet(i64, (int64_t)plan->offsets[l])),
          mlirNamedAttributeGet(mlirIdentifierGet(context, mlirStringRefCreateFromCString("size")),
                                mlirIntegerAttrGet(i64, (int64_t)size)),
      };
      MlirOperationState pinState = mlirOperationStateGet(
          mlirStringRefCreateFromCString("spm.pin"), mlirOperationGetLocation(layer->op));
      MlirType type = mlirValueGetType(result);
      mlirOperationStateAddOperands(&pinState, 1, &result);
      mlirOperationStateAddResults(&pinState, 1, &type);
      mlirOperationStateAddAttributes(&pinState, 2, pinAttributes);
      MlirOperation pin = mlirOperationCreate(&pinState);
      mlirBlockInsertOwnedOperationAfter(body, groupOp, pin);
      mlirValueReplaceAllUsesExcept(result, mlirOperationGetResult(pin, 0), 1, &pin);
    }
  return true;
}

size_t spmEmitPlan(const MemoptLayerGraph *graph, const SpmPlan *plan, MlirOperation func) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  size_t built = 0;
  for (size_t g = 0; g < plan->groupCount; ++g)
    built += buildGroup(graph, plan, &plan->groups[g], body);
  return built;
}

/* print-dimension-flow: reports dimension flow as remarks, for tests and for
 * users asking why a region does or does not chunk. `mode=ops` reports, for
 * every dimension of every tensor result of the function's ops, where it comes
 * from in each operand, and for every loop an op reduces, whether chunks of it
 * can be combined (summed or maximized) and how; `mode=function` plans the whole body (all ops but the
 * terminator) as one chunk region along each dimension of its primary output. */
#include "Analysis/Analysis.h"
#include "IR/IR.h"
#include "Chunk/Chunk.h"

#include "mlir-c/BuiltinTypes.h"

#include <stdlib.h>
#include <string.h>

static void appendOperand(MemoptStringBuffer *out, MlirValue value, MlirAsmState state) {
  memoptStringBufferAppendCString(out, "");
  mlirValuePrintAsOperand(value, state, memoptAppendToBuffer, out);
}

static void reportOp(MlirOperation op) {
  intptr_t operandCount = mlirOperationGetNumOperands(op);
  MemoptOperandFlow *flows = memoptAllocateZeroed((size_t)operandCount, sizeof *flows);
  for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r) {
    MlirType type = mlirValueGetType(mlirOperationGetResult(op, r));
    if (!mlirTypeIsARankedTensor(type))
      continue;
    for (int64_t d = 0; d < mlirShapedTypeGetRank(type); ++d) {
      MemoptStringBuffer message = memoptStringBufferCreate();
      memoptStringBufferAppendFormat(&message, "result #%ld dim %lld: ", (long)r, (long long)d);
      MemoptStringBuffer reason = memoptStringBufferCreate();
      MemoptDimFlowStatus status = memoptDimFlowThroughOp(op, r, d, flows, &reason);
      if (status == MemoptDimFlowReduced)
        memoptStringBufferAppendFormat(&message, "reduced: %s", reason.data);
      else if (status == MemoptDimFlowUnsupported)
        memoptStringBufferAppendFormat(&message, "blocked: %s", reason.data);
      else if (operandCount == 0)
        memoptStringBufferAppendCString(&message, "no operands");
      for (intptr_t i = 0; status == MemoptDimFlowOk && i < operandCount; ++i) {
        if (flows[i].kind == MemoptOperandFlowMapped)
          memoptStringBufferAppendFormat(&message, "%soperand #%ld dim %lld", i ? ", " : "",
                                         (long)i, (long long)flows[i].dim);
        else
          memoptStringBufferAppendFormat(&message, "%soperand #%ld whole", i ? ", " : "", (long)i);
      }
      int64_t indexedLoop = memoptDimFlowIndexedLoop(op, r, d);
      if (status == MemoptDimFlowOk && indexedLoop >= 0)
        memoptStringBufferAppendFormat(&message, "; reads the index of loop %lld (offset per chunk)",
                                       (long long)indexedLoop);
      memoptEmitDiagnostic(mlirOperationGetLocation(op), MlirDiagnosticRemark, message.data);
      memoptStringBufferDestroy(&reason);
      memoptStringBufferDestroy(&message);
    }
  }
  free(flows);
}

/* Reports each loop `op` reduces: whether chunks of it can each compute a
 * partial result that a combiner joins, and how the operands are sliced. */
static void reportReducedLoops(MlirOperation op) {
  intptr_t operandCount = mlirOperationGetNumOperands(op);
  MemoptOperandFlow *flows = memoptAllocateZeroed((size_t)operandCount, sizeof *flows);
  for (int64_t loop = 0; loop < memoptDimFlowLoopCount(op); ++loop) {
    if (!memoptDimFlowLoopIsReduced(op, loop))
      continue;
    MemoptStringBuffer message = memoptStringBufferCreate();
    MemoptStringBuffer reason = memoptStringBufferCreate();
    MemoptChunkCombiner combiner = MemoptChunkCombineConcat;
    memoptStringBufferAppendFormat(&message, "reduced loop %lld: ", (long long)loop);
    if (memoptDimFlowThroughCombinedLoop(op, 0, loop, flows, &combiner, &reason) !=
        MemoptDimFlowOk)
      memoptStringBufferAppendFormat(&message, "not combinable: %s", reason.data);
    else
      memoptStringBufferAppendFormat(&message, "combined by %s: ", memoptChunkCombinerName(combiner));
    for (intptr_t i = 0; reason.length == 0 && i < operandCount; ++i) {
      if (flows[i].kind == MemoptOperandFlowMapped)
        memoptStringBufferAppendFormat(&message, "%soperand #%ld dim %lld", i ? ", " : "", (long)i,
                                       (long long)flows[i].dim);
      else
        memoptStringBufferAppendFormat(&message, "%soperand #%ld whole", i ? ", " : "", (long)i);
    }
    memoptEmitDiagnostic(mlirOperationGetLocation(op), MlirDiagnosticRemark, message.data);
    memoptStringBufferDestroy(&reason);
    memoptStringBufferDestroy(&message);
  }
  free(flows);
}

/* Plans the whole body along each dimension of its primary output. */
static void reportFunction(MlirOperation func, MlirBlock body) {
  MlirOperation first = mlirBlockGetFirstOperation(body);
  MlirOperation terminator = mlirBlockGetTerminator(body);
  if (mlirOperationIsNull(first) || mlirOperationEqual(first, terminator))
    return;
  if (mlirOperationGetNumOperands(terminator) == 0) {
    memoptEmitDiagnostic(mlirOperationGetLocation(func), MlirDiagnosticRemark,
                         "no chunk dim: the function returns no value");
    return;
  }
  MlirOperation last = first;
  while (!mlirOperationEqual(mlirOperationGetNextInBlock(last), terminator))
    last = mlirOperationGetNextInBlock(last);
  MlirOpPrintingFlags flags = mlirOpPrintingFlagsCreate();
  MlirAsmState state = mlirAsmStateCreateForOperation(func, flags);
  MlirType outputType = mlirValueGetType(mlirOperationGetOperand(terminator, 0));
  int64_t rank = mlirTypeIsARankedTensor(outputType) ? mlirShapedTypeGetRank(outputType) : 0;
  for (int64_t d = 0; d < rank; ++d) {
    MemoptStringBuffer message = memoptStringBufferCreate();
    MemoptStringBuffer reason = memoptStringBufferCreate();
    memoptStringBufferAppendFormat(&message, "chunk dim %lld: ", (long long)d);
    MemoptChunkPlan *plan = memoptChunkPlanCreate(first, last, d, &reason);
    if (!plan) {
      memoptStringBufferAppendFormat(&message, "illegal: %s", reason.data);
    } else {
      memoptStringBufferAppendFormat(&message, "extent %lld, inputs",
                                     (long long)memoptChunkPlanExtent(plan));
      for (intptr_t i = 0; i < memoptChunkPlanNumInputs(plan); ++i) {
        int64_t dim;
        MlirValue input = memoptChunkPlanInput(plan, i, &dim);
        memoptStringBufferAppendCString(&message, i ? ", " : " ");
        appendOperand(&message, input, state);
        memoptStringBufferAppendFormat(&message, " dim %lld", (long long)dim);
      }
      memoptStringBufferAppendCString(&message, "; outputs");
      for (intptr_t i = 0; i < memoptChunkPlanNumOutputs(plan); ++i) {
        int64_t dim;
        MlirValue output = memoptChunkPlanOutput(plan, i, &dim);
        memoptStringBufferAppendCString(&message, i ? ", " : " ");
        appendOperand(&message, output, state);
        memoptStringBufferAppendFormat(&message, " dim %lld", (long long)dim);
      }
      intptr_t hoisted = 0;
      for (intptr_t i = 0; i < memoptChunkPlanNumOps(plan); ++i)
        hoisted += memoptChunkPlanOpIsHoisted(plan, i);
      memoptStringBufferAppendFormat(&message, "; %ld of %ld ops hoisted", (long)hoisted,
                                     (long)memoptChunkPlanNumOps(plan));
      memoptChunkPlanDestroy(plan);
    }
    memoptEmitDiagnostic(mlirOperationGetLocation(func), MlirDiagnosticRemark, message.data);
    memoptStringBufferDestroy(&reason);
    memoptStringBufferDestroy(&message);
  }
  mlirAsmStateDestroy(state);
  mlirOpPrintingFlagsDestroy(flags);
}

static MlirLogicalResult runPrintDimensionFlow(MlirOperation func,
                                               const MemoptPassOptions *options) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  if (mlirBlockIsNull(body))
    return mlirLogicalResultSuccess(); /* a declaration */
  if (strcmp(memoptPassOptionsGetString(options, "mode"), "function") == 0) {
    reportFunction(func, body);
    return mlirLogicalResultSuccess();
  }
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    reportOp(op);
    reportReducedLoops(op);
  }
  return mlirLogicalResultSuccess();
}

static const MemoptPassOptionInfo printDimensionFlowOptions[] = {
    {"mode", MemoptOptionChoice, "ops",
     "ops: flow through each op; function: plan the whole body as one chunk region",
     "ops|function", 0, 0},
};

const MemoptPassInfo memoptPrintDimensionFlowPass = {
    .argument = "print-dimension-flow",
    .summary = "Report how each result dimension flows to the operands, as remarks",
    .anchor = "func.func",
    .options = printDimensionFlowOptions,
    .optionCount = sizeof printDimensionFlowOptions / sizeof *printDimensionFlowOptions,
    .run = runPrintDimensionFlow,
};

/* place-costs: reports the layers place-search recognizes in a function and
 * what its ops cost on an accelerator configuration, without changing the
 * IR. One remark on the function gives the layer structure, one per segment
 * (prologue, first layer, epilogue) its summary and, with per-op, one per op
 * its unit, work, cycles, traffic and time. */
#include "IR/IR.h"
#include "Place/Place.h"
#include "Place/Place.h"

#include <stdlib.h>

static const MemoptPassOptionInfo options[] = {
    {"per-op", MemoptOptionBool, "false", "Emit the cost of every op", NULL, 0, 0},
    {"batch-scale", MemoptOptionFloat, "1", "Scale the batch of the IR by this factor", NULL, 1e-9,
     1e9},
    {"schedule", MemoptOptionBool, "false",
     "Also schedule the first layer's ops with the list scheduler and the ILP", NULL, 0, 0},
    {"ilp-time-limit", MemoptOptionFloat, "10", "Seconds the ILP may take", NULL, 0, 1e6},
    {"ilp-gap", MemoptOptionFloat, "0.01", "Relative optimality gap of the ILP", NULL, 0, 1},
    MEMOPT_PLACE_ACCELERATOR_OPTIONS,
};

MemoptAcceleratorConfig memoptPlaceAccelerator(const MemoptPassOptions *options) {
  return (MemoptAcceleratorConfig){
      memoptPassOptionsGetInteger(options, "tensor-cores"),
      memoptPassOptionsGetInteger(options, "width"),
      memoptPassOptionsGetInteger(options, "depth"),
      memoptPassOptionsGetInteger(options, "vector-cores"),
      memoptPassOptionsGetInteger(options, "vector-width"),
      (uint64_t)memoptPassOptionsGetInteger(options, "buffer"),
      memoptPassOptionsGetFloat(options, "frequency"),
      memoptPassOptionsGetFloat(options, "memory-bandwidth"),
      (uint64_t)memoptPassOptionsGetInteger(options, "bytes-per-element"),
  };
}

static const char *unitName(MemoptOpUnit unit) {
  return unit == MemoptOpUnitTensor ? "tensor" : unit == MemoptOpUnitVector ? "vector" : "none";
}

static MlirOperation opAt(MlirBlock block, size_t index) {
  MlirOperation op = mlirBlockGetFirstOperation(block);
  for (size_t i = 0; i < index; ++i)
    op = mlirOperationGetNextInBlock(op);
  return op;
}

static bool reportSegment(MlirOperation func, const char *what, size_t first, size_t count,
                          const MemoptAcceleratorConfig *config, size_t dataArguments,
                          double scale) {
  if (count == 0)
    return true;
  MemoptSegmentCost cost;
  MemoptStringBuffer reason = memoptStringBufferCreate();
  MlirBlock block = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  bool ok =
      memoptSegmentCostEstimate(func, first, count, dataArguments, config, scale, &cost, &reason);
  if (ok)
    memoptEmitOpDiagnostic(
        opAt(block, first), MlirDiagnosticRemark,
        "%s: %zu ops (%zu tensor, %zu vector), forward %.6g s, %.6g flops, %.0f parameter "
        "elements, %.0f activation elements, %.0f input elements",
        what, count, cost.tensorOps, cost.vectorOps, cost.forwardSeconds, cost.flops,
        cost.parameterElements, cost.activationElements, cost.boundaryElements);
  else
    memoptEmitDiagnostic(mlirOperationGetLocation(func), MlirDiagnosticError, reason.data);
  memoptStringBufferDestroy(&reason);
  return ok;
}

/* The first layer's makespan: ops in sequence, list-scheduled, and by the ILP. */
static void reportSchedule(MlirOperation func, size_t first, size_t count,
                           const MemoptAcceleratorConfig *config, size_t dataArguments,
                           double scale, const MemoptPassOptions *passOptions) {
  MemoptScheduleProblem problem;
  MemoptStringBuffer reason = memoptStringBufferCreate();
  if (!memoptSegmentScheduleProblem(func, first, count, dataArguments, config, scale, &problem,
                                    &reason)) {
    memoptStringBufferDestroy(&reason);
    return;
  }
  memoptStringBufferDestroy(&reason);
  double sequential = 0;
  for (size_t i = 0; i < problem.count; ++i)
    sequential += problem.seconds[i];
  double *starts = memoptAllocateZeroed(problem.count + 1, sizeof *starts);
  double list = memoptScheduleList(&problem, starts);
  MemoptScheduleStatus status;
  double solved =
      memoptScheduleSolve(&problem, memoptPassOptionsGetFloat(passOptions, "ilp-time-limit"),
                          memoptPassOptionsGetFloat(passOptions, "ilp-gap"), starts, &status);
  static const char *const statusNames[] = {"list schedule kept", "optimal", "time limit"};
  MlirBlock block = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  memoptEmitOpDiagnostic(opAt(block, first), MlirDiagnosticRemark,
                         "layer schedule: sequential %.6g s, list %.6g s, ilp %.6g s (%s)",
                         sequential, list, solved, statusNames[status]);
  free(starts);
  memoptScheduleProblemDestroy(&problem);
}

static MlirLogicalResult runPlaceCosts(MlirOperation func, const MemoptPassOptions *passOptions) {
  MemoptLayerStructure layers;
  if (!memoptLayerRecognize(func, &layers))
    return mlirLogicalResultSuccess();
  MemoptAcceleratorConfig config = memoptPlaceAccelerator(passOptions);
  size_t dataArguments = (size_t)memoptPassOptionsGetInteger(passOptions, "data-arguments");
  double scale = memoptPassOptionsGetFloat(passOptions, "batch-scale");
  size_t start = layers.bounds[0], length = layers.bounds[1] - start;
  size_t end = layers.bounds[layers.count];
  memoptEmitOpDiagnostic(
      func, MlirDiagnosticRemark,
      "layers: %zu from op %zu, the first of %zu ops; prologue %zu ops, epilogue %zu ops",
      layers.count, start, length, start, layers.numOps - end);
  bool ok =
      reportSegment(func, "prologue", 0, start, &config, dataArguments, scale) &&
      reportSegment(func, "layer", start, length, &config, dataArguments, scale) &&
      reportSegment(func, "epilogue", end, layers.numOps - end, &config, dataArguments, scale);
  size_t numOps = layers.numOps;
  memoptLayerStructureDestroy(&layers);
  if (!ok)
    return mlirLogicalResultFailure();
  if (memoptPassOptionsGetBool(passOptions, "schedule"))
    reportSchedule(func, start, length, &config, dataArguments, scale, passOptions);
  if (!memoptPassOptionsGetBool(passOptions, "per-op"))
    return mlirLogicalResultSuccess();
  MlirBlock block = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  MlirOperation op = mlirBlockGetFirstOperation(block);
  for (size_t i = 0; i < numOps; ++i, op = mlirOperationGetNextInBlock(op)) {
    MemoptOpCost cost;
    MemoptStringBuffer reason = memoptStringBufferCreate();
    if (memoptOpCostEstimate(op, &config, dataArguments, scale, &cost, &reason) &&
        cost.unit != MemoptOpUnitNone)
      memoptEmitOpDiagnostic(
          op, MlirDiagnosticRemark, "cost: %s, %.0f flops, %.0f cycles, %.0f bytes, %.6g s",
          unitName(cost.unit), cost.flops, cost.cycles, cost.memoryBytes, cost.seconds);
    memoptStringBufferDestroy(&reason);
  }
  return mlirLogicalResultSuccess();
}

const MemoptPassInfo memoptPlaceCostsPass = {
    .argument = "place-costs",
    .summary = "Report the repeated layers of a function and the cost of its ops on an "
               "accelerator configuration",
    .anchor = "func.func",
    .options = options,
    .optionCount = sizeof options / sizeof *options,
    .run = runPlaceCosts,
};

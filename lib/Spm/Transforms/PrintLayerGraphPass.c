/* print-layer-graph: the layer graph of a function as remarks (kind, rows,
 * MACs, weights, feature-map inputs with their row rules, last use) and, on
 * request, the halo and cost of one fused group (spm-pin-fuse's model). */
#include "Analysis/Analysis.h"
#include "IR/IR.h"
#include "Spm/Spm.h"

#include <stdlib.h>

static const char *ruleName(MemoptRowRule rule) {
  switch (rule) {
  case MemoptRowSame:
    return "same rows";
  case MemoptRowWindow:
    return "window";
  case MemoptRowBroadcast:
    return "broadcast";
  case MemoptRowWhole:
    break;
  }
  return "whole";
}

static void describeLayer(const MemoptLayerGraph *graph, size_t index) {
  const MemoptLayer *layer = memoptLayerGraphAt(graph, index);
  MemoptStringBuffer message = memoptStringBufferCreate();
  MlirStringRef opName = mlirIdentifierStr(mlirOperationGetName(layer->op));
  memoptStringBufferAppendFormat(
      &message, "layer %zu: %s (%.*s), %lld rows of %llu elements, %llu MACs, %llu weight elements",
      index, memoptLayerKindName(layer->kind), (int)opName.length, opName.data,
      (long long)layer->rows, (unsigned long long)layer->rowElements,
      (unsigned long long)layer->macs, (unsigned long long)layer->weightElements);
  for (size_t i = 0; i < layer->inputCount; ++i) {
    const MemoptLayerInput *input = &layer->inputs[i];
    memoptStringBufferAppendCString(&message, i ? ", " : "; reads ");
    if (input->producer >= 0)
      memoptStringBufferAppendFormat(&message, "layer %ld", (long)input->producer);
    else
      memoptStringBufferAppendCString(&message, "an argument");
    memoptStringBufferAppendFormat(&message, " (%s", ruleName(input->rule));
    if (input->rule == MemoptRowWindow)
      memoptStringBufferAppendFormat(&message, " %lld stride %lld", (long long)input->kernel,
                                     (long long)input->stride);
    memoptStringBufferAppendCString(&message, ")");
  }
  if (layer->isResult)
    memoptStringBufferAppendCString(&message, "; returned");
  else if (layer->lastUse >= 0)
    memoptStringBufferAppendFormat(&message, "; last read by layer %ld", (long)layer->lastUse);
  memoptEmitDiagnostic(mlirOperationGetLocation(layer->op), MlirDiagnosticRemark, message.data);
  memoptStringBufferDestroy(&message);
}

/* The halo and cost of the group first..last at `tileRows` rows per tile. */
static void describeGroup(const MemoptLayerGraph *graph, size_t first, size_t last,
                          int64_t tileRows, const MemoptSpmTarget *target) {
  int64_t *rows = memoptAllocateZeroed(last - first + 1, sizeof *rows);
  bool *pinned = memoptAllocateZeroed(memoptLayerGraphCount(graph), sizeof *pinned);
  int64_t tiles = memoptLayerGraphHalo(graph, first, last, tileRows, rows);
  MemoptGroupCost cost;
  memoptGroupCost(graph, first, last, tileRows, pinned, target, &cost);
  MemoptStringBuffer message = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&message, "group of layers %zu-%zu, %lld tiles; rows per tile",
                                 first, last, (long long)tiles);
  for (size_t l = first; l <= last; ++l)
    memoptStringBufferAppendFormat(&message, "%s%lld", l == first ? " " : ", ",
                                   (long long)rows[l - first]);
  memoptStringBufferAppendFormat(
      &message,
      "; MACs %llu, off-chip feature-map bytes %llu, weight bytes %llu, cycles %llu, footprint "
      "%llu bytes",
      (unsigned long long)cost.macs, (unsigned long long)cost.offchipBytes,
      (unsigned long long)cost.weightBytes, (unsigned long long)cost.cycles,
      (unsigned long long)cost.footprintBytes);
  memoptEmitDiagnostic(mlirOperationGetLocation(memoptLayerGraphAt(graph, last)->op),
                       MlirDiagnosticRemark, message.data);
  memoptStringBufferDestroy(&message);
  free(pinned);
  free(rows);
}

static MlirLogicalResult runPrintLayerGraph(MlirOperation func, const MemoptPassOptions *options) {
  MemoptStringBuffer error = memoptStringBufferCreate();
  MemoptLayerGraph *graph = memoptLayerGraphCreate(func, &error);
  if (!graph) {
    memoptStringBufferClear(&error);
    memoptEmitDiagnostic(mlirOperationGetLocation(func), MlirDiagnosticRemark,
                         "print-layer-graph: the function is not modelled");
    memoptStringBufferDestroy(&error);
    return mlirLogicalResultSuccess();
  }
  memoptStringBufferDestroy(&error);
  size_t count = memoptLayerGraphCount(graph);
  for (size_t i = 0; i < count; ++i)
    describeLayer(graph, i);
  long long first = memoptPassOptionsGetInteger(options, "group-first");
  long long last = memoptPassOptionsGetInteger(options, "group-last");
  MlirLogicalResult result = mlirLogicalResultSuccess();
  if (last >= 0) {
    MemoptSpmTarget target;
    const char *preset = memoptPassOptionsGetString(options, "target");
    if (first > last || (size_t)last >= count || !memoptSpmTargetPreset(preset, &target)) {
      mlirEmitError(mlirOperationGetLocation(func),
                    "print-layer-graph: group-first..group-last must name layers of the "
                    "function, and target a preset (spm-512k, spm-2m, spm-8m)");
      result = mlirLogicalResultFailure();
    } else {
      describeGroup(graph, (size_t)first, (size_t)last,
                    memoptPassOptionsGetInteger(options, "tile-rows"), &target);
    }
  }
  memoptLayerGraphDestroy(graph);
  return result;
}

static const MemoptPassOptionInfo printLayerGraphOptions[] = {
    {"group-first", MemoptOptionInteger, "0", "first layer of a group to cost", NULL, 0, 1e9},
    {"group-last", MemoptOptionInteger, "-1", "last layer of a group to cost (-1: none)", NULL,
     -1, 1e9},
    {"tile-rows", MemoptOptionInteger, "1", "rows of the group's last layer per tile", NULL, 1,
     1e9},
    {"target", MemoptOptionString, "spm-2m", "target preset the group is costed on", NULL, 0, 0},
};

const MemoptPassInfo memoptPrintLayerGraphPass = {
    .argument = "print-layer-graph",
    .summary = "Report the layer graph of a CNN (and the halo and cost of one fused group) as "
               "remarks",
    .anchor = "func.func",
    .options = printLayerGraphOptions,
    .optionCount = sizeof printLayerGraphOptions / sizeof *printLayerGraphOptions,
    .run = runPrintLayerGraph,
};

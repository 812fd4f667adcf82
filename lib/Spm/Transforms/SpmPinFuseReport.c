/* The JSON report of spm-pin-fuse: per function, the target, the groups
 * (layers, tile, cost), the pinned tensors (offset, size, lifetime) and the
 * totals of the baselines beside the chosen plan. */
#include "Spm/Spm.h"
#include "Spm/Transforms/SpmPinFuse.h"

#include <jansson.h>
#include <stdlib.h>

struct SpmReport {
  json_t *root;
  json_t *functions;
};

SpmReport *spmReportCreate(const MemoptSpmTarget *target) {
  SpmReport *report = memoptAllocateZeroed(1, sizeof *report);
  report->functions = json_array();
  report->root = json_pack(
      "{s:{s:I, s:I, s:I, s:I, s:I}, s:o}", "target", "spm_bytes", (json_int_t)target->spmBytes,
      "dram_bytes_per_cycle", (json_int_t)target->dramBytesPerCycle, "macs_per_cycle",
      (json_int_t)target->macsPerCycle, "element_bytes", (json_int_t)target->elementBytes,
      "dma_setup_cycles", (json_int_t)target->dmaSetupCycles, "functions", report->functions);
  return report;
}

static json_t *totals(const SpmPlan *plan) {
  if (!plan)
    return json_null();
  return json_pack("{s:I, s:I, s:I, s:I}", "offchip_bytes", (json_int_t)plan->offchipBytes,
                   "cycles", (json_int_t)plan->cycles, "macs", (json_int_t)plan->macs, "groups",
                   (json_int_t)plan->groupCount);
}

void spmReportAddFunction(SpmReport *report, const char *name, const char *strategy,
                          const MemoptLayerGraph *graph, const SpmPlan *plan,
                          const SpmPlan *const baselines[3], double seconds) {
  json_t *groups = json_array();
  for (size_t g = 0; g < plan->groupCount; ++g) {
    const SpmGroup *group = &plan->groups[g];
    json_array_append_new(
        groups, json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "first_layer",
                          (json_int_t)group->first, "last_layer", (json_int_t)group->last,
                          "tile_rows", (json_int_t)group->tileRows, "tiles",
                          (json_int_t)group->cost.tiles, "offchip_bytes",
                          (json_int_t)group->cost.offchipBytes, "cycles",
                          (json_int_t)group->cost.cycles, "macs", (json_int_t)group->cost.macs,
                          "footprint_bytes", (json_int_t)group->cost.footprintBytes));
  }
  json_t *pinned = json_array();
  for (size_t l = 0; l < memoptLayerGraphCount(graph); ++l)
    if (plan->pinned[l])
      json_array_append_new(
          pinned, json_pack("{s:I, s:I, s:I}", "layer", (json_int_t)l, "offset",
                            (json_int_t)plan->offsets[l], "last_use",
                            (json_int_t)memoptLayerGraphAt(graph, l)->lastUse));
  json_array_append_new(
      report->functions,
      json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:f, s:o, s:o, s:{s:o, s:o, s:o}}", "name",
                name, "strategy", strategy, "layers", (json_int_t)memoptLayerGraphCount(graph),
                "offchip_bytes", (json_int_t)plan->offchipBytes, "cycles",
                (json_int_t)plan->cycles, "capacity_used", (json_int_t)plan->capacityUsed,
                "packing_retries", (json_int_t)plan->packingRetries, "seconds", seconds, "groups",
                groups, "pinned", pinned, "baselines", "fuse-only", totals(baselines[0]),
                "pin-only", totals(baselines[1]), "dp", totals(baselines[2])));
}

bool spmReportWrite(const SpmReport *report, const char *path, MemoptStringBuffer *error) {
  return memoptJsonWriteFile(report->root, path, JSON_INDENT(2), error);
}

void spmReportDestroy(SpmReport *report) {
  if (!report)
    return;
  json_decref(report->root);
  free(report);
}

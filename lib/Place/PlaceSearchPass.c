/* place-search: chooses a training placement of a transformer function on a
 * cluster (PHAZE): recognizes the repeated layers, costs one layer (and the
 * prologue and epilogue around the layers) on the accelerator for each
 * candidate microbatch, runs the DP of PlacementSearch.c, and writes the
 * plan as a place.cluster op and one place.stage op per pipeline stage, plus
 * a remark and, on request, a JSON report.
 *
 * This file holds the options, the cluster they describe and the pass, a
 * thin wrapper around the transform memoptPlaceSearch (PlaceSearch.c). */
#include "Place/PlaceSearch.h"

#include "mlir-c/Dialect/Vector.h"

#include <stdio.h>
#include <string.h>

static const MemoptPassOptionInfo options[] = {
    {"preset", MemoptOptionChoice, "phaze-80",
     "Cluster preset: PHAZE's 1024 accelerators, 4 GiB/s links, global batch 4096 with 32, 64 "
     "or 80 GiB HBM",
     "phaze-32|phaze-64|phaze-80", 0, 0},
    {"devices", MemoptOptionInteger, "0", "Accelerators (0: the preset's; at most 65536)", NULL, 0,
     65536},
    {"hbm", MemoptOptionBytes, "0", "HBM per accelerator (0: the preset's)", NULL, 0, 1e18},
    {"link-bandwidth", MemoptOptionBytes, "0", "Link bytes per second (0: the preset's)", NULL, 0,
     1e18},
    {"global-batch", MemoptOptionInteger, "0", "Samples per training step (0: the preset's)", NULL,
     0, 1e12},
    {"layers", MemoptOptionInteger, "0",
     "Layers of the model (0: as recognized; at most 1024); a count other than the recognized one "
     "repeats the recognized layer",
     NULL, 0, 1024},
    {"batch", MemoptOptionInteger, "0",
     "Samples in the IR (0: the leading dimension of the first argument)", NULL, 0, 1e9},
    {"heads", MemoptOptionInteger, "0", "Tensor-parallel degrees must divide this (0: any)", NULL,
     0, 1e9},
    {"max-tensor-parallel", MemoptOptionInteger, "8", "Largest tensor-parallel degree", NULL, 1,
     1e6},
    {"max-microbatch", MemoptOptionInteger, "16", "Largest microbatch (powers of two up to it)",
     NULL, 1, 1e6},
    {"state-per-parameter-byte", MemoptOptionFloat, "7",
     "Gradient and optimizer bytes per parameter byte (mixed-precision Adam: 14 per 2)", NULL, 0,
     1e3},
    {"backward-factor", MemoptOptionFloat, "2", "Backward time as a multiple of forward", NULL, 0,
     100},
    {"memory", MemoptOptionChoice, "training",
     "What a device holds: a training step of the program at the accelerator's element size "
     "(parameters, gradients and optimizer state, stashed activations) or the program as "
     "written, forward or training step (its parameters' share and its buffers' largest live "
     "set at its element types)",
     "training|program", 0, 0},
    {"trailing-data-arguments", MemoptOptionInteger, "0",
     "Trailing function arguments that are data too (a training step's labels), split by batch "
     "like the leading ones where memory=program prices them",
     NULL, 0, 1e9},
    {"baseline", MemoptOptionString, "",
     "A fixed configuration 'p,t,d' to evaluate beside the search (Megatron-style even split)",
     NULL, 0, 0},
    {"brute-force", MemoptOptionBool, "false",
     "Also enumerate every split and recompute choice, and fail if the DP differs", NULL, 0, 0},
    {"report", MemoptOptionOutputFile, "", "Write the plan as JSON to this file", NULL, 0, 0},
    {"schedule", MemoptOptionChoice, "ilp",
     "Layer time: ops one after the other (sequential), list-scheduled on the tensor and vector "
     "units (list), or the ILP's makespan (ilp)",
     "sequential|list|ilp", 0, 0},
    {"ilp-time-limit", MemoptOptionFloat, "2", "Seconds each layer's ILP may take", NULL, 0, 1e6},
    {"ilp-gap", MemoptOptionFloat, "0.01", "Relative optimality gap of the ILP", NULL, 0, 1},
    {"architecture-search", MemoptOptionBool, "false",
     "Also choose the accelerator configuration under the area budget (PHAZE's space of "
     "powers of two)",
     NULL, 0, 0},
    {"area-budget", MemoptOptionFloat, "0",
     "Area budget in mm^2 (0: the area of the accelerator the options describe)", NULL, 0, 1e9},
    {"architecture-candidates", MemoptOptionInteger, "3",
     "Configurations with the fastest layer that get the whole placement search", NULL, 1, 1000},
    {"mac-area", MemoptOptionFloat, "0.001", "mm^2 per systolic-array MAC cell", NULL, 0, 1e3},
    {"lane-area", MemoptOptionFloat, "0.002", "mm^2 per vector lane", NULL, 0, 1e3},
    {"buffer-area", MemoptOptionFloat, "0.3", "mm^2 per MiB of on-chip buffer", NULL, 0, 1e3},
    MEMOPT_PLACE_ACCELERATOR_OPTIONS,
};

/* The cluster: a preset, with any option given explicitly taking over. */
MemoptPlaceCluster memoptPlaceClusterOf(const MemoptPassOptions *options) {
  const char *preset = memoptPassOptionsGetString(options, "preset");
  double gib = 1024.0 * 1024.0 * 1024.0;
  MemoptPlaceCluster cluster = {1024, 80 * gib, 4 * gib, 4096};
  if (strcmp(preset, "phaze-32") == 0)
    cluster.hbmBytes = 32 * gib;
  else if (strcmp(preset, "phaze-64") == 0)
    cluster.hbmBytes = 64 * gib;
  if (memoptPassOptionsGetInteger(options, "devices"))
    cluster.devices = memoptPassOptionsGetInteger(options, "devices");
  if (memoptPassOptionsGetInteger(options, "hbm"))
    cluster.hbmBytes = (double)memoptPassOptionsGetInteger(options, "hbm");
  if (memoptPassOptionsGetInteger(options, "link-bandwidth"))
    cluster.linkBandwidth = (double)memoptPassOptionsGetInteger(options, "link-bandwidth");
  if (memoptPassOptionsGetInteger(options, "global-batch"))
    cluster.globalBatch = memoptPassOptionsGetInteger(options, "global-batch");
  return cluster;
}

bool memoptPlaceParseBaseline(const char *text, int64_t degrees[3]) {
  long long p, t, d;
  char extra;
  if (sscanf(text, "%lld,%lld,%lld%c", &p, &t, &d, &extra) != 3 || p < 1 || t < 1 || d < 1)
    return false;
  degrees[0] = p;
  degrees[1] = t;
  degrees[2] = d;
  return true;
}

static bool checkPlaceSearchOptions(const MemoptPassOptions *options, MemoptStringBuffer *error) {
  int64_t layers = memoptPassOptionsGetInteger(options, "layers");
  if (memoptPassOptionsGetBool(options, "brute-force") &&
      layers > MEMOPT_PLACEMENT_BRUTE_FORCE_MAX_LAYERS) {
    memoptStringBufferAppendFormat(
        error, "option 'brute-force' enumerates at most %d layers, got layers=%lld",
        MEMOPT_PLACEMENT_BRUTE_FORCE_MAX_LAYERS, (long long)layers);
    return false;
  }
  int64_t degrees[3];
  const char *baseline = memoptPassOptionsGetString(options, "baseline");
  if (!*baseline || memoptPlaceParseBaseline(baseline, degrees))
    return true;
  memoptStringBufferAppendFormat(
      error, "option 'baseline' must be 'pipeline,tensor,data' (positive integers), got '%s'",
      baseline);
  return false;
}

static MlirLogicalResult runPlaceSearch(MlirOperation module, const MemoptPassOptions *options) {
  return memoptPlaceSearch(module, options);
}

/* vector for the stages' vector.yield terminators. */
static MlirDialectHandle (*const placeDialects[])(void) = {mlirGetDialectHandle__vector__};

const MemoptPassInfo memoptPlaceSearchPass = {
    .argument = "place-search",
    .summary = "Choose pipeline stages, tensor/data parallelism, microbatch and recompute for "
               "training a transformer on a cluster (PHAZE)",
    .anchor = "builtin.module",
    .options = options,
    .optionCount = sizeof options / sizeof *options,
    .dependentDialects = placeDialects,
    .dependentDialectCount = sizeof placeDialects / sizeof *placeDialects,
    .checkOptions = checkPlaceSearchOptions,
    .run = runPlaceSearch,
};

/* Pin or Fuse (Jeong et al., CGO 2023): the choice of fusion groups, tile
 * sizes and pinned feature maps for one function, and the SPM offsets of the
 * pinned ones. Internal to lib/Spm (spm-pin-fuse). */
#ifndef MEMOPT_SPM_SPMPINFUSE_H
#define MEMOPT_SPM_SPMPINFUSE_H

#include "Spm/Spm.h"

/// The strategies spm-pin-fuse offers.
typedef enum SpmStrategy {
  SpmStrategyDP,       /* fusion and pinning together, by dynamic programming */
  SpmStrategyFuseOnly, /* fusion groups and tiles, nothing pinned */
  SpmStrategyPinOnly,  /* one layer per group, outputs pinned */
  SpmStrategyILP       /* the same problem as DP, solved exactly by GLPK */
} SpmStrategy;

/// What the plan minimizes.
typedef enum SpmObjective {
  SpmObjectiveLatency,  /* modelled cycles, then off-chip bytes */
  SpmObjectiveTransfer  /* off-chip feature-map bytes, then cycles */
} SpmObjective;

/// The search's settings.
typedef struct SpmSearchOptions {
  SpmStrategy strategy;
  SpmObjective objective;
  size_t maxGroupLayers; /* most layers in one fused group */
  double ilpTimeLimitSeconds;
} SpmSearchOptions;

/// One fused group of a plan.
typedef struct SpmGroup {
  size_t first, last; /* layer indices, inclusive */
  int64_t tileRows;   /* rows of the last layer's output per tile */
  MemoptGroupCost cost;
} SpmGroup;

/// A plan for one function.
typedef struct SpmPlan {
  SpmGroup *groups;
  size_t groupCount;
  bool *pinned;        /* per layer */
  uint64_t *offsets;   /* per layer: SPM byte offset of a pinned output */
  uint64_t offchipBytes, cycles, macs, weightBytes;
  uint64_t capacityUsed; /* the capacity the search ran with (after packing retries) */
  int packingRetries;
} SpmPlan;

/// Plans `graph` on `target`. Returns false with the reason in `error` and,
/// when one layer cannot fit at its smallest tile, its index in `failedLayer`
/// (else -1).
bool spmPlanCreate(const MemoptLayerGraph *graph, const MemoptSpmTarget *target,
                   const SpmSearchOptions *options, SpmPlan *plan, intptr_t *failedLayer,
                   MemoptStringBuffer *error);

/// The most outputs a group may have (the result slots of spm.group).
enum { SPM_MAX_GROUP_OUTPUTS = 8 };

/// Returns the number of layers of `first`..`last` read after `last`.
size_t spmGroupOutputCount(const MemoptLayerGraph *graph, size_t first, size_t last);

/// Fills `tiles` with the tile sizes tried for a layer of `rows` rows (the
/// whole, halves, quarters, ... down to one row); returns how many (< 64).
size_t spmTileCandidates(int64_t rows, int64_t *tiles);

/// Costs every group of `plan` (its groups and pins set) and sums the totals.
void spmPlanCostGroups(const MemoptLayerGraph *graph, const MemoptSpmTarget *target,
                       SpmPlan *plan);

/// Frees the arrays of a plan.
void spmPlanDestroy(SpmPlan *plan);

/// Assigns SPM offsets to the pinned outputs of `plan` by interval packing
/// (lifetimes in groups); returns false when some group's pinned tensors and
/// working buffers do not fit in `capacity` at those offsets.
bool spmPackPinned(const MemoptLayerGraph *graph, const MemoptSpmTarget *target, SpmPlan *plan,
                   uint64_t capacity);

/// Solves the DP's problem exactly with GLPK over the same candidate groups,
/// tiles and pins (small graphs). Returns false with the reason in `error`
/// when GLPK gives no optimal solution within the time limit.
bool spmSolveILP(const MemoptLayerGraph *graph, const MemoptSpmTarget *target,
                 const SpmSearchOptions *options, uint64_t capacity, SpmPlan *plan,
                 MemoptStringBuffer *error);

/// Rewrites `func` (the function `graph` was built from) after `plan`: one
/// spm.group per group and one spm.pin per pinned output. Returns the number
/// of groups built (a group with more outputs than spm.group has slots is
/// left as plain ops).
size_t spmEmitPlan(const MemoptLayerGraph *graph, const SpmPlan *plan, MlirOperation func);

/// A JSON report of spm-pin-fuse's plans (opaque).
typedef struct SpmReport SpmReport;

/// Creates an empty report for `target`.
SpmReport *spmReportCreate(const MemoptSpmTarget *target);

/// Adds function `name`'s plan (strategy `strategy`) with its groups and
/// pinned tensors; `baselines` holds the totals of the fuse-only, pin-only
/// and DP plans (NULL entries where none was made).
void spmReportAddFunction(SpmReport *report, const char *name, const char *strategy,
                          const MemoptLayerGraph *graph, const SpmPlan *plan,
                          const SpmPlan *const baselines[3], double seconds);

/// Writes the report to `path` atomically; false with the reason in `error`.
bool spmReportWrite(const SpmReport *report, const char *path, MemoptStringBuffer *error);

/// Frees a report (NULL is allowed).
void spmReportDestroy(SpmReport *report);

#endif /* MEMOPT_SPM_SPMPINFUSE_H */

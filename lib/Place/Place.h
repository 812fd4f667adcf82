/* PHAZE: placement analyses and passes. The repeated layers of a transformer
 * function, the cost of its ops on an accelerator configuration, and the
 * search for a training placement (pipeline stages, tensor-, data-parallel
 * degrees, microbatch, recompute or stash per stage) on a cluster.
 *
 * The search works on numbers only (MemoptPlacementProblem), so that it can
 * be checked against brute force without IR. */
#ifndef MEMOPT_PLACE_PLACE_H
#define MEMOPT_PLACE_PLACE_H

#include "Pass/Pass.h"
#include "Support/Support.h"

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===------------------------------------------------------------------===*
 * Layer recognition
 *===------------------------------------------------------------------===*/

/// Where the repeated layers sit among the top-level ops of a function body
/// (terminator excluded): ops [0, bounds[0]) are the prologue, layer i is ops
/// [bounds[i], bounds[i + 1]), the epilogue runs from bounds[count] to `numOps`.
/// Layers have the same ops apart from scalar constants, which belong to the
/// layer that defines them.
typedef struct MemoptLayerStructure {
  size_t numOps;
  size_t count;
  size_t *bounds; /* count + 1 entries, owned */
} MemoptLayerStructure;

/// A run of equal consecutive windows in a sequence: `repeats` windows of `period` items from
/// `start`, within the `length` items from `start` that repeat with that period (so the windows
/// can start anywhere in [start, start + length - repeats * period]).
typedef struct MemoptLayerRun {
  size_t start, length, period, repeats;
} MemoptLayerRun;

/// Finds, in O(count log count), the run of two or more equal consecutive windows in `signatures[0, count)` that covers the most of them (ties: the shortest period, then the earliest start), as a scan of every period at every position would; false (and `run` one window of the whole sequence) when none covers half of them.
bool memoptFindLayerRun(const uint64_t *signatures, size_t count, MemoptLayerRun *run);

/// Finds the longest run of consecutive identical op sequences (same op names, operand and result types; scalar constants left out) in the body of `func`; without one covering half the body, the whole body is one layer. Returns false when `func` has no body; the caller then has nothing to destroy.
bool memoptLayerRecognize(MlirOperation func, MemoptLayerStructure *structure);

/// Frees the bounds of a layer structure.
void memoptLayerStructureDestroy(MemoptLayerStructure *structure);

/*===------------------------------------------------------------------===*
 * Operator cost on an accelerator configuration
 *===------------------------------------------------------------------===*/

/// One accelerator: `tensorCores` systolic arrays of `width` x `depth`
/// multiply-accumulate cells, `vectorCores` vector units of `vectorWidth`
/// lanes, an on-chip buffer, and its clock and off-chip memory bandwidth.
typedef struct MemoptAcceleratorConfig {
  int64_t tensorCores;
  int64_t width;
  int64_t depth;
  int64_t vectorCores;
  int64_t vectorWidth;
  uint64_t bufferBytes;
  double frequencyHz;
  double memoryBandwidth; /* bytes per second */
  uint64_t bytesPerElement; /* element size on the accelerator (the IR's types are ignored) */
} MemoptAcceleratorConfig;

/// Area per unit of hardware, in mm^2 (the architecture search's budget is in the same unit).
typedef struct MemoptAreaModel {
  double perMac;        /* one multiply-accumulate cell of a systolic array */
  double perVectorLane; /* one lane of a vector core */
  double perBufferMiB;  /* one MiB of on-chip SRAM */
} MemoptAreaModel;

/// Returns the area of `config`: its MAC cells, vector lanes and buffer.
double memoptAcceleratorArea(const MemoptAcceleratorConfig *config, const MemoptAreaModel *model);

/// Which unit runs an op.
typedef enum MemoptOpUnit {
  MemoptOpUnitNone,   /* no work: views, tensor.empty, constants */
  MemoptOpUnitTensor, /* a contraction on the systolic arrays */
  MemoptOpUnitVector  /* elementwise, reductions, copies on the vector cores */
} MemoptOpUnit;

/// The cost of one op on one accelerator.
typedef struct MemoptOpCost {
  MemoptOpUnit unit;
  double flops;        /* 2 per multiply-accumulate; 1 per vector arithmetic op */
  double cycles;       /* compute cycles on the unit */
  double memoryBytes;  /* off-chip traffic */
  double seconds;      /* max(cycles / frequency, memoryBytes / memoryBandwidth) */
} MemoptOpCost;

/// Estimates the cost of `op` on `config` with the op's batch-like dimension scaled by `batchScale` (1: as in the IR); false with `reason` for a tensor op whose shapes are not static.
bool memoptOpCostEstimate(MlirOperation op, const MemoptAcceleratorConfig *config, size_t dataArguments, double batchScale,
                          MemoptOpCost *cost, MemoptStringBuffer *reason);

/// The summary of a contiguous range of top-level ops as a placement layer.
typedef struct MemoptSegmentCost {
  double forwardSeconds;     /* sum of the ops' seconds on one accelerator */
  double flops;
  double parameterElements;  /* elements of the parameters (function arguments) the range reads */
  double activationElements; /* elements of every tensor the range computes (stashed for backward) */
  double boundaryElements;   /* elements of the tensors the range receives from earlier ops */
  size_t tensorOps;
  size_t vectorOps;
} MemoptSegmentCost;

/// Sums the costs of top-level ops [first, first + count) of `func`'s body; arguments from index `dataArguments` on are parameters. False with `reason` when an op cannot be costed.
bool memoptSegmentCostEstimate(MlirOperation func, size_t first, size_t count,
                               size_t dataArguments, const MemoptAcceleratorConfig *config,
                               double batchScale, MemoptSegmentCost *cost,
                               MemoptStringBuffer *reason);

/*===------------------------------------------------------------------===*
 * Operator scheduling on one accelerator
 *===------------------------------------------------------------------===*/

/// The ops of one layer to schedule: durations, units and dependences.
/// Ops on the same unit (tensor cores, vector cores) run one at a time; ops
/// on different units overlap; MemoptOpUnitNone ops take no unit.
typedef struct MemoptScheduleProblem {
  const double *seconds;
  const MemoptOpUnit *units;
  size_t count;
  const size_t (*edges)[2]; /* edges[e][0] must finish before edges[e][1] starts */
  size_t edgeCount;
} MemoptScheduleProblem;

/// How a schedule was obtained.
typedef enum MemoptScheduleStatus {
  MemoptScheduleListOnly, /* the list scheduler (no solver run, or it found nothing better) */
  MemoptScheduleOptimal,  /* the ILP's optimum within the requested gap */
  MemoptScheduleFeasible  /* the ILP's best at the time limit */
} MemoptScheduleStatus;

/// Schedules by critical path (longest remaining path first) on the two units; writes start times to `starts` and returns the makespan.
double memoptScheduleList(const MemoptScheduleProblem *problem, double *starts);

/// Minimizes the makespan with a disjunctive ILP (GLPK) within `timeLimitSeconds` and relative `gap`, warm-started by and falling back to the list schedule; writes `starts`, returns the makespan.
double memoptScheduleSolve(const MemoptScheduleProblem *problem, double timeLimitSeconds, double gap,
                           double *starts, MemoptScheduleStatus *status);

/// Builds the schedule problem of top-level ops [first, first + count) of `func` (dependences from SSA uses); the caller frees the three arrays. False with `reason` when an op cannot be costed.
bool memoptSegmentScheduleProblem(MlirOperation func, size_t first, size_t count,
                                  size_t dataArguments, const MemoptAcceleratorConfig *config,
                                  double batchScale, MemoptScheduleProblem *problem,
                                  MemoptStringBuffer *reason);

/// Frees what memoptSegmentScheduleProblem allocated.
void memoptScheduleProblemDestroy(MemoptScheduleProblem *problem);

/*===------------------------------------------------------------------===*
 * Placement search
 *===------------------------------------------------------------------===*/

/// One layer of the placement problem, for one sample (costs scale with the microbatch through `forwardSeconds`).
typedef struct MemoptPlacementLayer {
  const double *forwardSeconds; /* per microbatch candidate (problem's `microbatches`) */
  double parameterBytes;
  double activationBytes; /* per sample, stashed when the stage does not recompute */
  double boundaryBytes;   /* per sample, the layer's input: all a recomputing stage keeps */
} MemoptPlacementLayer;

/// What a stage holds per device: a training step of the program (PHAZE's model) or the program run as written.
typedef enum MemoptPlacementMemory {
  MemoptPlacementTraining, /* parameters x (1 + state), stashed or recomputed activations */
  MemoptPlacementProgram,  /* parameters' share, one microbatch's largest live set */
} MemoptPlacementMemory;

/// Returns how many tensor-parallel degrees (1, 2, 4, ...) are at most `maxTensorParallel` (PlacementProblemCheck.c).
size_t memoptPlacementTensorDegrees(int64_t maxTensorParallel);

/// A training placement problem: layers in order, the cluster, the batch.
typedef struct MemoptPlacementProblem {
  const MemoptPlacementLayer *layers;
  size_t layerCount;
  const int64_t *microbatches; /* candidate microbatch sizes, ascending */
  size_t microbatchCount;
  int64_t devices;
  double hbmBytes;
  double linkBandwidth;   /* bytes per second per device */
  int64_t globalBatch;
  double stateBytesPerParameterByte; /* gradient and optimizer state per parameter byte */
  int64_t maxTensorParallel;         /* degrees are powers of two up to this */
  int64_t tensorParallelDivisor;     /* a degree must divide it (attention heads); 0: no constraint */
  double backwardFactor;             /* backward time = factor x forward time */
  MemoptPlacementMemory memory;
  /* MemoptPlacementProgram: each stage of layers [first, end) priced whole,
   * at memoptPlacementStageIndex(layerCount, first, end). */
  const double *stageParameterBytes; /* [stage][tensor degree 1, 2, 4, ...]: the parameters its ops read, per device */
  const double *stageHeldBytes; /* [stage][tensor degree][microbatch candidate]: the most its ops hold at once per device, its inputs and data included */
} MemoptPlacementProblem;

/// Returns the index of the stage of layers [first, end) of `layers` (first < end <= layers) among the layers x (layers + 1) / 2 stages, those from one first layer consecutive.
static inline size_t memoptPlacementStageIndex(size_t layers, size_t first, size_t end) {
  return first * layers - first * (first - 1) / 2 + (end - first - 1);
}

/// One pipeline stage of a plan.
typedef struct MemoptPlacementStage {
  size_t firstLayer;
  size_t layerCount;
  bool recompute;
  int64_t stashedMicrobatches;
  double seconds;     /* forward + backward (+ recompute) of one microbatch, communication included */
  double memoryBytes; /* per device */
  double allReduceSeconds;
} MemoptPlacementStage;

/// A chosen plan (stages owned by the plan).
typedef struct MemoptPlacementPlan {
  int64_t pipeline;
  int64_t tensorParallel;
  int64_t dataParallel;
  int64_t microbatch;
  int64_t microbatchCount;
  double batchSeconds;
  MemoptPlacementStage *stages;
  size_t stageCount;
  uint64_t evaluated; /* candidate plans, DP transitions or stage figures examined */
} MemoptPlacementPlan;

/// Why no plan fits (filled when a search fails).
typedef struct MemoptPlacementFailure {
  double smallestMemoryBytes; /* the least per-device memory any stage of any configuration needs */
  double parameterStateBytes; /* of that stage: parameters, gradients and optimizer state */
  double activationBytes;     /* of that stage: stashed activations or inputs */
  size_t firstLayer;
  size_t layerCount;
} MemoptPlacementFailure;

/// Returns true when `problem` prices training memory, its layers 1 .. L-2 are equal and every figure is non-negative, what memoptPlacementSearch's threshold search rests on (PlacementProblemCheck.c).
bool memoptPlacementMiddleLayersEqual(const MemoptPlacementProblem *problem);

/// Finds the plan of least time per batch, the same plan as memoptPlacementSearchDP; when layers 1 .. L-2 are equal, by bisection on the slowest stage and all-reduce in O(p log L) per threshold, else by the DP. False (with `failure`) when nothing fits in HBM.
bool memoptPlacementSearch(const MemoptPlacementProblem *problem, MemoptPlacementPlan *plan,
                           MemoptPlacementFailure *failure);

/// Finds the plan of least time per batch by dynamic programming over (stages left, first layer), for layers of any costs: O(p L^2) transitions per configuration. False (with `failure`) when nothing fits in HBM.
bool memoptPlacementSearchDP(const MemoptPlacementProblem *problem, MemoptPlacementPlan *plan,
                             MemoptPlacementFailure *failure);

/// The most layers (prologue and epilogue included) the brute force enumerates: up to 2 x 3^11 splits and recompute choices per configuration.
#define MEMOPT_PLACEMENT_BRUTE_FORCE_MAX_LAYERS 12

/// Finds the same optimum by enumerating every split of the layers into stages and every recompute choice; for problems of at most MEMOPT_PLACEMENT_BRUTE_FORCE_MAX_LAYERS layers (false, with nothing searched, beyond).
bool memoptPlacementBruteForce(const MemoptPlacementProblem *problem, MemoptPlacementPlan *plan);

/// Evaluates a fixed (pipeline, tensor, data) configuration with layers split evenly, the best microbatch and per-stage recompute; false when it does not fit.
bool memoptPlacementEvaluateFixed(const MemoptPlacementProblem *problem, int64_t pipeline,
                                  int64_t tensorParallel, int64_t dataParallel,
                                  MemoptPlacementPlan *plan);

/// Frees the stages of a plan.
void memoptPlacementPlanDestroy(MemoptPlacementPlan *plan);

/*===------------------------------------------------------------------===*
 * Passes
 *===------------------------------------------------------------------===*/

/// The option entries describing an accelerator (PHAZE's largest configuration as defaults).
/// A macro because C has no other way to share entries between two static option tables.
#define MEMOPT_PLACE_ACCELERATOR_OPTIONS                                                          \
  {"tensor-cores", MemoptOptionInteger, "8", "Systolic arrays per accelerator", NULL, 1, 65536},  \
      {"width", MemoptOptionInteger, "128", "Systolic array width (columns)", NULL, 1, 65536},    \
      {"depth", MemoptOptionInteger, "128", "Systolic array depth (rows)", NULL, 1, 65536},       \
      {"vector-cores", MemoptOptionInteger, "2", "Vector cores per accelerator", NULL, 1, 65536}, \
      {"vector-width", MemoptOptionInteger, "128", "Lanes per vector core", NULL, 1, 65536},      \
      {"buffer", MemoptOptionBytes, "128MiB", "On-chip global buffer", NULL, 1, 1e15},            \
      {"frequency", MemoptOptionFloat, "1.05e9", "Clock in Hz", NULL, 1, 1e12},                   \
      {"memory-bandwidth", MemoptOptionFloat, "2e12", "Off-chip (HBM) bytes per second", NULL,    \
       1, 1e15},                                                                                  \
      {"bytes-per-element", MemoptOptionInteger, "2", "Bytes of one element on the accelerator", \
       NULL, 1, 16},                                                                              \
  {                                                                                               \
    "data-arguments", MemoptOptionInteger, "1",                                                   \
        "Leading function arguments that are data; the others are parameters", NULL, 0, 1e9       \
  }

/// Reads the accelerator options of a pass declared with MEMOPT_PLACE_ACCELERATOR_OPTIONS.
MemoptAcceleratorConfig memoptPlaceAccelerator(const MemoptPassOptions *options);

/// place-costs (PlaceCostsPass.c).
extern const MemoptPassInfo memoptPlaceCostsPass;

/// place-search (PlaceSearchPass.c).
extern const MemoptPassInfo memoptPlaceSearchPass;

/// Returns the unrealized_conversion_cast before the yield of place.stage `stage` that packs its yielded values into the tuple it yields when they outnumber its result slots (place-search's convention, PlaceEmit.c), or a null op.
MlirOperation memoptPlaceStagePack(MlirOperation stage);

/// Returns true when `op` unpacks the tuple a place.stage yields (PlaceEmit.c).
bool memoptPlaceIsStageUnpack(MlirOperation op);

/// Rewrites each tensor.insert_slice in `body` of a block (offsets multiples of the sizes) into an expand_shape, a linalg.generic selecting the source's block and a collapse_shape, which have sharding interfaces or fold away (ShardNormalizeTraining.c); returns how many.
size_t memoptShardRewriteBlockInserts(MlirBlock body);

/// Gives each extract_slice in `body` of a top-level linalg.generic reading linalg.index, when the slice takes one element along every loop read so, a copy of the generic with each linalg.index replaced by the slice's offset (ShardNormalizeTraining.c); returns how many slices got one.
size_t memoptShardPinSlicedIndexLoops(MlirBlock body);

/// Rewrites each top-level tensor.extract_slice in `body` of a collapse_shape that takes whole blocks of each collapsed group as the collapse of a slice of the collapse's source (ShardNormalizeTraining.c); returns how many.
size_t memoptShardSwapSlicesOfCollapses(MlirBlock body);

/// Makes `func` return the source of each collapse_shape or expand_shape it returns (the same row-major data) and updates its result types (ShardNormalizeTraining.c); returns, per result, a detached copy of the view it replaced or a null op (the caller destroys the copies and frees the array).
MlirOperation *memoptShardReturnViewSources(MlirOperation func);

/// The views of arguments memoptShardNormalize hoists into arguments of their own, recorded as it goes (HoistedViews.c).
typedef struct MemoptHoistedViews MemoptHoistedViews;

/// Returns an empty record, which memoptHoistedViewsMark frees.
MemoptHoistedViews *memoptHoistedViewsCreate(void);

/// True when argument `argument` is recorded as a view.
bool memoptHoistedViewsHas(const MemoptHoistedViews *views, MlirValue argument);

/// Records that argument `argument` stands for `view` (an expand_shape, collapse_shape or static extract_slice) of argument `source`, which stays an argument or is rerooted (memoptHoistedViewsReroot).
void memoptHoistedViewsRecord(MemoptHoistedViews *views, MlirValue argument, MlirOperation view,
                              MlirValue source);

/// Before argument `source` is erased, its last use `view` having become argument `argument`: roots the views rooted at `source` at `argument` when `view` is a reshape, forgets them otherwise, and forgets `source`'s own record.
void memoptHoistedViewsReroot(MemoptHoistedViews *views, MlirValue source, MlirOperation view,
                              MlirValue argument);

/// Marks each recorded argument of `func` with `memopt.view` = {source = <its root's index>, steps = [{op, properties, type}, ...]}, one extract_slice when the steps take one box of the root, and frees `views`.
void memoptHoistedViewsMark(MemoptHoistedViews *views, MlirOperation func);

/// Normalizes an outlined stage for upstream sharding (ShardNormalize.c): concats of equal parts rewritten as generics, block inserts rewritten (memoptShardRewriteBlockInserts), upstream's generalization, elementwise and reshape fusion and canonicalization, slices of computed values moved onto the arguments, reshapes of computed values copied per reader, views of arguments hoisted into arguments, returned views replaced by their sources (memoptShardReturnViewSources), generalized fills made linalg.fill again, constants cloned into the linalg bodies that read them; `*parameters` (one flag per argument) follows the arguments, and `call` (a func.call of `func` in a block of its own, or a null op) keeps calling it as before (the hoisted views applied to its operands, the returned sources viewed back). On failure, `message` says why.
MlirLogicalResult memoptShardNormalize(MlirOperation func, MlirOperation call, bool **parameters,
                                       MemoptStringBuffer *message);

/// Rewrites each top-level tensor.concat in `body` whose parts have one static type as a linalg.generic over [..., parts, part extent, ...] selecting part p where its part loop is p, collapsed back to the concat's type (ConcatAsGeneric.c).
void memoptRewriteConcatsAsGenerics(MlirBlock body);

/// Replaces each scf.if by which shard-partition gives a split reduction a fill of the neutral element on every device but the first, when the program's init is a fill of the same constant, by that init (PlaceFoldNeutralInits.c); returns how many.
size_t memoptFoldNeutralInits(MlirOperation func);

/// place-fold-neutral-inits: memoptFoldNeutralInits on each function, after shard-partition (PlaceFoldNeutralInits.c).
extern const MemoptPassInfo memoptPlaceFoldNeutralInitsPass;

/// place-to-shard: outlines each place.stage into a function on its own shard.grid with shard.shard annotations (PlaceToShard.c).
extern const MemoptPassInfo memoptPlaceToShardPass;

#ifdef __cplusplus
}
#endif

#endif /* MEMOPT_PLACE_PLACE_H */

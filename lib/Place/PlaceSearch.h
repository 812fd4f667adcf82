/* Internal to place-search (not installed): the steps of the transform
 * PlaceSearch.c runs, shared by
 *
 *   PlaceSearchPass.c          options, the cluster they describe, the pass
 *   PlaceProblem.c             the model and the MemoptPlacementProblem built from it
 *   PlaceArchitectureSearch.c  the accelerator configurations under an area budget
 *   PlaceEmit.c                place.cluster and place.stage ops
 *   PlaceReport.c              the JSON report
 *
 * Ownership: a MemoptPlaceModel owns its layer structure, a
 * MemoptPlaceProblemStorage everything its problem points at; json_t
 * results are new references the caller owns. */
#ifndef MEMOPT_PLACE_PLACESEARCH_H
#define MEMOPT_PLACE_PLACESEARCH_H

#include "IR/IR.h"
#include "Place/Place.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json_t;
struct timespec;

/// The cluster: a preset, with any option given explicitly taking over.
typedef struct MemoptPlaceCluster {
  int64_t devices;
  double hbmBytes;
  double linkBandwidth;
  int64_t globalBatch;
} MemoptPlaceCluster;

/// One buffer of a function as place-to-shard runs it, or one of its arguments (PlaceProgramMemory.c), at its element types.
typedef struct MemoptPlaceBuffer {
  uint64_t payload;   /* for the function's batch: per sample, payload / irBatch */
  uint64_t alignment; /* each device's share is rounded up to a multiple of it */
  bool perSample;  /* carries the batch: its bytes scale with the microbatch */
  bool split;      /* split over the tensor-parallel group: 1 / t on each device */
  bool argument;   /* an argument (data or parameter): made before every op, held only as an input */
  size_t made;     /* the op of the function that allocates it */
  size_t firstPosition, lastPosition; /* the priced copy's positions it is live at */
  size_t firstRead, readEnd;          /* the ops reading it: reads[firstRead, readEnd) */
  size_t reducedAt; /* the position of the op summing it over a split loop (all-reduced), or MEMOPT_NO_INDEX */
} MemoptPlaceBuffer;

/// What a function holds as place-to-shard runs it (PlaceProgramMemory.c): its buffers and parameters, where each is live and which ops read it.
typedef struct MemoptPlaceProgramMemory {
  size_t opCount;       /* top-level ops of the function, the terminator included */
  double irBatch;       /* samples in the function */
  size_t positionCount; /* top-level ops of the priced copy */
  size_t *opAt;         /* per position, the op of the function it stands for */
  MemoptPlaceBuffer *buffers;
  size_t bufferCount;
  size_t *reads; /* ops of the function (not its terminator), per buffer */
  MemoptPlaceBuffer *parameters; /* the parameter arguments as written, split as place-to-shard splits them */
  size_t parameterCount;
  size_t *parameterReads; /* ops of the function, per parameter */
} MemoptPlaceProgramMemory;

/// The model as place-search sees it: segments of top-level ops.
typedef struct MemoptPlaceModel {
  MlirOperation func;
  MemoptLayerStructure structure;
  size_t layers;          /* transformer layers of the model */
  bool hasPrologue, hasEpilogue;
  size_t problemLayers;   /* prologue + layers + epilogue */
  double irBatch;
  MemoptPlaceProgramMemory program; /* memory=program: its buffers (else empty) */
} MemoptPlaceModel;

/// Computes `memory` for `func` from memopt's memory estimator on a copy normalized as place-to-shard normalizes a stage (as written when that fails); the first `dataArguments` and last `trailingDataArguments` arguments are data, the others parameters; `irBatch` is the IR's samples; the caller destroys it. False with `error` when the estimator fails.
bool memoptPlaceProgramMemoryCompute(MlirOperation func, size_t dataArguments,
                                     size_t trailingDataArguments, double irBatch,
                                     MemoptPlaceProgramMemory *memory, MemoptStringBuffer *error);

/// Writes the most bytes a stage of ops [start, ends[e]) holds at once per device (what its ops allocate, and its inputs: the buffers of earlier ops and the data arguments it reads, held throughout) for each of the `endCount` ascending `ends`, tensor-parallel group 2^t (t < `degrees`) and microbatch candidate, at held[(e * degrees + t) * microbatchCount + mb] (PlaceStageMemory.c).
void memoptPlaceProgramMemoryStageHeld(const MemoptPlaceProgramMemory *memory, size_t start,
                                       const size_t *ends, size_t endCount,
                                       const int64_t *microbatches, size_t microbatchCount,
                                       size_t degrees, double *held);

/// Writes the bytes per device of the parameters a stage of ops [start, ends[e]) reads, each once, for each of the `endCount` ascending `ends` and tensor-parallel group 2^t (t < `degrees`), at bytes[e * degrees + t] (PlaceStageMemory.c).
void memoptPlaceProgramMemoryStageParameters(const MemoptPlaceProgramMemory *memory, size_t start,
                                             const size_t *ends, size_t endCount, size_t degrees,
                                             double *bytes);

/// Frees what memoptPlaceProgramMemoryCompute allocated.
void memoptPlaceProgramMemoryDestroy(MemoptPlaceProgramMemory *memory);

/// A placement problem and everything it points at.
typedef struct MemoptPlaceProblemStorage {
  MemoptPlacementProblem problem;
  MemoptPlacementLayer *layers;
  double *seconds; /* [segment][microbatch] */
  double *stageParameterBytes; /* memory=program: [stage][tensor degree] */
  double *stageHeldBytes;      /* memory=program: [stage][tensor degree][microbatch] */
  int64_t *microbatches;
  MemoptSegmentCost segments[3];
} MemoptPlaceProblemStorage;

/*===------------------------------------------------------------------===*
 * Options (PlaceSearchPass.c)
 *===------------------------------------------------------------------===*/

/// Returns the cluster the preset and the explicit options describe.
MemoptPlaceCluster memoptPlaceClusterOf(const MemoptPassOptions *options);

/// Parses the baseline option 'p,t,d' into `degrees`; returns false unless three positive integers.
bool memoptPlaceParseBaseline(const char *text, int64_t degrees[3]);

/*===------------------------------------------------------------------===*
 * Model and problem (PlaceProblem.c)
 *===------------------------------------------------------------------===*/

/// Returns the first function of `module` with a body and at least one op, or a null op.
MlirOperation memoptPlaceFindFunction(MlirOperation module);

/// Recognizes the layers of `func` into `model` (destroy with memoptPlaceModelDestroy), and with memory=program its buffers; the options may override the layer count (not with memory=program) and batch. False after an error at `func` when they do, or when memopt's memory estimator cannot price it.
bool memoptPlaceModelRecognize(MlirOperation func, const MemoptPassOptions *options,
                               MemoptPlaceModel *model);

/// Frees what `model` owns.
void memoptPlaceModelDestroy(MemoptPlaceModel *model);

/// Returns which segment problem layer `index` is: 0 prologue, 1 layer, 2 epilogue.
int memoptPlaceSegmentOf(const MemoptPlaceModel *model, size_t index);

/// Stores in [first, end) the op range of problem layer `index` in the materialized function.
void memoptPlaceOpRangeOf(const MemoptPlaceModel *model, size_t index, size_t *first, size_t *end);

/// Costs `model` on `accelerator` into `storage` (destroy it even on failure); emits an error on the function and returns false when an op cannot be costed.
bool memoptPlaceProblemBuild(const MemoptPlaceModel *model, const MemoptPlaceCluster *cluster,
                             const MemoptAcceleratorConfig *accelerator,
                             const MemoptPassOptions *options, MemoptPlaceProblemStorage *storage);

/// Frees what `storage` owns.
void memoptPlaceProblemStorageDestroy(MemoptPlaceProblemStorage *storage);

/*===------------------------------------------------------------------===*
 * Architecture search (PlaceArchitectureSearch.c)
 *===------------------------------------------------------------------===*/

/// Replaces `accelerator` by the best configuration within the area budget the options give, emits a remark, and returns the report's "architecture" section.
struct json_t *memoptPlaceArchitectureSearch(const MemoptPlaceModel *model,
                                             const MemoptPlaceCluster *cluster,
                                             const MemoptAreaModel *areaModel,
                                             const MemoptPassOptions *options,
                                             MemoptAcceleratorConfig *accelerator);

/*===------------------------------------------------------------------===*
 * IR (PlaceEmit.c)
 *===------------------------------------------------------------------===*/

/// Writes `plan` into `module`: a place.cluster op, one place.stage per stage, and a remark on the function.
void memoptPlaceEmitPlan(MlirOperation module, const MemoptPlaceModel *model,
                         const MemoptPlaceCluster *cluster, const MemoptPlacementPlan *plan);

/*===------------------------------------------------------------------===*
 * Report (PlaceReport.c)
 *===------------------------------------------------------------------===*/

/// Returns the JSON description of an accelerator configuration of `area` mm^2.
struct json_t *memoptPlaceDescribeAccelerator(const MemoptAcceleratorConfig *config, double area);

/// Returns the JSON description of `plan` and its stages.
struct json_t *memoptPlaceDescribePlan(const MemoptPlacementPlan *plan,
                                       const MemoptPlaceCluster *cluster);

/// Returns the report: model, cluster, plan, search time, accelerator and, when not null, `architecture` (whose reference it takes).
struct json_t *memoptPlaceReportCreate(const MemoptPlaceModel *model,
                                       const MemoptPlaceCluster *cluster,
                                       const MemoptPlaceProblemStorage *storage,
                                       const MemoptPlacementPlan *plan, double searchSeconds,
                                       struct json_t *architecture,
                                       const MemoptAcceleratorConfig *accelerator,
                                       const MemoptAreaModel *areaModel);

/// Writes `report` to `path`; emits an error on `module` and returns false on failure.
bool memoptPlaceReportWrite(MlirOperation module, const struct json_t *report, const char *path);

/// Returns the seconds elapsed on the monotonic clock since `start`.
double memoptPlaceSecondsSince(const struct timespec *start);

/*===------------------------------------------------------------------===*
 * The transform (PlaceSearch.c)
 *===------------------------------------------------------------------===*/

/// Chooses a placement of the first function of `module` and writes it into the module.
MlirLogicalResult memoptPlaceSearch(MlirOperation module, const MemoptPassOptions *options);

#endif /* MEMOPT_PLACE_PLACESEARCH_H */

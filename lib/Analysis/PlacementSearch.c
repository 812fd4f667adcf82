/* The placement search (PHAZE's device-placement DP, on a layer chain).
 *
 * A configuration fixes the tensor-parallel degree t (a power of two), the
 * data-parallel degree d, the microbatch size m (so m * d divides the
 * global batch into n = batch / (m * d) microbatches per replica) and the
 * pipeline depth p = devices / (t * d). The layers are then split into p
 * contiguous stages; stage i (0-based) keeps q = min(p - i, n) microbatches
 * in flight (1F1B) and either stashes their activations or recomputes them
 * from the stage input.
 *
 * A stage's time per microbatch is forward + backward (+ one more forward
 * when it recomputes) divided by t, plus Megatron's four all-reduces per
 * layer of the layer input among the t devices, plus sending its output to
 * the next stage and the gradient back. Its memory per device is its
 * parameters / t times (1 + state per parameter byte), plus q microbatches
 * of stashed activations / t, or, recomputing, q stage inputs and one
 * layer's activations / t. Its gradient all-reduce among the d replicas is
 * a ring: 2 (d-1)/d of its parameter bytes / t over the link.
 *
 * Time per batch = (n + p - 1) * slowest stage + slowest all-reduce. Both
 * terms are maxima over stages, so the DP keeps, per (stages left, first
 * layer), the Pareto front of (slowest stage, slowest all-reduce) pairs of
 * the suffix; that is exact. A stage stashes whenever that fits: stashing is
 * never slower and the all-reduce does not depend on it. */
#include "Analysis/Placement.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One configuration (t, d, m) with its pipeline depth and microbatch count. */
typedef struct Config {
  int64_t tensor, data, pipeline, microbatch, microbatches;
  size_t microbatchIndex;
} Config;

/* A stage's figures under a configuration. */
typedef struct StageFigures {
  bool fits;
  bool recompute;
  double seconds;
  double memoryBytes;
  double allReduceSeconds;
  double stateBytes;      /* parameters with gradients and optimizer state */
  double activationBytes; /* stashed activations or inputs, working set */
} StageFigures;

static double ringAllReduce(double bytes, int64_t group, double bandwidth) {
  return group > 1 ? 2.0 * (double)(group - 1) / (double)group * bytes / bandwidth : 0;
}

/* The sums over a stage's layers its figures need, accumulated one layer at
 * a time so that the DP extends a stage by a layer in constant time. */
typedef struct StageSums {
  double forward, parameters, activations, largestLayer, tensorComm;
} StageSums;

static void stageAddLayer(const MemoptPlacementProblem *problem, const Config *config,
                          StageSums *sums, size_t l) {
  double t = (double)config->tensor, m = (double)config->microbatch;
  const MemoptPlacementLayer *layer = &problem->layers[l];
  sums->forward += layer->forwardSeconds[config->microbatchIndex] / t;
  sums->parameters += layer->parameterBytes / t;
  sums->activations += layer->activationBytes * m / t;
  sums->largestLayer = fmax(sums->largestLayer, layer->activationBytes * m / t);
  sums->tensorComm +=
      4 * ringAllReduce(layer->boundaryBytes * m, config->tensor, problem->linkBandwidth);
}

/* The figures of the stage holding layers [first, end), whose sums are
 * `sums`, with `stagesLeft` stages from it to the end of the pipeline (itself
 * included), when it recomputes or stashes. */
static StageFigures stageFinish(const MemoptPlacementProblem *problem, const Config *config,
                                const StageSums *sums, size_t first, size_t end,
                                int64_t stagesLeft, bool recompute) {
  double m = (double)config->microbatch;
  double input = problem->layers[first].boundaryBytes * m;
  double sendOutput = end < problem->layerCount
                          ? 2 * problem->layers[end].boundaryBytes * m / problem->linkBandwidth
                          : 0;
  double stashed = (double)(stagesLeft < config->microbatches ? stagesLeft : config->microbatches);
  StageFigures figures;
  figures.stateBytes = sums->parameters * (1 + problem->stateBytesPerParameterByte);
  figures.allReduceSeconds = ringAllReduce(sums->parameters, config->data, problem->linkBandwidth);
  double base = sums->forward * (1 + problem->backwardFactor) + sums->tensorComm + sendOutput;
  figures.recompute = recompute;
  figures.activationBytes =
      recompute ? stashed * input + sums->largestLayer : stashed * sums->activations;
  figures.memoryBytes = figures.stateBytes + figures.activationBytes;
  figures.seconds = base + (figures.recompute ? sums->forward : 0);
  figures.fits = figures.memoryBytes <= problem->hbmBytes;
  return figures;
}

/* The stage stashing when that fits, else recomputing. */
static StageFigures stageChoose(const MemoptPlacementProblem *problem, const Config *config,
                                const StageSums *sums, size_t first, size_t end,
                                int64_t stagesLeft) {
  StageFigures stash = stageFinish(problem, config, sums, first, end, stagesLeft, false);
  return stash.fits ? stash : stageFinish(problem, config, sums, first, end, stagesLeft, true);
}

static StageSums stageSums(const MemoptPlacementProblem *problem, const Config *config,
                           size_t first, size_t end) {
  StageSums sums = {0, 0, 0, 0, 0};
  for (size_t l = first; l < end; ++l)
    stageAddLayer(problem, config, &sums, l);
  return sums;
}

/* The figures of the stage holding layers [first, end), recomputing or
 * stashing. */
static StageFigures stageWith(const MemoptPlacementProblem *problem, const Config *config,
                              size_t first, size_t end, int64_t stagesLeft, bool recompute) {
  StageSums sums = stageSums(problem, config, first, end);
  return stageFinish(problem, config, &sums, first, end, stagesLeft, recompute);
}

/* The stage holding layers [first, end), stashing when that fits, else
 * recomputing. */
static StageFigures stageFigures(const MemoptPlacementProblem *problem, const Config *config,
                                 size_t first, size_t end, int64_t stagesLeft) {
  StageSums sums = stageSums(problem, config, first, end);
  return stageChoose(problem, config, &sums, first, end, stagesLeft);
}

static double batchSeconds(const Config *config, double slowestStage, double slowestAllReduce) {
  return slowestStage * (double)(config->microbatches + config->pipeline - 1) + slowestAllReduce;
}

/* Records the least memory a layer needs on its own (largest tensor-parallel
 * degree, smallest microbatch, recomputing, one microbatch in flight). */
static void noteSmallestFailure(const MemoptPlacementProblem *problem, MemoptPlacementFailure *failure) {
  memset(failure, 0, sizeof *failure);
  int64_t tensor = 1;
  while (tensor * 2 <= problem->maxTensorParallel && tensor * 2 <= problem->devices &&
         (problem->tensorParallelDivisor == 0 || problem->tensorParallelDivisor % (tensor * 2) == 0))
    tensor *= 2;
  Config config = {tensor, 1, 1, problem->microbatches[0], 1, 0};
  double worst = -1;
  for (size_t l = 0; l < problem->layerCount; ++l) {
    StageFigures figures = stageFigures(problem, &config, l, l + 1, 1);
    if (figures.memoryBytes > worst) {
      worst = figures.memoryBytes;
      *failure = (MemoptPlacementFailure){figures.memoryBytes, figures.stateBytes,
                                          figures.activationBytes, l, 1};
    }
  }
}

/* Calls `visit` for every configuration of the problem; stops when it returns false. */
static void forEachConfig(const MemoptPlacementProblem *problem,
                          void (*visit)(const MemoptPlacementProblem *, const Config *, void *),
                          void *state) {
  for (int64_t tensor = 1; tensor <= problem->maxTensorParallel && tensor <= problem->devices;
       tensor *= 2) {
    if (problem->tensorParallelDivisor && problem->tensorParallelDivisor % tensor)
      continue;
    for (int64_t data = 1; tensor * data <= problem->devices; ++data) {
      if (problem->devices % (tensor * data))
        continue;
      int64_t pipeline = problem->devices / (tensor * data);
      if ((size_t)pipeline > problem->layerCount)
        continue;
      for (size_t mb = 0; mb < problem->microbatchCount; ++mb) {
        int64_t microbatch = problem->microbatches[mb];
        if (problem->globalBatch % (microbatch * data))
          continue;
        Config config = {tensor, data, pipeline, microbatch,
                         problem->globalBatch / (microbatch * data), mb};
        visit(problem, &config, state);
      }
    }
  }
}

/* Builds the plan's stages from stage boundaries. */
static void fillPlan(const MemoptPlacementProblem *problem, const Config *config,
                     const size_t *bounds, MemoptPlacementPlan *plan, double seconds) {
  free(plan->stages);
  plan->pipeline = config->pipeline;
  plan->tensorParallel = config->tensor;
  plan->dataParallel = config->data;
  plan->microbatch = config->microbatch;
  plan->microbatchCount = config->microbatches;
  plan->batchSeconds = seconds;
  plan->stageCount = (size_t)config->pipeline;
  plan->stages = memoptAllocateZeroed(plan->stageCount, sizeof *plan->stages);
  for (size_t s = 0; s < plan->stageCount; ++s) {
    int64_t left = config->pipeline - (int64_t)s;
    StageFigures figures = stageFigures(problem, config, bounds[s], bounds[s + 1], left);
    plan->stages[s] = (MemoptPlacementStage){
        bounds[s], bounds[s + 1] - bounds[s], figures.recompute,
        left < config->microbatches ? left : config->microbatches, figures.seconds,
        figures.memoryBytes, figures.allReduceSeconds};
  }
}

/*===------------------------------------------------------------------===*
 * Dynamic programming
 *===------------------------------------------------------------------===*/

/* One point of a Pareto front, with how the suffix was split. */
typedef struct FrontPoint {
  double slowest;
  double allReduce;
  size_t end;   /* this stage holds [first, end) */
  size_t child; /* point of the front at (stages - 1, end) */
} FrontPoint;

typedef struct Front {
  FrontPoint *points;
  size_t count;
  size_t capacity;
} Front;

static void frontAdd(Front *front, FrontPoint point) {
  front->points =
      memoptGrowArray(front->points, &front->capacity, front->count + 1, sizeof *front->points);
  front->points[front->count++] = point;
}

static int bySlowestThenAllReduce(const void *a, const void *b) {
  const FrontPoint *x = a, *y = b;
  if (x->slowest != y->slowest)
    return x->slowest < y->slowest ? -1 : 1;
  if (x->allReduce != y->allReduce)
    return x->allReduce < y->allReduce ? -1 : 1;
  return 0;
}

/* Keeps the points no other point is at least as good as in both terms. */
static void frontPrune(Front *front) {
  if (front->count < 2)
    return;
  qsort(front->points, front->count, sizeof *front->points, bySlowestThenAllReduce);
  size_t kept = 0;
  for (size_t i = 0; i < front->count; ++i)
    if (kept == 0 || front->points[i].allReduce < front->points[kept - 1].allReduce)
      front->points[kept++] = front->points[i];
  front->count = kept;
}

typedef struct SearchState {
  MemoptPlacementPlan *plan;
  bool found;
  uint64_t evaluated;
} SearchState;

static void searchConfig(const MemoptPlacementProblem *problem, const Config *config, void *opaque) {
  SearchState *state = opaque;
  size_t layers = problem->layerCount, depth = (size_t)config->pipeline;
  /* fronts[s * (layers + 1) + first]: layers [first, layers) in s stages. */
  Front *fronts = memoptAllocateZeroed((depth + 1) * (layers + 1), sizeof *fronts);
  frontAdd(&fronts[layers], (FrontPoint){0, 0, layers, 0});
  for (size_t s = 1; s <= depth; ++s)
    for (size_t first = 0; first + s <= layers; ++first) {
      Front *front = &fronts[s * (layers + 1) + first];
      StageSums sums = {0, 0, 0, 0, 0};
      for (size_t end = first + 1; end + (s - 1) <= layers; ++end) {
        stageAddLayer(problem, config, &sums, end - 1);
        const Front *rest = &fronts[(s - 1) * (layers + 1) + end];
        if (rest->count == 0)
          continue;
        StageFigures figures = stageChoose(problem, config, &sums, first, end, (int64_t)s);
        state->evaluated += rest->count;
        if (!figures.fits)
          continue;
        for (size_t i = 0; i < rest->count; ++i)
          frontAdd(front, (FrontPoint){fmax(figures.seconds, rest->points[i].slowest),
                                       fmax(figures.allReduceSeconds, rest->points[i].allReduce),
                                       end, i});
      }
      frontPrune(front);
    }
  const Front *whole = &fronts[depth * (layers + 1)];
  size_t best = 0;
  double bestSeconds = INFINITY;
  for (size_t i = 0; i < whole->count; ++i) {
    double seconds = batchSeconds(config, whole->points[i].slowest, whole->points[i].allReduce);
    if (seconds < bestSeconds) {
      bestSeconds = seconds;
      best = i;
    }
  }
  if (whole->count && (!state->found || bestSeconds < state->plan->batchSeconds)) {
    size_t *bounds = memoptAllocateZeroed(depth + 1, sizeof *bounds);
    size_t first = 0, point = best;
    for (size_t s = depth; s >= 1; --s) {
      const FrontPoint *chosen = &fronts[s * (layers + 1) + first].points[point];
      bounds[depth - s] = first;
      first = chosen->end;
      point = chosen->child;
    }
    bounds[depth] = layers;
    fillPlan(problem, config, bounds, state->plan, bestSeconds);
    free(bounds);
    state->found = true;
  }
  for (size_t i = 0; i < (depth + 1) * (layers + 1); ++i)
    free(fronts[i].points);
  free(fronts);
}

bool memoptPlacementSearch(const MemoptPlacementProblem *problem, MemoptPlacementPlan *plan,
                           MemoptPlacementFailure *failure) {
  memset(plan, 0, sizeof *plan);
  SearchState state = {plan, false, 0};
  forEachConfig(problem, searchConfig, &state);
  plan->evaluated = state.evaluated;
  if (!state.found)
    noteSmallestFailure(problem, failure);
  return state.found;
}

/*===------------------------------------------------------------------===*
 * Brute force: every split, every recompute choice
 *===------------------------------------------------------------------===*/

static void bruteConfig(const MemoptPlacementProblem *problem, const Config *config, void *opaque) {
  SearchState *state = opaque;
  size_t depth = (size_t)config->pipeline, layers = problem->layerCount;
  size_t *bounds = memoptAllocateZeroed(depth + 1, sizeof *bounds);
  /* Enumerate boundaries 0 = b0 < b1 < ... < b_depth = layers. */
  for (size_t s = 0; s <= depth; ++s)
    bounds[s] = s;
  bounds[depth] = layers;
  for (;;) {
    /* Every recompute choice per stage: the figures with a forced choice. */
    for (uint64_t mask = 0; mask < (UINT64_C(1) << depth); ++mask) {
      ++state->evaluated;
      double slowest = 0, allReduce = 0;
      bool fits = true;
      for (size_t s = 0; s < depth && fits; ++s) {
        int64_t left = config->pipeline - (int64_t)s;
        StageFigures figures =
            stageWith(problem, config, bounds[s], bounds[s + 1], left, (mask >> s) & 1);
        fits = figures.fits;
        slowest = fmax(slowest, figures.seconds);
        allReduce = fmax(allReduce, figures.allReduceSeconds);
      }
      double seconds = batchSeconds(config, slowest, allReduce);
      if (fits && (!state->found || seconds < state->plan->batchSeconds)) {
        fillPlan(problem, config, bounds, state->plan, seconds);
        state->found = true;
      }
    }
    /* Next boundaries in lexicographic order. */
    size_t s = depth - 1;
    while (s >= 1 && bounds[s] == layers - (depth - s))
      --s;
    if (s == 0)
      break;
    ++bounds[s];
    for (size_t next = s + 1; next < depth; ++next)
      bounds[next] = bounds[next - 1] + 1;
  }
  free(bounds);
}

bool memoptPlacementBruteForce(const MemoptPlacementProblem *problem, MemoptPlacementPlan *plan) {
  memset(plan, 0, sizeof *plan);
  if (problem->layerCount > MEMOPT_PLACEMENT_BRUTE_FORCE_MAX_LAYERS)
    return false;
  SearchState state = {plan, false, 0};
  forEachConfig(problem, bruteConfig, &state);
  plan->evaluated = state.evaluated;
  return state.found;
}

/*===------------------------------------------------------------------===*
 * Fixed configurations (Megatron-style baselines)
 *===------------------------------------------------------------------===*/

typedef struct FixedState {
  SearchState search;
  int64_t pipeline, tensor, data;
} FixedState;

static void fixedConfig(const MemoptPlacementProblem *problem, const Config *config, void *opaque) {
  FixedState *state = opaque;
  if (config->pipeline != state->pipeline || config->tensor != state->tensor ||
      config->data != state->data)
    return;
  size_t depth = (size_t)config->pipeline, layers = problem->layerCount;
  size_t *bounds = memoptAllocateZeroed(depth + 1, sizeof *bounds);
  /* Even split, the first stages taking the remainder. */
  size_t base = layers / depth, extra = layers % depth;
  bounds[0] = 0;
  for (size_t s = 0; s < depth; ++s)
    bounds[s + 1] = bounds[s] + base + (s < extra);
  double slowest = 0, allReduce = 0;
  bool fits = true;
  for (size_t s = 0; s < depth; ++s) {
    StageFigures figures =
        stageFigures(problem, config, bounds[s], bounds[s + 1], config->pipeline - (int64_t)s);
    fits &= figures.fits;
    slowest = fmax(slowest, figures.seconds);
    allReduce = fmax(allReduce, figures.allReduceSeconds);
  }
  double seconds = batchSeconds(config, slowest, allReduce);
  ++state->search.evaluated;
  if (fits && (!state->search.found || seconds < state->search.plan->batchSeconds)) {
    fillPlan(problem, config, bounds, state->search.plan, seconds);
    state->search.found = true;
  }
  free(bounds);
}

bool memoptPlacementEvaluateFixed(const MemoptPlacementProblem *problem, int64_t pipeline,
                                  int64_t tensorParallel, int64_t dataParallel,
                                  MemoptPlacementPlan *plan) {
  memset(plan, 0, sizeof *plan);
  FixedState state = {{plan, false, 0}, pipeline, tensorParallel, dataParallel};
  forEachConfig(problem, fixedConfig, &state);
  plan->evaluated = state.search.evaluated;
  return state.search.found;
}

void memoptPlacementPlanDestroy(MemoptPlacementPlan *plan) {
  free(plan->stages);
  plan->stages = NULL;
  plan->stageCount = 0;
}

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
#include "Place/Place.h"

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

/* The index of `config`'s tensor degree among the problem's (1, 2, 4, ...). */
static size_t degreeIndex(const Config *config) {
  size_t degree = 0;
  while (((int64_t)1 << degree) < config->tensor)
    ++degree;
  return degree;
}

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
  if (problem->memory == MemoptPlacementProgram) {
    /* The parameters' share, one microbatch's largest live set (stash, gradients). */
    size_t degrees = memoptPlacementTensorDegrees(problem->maxTensorParallel);
    size_t at =
        memoptPlacementStageIndex(problem->layerCount, first, end) * degrees + degreeIndex(config);
    figures.stateBytes = problem->stageParameterBytes[at];
    figures.activationBytes =
        problem->stageHeldBytes[at * problem->microbatchCount + config->microbatchIndex];
  }
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
  StageSums sums = {0};
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

/* Runs `searchConfig` on every configuration and keeps the fastest plan;
 * when none fits, says what was closest in `failure`. */
static bool searchEveryConfig(const MemoptPlacementProblem *problem,
                              void (*searchConfig)(const MemoptPlacementProblem *, const Config *,
                                                   void *),
                              MemoptPlacementPlan *plan, MemoptPlacementFailure *failure) {
  memset(plan, 0, sizeof *plan);
  SearchState state = {plan, false, 0};
  forEachConfig(problem, searchConfig, &state);
  plan->evaluated = state.evaluated;
  if (!state.found)
    noteSmallestFailure(problem, failure);
  return state.found;
}

/* Records a configuration's plan when it is faster than the best so far
 * (the first of equally fast configurations stays). */
static void offerPlan(const MemoptPlacementProblem *problem, const Config *config,
                      SearchState *state, const size_t *bounds, double seconds) {
  if (state->found && !(seconds < state->plan->batchSeconds))
    return;
  fillPlan(problem, config, bounds, state->plan, seconds);
  state->found = true;
}

static void searchConfigDP(const MemoptPlacementProblem *problem, const Config *config,
                           void *opaque) {
  SearchState *state = opaque;
  size_t layers = problem->layerCount, depth = (size_t)config->pipeline;
  /* fronts[s * (layers + 1) + first]: layers [first, layers) in s stages. */
  Front *fronts = memoptAllocateZeroed((depth + 1) * (layers + 1), sizeof *fronts);
  frontAdd(&fronts[layers], (FrontPoint){0, 0, layers, 0});
  for (size_t s = 1; s <= depth; ++s)
    for (size_t first = 0; first + s <= layers; ++first) {
      Front *front = &fronts[s * (layers + 1) + first];
      StageSums sums = {0};
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
    offerPlan(problem, config, state, bounds, bestSeconds);
    free(bounds);
  }
  for (size_t i = 0; i < (depth + 1) * (layers + 1); ++i)
    free(fronts[i].points);
  free(fronts);
}

bool memoptPlacementSearchDP(const MemoptPlacementProblem *problem, MemoptPlacementPlan *plan,
                             MemoptPlacementFailure *failure) {
  return searchEveryConfig(problem, searchConfigDP, plan, failure);
}

/*===------------------------------------------------------------------===*
 * Threshold search over equal middle layers
 *===------------------------------------------------------------------===*/

/* When layers 1 .. L-2 are equal (the pass's problems: a prologue, equal
 * transformer layers, an epilogue), a plan is the number k_j of middle
 * layers of each stage j: the first stage also holds layer 0 (k_0 >= 0), the
 * last layer L-1 (k_{p-1} >= 0), the others k_j >= 1. Stage j's figures then
 * depend only on k_j, on j through its stashed microbatches min(p - j, n),
 * and, for stage p - 2, on whether the last stage holds layer L-1 alone (its
 * output then goes to that layer). Summing a stage's layers in the DP's
 * order gives bit-identical figures for equal (j, k_j).
 *
 * A stage's time, all-reduce and memory never decrease as it takes more
 * middle layers (more layers only add non-negative terms; a stage that has
 * to recompute at k has to at k + 1). So under thresholds (S, R) on the
 * slowest stage and slowest all-reduce, each stage can take any k_j up to a
 * cap found by bisection, and the suffix from stage i can hold `rem` middle
 * layers iff rem lies between the sums of the lower bounds and of the caps
 * (once with the last stage holding middle layers, once with it holding
 * layer L-1 alone). That is O(p log L) per threshold pair.
 *
 * The DP's front at the root is walked point by point (least S for the R
 * cap, then least R for that S; then the next point below that R), each by
 * bisection on the doubles' bit patterns, which ends exactly at a figure a
 * plan attains. The point of least time per batch (the first, in ascending
 * S, of equal ones) is the DP's. Its stages follow the DP's ties: each stage
 * takes the fewest middle layers the rest can complete within the target,
 * and the rest's target becomes its own front point of least S within the
 * target's R (then least R for that S). */

/* The sums of a stage holding k middle layers, k = 0 .. M, for the first, a
 * middle and the last stage of a configuration. */
typedef struct Uniform {
  const MemoptPlacementProblem *problem;
  const Config *config;
  size_t middle; /* M: layers 1 .. L-2 */
  size_t depth;  /* p */
  StageSums *head, *body, *tail;
  uint64_t *evaluated;
} Uniform;

typedef struct Threshold {
  double slowest, allReduce;
} Threshold;

/* Stage j's figures with k middle layers; `beforeLast`: the next stage holds
 * layer L-1 alone. */
static StageFigures uniformStage(const Uniform *u, size_t j, size_t k, bool beforeLast) {
  size_t layers = u->problem->layerCount;
  int64_t left = (int64_t)(u->depth - j);
  ++*u->evaluated;
  if (j + 1 == u->depth)
    return stageChoose(u->problem, u->config, &u->tail[k], k ? 1 : layers - 1, layers, left);
  /* Any middle layer stands for the next stage's first: they are equal. */
  return stageChoose(u->problem, u->config, j == 0 ? &u->head[k] : &u->body[k], j == 0 ? 0 : 1,
                     beforeLast ? layers - 1 : 1, left);
}

static bool within(StageFigures figures, Threshold limit) {
  return figures.fits && figures.seconds <= limit.slowest &&
         figures.allReduceSeconds <= limit.allReduce;
}

/* The most middle layers in [low, M] stage j can take within `limit`, or
 * SIZE_MAX when even `low` is too many. */
static size_t stageCap(const Uniform *u, size_t j, bool beforeLast, size_t low, Threshold limit) {
  if (low > u->middle || !within(uniformStage(u, j, low, beforeLast), limit))
    return SIZE_MAX;
  size_t good = low, bad = u->middle + 1;
  while (bad - good > 1) {
    size_t k = good + (bad - good) / 2;
    if (within(uniformStage(u, j, k, beforeLast), limit))
      good = k;
    else
      bad = k;
  }
  return good;
}

/* The caps of stages [from, p) within one threshold pair, with suffix sums
 * over stages [i, p - 1). */
typedef struct Caps {
  Threshold limit;
  size_t *capSum, *lowSum, *tooFew; /* [i], i in [from, p): over stages [i, p - 1) */
  size_t before;  /* stage p - 2's cap when the last stage holds layer L-1 alone */
  size_t last;    /* the last stage's cap when it holds middle layers (from 1) */
  bool alone;     /* the last stage may hold layer L-1 alone */
} Caps;

static void capsCreate(Caps *caps, size_t depth) {
  caps->capSum = memoptAllocateZeroed(depth, sizeof *caps->capSum);
  caps->lowSum = memoptAllocateZeroed(depth, sizeof *caps->lowSum);
  caps->tooFew = memoptAllocateZeroed(depth, sizeof *caps->tooFew);
}

static void capsDestroy(Caps *caps) {
  free(caps->capSum);
  free(caps->lowSum);
  free(caps->tooFew);
}

static void capsCompute(const Uniform *u, Caps *caps, size_t from, Threshold limit) {
  size_t p = u->depth;
  int64_t microbatches = u->config->microbatches;
  caps->limit = limit;
  caps->capSum[p - 1] = caps->lowSum[p - 1] = caps->tooFew[p - 1] = 0;
  /* Middle stages with as many stashed microbatches have the same cap. */
  int64_t sharedStashed = -1;
  size_t sharedCap = 0;
  for (size_t j = p - 1; j-- > from;) {
    size_t low = j == 0 ? 0 : 1, cap;
    int64_t stashed = (int64_t)(p - j) < microbatches ? (int64_t)(p - j) : microbatches;
    if (j > 0 && stashed == sharedStashed) {
      cap = sharedCap;
    } else {
      cap = stageCap(u, j, false, low, limit);
      if (j > 0) {
        sharedStashed = stashed;
        sharedCap = cap;
      }
    }
    bool ok = cap != SIZE_MAX;
    caps->capSum[j] = caps->capSum[j + 1] + (ok ? cap : 0);
    caps->lowSum[j] = caps->lowSum[j + 1] + low;
    caps->tooFew[j] = caps->tooFew[j + 1] + !ok;
  }
  caps->before = from <= p - 2 ? stageCap(u, p - 2, true, p == 2 ? 0 : 1, limit) : SIZE_MAX;
  caps->last = stageCap(u, p - 1, false, 1, limit);
  caps->alone = within(uniformStage(u, p - 1, 0, false), limit);
}

/* Whether stages [i, p) can hold `rem` middle layers within the caps. */
static bool suffixFits(const Uniform *u, const Caps *caps, size_t i, size_t rem) {
  size_t p = u->depth;
  if (i + 1 == p)
    return rem == 0 ? caps->alone : caps->last != SIZE_MAX && rem <= caps->last;
  /* The last stage holds middle layers: stages [i, p - 1) as usual. */
  if (caps->tooFew[i] == 0 && caps->last != SIZE_MAX && rem >= caps->lowSum[i] + 1 &&
      rem <= caps->capSum[i] + caps->last)
    return true;
  /* The last stage holds layer L-1 alone: stage p - 2 sends to it. */
  return caps->alone && caps->before != SIZE_MAX && caps->tooFew[i] == caps->tooFew[p - 2] &&
         rem >= caps->lowSum[i] &&
         rem <= caps->capSum[i] - caps->capSum[p - 2] + caps->before;
}

static uint64_t bitsOf(double value) {
  uint64_t bits;
  memcpy(&bits, &value, sizeof bits);
  return bits;
}

static double doubleOf(uint64_t bits) {
  double value;
  memcpy(&value, &bits, sizeof value);
  return value;
}

/* The largest double below a positive `value`. */
static double below(double value) { return doubleOf(bitsOf(value) - 1); }

/* The least figure x in [0, high] such that stages [i, p) hold `rem` middle
 * layers within (x, other) (or (other, x) when `onAllReduce`); `high` must
 * fit. Non-negative doubles order as their bit patterns. */
static double leastThreshold(const Uniform *u, Caps *probe, size_t i, size_t rem, double high,
                             double other, bool onAllReduce) {
  uint64_t fits = bitsOf(high), fails;
  Threshold limit = onAllReduce ? (Threshold){other, 0} : (Threshold){0, other};
  capsCompute(u, probe, i, limit);
  if (suffixFits(u, probe, i, rem))
    return 0;
  fails = 0;
  while (fits - fails > 1) {
    uint64_t mid = fails + (fits - fails) / 2;
    if (onAllReduce)
      limit.allReduce = doubleOf(mid);
    else
      limit.slowest = doubleOf(mid);
    capsCompute(u, probe, i, limit);
    if (suffixFits(u, probe, i, rem))
      fits = mid;
    else
      fails = mid;
  }
  return doubleOf(fits);
}

/* The front point of stages [i, p) holding `rem` middle layers with the
 * least slowest stage among those within all-reduce `allReduceCap`, whose
 * slowest stage is at most `slowestCap` (which must fit). */
static Threshold frontPointWithin(const Uniform *u, Caps *probe, size_t i, size_t rem,
                                  double slowestCap, double allReduceCap) {
  double slowest = leastThreshold(u, probe, i, rem, slowestCap, allReduceCap, false);
  double allReduce = leastThreshold(u, probe, i, rem, allReduceCap, slowest, true);
  return (Threshold){slowest, allReduce};
}

/* Whether `target` is still the front point frontPointWithin would find for
 * stages [i, p) and `rem`: nothing fits with a faster slowest stage, nor
 * with the same one and a faster all-reduce. */
static bool stillFrontPoint(const Uniform *u, Caps *probe, size_t i, size_t rem, Threshold target) {
  if (target.slowest > 0) {
    capsCompute(u, probe, i, (Threshold){below(target.slowest), target.allReduce});
    if (suffixFits(u, probe, i, rem))
      return false;
  }
  if (target.allReduce > 0) {
    capsCompute(u, probe, i, (Threshold){target.slowest, below(target.allReduce)});
    if (suffixFits(u, probe, i, rem))
      return false;
  }
  return true;
}

/* The stage bounds of the DP's plan for root front point `target`. */
static void uniformBounds(const Uniform *u, Caps *caps, Caps *probe, Threshold target,
                          size_t *bounds) {
  size_t p = u->depth, layers = u->problem->layerCount, rem = u->middle, first = 0;
  capsCompute(u, caps, 0, target);
  for (size_t i = 0; i + 1 < p; ++i) {
    size_t low = i == 0 ? 0 : 1, take = SIZE_MAX;
    size_t cap = stageCap(u, i, false, low, caps->limit);
    /* The fewest middle layers that leave the rest completable; the last
     * stage holding layer L-1 alone (stage p - 2 then sends to it) has the
     * largest end, so it comes last. */
    if (cap != SIZE_MAX)
      for (size_t k = low; k <= cap && k < rem + (i + 2 < p); ++k)
        if (suffixFits(u, caps, i + 1, rem - k)) {
          take = k;
          break;
        }
    if (take == SIZE_MAX)
      take = rem; /* i == p - 2: stage p - 2 takes the rest */
    bounds[i] = first;
    first += take + (i == 0);
    rem -= take;
    if (i + 2 < p && !stillFrontPoint(u, probe, i + 1, rem, caps->limit)) {
      Threshold next = frontPointWithin(u, probe, i + 1, rem, caps->limit.slowest,
                                        caps->limit.allReduce);
      capsCompute(u, caps, i + 1, next);
    }
  }
  bounds[p - 1] = first;
  bounds[p] = layers;
}

static void searchConfigUniform(const MemoptPlacementProblem *problem, const Config *config,
                                void *opaque) {
  SearchState *state = opaque;
  size_t layers = problem->layerCount, depth = (size_t)config->pipeline;
  size_t bounds1[2] = {0, layers};
  if (depth == 1) {
    StageFigures figures = stageFigures(problem, config, 0, layers, 1);
    ++state->evaluated;
    if (figures.fits)
      offerPlan(problem, config, state, bounds1,
                batchSeconds(config, figures.seconds, figures.allReduceSeconds));
    return;
  }
  Uniform u = {problem, config, layers - 2, depth, NULL, NULL, NULL, &state->evaluated};
  u.head = memoptAllocateZeroed(u.middle + 1, sizeof *u.head);
  u.body = memoptAllocateZeroed(u.middle + 1, sizeof *u.body);
  u.tail = memoptAllocateZeroed(u.middle + 1, sizeof *u.tail);
  stageAddLayer(problem, config, &u.head[0], 0);
  for (size_t k = 0; k <= u.middle; ++k) {
    if (k > 0) {
      u.head[k] = u.head[k - 1];
      stageAddLayer(problem, config, &u.head[k], 1);
      u.body[k] = u.body[k - 1];
      stageAddLayer(problem, config, &u.body[k], 1);
    }
    u.tail[k] = u.body[k];
    stageAddLayer(problem, config, &u.tail[k], layers - 1);
  }
  Caps caps, probe;
  capsCreate(&caps, depth);
  capsCreate(&probe, depth);
  /* Walk the root's front in ascending slowest stage. */
  Threshold best = {INFINITY, INFINITY};
  double bestSeconds = INFINITY, allReduceCap = INFINITY;
  capsCompute(&u, &probe, 0, (Threshold){INFINITY, INFINITY});
  bool fits = suffixFits(&u, &probe, 0, u.middle);
  while (fits) {
    Threshold point = frontPointWithin(&u, &probe, 0, u.middle, INFINITY, allReduceCap);
    double seconds = batchSeconds(config, point.slowest, point.allReduce);
    if (seconds < bestSeconds) {
      bestSeconds = seconds;
      best = point;
    }
    if (point.allReduce == 0)
      break;
    allReduceCap = below(point.allReduce);
    capsCompute(&u, &probe, 0, (Threshold){INFINITY, allReduceCap});
    fits = suffixFits(&u, &probe, 0, u.middle);
  }
  if (bestSeconds < INFINITY && (!state->found || bestSeconds < state->plan->batchSeconds)) {
    size_t *bounds = memoptAllocateZeroed(depth + 1, sizeof *bounds);
    uniformBounds(&u, &caps, &probe, best, bounds);
    offerPlan(problem, config, state, bounds, bestSeconds);
    free(bounds);
  }
  capsDestroy(&caps);
  capsDestroy(&probe);
  free(u.head);
  free(u.body);
  free(u.tail);
}

bool memoptPlacementSearch(const MemoptPlacementProblem *problem, MemoptPlacementPlan *plan,
                           MemoptPlacementFailure *failure) {
  if (!memoptPlacementMiddleLayersEqual(problem))
    return memoptPlacementSearchDP(problem, plan, failure);
  return searchEveryConfig(problem, searchConfigUniform, plan, failure);
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
  size_t base = layers / depth, extra = layers % depth; /* bounds[0] is 0 */
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

/* place-search's architecture search (PHAZE): the accelerator
 * configurations of powers of two within an area budget, ranked by the
 * list-scheduled time of one layer; the fastest few get the whole placement
 * search, and the one with the shortest batch time is chosen. */
#include "Place/PlaceSearch.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <time.h>

/* A configuration and the list-scheduled time of the first layer on it. */
typedef struct Candidate {
  MemoptAcceleratorConfig config;
  double layerSeconds;
  double area;
} Candidate;

static int byLayerSeconds(const void *a, const void *b) {
  const Candidate *x = a, *y = b;
  return x->layerSeconds < y->layerSeconds ? -1 : x->layerSeconds > y->layerSeconds;
}

/* PHAZE's space: tensor and vector cores 1..64, array width and depth
 * 8..256 (vector width = array width), buffer 8..128 MiB, all powers of two,
 * with an area between 30% of the budget (any area when a core count is 1)
 * and the budget. Returns the candidates sorted by the first layer's
 * list-scheduled time at microbatch 1; `count` receives their number. */
static Candidate *architectureCandidates(const MemoptPlaceModel *model, const MemoptAcceleratorConfig *base,
                                         const MemoptAreaModel *areaModel, double budget,
                                         size_t dataArguments, size_t *count) {
  const MemoptLayerStructure *s = &model->structure;
  size_t capacity = 64, found = 0;
  Candidate *candidates = memoptAllocateZeroed(capacity, sizeof *candidates);
  MemoptStringBuffer reason = memoptStringBufferCreate();
  for (int64_t tensorCores = 1; tensorCores <= 64; tensorCores *= 2)
    for (int64_t vectorCores = 1; vectorCores <= 64; vectorCores *= 2)
      for (int64_t width = 8; width <= 256; width *= 2)
        for (int64_t depth = 8; depth <= 256; depth *= 2)
          for (uint64_t mib = 8; mib <= 128; mib *= 2) {
            MemoptAcceleratorConfig config = *base;
            config.tensorCores = tensorCores;
            config.vectorCores = vectorCores;
            config.width = width;
            config.depth = depth;
            config.vectorWidth = width;
            config.bufferBytes = mib * 1024 * 1024;
            double area = memoptAcceleratorArea(&config, areaModel);
            double floor = tensorCores == 1 || vectorCores == 1 ? 0 : 0.3 * budget;
            if (area > budget || area < floor)
              continue;
            MemoptScheduleProblem problem;
            memoptStringBufferClear(&reason);
            if (!memoptSegmentScheduleProblem(model->func, s->bounds[0], s->bounds[1] - s->bounds[0],
                                              dataArguments, &config, 1 / model->irBatch, &problem,
                                              &reason))
              continue;
            double *starts = memoptAllocateZeroed(problem.count + 1, sizeof *starts);
            double seconds = memoptScheduleList(&problem, starts);
            free(starts);
            memoptScheduleProblemDestroy(&problem);
            if (found == capacity) {
              capacity *= 2;
              candidates = memoptReallocArray(candidates, capacity, sizeof *candidates);
            }
            candidates[found++] = (Candidate){config, seconds, area};
          }
  memoptStringBufferDestroy(&reason);
  qsort(candidates, found, sizeof *candidates, byLayerSeconds);
  *count = found;
  return candidates;
}

json_t *memoptPlaceArchitectureSearch(const MemoptPlaceModel *model,
                                      const MemoptPlaceCluster *cluster,
                                      const MemoptAreaModel *areaModel,
                                      const MemoptPassOptions *options,
                                      MemoptAcceleratorConfig *accelerator) {
  double budget = memoptPassOptionsGetFloat(options, "area-budget");
  if (budget == 0)
    budget = memoptAcceleratorArea(accelerator, areaModel);
  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  size_t candidateCount;
  Candidate *candidates = architectureCandidates(
      model, accelerator, areaModel, budget,
      (size_t)memoptPassOptionsGetInteger(options, "data-arguments"), &candidateCount);
  size_t tried = (size_t)memoptPassOptionsGetInteger(options, "architecture-candidates");
  if (tried > candidateCount)
    tried = candidateCount;
  double bestSeconds = INFINITY;
  size_t best = candidateCount;
  json_t *tries = json_array();
  for (size_t c = 0; c < tried; ++c) {
    MemoptPlaceProblemStorage trial;
    MemoptPlacementPlan trialPlan;
    MemoptPlacementFailure trialFailure;
    if (!memoptPlaceProblemBuild(model, cluster, &candidates[c].config, options, &trial)) {
      memoptPlaceProblemStorageDestroy(&trial);
      continue;
    }
    json_t *entry = memoptPlaceDescribeAccelerator(&candidates[c].config, candidates[c].area);
    json_object_set_new(entry, "layer_seconds", json_real(candidates[c].layerSeconds));
    if (memoptPlacementSearch(&trial.problem, &trialPlan, &trialFailure)) {
      json_object_set_new(entry, "batch_seconds", json_real(trialPlan.batchSeconds));
      if (trialPlan.batchSeconds < bestSeconds) {
        bestSeconds = trialPlan.batchSeconds;
        best = c;
      }
      memoptPlacementPlanDestroy(&trialPlan);
    }
    json_array_append_new(tries, entry);
    memoptPlaceProblemStorageDestroy(&trial);
  }
  if (best < candidateCount)
    *accelerator = candidates[best].config;
  json_t *architecture = json_object();
  json_object_set_new(architecture, "area_budget_mm2", json_real(budget));
  json_object_set_new(architecture, "configurations_in_budget", json_integer((json_int_t)candidateCount));
  json_object_set_new(architecture, "searched", tries);
  json_object_set_new(architecture, "chosen",
                      memoptPlaceDescribeAccelerator(accelerator, memoptAcceleratorArea(accelerator, areaModel)));
  json_object_set_new(architecture, "search_seconds", json_real(memoptPlaceSecondsSince(&start)));
  memoptEmitOpDiagnostic(
      model->func, MlirDiagnosticRemark,
      "place-search: architecture: %zu configurations within %.4g mm^2; chose %lld tensor "
      "cores of %lldx%lld, %lld vector cores of %lld lanes, %llu MiB buffer (%.4g mm^2)",
      candidateCount, budget, (long long)accelerator->tensorCores, (long long)accelerator->width,
      (long long)accelerator->depth, (long long)accelerator->vectorCores,
      (long long)accelerator->vectorWidth,
      (unsigned long long)(accelerator->bufferBytes / (1024 * 1024)),
      memoptAcceleratorArea(accelerator, areaModel));
  free(candidates);
  return architecture;
}

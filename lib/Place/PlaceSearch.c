/* place-search as a transform: recognizes the layers of the module's first
 * function, optionally searches the accelerator architecture, builds and
 * solves the placement problem (PlacementSearch.c), checks it against brute
 * force or a baseline on request, writes the report, and emits the plan as
 * place.cluster and place.stage ops. Each step lives in its own file (see
 * PlaceSearch.h); this one runs them in order and explains failures. */
#include "Place/PlaceSearch.h"

#include <jansson.h>
#include <stdio.h>
#include <time.h>

/* Writes `bytes` with a binary unit that keeps the figure readable. */
static const char *formatBytes(double bytes, char *text, size_t size) {
  static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  size_t unit = 0;
  while (bytes >= 1024 && unit + 1 < sizeof units / sizeof *units) {
    bytes /= 1024;
    ++unit;
  }
  snprintf(text, size, "%.3g %s", bytes, units[unit]);
  return text;
}

/* Explains on `func` why no placement fits. */
static void describeFailure(MlirOperation func, const MemoptPlaceCluster *cluster,
                            const MemoptPlaceModel *model, const MemoptPlacementFailure *failure) {
  const char *what = memoptPlaceSegmentOf(model, failure->firstLayer) == 0   ? "the prologue"
                     : memoptPlaceSegmentOf(model, failure->firstLayer) == 2 ? "the epilogue"
                                                                             : "a layer";
  char hbm[32], needed[32], state[32], activations[32];
  formatBytes(cluster->hbmBytes, hbm, sizeof hbm);
  if (failure->smallestMemoryBytes > cluster->hbmBytes)
    memoptEmitOpDiagnostic(
        func, MlirDiagnosticError,
        "place-search: nothing fits in %s of HBM: %s alone needs %s per device at the "
        "largest tensor-parallel degree, microbatch 1 and recompute (%s of parameters, "
        "gradients and optimizer state, %s of activations)",
        hbm, what, formatBytes(failure->smallestMemoryBytes, needed, sizeof needed),
        formatBytes(failure->parameterStateBytes, state, sizeof state),
        formatBytes(failure->activationBytes, activations, sizeof activations));
  else
    memoptEmitOpDiagnostic(
        func, MlirDiagnosticError,
        "place-search: no split of the %zu layers over %lld devices fits in %s of HBM per "
        "device (every pipeline depth the devices allow is too shallow)",
        model->problemLayers, (long long)cluster->devices, hbm);
}

/* Enumerates every split and recompute choice, adds the "brute_force"
 * section to `report`, and returns false (with an error) when it beats the DP. */
static bool checkBruteForce(const MemoptPlaceModel *model, const MemoptPlaceCluster *cluster,
                            const MemoptPlaceProblemStorage *storage,
                            const MemoptPlacementPlan *plan, json_t *report) {
  MemoptPlacementPlan brute;
  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  memoptPlacementBruteForce(&storage->problem, &brute);
  double bruteSeconds = memoptPlaceSecondsSince(&start);
  json_t *bruteJson = memoptPlaceDescribePlan(&brute, cluster);
  json_object_set_new(bruteJson, "search_seconds", json_real(bruteSeconds));
  json_object_set_new(bruteJson, "candidates", json_integer((json_int_t)brute.evaluated));
  json_object_set_new(report, "brute_force", bruteJson);
  bool ok = true;
  /* Equal up to rounding of the same sums in another order. */
  if (brute.batchSeconds < plan->batchSeconds * (1 - 1e-12)) {
    memoptEmitOpDiagnostic(model->func, MlirDiagnosticError,
                           "place-search: brute force finds %.9g s per batch, the DP %.9g s",
                           brute.batchSeconds, plan->batchSeconds);
    ok = false;
  } else {
    memoptEmitOpDiagnostic(
        model->func, MlirDiagnosticRemark,
        "place-search: brute force agrees: %.9g s per batch over %llu candidates",
        brute.batchSeconds, (unsigned long long)brute.evaluated);
  }
  memoptPlacementPlanDestroy(&brute);
  return ok;
}

/* Evaluates the fixed configuration `degrees` (pipeline, tensor, data),
 * adds the "baseline" section to `report` and a remark comparing it to `plan`. */
static void compareBaseline(const MemoptPlaceModel *model, const MemoptPlaceCluster *cluster,
                            const MemoptPlaceProblemStorage *storage,
                            const MemoptPlacementPlan *plan, const int64_t degrees[3],
                            json_t *report) {
  MemoptPlacementPlan baseline;
  if (memoptPlacementEvaluateFixed(&storage->problem, degrees[0], degrees[1], degrees[2],
                                   &baseline)) {
    json_object_set_new(report, "baseline", memoptPlaceDescribePlan(&baseline, cluster));
    memoptEmitOpDiagnostic(
        model->func, MlirDiagnosticRemark,
        "place-search: baseline p=%lld t=%lld d=%lld takes %.6g s per batch; the plan "
        "is %.3fx faster",
        (long long)degrees[0], (long long)degrees[1], (long long)degrees[2],
        baseline.batchSeconds, baseline.batchSeconds / plan->batchSeconds);
    memoptPlacementPlanDestroy(&baseline);
  } else {
    json_object_set_new(report, "baseline", json_null());
    memoptEmitOpDiagnostic(model->func, MlirDiagnosticRemark,
                           "place-search: baseline p=%lld t=%lld d=%lld does not fit or is not a "
                           "configuration of the cluster",
                           (long long)degrees[0], (long long)degrees[1], (long long)degrees[2]);
  }
}

MlirLogicalResult memoptPlaceSearch(MlirOperation module, const MemoptPassOptions *options) {
  MlirOperation func = memoptPlaceFindFunction(module);
  if (mlirOperationIsNull(func)) {
    memoptEmitOpDiagnostic(module, MlirDiagnosticError,
                           "place-search: the module has no function with a body");
    return mlirLogicalResultFailure();
  }
  int64_t baselineDegrees[3] = {0, 0, 0};
  const char *baselineText = memoptPassOptionsGetString(options, "baseline");
  /* Checked when the pipeline was parsed (checkPlaceSearchOptions). */
  if (*baselineText)
    memoptPlaceParseBaseline(baselineText, baselineDegrees);
  MemoptPlaceModel model;
  if (!memoptPlaceModelRecognize(func, options, &model)) {
    memoptPlaceModelDestroy(&model);
    return mlirLogicalResultFailure();
  }
  if (memoptPassOptionsGetBool(options, "brute-force") &&
      model.problemLayers > MEMOPT_PLACEMENT_BRUTE_FORCE_MAX_LAYERS) {
    memoptEmitOpDiagnostic(model.func, MlirDiagnosticError,
                           "place-search: brute force enumerates at most %d layers; the model "
                           "has %zu (prologue and epilogue included)",
                           MEMOPT_PLACEMENT_BRUTE_FORCE_MAX_LAYERS, model.problemLayers);
    memoptPlaceModelDestroy(&model);
    return mlirLogicalResultFailure();
  }
  MemoptPlaceCluster cluster = memoptPlaceClusterOf(options);
  MemoptAcceleratorConfig accelerator = memoptPlaceAccelerator(options);
  MemoptAreaModel areaModel = {memoptPassOptionsGetFloat(options, "mac-area"),
                               memoptPassOptionsGetFloat(options, "lane-area"),
                               memoptPassOptionsGetFloat(options, "buffer-area")};
  json_t *architecture = NULL;
  if (memoptPassOptionsGetBool(options, "architecture-search"))
    architecture =
        memoptPlaceArchitectureSearch(&model, &cluster, &areaModel, options, &accelerator);
  MemoptPlaceProblemStorage storage;
  if (!memoptPlaceProblemBuild(&model, &cluster, &accelerator, options, &storage)) {
    json_decref(architecture);
    memoptPlaceProblemStorageDestroy(&storage);
    memoptPlaceModelDestroy(&model);
    return mlirLogicalResultFailure();
  }

  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  MemoptPlacementPlan plan;
  MemoptPlacementFailure failure;
  bool found = memoptPlacementSearch(&storage.problem, &plan, &failure);
  double searchSeconds = memoptPlaceSecondsSince(&start);
  if (!found) {
    json_decref(architecture);
    describeFailure(model.func, &cluster, &model, &failure);
    memoptPlaceProblemStorageDestroy(&storage);
    memoptPlaceModelDestroy(&model);
    return mlirLogicalResultFailure();
  }

  json_t *report = memoptPlaceReportCreate(&model, &cluster, &storage, &plan, searchSeconds,
                                           architecture, &accelerator, &areaModel);
  bool ok = true;
  if (memoptPassOptionsGetBool(options, "brute-force"))
    ok = checkBruteForce(&model, &cluster, &storage, &plan, report);
  if (baselineDegrees[0])
    compareBaseline(&model, &cluster, &storage, &plan, baselineDegrees, report);
  const char *reportPath = memoptPassOptionsGetString(options, "report");
  if (ok && *reportPath)
    ok = memoptPlaceReportWrite(module, report, reportPath);
  json_decref(report);
  if (ok)
    memoptPlaceEmitPlan(module, &model, &cluster, &plan);
  memoptPlacementPlanDestroy(&plan);
  memoptPlaceProblemStorageDestroy(&storage);
  memoptPlaceModelDestroy(&model);
  return ok ? mlirLogicalResultSuccess() : mlirLogicalResultFailure();
}

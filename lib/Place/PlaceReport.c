/* place-search's JSON report: the model, the cluster, the plan with one
 * entry per stage, the accelerator, and the optional architecture search,
 * brute-force and baseline sections; written through memoptJsonWriteFile. */
#include "Place/PlaceSearch.h"

#include "mlir-c/BuiltinAttributes.h"

#include <jansson.h>
#include <time.h>

json_t *memoptPlaceDescribeAccelerator(const MemoptAcceleratorConfig *config, double area) {
  json_t *object = json_object();
  json_object_set_new(object, "tensor_cores", json_integer(config->tensorCores));
  json_object_set_new(object, "width", json_integer(config->width));
  json_object_set_new(object, "depth", json_integer(config->depth));
  json_object_set_new(object, "vector_cores", json_integer(config->vectorCores));
  json_object_set_new(object, "vector_width", json_integer(config->vectorWidth));
  json_object_set_new(object, "buffer_bytes", json_integer((json_int_t)config->bufferBytes));
  json_object_set_new(object, "area_mm2", json_real(area));
  return object;
}

json_t *memoptPlaceDescribePlan(const MemoptPlacementPlan *plan, const MemoptPlaceCluster *cluster) {
  json_t *object = json_object();
  json_object_set_new(object, "pipeline", json_integer(plan->pipeline));
  json_object_set_new(object, "tensor_parallel", json_integer(plan->tensorParallel));
  json_object_set_new(object, "data_parallel", json_integer(plan->dataParallel));
  json_object_set_new(object, "microbatch", json_integer(plan->microbatch));
  json_object_set_new(object, "microbatches", json_integer(plan->microbatchCount));
  json_object_set_new(object, "batch_seconds", json_real(plan->batchSeconds));
  json_object_set_new(object, "samples_per_second",
                      json_real((double)cluster->globalBatch / plan->batchSeconds));
  json_t *stages = json_array();
  for (size_t s = 0; s < plan->stageCount; ++s) {
    const MemoptPlacementStage *stage = &plan->stages[s];
    json_t *entry = json_object();
    json_object_set_new(entry, "first_layer", json_integer((json_int_t)stage->firstLayer));
    json_object_set_new(entry, "layers", json_integer((json_int_t)stage->layerCount));
    json_object_set_new(entry, "recompute", json_boolean(stage->recompute));
    json_object_set_new(entry, "stashed_microbatches", json_integer(stage->stashedMicrobatches));
    json_object_set_new(entry, "microbatch_seconds", json_real(stage->seconds));
    json_object_set_new(entry, "memory_bytes_per_device", json_real(stage->memoryBytes));
    json_object_set_new(entry, "all_reduce_seconds", json_real(stage->allReduceSeconds));
    json_array_append_new(stages, entry);
  }
  json_object_set_new(object, "stages", stages);
  return object;
}

double memoptPlaceSecondsSince(const struct timespec *start) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) * 1e-9;
}

json_t *memoptPlaceReportCreate(const MemoptPlaceModel *model, const MemoptPlaceCluster *cluster,
                                const MemoptPlaceProblemStorage *storage,
                                const MemoptPlacementPlan *plan, double searchSeconds,
                                json_t *architecture, const MemoptAcceleratorConfig *accelerator,
                                const MemoptAreaModel *areaModel) {
  const MemoptLayerStructure *s = &model->structure;
  json_t *root = json_object();
  json_t *modelJson = json_object();
  MlirAttribute name = mlirOperationGetAttributeByName(model->func, mlirStringRefCreateFromCString("sym_name"));
  MlirStringRef nameText = mlirStringAttrGetValue(name);
  json_object_set_new(modelJson, "function", json_stringn(nameText.data, nameText.length));
  json_object_set_new(modelJson, "layers", json_integer((json_int_t)model->layers));
  json_object_set_new(modelJson, "recognized_layers", json_integer((json_int_t)s->count));
  json_object_set_new(modelJson, "first_layer_ops",
                      json_integer((json_int_t)(s->bounds[1] - s->bounds[0])));
  json_object_set_new(modelJson, "prologue_ops", json_integer((json_int_t)s->bounds[0]));
  json_object_set_new(modelJson, "epilogue_ops",
                      json_integer((json_int_t)(s->numOps - s->bounds[s->count])));
  json_object_set_new(modelJson, "layer_parameter_elements", json_real(storage->segments[1].parameterElements));
  json_object_set_new(modelJson, "layer_forward_flops", json_real(storage->segments[1].flops));
  json_object_set_new(root, "model", modelJson);
  json_t *clusterJson = json_object();
  json_object_set_new(clusterJson, "devices", json_integer(cluster->devices));
  json_object_set_new(clusterJson, "hbm_bytes", json_real(cluster->hbmBytes));
  json_object_set_new(clusterJson, "link_bandwidth", json_real(cluster->linkBandwidth));
  json_object_set_new(clusterJson, "global_batch", json_integer(cluster->globalBatch));
  json_object_set_new(root, "cluster", clusterJson);
  json_object_set_new(root, "plan", memoptPlaceDescribePlan(plan, cluster));
  json_object_set_new(root, "search_seconds", json_real(searchSeconds));
  if (architecture)
    json_object_set_new(root, "architecture", architecture);
  json_object_set_new(root, "accelerator",
                      memoptPlaceDescribeAccelerator(accelerator, memoptAcceleratorArea(accelerator, areaModel)));
  json_object_set_new(root, "search_transitions", json_integer((json_int_t)plan->evaluated));
  return root;
}

bool memoptPlaceReportWrite(MlirOperation module, const json_t *report, const char *path) {
  MemoptStringBuffer error = memoptStringBufferCreate();
  bool ok = memoptJsonWriteFile(report, path, JSON_INDENT(2) | JSON_REAL_PRECISION(9), &error);
  if (!ok)
    memoptEmitOpDiagnostic(module, MlirDiagnosticError, "place-search: %s", error.data);
  memoptStringBufferDestroy(&error);
  return ok;
}

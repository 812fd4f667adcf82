/* What the placement search checks of a problem before it trusts its
 * threshold search: the middle layers (1 .. L-2) equal and every figure
 * non-negative, which the search's monotonicity rests on; and the tensor
 * degrees a problem's memory=program figures are given for. */
#include "Place/Place.h"

size_t memoptPlacementTensorDegrees(int64_t maxTensorParallel) {
  size_t degrees = 0;
  for (int64_t t = 1; t <= maxTensorParallel; t *= 2)
    ++degrees;
  return degrees;
}

static bool layersEqual(const MemoptPlacementProblem *problem, const MemoptPlacementLayer *a,
                        const MemoptPlacementLayer *b) {
  if (a->parameterBytes != b->parameterBytes || a->activationBytes != b->activationBytes ||
      a->boundaryBytes != b->boundaryBytes)
    return false;
  bool equal = true;
  for (size_t mb = 0; equal && mb < problem->microbatchCount; ++mb)
    equal = a->forwardSeconds[mb] == b->forwardSeconds[mb];
  return equal;
}

static bool layerNonNegative(const MemoptPlacementProblem *problem,
                             const MemoptPlacementLayer *layer) {
  bool ok = layer->parameterBytes >= 0 && layer->activationBytes >= 0 && layer->boundaryBytes >= 0;
  for (size_t mb = 0; ok && mb < problem->microbatchCount; ++mb)
    ok = layer->forwardSeconds[mb] >= 0;
  return ok;
}

bool memoptPlacementMiddleLayersEqual(const MemoptPlacementProblem *problem) {
  /* The program as written prices each stage whole: what it holds depends
   * on which layers it holds (what it reads of earlier ones), not on how
   * many. */
  if (problem->memory == MemoptPlacementProgram)
    return false;
  size_t layers = problem->layerCount;
  for (size_t l = 0; l < layers; ++l)
    if ((l >= 2 && l + 1 < layers &&
         !layersEqual(problem, &problem->layers[1], &problem->layers[l])) ||
        ((l < 2 || l + 1 == layers) && !layerNonNegative(problem, &problem->layers[l])))
      return false;
  return true;
}

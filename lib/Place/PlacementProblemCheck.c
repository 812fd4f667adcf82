/* What the placement search checks of a problem before it trusts its
 * threshold search: the middle layers (1 .. L-2) equal and every figure
 * non-negative, which the search's monotonicity rests on; and the tensor
 * degrees a layer's memory=program figures are given for. */
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
      a->boundaryBytes != b->boundaryBytes || a->wholeParameterBytes != b->wholeParameterBytes ||
      a->splitParameterBytes != b->splitParameterBytes || !a->heldBytes != !b->heldBytes ||
      a->sharedWithFirst.whole != b->sharedWithFirst.whole ||
      a->sharedWithFirst.split != b->sharedWithFirst.split ||
      a->sharedPerEarlier.whole != b->sharedPerEarlier.whole ||
      a->sharedPerEarlier.split != b->sharedPerEarlier.split)
    return false;
  size_t held = memoptPlacementTensorDegrees(problem->maxTensorParallel) * problem->microbatchCount;
  bool equal = true;
  for (size_t mb = 0; equal && mb < problem->microbatchCount; ++mb)
    equal = a->forwardSeconds[mb] == b->forwardSeconds[mb];
  for (size_t k = 0; equal && a->heldBytes && k < held; ++k)
    equal = a->heldBytes[k] == b->heldBytes[k];
  return equal;
}

static bool layerNonNegative(const MemoptPlacementProblem *problem,
                             const MemoptPlacementLayer *layer) {
  bool ok = layer->parameterBytes >= 0 && layer->activationBytes >= 0 &&
            layer->boundaryBytes >= 0 && layer->wholeParameterBytes >= 0 &&
            layer->splitParameterBytes >= 0;
  size_t held = memoptPlacementTensorDegrees(problem->maxTensorParallel) * problem->microbatchCount;
  for (size_t mb = 0; ok && mb < problem->microbatchCount; ++mb)
    ok = layer->forwardSeconds[mb] >= 0;
  for (size_t k = 0; ok && layer->heldBytes && k < held; ++k)
    ok = layer->heldBytes[k] >= 0;
  return ok;
}

bool memoptPlacementMiddleLayersEqual(const MemoptPlacementProblem *problem) {
  size_t layers = problem->layerCount;
  for (size_t l = 0; l < layers; ++l)
    if ((l >= 2 && l + 1 < layers &&
         !layersEqual(problem, &problem->layers[1], &problem->layers[l])) ||
        ((l < 2 || l + 1 == layers) && !layerNonNegative(problem, &problem->layers[l])))
      return false;
  return true;
}

/* The table of memopt passes, in the order --help lists them: AutoChunk,
 * the shared analyses, BladeDISC++'s scheduling passes, PHAZE, Pin or Fuse,
 * then BladeDISC++'s rematerialization. */
#include "InitAllPasses.h"

#include "Analysis/Analysis.h"
#include "Chunk/Chunk.h"
#include "Place/Place.h"
#include "Remat/Remat.h"
#include "Spm/Spm.h"

void memoptRegisterAllPasses(void) {
  static const MemoptPassInfo *const passes[] = {
      &memoptAutoChunkPass,
      &memoptChunkToScfPass,
      &memoptMemoryEstimatePass,
      &memoptVerifyPass,
      &memoptPrintDimensionFlowPass,
      &memoptPrintShapeSymbolsPass,
      &memoptMemorySchedulePass,
      &memoptInPlaceElementwisePass,
      &memoptPlaceCostsPass,
      &memoptPlaceSearchPass,
      &memoptPlaceToShardPass,
      &memoptPlaceFoldNeutralInitsPass,
      &memoptSpmPinFusePass,
      &memoptPrintLayerGraphPass,
      &memoptSpmFoldNormScalePass,
      &memoptSpmToMemrefPass,
      &memoptRematPass,
      &memoptPrintRematOptimumPass,
      &memoptRematDynamicPass,
      &memoptRematToRuntimePass,
  };
  for (size_t i = 0; i < sizeof passes / sizeof *passes; ++i)
    memoptPassRegister(passes[i]);
}

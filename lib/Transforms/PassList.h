/* The memopt passes, one declaration per pass file; PassRegistry.c lists them.
 * Internal to lib/Transforms: other code reaches passes through Passes.h. */
#ifndef MEMOPT_TRANSFORMS_PASSLIST_H
#define MEMOPT_TRANSFORMS_PASSLIST_H

#include "Conversion/Conversion.h" /* memoptChunkToScfPass */
#include "Transforms/Passes.h"

/// autochunk (AutoChunkPass.c).
extern const MemoptPassInfo memoptAutoChunkPass;

/// memory-estimate (MemoryEstimatePass.c).
extern const MemoptPassInfo memoptMemoryEstimatePass;

/// print-dimension-flow (PrintDimensionFlowPass.c).
extern const MemoptPassInfo memoptPrintDimensionFlowPass;

/// print-shape-symbols (PrintShapeSymbolsPass.c).
extern const MemoptPassInfo memoptPrintShapeSymbolsPass;

/// memory-schedule (MemorySchedulePass.c).
extern const MemoptPassInfo memoptMemorySchedulePass;

/// inplace-elementwise (InPlaceElementwisePass.c).
extern const MemoptPassInfo memoptInPlaceElementwisePass;

/// spm-pin-fuse (SpmPinFusePass.c).
extern const MemoptPassInfo memoptSpmPinFusePass;

/// spm-fold-norm-scale (SpmFoldNormScalePass.c).
extern const MemoptPassInfo memoptSpmFoldNormScalePass;

/// print-layer-graph (PrintLayerGraphPass.c).
extern const MemoptPassInfo memoptPrintLayerGraphPass;

/// memopt-verify (VerifyPass.c).
extern const MemoptPassInfo memoptVerifyPass;

/// place-costs (PlaceCostsPass.c).
extern const MemoptPassInfo memoptPlaceCostsPass;

/// place-search (PlaceSearchPass.c).
extern const MemoptPassInfo memoptPlaceSearchPass;

/// remat (RematPass.c).
extern const MemoptPassInfo memoptRematPass;

/// print-remat-optimum (PrintRematOptimumPass.c).
extern const MemoptPassInfo memoptPrintRematOptimumPass;

/// remat-dynamic (RematDynamicPass.c).
extern const MemoptPassInfo memoptRematDynamicPass;

#endif /* MEMOPT_TRANSFORMS_PASSLIST_H */

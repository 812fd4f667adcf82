/* Shape-symbol polynomials (Analysis, SymbolicSize) read back as index
 * values in IR: each symbol from the dimension it was first seen in, the
 * terms as arith.muli / arith.addi. remat-dynamic states restore footprints
 * this way, remat-to-runtime recomputation costs. Internal to lib/Remat. */
#ifndef MEMOPT_REMAT_SYMBOLICSIZEVALUE_H
#define MEMOPT_REMAT_SYMBOLICSIZEVALUE_H

#include "Analysis/Analysis.h"
#include "IR/Builders.h"

/// Builds `polynomial` as an index with `builder`, from values available before `anchor` (an op of
/// the block the builder inserts into); null, building nothing, when a symbol in it cannot be read
/// there. `symbolValues` (one per symbol, null entries unbuilt) shares the symbols read among calls
/// with the same insertion point; NULL reads them anew.
MlirValue memoptBuildPolynomialValue(const MemoptBuilder *builder,
                                     const MemoptShapeSymbols *symbols,
                                     const MemoptPolynomial *polynomial, MlirOperation anchor,
                                     MlirValue *symbolValues);

#endif /* MEMOPT_REMAT_SYMBOLICSIZEVALUE_H */

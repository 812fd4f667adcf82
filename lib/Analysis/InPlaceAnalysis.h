/* Internal to the in-place analysis (InPlaceAliasSets.c,
 * InPlaceConflictTest.c, InPlaceAnalysis.c): the set operations and
 * pairwise tests the decision driver builds on. What the rest of
 * lib/Analysis uses is declared in BufferizationModel.h. None of these
 * functions allocates anything the caller must free, except where a list
 * the caller owns grows. */
#ifndef MEMOPT_ANALYSIS_INPLACEANALYSIS_H
#define MEMOPT_ANALYSIS_INPLACEANALYSIS_H

#include "Analysis/BufferizationModel.h"

#include <stdbool.h>
#include <stddef.h>

/// Merges the alias sets of values `a` and `b` (and splices their member lists).
void memoptAliasUnion(IrFunction *function, size_t a, size_t b);

/// Merges the equivalence sets of values `a` and `b`.
void memoptEquivalenceUnion(IrFunction *function, size_t a, size_t b);

/// Returns the value that shares the buffer of `operand` (a result of its owner, or of the scf.if a yield ends), or MEMOPT_NO_INDEX.
size_t memoptAliasingValue(const IrFunction *function, size_t operand);

/// Returns true when `operand` is a tensor value.
bool memoptOperandIsTensor(const IrFunction *function, size_t operand);

/// Returns true when `operand` writes its buffer and was decided in place.
bool memoptOperandIsInPlaceWrite(const IrFunction *function, size_t operand);

/// Replaces the contents of `out` (owned by the caller) with the definitions a read of `operand` expects to see.
void memoptFindDefinitions(IrFunction *function, size_t operand, IrIndexList *out);

/// Returns true when in-place write `write` may overwrite what `read` expects to see; `definitions` are read's (at least one).
bool memoptReadConflictsWithWrite(IrFunction *function, size_t read, size_t write,
                                  const IrIndexList *definitions);

#endif /* MEMOPT_ANALYSIS_INPLACEANALYSIS_H */

/* A binary program solved by COIN-OR CBC through its C interface. CBC
 * reads the matrix by columns, 0-based: the program's 1-based triplets are
 * regrouped first. */
#include "Support/Support.h"

#include <coin/Cbc_C_Interface.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>

/* Secondary status of a search that stopped on the allowable gap. */
enum { CBC_STOPPED_ON_GAP = 2 };

bool memoptBinaryProgramSolveCbc(const MemoptBinaryProgram *program, double timeLimitSeconds,
                                 double relativeGap, MemoptIlpSolution *solution,
                                 MemoptStringBuffer *error) {
  *solution = (MemoptIlpSolution){.status = MemoptIlpNoSolutionInTime, .bound = NAN};
  size_t columns = program->columnCount, rows = program->rowCount;
  const MemoptSparseMatrix *matrix = &program->matrix;
  CoinBigIndex *starts = memoptAllocateZeroed(columns + 1, sizeof *starts);
  int *rowIndices = memoptAllocateZeroed(matrix->count, sizeof *rowIndices);
  double *values = memoptAllocateZeroed(matrix->count, sizeof *values);
  double *rowLower = memoptAllocateZeroed(rows, sizeof *rowLower);
  /* Counting sort of the entries by column: starts[c + 1] counts column c,
   * then prefix sums; `fill` tracks where the next entry of each goes. */
  for (size_t k = 1; k <= matrix->count; ++k)
    ++starts[matrix->columns[k]];
  for (size_t c = 1; c <= columns; ++c)
    starts[c] += starts[c - 1];
  CoinBigIndex *fill = memoptAllocateZeroed(columns, sizeof *fill);
  for (size_t c = 0; c < columns; ++c)
    fill[c] = starts[c];
  for (size_t k = 1; k <= matrix->count; ++k) {
    CoinBigIndex at = fill[matrix->columns[k] - 1]++;
    rowIndices[at] = matrix->rows[k] - 1;
    values[at] = matrix->values[k];
  }
  free(fill);
  for (size_t r = 0; r < rows; ++r)
    rowLower[r] = -DBL_MAX;
  Cbc_Model *model = Cbc_newModel();
  Cbc_loadProblem(model, (int)columns, (int)rows, starts, rowIndices, values, program->lower + 1,
                  program->upper + 1, program->objective + 1, rowLower, program->rowUpper + 1);
  free(starts);
  free(rowIndices);
  free(values);
  free(rowLower);
  for (size_t c = 0; c < columns; ++c)
    Cbc_setInteger(model, (int)c);
  Cbc_setLogLevel(model, 0);
  /* Wall seconds like GLPK's limit: CBC counts CPU seconds by default,
   * which overshoot on a shared machine. */
  Cbc_setParameter(model, "timeMode", "elapsed");
  Cbc_setMaximumSeconds(model, timeLimitSeconds);
  Cbc_setAllowableFractionGap(model, relativeGap);
  Cbc_solve(model);
  const double *best = Cbc_bestSolution(model);
  bool ok = !Cbc_isAbandoned(model);
  if (!ok) {
    memoptStringBufferAppendCString(error, "CBC abandoned the search (numerical difficulties)");
  } else if (Cbc_isProvenInfeasible(model)) {
    solution->status = MemoptIlpInfeasible;
  } else {
    double bound = Cbc_getBestPossibleObjValue(model);
    /* CBC says "no bound" with a huge value (before the root LP is solved). */
    if (fabs(bound) < 1e30)
      solution->bound = bound;
    if (best) {
      solution->objective = Cbc_getObjValue(model);
      /* A search stopped on the gap may still have closed it. */
      bool closed = solution->objective - bound <= 1e-9 * fmax(1, fabs(solution->objective));
      if (Cbc_isProvenOptimal(model))
        solution->status = Cbc_secondaryStatus(model) == CBC_STOPPED_ON_GAP && !closed
                               ? MemoptIlpWithinGap
                               : MemoptIlpProvenOptimal;
      else
        solution->status = MemoptIlpFeasibleInTime;
      solution->values = memoptAllocateZeroed(columns + 1, sizeof *solution->values);
      solution->values[0] = 0;
      for (size_t c = 0; c < columns; ++c)
        solution->values[c + 1] = best[c];
    }
  }
  Cbc_deleteModel(model);
  return ok;
}

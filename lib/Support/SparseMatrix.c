/* Sparse constraint matrices for the integer programs memopt hands to GLPK
 * (spm-pin-fuse's ilp strategy, print-remat-optimum). */
#include "Support/Support.h"

#include <stdlib.h>

void memoptSparseMatrixAdd(MemoptSparseMatrix *matrix, int row, int column, double value) {
  /* Index 0 stays unused: GLPK's arrays are 1-based. */
  if (matrix->count + 1 >= matrix->capacity) {
    matrix->capacity = matrix->capacity ? 2 * matrix->capacity : 4096;
    matrix->rows = memoptReallocArray(matrix->rows, matrix->capacity, sizeof *matrix->rows);
    matrix->columns =
        memoptReallocArray(matrix->columns, matrix->capacity, sizeof *matrix->columns);
    matrix->values = memoptReallocArray(matrix->values, matrix->capacity, sizeof *matrix->values);
  }
  ++matrix->count;
  matrix->rows[matrix->count] = row;
  matrix->columns[matrix->count] = column;
  matrix->values[matrix->count] = value;
}

void memoptSparseMatrixDestroy(MemoptSparseMatrix *matrix) {
  free(matrix->rows);
  free(matrix->columns);
  free(matrix->values);
  *matrix = (MemoptSparseMatrix){0};
}

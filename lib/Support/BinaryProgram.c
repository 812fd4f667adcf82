/* Binary integer programs built once and handed to either solver
 * (BinaryProgramGlpk.c, BinaryProgramCbc.c), so a model is stated in one
 * place whichever solver proves it. */
#include "Support/Support.h"

#include <stdlib.h>

/* Grows the per-column or per-row arrays so that index `needed` exists. */
static void growColumns(MemoptBinaryProgram *program, size_t needed) {
  if (needed < program->columnCapacity)
    return;
  size_t capacity = program->columnCapacity ? 2 * program->columnCapacity : 1024;
  while (capacity <= needed)
    capacity *= 2;
  program->objective = memoptReallocArray(program->objective, capacity, sizeof *program->objective);
  program->lower = memoptReallocArray(program->lower, capacity, sizeof *program->lower);
  program->upper = memoptReallocArray(program->upper, capacity, sizeof *program->upper);
  program->columnCapacity = capacity;
}

int memoptBinaryProgramAddColumns(MemoptBinaryProgram *program, size_t count) {
  size_t first = program->columnCount + 1;
  growColumns(program, program->columnCount + count);
  for (size_t c = first; c < first + count; ++c) {
    program->objective[c] = 0;
    program->lower[c] = 0;
    program->upper[c] = 1;
  }
  program->columnCount += count;
  return (int)first;
}

void memoptBinaryProgramSetObjective(MemoptBinaryProgram *program, int column, double cost) {
  program->objective[column] = cost;
}

void memoptBinaryProgramFix(MemoptBinaryProgram *program, int column, double value) {
  program->lower[column] = value;
  program->upper[column] = value;
}

int memoptBinaryProgramAddRow(MemoptBinaryProgram *program, double upper) {
  size_t row = ++program->rowCount;
  program->rowUpper =
      memoptGrowArray(program->rowUpper, &program->rowCapacity, row + 1, sizeof *program->rowUpper);
  program->rowUpper[row] = upper;
  return (int)row;
}

void memoptBinaryProgramAddCoefficient(MemoptBinaryProgram *program, int row, int column,
                                       double value) {
  memoptSparseMatrixAdd(&program->matrix, row, column, value);
}

void memoptBinaryProgramDestroy(MemoptBinaryProgram *program) {
  free(program->objective);
  free(program->lower);
  free(program->upper);
  free(program->rowUpper);
  memoptSparseMatrixDestroy(&program->matrix);
  *program = (MemoptBinaryProgram){0};
}

bool memoptBinaryProgramSolve(const MemoptBinaryProgram *program, MemoptIlpSolver solver,
                              double timeLimitSeconds, double relativeGap,
                              MemoptIlpSolution *solution, MemoptStringBuffer *error) {
  switch (solver) {
  case MemoptIlpSolverGlpk:
    return memoptBinaryProgramSolveGlpk(program, timeLimitSeconds, relativeGap, solution, error);
  case MemoptIlpSolverCbc:
    return memoptBinaryProgramSolveCbc(program, timeLimitSeconds, relativeGap, solution, error);
  }
  memoptStringBufferAppendFormat(error, "unknown ILP solver %d", (int)solver);
  return false;
}

void memoptIlpSolutionDestroy(MemoptIlpSolution *solution) {
  free(solution->values);
  solution->values = NULL;
}

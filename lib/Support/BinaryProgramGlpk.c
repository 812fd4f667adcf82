/* A binary program solved by GLPK's branch and cut (glp_intopt) with
 * presolve and the feasibility pump. */
#include "Support/Support.h"

#include <glpk.h>
#include <math.h>
#include <stdlib.h>

/* Keeps the bound of the best open node as the search goes: GLPK gives it
 * only during the search, and it only rises. A node whose LP is not solved
 * yet has no bound (-DBL_MAX). */
static void trackBound(glp_tree *tree, void *info) {
  double *bound = info;
  int node = glp_ios_best_node(tree);
  if (node && fabs(glp_ios_node_bound(tree, node)) < 1e30)
    *bound = glp_ios_node_bound(tree, node);
}

bool memoptBinaryProgramSolveGlpk(const MemoptBinaryProgram *program, double timeLimitSeconds,
                                  double relativeGap, MemoptIlpSolution *solution,
                                  MemoptStringBuffer *error) {
  *solution = (MemoptIlpSolution){.status = MemoptIlpNoSolutionInTime, .bound = NAN};
  glp_prob *problem = glp_create_prob();
  glp_set_obj_dir(problem, GLP_MIN);
  int columns = (int)program->columnCount;
  if (columns > 0)
    glp_add_cols(problem, columns);
  for (int c = 1; c <= columns; ++c) {
    glp_set_col_kind(problem, c, GLP_BV);
    glp_set_obj_coef(problem, c, program->objective[c]);
    if (program->lower[c] == program->upper[c])
      glp_set_col_bnds(problem, c, GLP_FX, program->lower[c], program->upper[c]);
  }
  int rows = (int)program->rowCount;
  if (rows > 0)
    glp_add_rows(problem, rows);
  for (int r = 1; r <= rows; ++r)
    glp_set_row_bnds(problem, r, GLP_UP, 0, program->rowUpper[r]);
  const MemoptSparseMatrix *matrix = &program->matrix;
  glp_load_matrix(problem, (int)matrix->count, matrix->rows, matrix->columns, matrix->values);
  glp_iocp parameters;
  glp_init_iocp(&parameters);
  parameters.presolve = GLP_ON;
  parameters.msg_lev = GLP_MSG_OFF;
  parameters.fp_heur = GLP_ON; /* a feasible solution early, so a time-out still reports one */
  parameters.tm_lim = (int)(timeLimitSeconds * 1000);
  parameters.mip_gap = relativeGap;
  parameters.cb_func = trackBound;
  parameters.cb_info = &solution->bound;
  int status = glp_intopt(problem, &parameters);
  int mipStatus = glp_mip_status(problem);
  bool ok = true;
  if (status == GLP_ENOPFS || mipStatus == GLP_NOFEAS) {
    solution->status = MemoptIlpInfeasible;
  } else if (mipStatus == GLP_OPT || mipStatus == GLP_FEAS) {
    solution->status = status == 0 && mipStatus == GLP_OPT ? MemoptIlpProvenOptimal
                       : status == GLP_EMIPGAP             ? MemoptIlpWithinGap
                                                           : MemoptIlpFeasibleInTime;
    solution->objective = glp_mip_obj_val(problem);
    if (solution->status == MemoptIlpProvenOptimal)
      solution->bound = solution->objective;
    solution->values = memoptAllocateZeroed(program->columnCount + 1, sizeof *solution->values);
    solution->values[0] = 0;
    for (int c = 1; c <= columns; ++c)
      solution->values[c] = glp_mip_col_val(problem, c);
  } else if (status != 0 && status != GLP_ETMLIM) {
    memoptStringBufferAppendFormat(error, "GLPK failed (glp_intopt returned %d)", status);
    ok = false;
  }
  glp_delete_prob(problem);
  return ok;
}

/* Operator scheduling of one layer on one accelerator (PHAZE's per-layer
 * ILP). The tensor cores and the vector cores each run one op at a time and
 * run concurrently with each other; an op starts once its operands are
 * computed. The makespan is minimized by a disjunctive ILP: start times s,
 * makespan C >= s_i + d_i, s_j >= s_i + d_i for each dependence, and for each
 * pair of ops on one unit that no dependence orders, a binary y choosing
 * which goes first (s_i + d_i <= s_j + M (1 - y), s_j + d_j <= s_i + M y,
 * M = the sum of the durations). GLPK solves it under a time limit and a
 * relative gap, with the list schedule handed to it as its first incumbent;
 * when it finds nothing better, the list schedule stands. */
#include "Analysis/BufferizationModel.h"
#include "Place/Place.h"
#include "IR/IR.h"

#include <glpk.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The longest path from each op to the end, its own duration included. */
static double *tailLengths(const MemoptScheduleProblem *problem) {
  double *tail = memoptAllocateZeroed(problem->count + 1, sizeof *tail);
  for (size_t i = 0; i < problem->count; ++i)
    tail[i] = problem->seconds[i];
  /* Edges go forward in op order (SSA), so one backward sweep suffices. */
  for (size_t i = problem->count; i-- > 0;)
    for (size_t e = 0; e < problem->edgeCount; ++e)
      if (problem->edges[e][0] == i)
        tail[i] = fmax(tail[i], problem->seconds[i] + tail[problem->edges[e][1]]);
  return tail;
}

double memoptScheduleList(const MemoptScheduleProblem *problem, double *starts) {
  size_t n = problem->count;
  double *tail = tailLengths(problem);
  double *ready = memoptAllocateZeroed(n + 1, sizeof *ready); /* earliest start from dependences */
  size_t *waiting = memoptAllocateZeroed(n + 1, sizeof *waiting);
  bool *done = memoptAllocateZeroed(n + 1, sizeof *done);
  for (size_t e = 0; e < problem->edgeCount; ++e)
    ++waiting[problem->edges[e][1]];
  double unitFree[3] = {0, 0, 0};
  double makespan = 0;
  for (size_t scheduled = 0; scheduled < n; ++scheduled) {
    /* The ready op that can start first, the longest tail breaking ties. */
    size_t best = n;
    double bestStart = INFINITY;
    for (size_t i = 0; i < n; ++i) {
      if (done[i] || waiting[i])
        continue;
      double start = problem->units[i] == MemoptOpUnitNone ? ready[i]
                                                           : fmax(ready[i], unitFree[problem->units[i]]);
      if (best == n || start < bestStart || (start == bestStart && tail[i] > tail[best]))
        best = i, bestStart = start;
    }
    double end = bestStart + problem->seconds[best];
    starts[best] = bestStart;
    done[best] = true;
    if (problem->units[best] != MemoptOpUnitNone)
      unitFree[problem->units[best]] = end;
    makespan = fmax(makespan, end);
    for (size_t e = 0; e < problem->edgeCount; ++e)
      if (problem->edges[e][0] == best) {
        size_t next = problem->edges[e][1];
        --waiting[next];
        ready[next] = fmax(ready[next], end);
      }
  }
  free(done);
  free(waiting);
  free(ready);
  free(tail);
  return makespan;
}

/* Ops each op must follow, transitively: reach[i * n + j] when j precedes i. */
static bool *precedence(const MemoptScheduleProblem *problem) {
  size_t n = problem->count;
  bool *reach = memoptAllocateZeroed(n * n + 1, sizeof *reach);
  for (size_t j = 0; j < n; ++j)
    for (size_t e = 0; e < problem->edgeCount; ++e)
      if (problem->edges[e][1] == j) {
        size_t i = problem->edges[e][0];
        reach[j * n + i] = true;
        for (size_t k = 0; k < n; ++k)
          reach[j * n + k] |= reach[i * n + k];
      }
  return reach;
}

/* The ILP's columns: s_1..s_n, C, then one y per pair. */
typedef struct Ilp {
  const MemoptScheduleProblem *problem;
  size_t (*pairs)[2];
  size_t pairCount;
  double scale; /* seconds to model units */
  const double *warmStarts;
  bool warmGiven;
} Ilp;

static void heuristicCallback(glp_tree *tree, void *info) {
  Ilp *ilp = info;
  if (glp_ios_reason(tree) != GLP_IHEUR || ilp->warmGiven)
    return;
  ilp->warmGiven = true;
  size_t n = ilp->problem->count;
  double *values = memoptAllocateZeroed(n + 2 + ilp->pairCount, sizeof *values);
  double makespan = 0;
  for (size_t i = 0; i < n; ++i) {
    values[1 + i] = ilp->warmStarts[i] * ilp->scale;
    makespan = fmax(makespan, (ilp->warmStarts[i] + ilp->problem->seconds[i]) * ilp->scale);
  }
  values[1 + n] = makespan;
  for (size_t p = 0; p < ilp->pairCount; ++p)
    values[2 + n + p] = ilp->warmStarts[ilp->pairs[p][0]] <= ilp->warmStarts[ilp->pairs[p][1]];
  glp_ios_heur_sol(tree, values);
  free(values);
}

double memoptScheduleSolve(const MemoptScheduleProblem *problem, double timeLimitSeconds, double gap,
                           double *starts, MemoptScheduleStatus *status) {
  size_t n = problem->count;
  double listMakespan = memoptScheduleList(problem, starts);
  *status = MemoptScheduleListOnly;
  double total = 0;
  for (size_t i = 0; i < n; ++i)
    total += problem->seconds[i];
  if (n == 0 || total <= 0)
    return listMakespan;

  bool *reach = precedence(problem);
  Ilp ilp = {problem, NULL, 0, 1e4 / total, starts, false};
  ilp.pairs = memoptAllocateZeroed(n * n / 2 + 1, sizeof *ilp.pairs);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j)
      if (problem->units[i] != MemoptOpUnitNone && problem->units[i] == problem->units[j] &&
          problem->seconds[i] > 0 && problem->seconds[j] > 0 && !reach[j * n + i] &&
          !reach[i * n + j]) {
        ilp.pairs[ilp.pairCount][0] = i;
        ilp.pairs[ilp.pairCount++][1] = j;
      }
  free(reach);

  glp_prob *lp = glp_create_prob();
  glp_set_obj_dir(lp, GLP_MIN);
  int columns = (int)(n + 1 + ilp.pairCount);
  glp_add_cols(lp, columns);
  for (size_t i = 0; i < n; ++i)
    glp_set_col_bnds(lp, (int)(1 + i), GLP_LO, 0, 0);
  int makespanColumn = (int)(n + 1);
  glp_set_col_bnds(lp, makespanColumn, GLP_LO, 0, 0);
  glp_set_obj_coef(lp, makespanColumn, 1);
  for (size_t p = 0; p < ilp.pairCount; ++p)
    glp_set_col_kind(lp, (int)(n + 2 + p), GLP_BV);
  double big = 1e4;
  int index[4];
  double value[4];
  /* C - s_i >= d_i */
  for (size_t i = 0; i < n; ++i) {
    int row = glp_add_rows(lp, 1);
    index[1] = makespanColumn, value[1] = 1;
    index[2] = (int)(1 + i), value[2] = -1;
    glp_set_mat_row(lp, row, 2, index, value);
    glp_set_row_bnds(lp, row, GLP_LO, problem->seconds[i] * ilp.scale, 0);
  }
  /* s_j - s_i >= d_i */
  for (size_t e = 0; e < problem->edgeCount; ++e) {
    int row = glp_add_rows(lp, 1);
    index[1] = (int)(1 + problem->edges[e][1]), value[1] = 1;
    index[2] = (int)(1 + problem->edges[e][0]), value[2] = -1;
    glp_set_mat_row(lp, row, 2, index, value);
    glp_set_row_bnds(lp, row, GLP_LO, problem->seconds[problem->edges[e][0]] * ilp.scale, 0);
  }
  for (size_t p = 0; p < ilp.pairCount; ++p) {
    size_t i = ilp.pairs[p][0], j = ilp.pairs[p][1];
    int y = (int)(n + 2 + p);
    /* y = 1: i first: s_i - s_j + M y <= M - d_i */
    int row = glp_add_rows(lp, 1);
    index[1] = (int)(1 + i), value[1] = 1;
    index[2] = (int)(1 + j), value[2] = -1;
    index[3] = y, value[3] = big;
    glp_set_mat_row(lp, row, 3, index, value);
    glp_set_row_bnds(lp, row, GLP_UP, 0, big - problem->seconds[i] * ilp.scale);
    /* y = 0: j first: s_j - s_i - M y <= -d_j */
    row = glp_add_rows(lp, 1);
    index[1] = (int)(1 + j), value[1] = 1;
    index[2] = (int)(1 + i), value[2] = -1;
    index[3] = y, value[3] = -big;
    glp_set_mat_row(lp, row, 3, index, value);
    glp_set_row_bnds(lp, row, GLP_UP, 0, -problem->seconds[j] * ilp.scale);
  }
  glp_iocp parameters;
  glp_init_iocp(&parameters);
  parameters.msg_lev = GLP_MSG_OFF;
  parameters.presolve = GLP_ON;
  parameters.mip_gap = gap;
  parameters.tm_lim = (int)fmin(timeLimitSeconds * 1000, 1e9);
  parameters.cb_func = heuristicCallback;
  parameters.cb_info = &ilp;
  int result = glp_intopt(lp, &parameters);
  int mipStatus = glp_mip_status(lp);
  double makespan = listMakespan;
  if ((result == 0 || result == GLP_ETMLIM || result == GLP_EMIPGAP) &&
      (mipStatus == GLP_OPT || mipStatus == GLP_FEAS)) {
    double solved = glp_mip_obj_val(lp) / ilp.scale;
    if (solved < listMakespan * (1 - 1e-9)) {
      makespan = solved;
      for (size_t i = 0; i < n; ++i)
        starts[i] = glp_mip_col_val(lp, (int)(1 + i)) / ilp.scale;
    }
    /* Optimal within the gap (GLPK stops with GLP_EMIPGAP once the gap is
     * met), whether or not it beat the list schedule. */
    if ((result == 0 && mipStatus == GLP_OPT) || result == GLP_EMIPGAP)
      *status = MemoptScheduleOptimal;
    else if (makespan < listMakespan)
      *status = MemoptScheduleFeasible;
  }
  glp_delete_prob(lp);
  free(ilp.pairs);
  return makespan;
}

static MlirWalkResult collectUses(MlirOperation op, void *userData);

typedef struct EdgeCollector {
  MlirBlock block;
  const MemoptPointerMap *position;
  size_t first, count, user;
  size_t (*edges)[2];
  size_t edgeCount, capacity;
} EdgeCollector;

static MlirWalkResult collectUses(MlirOperation op, void *userData) {
  EdgeCollector *collector = userData;
  for (intptr_t o = 0; o < mlirOperationGetNumOperands(op); ++o) {
    MlirValue operand = mlirOperationGetOperand(op, o);
    if (!mlirValueIsAOpResult(operand))
      continue;
    MlirOperation producer =
        memoptOperationAncestorInBlock(mlirOpResultGetOwner(operand), collector->block);
    size_t at = mlirOperationIsNull(producer) ? MEMOPT_NO_INDEX
                                              : memoptPointerMapLookup(collector->position, producer.ptr);
    if (at == MEMOPT_NO_INDEX || at < collector->first || at >= collector->user)
      continue;
    size_t from = at - collector->first, to = collector->user - collector->first;
    bool seen = false;
    for (size_t e = 0; e < collector->edgeCount && !seen; ++e)
      seen = collector->edges[e][0] == from && collector->edges[e][1] == to;
    if (seen)
      continue;
    collector->edges = memoptGrowArray(collector->edges, &collector->capacity,
                                       collector->edgeCount + 1, sizeof *collector->edges);
    collector->edges[collector->edgeCount][0] = from;
    collector->edges[collector->edgeCount++][1] = to;
  }
  return MlirWalkResultAdvance;
}

bool memoptSegmentScheduleProblem(MlirOperation func, size_t first, size_t count,
                                  size_t dataArguments, const MemoptAcceleratorConfig *config,
                                  double batchScale, MemoptScheduleProblem *problem,
                                  MemoptStringBuffer *reason) {
  MlirBlock block = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  double *seconds = memoptAllocateZeroed(count + 1, sizeof *seconds);
  MemoptOpUnit *units = memoptAllocateZeroed(count + 1, sizeof *units);
  MemoptPointerMap position = memoptPointerMapCreate();
  EdgeCollector collector = {block, &position, first, count, 0, NULL, 0, 0};
  MlirOperation op = mlirBlockGetFirstOperation(block);
  bool ok = true;
  for (size_t i = 0; !mlirOperationIsNull(op) && i < first + count && ok;
       ++i, op = mlirOperationGetNextInBlock(op)) {
    memoptPointerMapInsert(&position, op.ptr, i);
    if (i < first)
      continue;
    MemoptOpCost cost;
    ok = memoptOpCostEstimate(op, config, dataArguments, batchScale, &cost, reason);
    seconds[i - first] = cost.seconds;
    units[i - first] = cost.unit;
    collector.user = i;
    mlirOperationWalk(op, collectUses, &collector, MlirWalkPreOrder);
  }
  memoptPointerMapDestroy(&position);
  *problem = (MemoptScheduleProblem){seconds, units, count, (const size_t(*)[2])collector.edges,
                                     collector.edgeCount};
  if (!ok)
    memoptScheduleProblemDestroy(problem);
  return ok;
}

void memoptScheduleProblemDestroy(MemoptScheduleProblem *problem) {
  free((void *)problem->seconds);
  free((void *)problem->units);
  free((void *)problem->edges);
  *problem = (MemoptScheduleProblem){NULL, NULL, 0, NULL, 0};
}

/* print-remat-optimum: how far the remat heuristic is from the optimum.
 * Runs the heuristic on a copy of the function and Checkmate's ILP
 * (lib/Analysis/RematOptimum.c) on the function, at the same fraction of
 * each one's unoptimized peak, and reports both recompute costs and the
 * gap as a remark. The IR is not changed. */
#include "Analysis/Analysis.h"
#include "IR/IR.h"
#include "Remat/Remat.h"
#include "Remat/RematSearch.h"

#include <math.h>
#include <string.h>

static void appendSolution(MemoptStringBuffer *out, const MemoptRematOptimum *optimum,
                           double timeLimit, double gap) {
  switch (optimum->status) {
  case MemoptIlpInfeasible:
    memoptStringBufferAppendCString(out, "infeasible: no schedule fits the budget");
    return;
  case MemoptIlpNoSolutionInTime:
    memoptStringBufferAppendFormat(out, "no solution in time (%.3g s", timeLimit);
    if (isfinite(optimum->recomputeBound))
      memoptStringBufferAppendFormat(out, "; the optimum recomputes at least %.6g",
                                     optimum->recomputeBound);
    memoptStringBufferAppendCString(out, ")");
    return;
  case MemoptIlpProvenOptimal:
  case MemoptIlpWithinGap:
  case MemoptIlpFeasibleInTime:
    break;
  }
  memoptStringBufferAppendFormat(out, "optimum recomputes %.6g element operations",
                                 optimum->recomputeCost);
  if (optimum->status == MemoptIlpProvenOptimal)
    memoptStringBufferAppendCString(out, " (proven optimal)");
  else if (optimum->status == MemoptIlpWithinGap)
    memoptStringBufferAppendFormat(out, " (proven within %g%% of the optimum)", 100 * gap);
  else if (isfinite(optimum->recomputeBound))
    memoptStringBufferAppendFormat(out,
                                   " (best found in time; the optimum recomputes at least %.6g)",
                                   optimum->recomputeBound);
  else
    memoptStringBufferAppendCString(out, " (best found in time, not proven optimal)");
}

static bool hasSolution(const MemoptRematOptimum *optimum) {
  return optimum->status == MemoptIlpProvenOptimal || optimum->status == MemoptIlpWithinGap ||
         optimum->status == MemoptIlpFeasibleInTime;
}

static MlirLogicalResult runPrintRematOptimum(MlirOperation func,
                                              const MemoptPassOptions *options) {
  if (mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0))))
    return mlirLogicalResultSuccess();
  double ratio = memoptPassOptionsGetFloat(options, "budget-ratio");
  double timeLimit = memoptPassOptionsGetFloat(options, "time-limit");
  size_t maxNodes = (size_t)memoptPassOptionsGetInteger(options, "max-nodes");
  double ilpGap = memoptPassOptionsGetFloat(options, "ilp-gap");
  MemoptIlpSolver solver = strcmp(memoptPassOptionsGetString(options, "solver"), "glpk") == 0
                               ? MemoptIlpSolverGlpk
                               : MemoptIlpSolverCbc;
  RematLimits limits = {
      .budgetRatio = ratio,
      .maxChain = (size_t)memoptPassOptionsGetInteger(options, "max-chain"),
      .maxSteps = (size_t)memoptPassOptionsGetInteger(options, "max-steps"),
      .maxRecompute = memoptPassOptionsGetFloat(options, "max-recompute"),
      .allowPartial = true,
  };
  MemoptStringBuffer message = memoptStringBufferCreate();
  MemoptStringBuffer error = memoptStringBufferCreate();
  memoptStringBufferAppendCString(&message, "print-remat-optimum: ");
  /* The heuristic rewrites a detached copy; the function stays as it is. */
  MlirOperation copy = mlirOperationClone(func);
  RematOutcome outcome;
  bool heuristicRan = rematFunction(copy, &limits, &outcome, &error);
  mlirOperationDestroy(copy);
  MemoptRematOptimum optimum;
  if (!heuristicRan) {
    memoptStringBufferAppendFormat(&message, "not compared: %s", error.data);
  } else if (!memoptRematOptimumSolve(func, ratio, maxNodes, solver, timeLimit, ilpGap, &optimum,
                                      &error)) {
    memoptStringBufferAppendFormat(&message, "no ILP: %s", error.data);
  } else {
    memoptStringBufferAppendFormat(
        &message,
        "%zu buffers, ILP model peak %.0f bytes (estimator %llu); at budget-ratio %g: ",
        optimum.nodes, optimum.modelPeak, (unsigned long long)outcome.initialPeak, ratio);
    appendSolution(&message, &optimum, timeLimit, ilpGap);
    double achieved = outcome.initialPeak ? (double)outcome.finalPeak / (double)outcome.initialPeak : 1;
    memoptStringBufferAppendFormat(
        &message, "; heuristic: peak %llu -> %llu bytes (%.3f of the peak, budget %s), "
                  "recomputes %.6g element operations",
        (unsigned long long)outcome.initialPeak, (unsigned long long)outcome.finalPeak, achieved,
        outcome.budgetMet ? "met" : "not met", outcome.recomputeCost);
    /* Compare costs at the peak the heuristic reached: the ILP again there
     * when the heuristic fell short of the budget. */
    MemoptRematOptimum atHeuristic = optimum;
    if (!outcome.budgetMet) {
      memoptStringBufferClear(&error);
      if (memoptRematOptimumSolve(func, achieved, maxNodes, solver, timeLimit, ilpGap, &atHeuristic,
                                  &error)) {
        memoptStringBufferAppendFormat(&message, "; ILP at %.3f: ", achieved);
        appendSolution(&message, &atHeuristic, timeLimit, ilpGap);
      }
    }
    if (hasSolution(&atHeuristic)) {
      double gap = outcome.recomputeCost - atHeuristic.recomputeCost;
      memoptStringBufferAppendFormat(&message, "; gap %.6g element operations", gap);
      if (atHeuristic.recomputeCost > 0)
        memoptStringBufferAppendFormat(&message, " (%.1f%% of the optimum's)",
                                       100.0 * gap / atHeuristic.recomputeCost);
      if (outcome.functionCost > 0)
        memoptStringBufferAppendFormat(&message, " (%.2f%% of the function's work)",
                                       100.0 * gap / outcome.functionCost);
    }
    /* Without a proven optimum the solver's bound still caps the gap. */
    if (atHeuristic.status != MemoptIlpProvenOptimal && isfinite(atHeuristic.recomputeBound)) {
      double most = outcome.recomputeCost - atHeuristic.recomputeBound;
      memoptStringBufferAppendFormat(&message, "; gap at most %.6g element operations", most);
      if (atHeuristic.recomputeBound > 0)
        memoptStringBufferAppendFormat(&message, " (%.1f%% of the bound)",
                                       100.0 * most / atHeuristic.recomputeBound);
    }
  }
  memoptEmitDiagnostic(mlirOperationGetLocation(func), MlirDiagnosticRemark, message.data);
  memoptStringBufferDestroy(&error);
  memoptStringBufferDestroy(&message);
  return mlirLogicalResultSuccess();
}

static const MemoptPassOptionInfo printRematOptimumOptions[] = {
    {"budget-ratio", MemoptOptionFloat, "0.6",
     "budget as a fraction of the unoptimized peak (the estimator's for the heuristic, the ILP "
     "graph's for the ILP)",
     NULL, 0, 1},
    {"max-chain", MemoptOptionInteger, "8", "the heuristic's max-chain", NULL, 1, 1000},
    {"max-steps", MemoptOptionInteger, "1000", "the heuristic's max-steps", NULL, 0, 1000000},
    {"max-recompute", MemoptOptionFloat, "0.15", "the heuristic's max-recompute", NULL, 0, 100},
    {"max-nodes", MemoptOptionInteger, "80",
     "largest graph (buffers) given to the ILP; larger functions are not solved", NULL, 1, 100000},
    {"solver", MemoptOptionChoice, "cbc", "the ILP solver", "glpk|cbc", 0, 0},
    {"time-limit", MemoptOptionFloat, "10", "seconds the solver may take per ILP", NULL, 0.001,
     86400},
    {"ilp-gap", MemoptOptionFloat, "0.01",
     "the solver stops once its recompute cost is proven within this fraction of the optimum (0: "
     "exact)",
     NULL, 0, 1},
};

const MemoptPassInfo memoptPrintRematOptimumPass = {
    .argument = "print-remat-optimum",
    .summary =
        "Report the optimal rematerialization (Checkmate's ILP, CBC or GLPK) beside the remat "
        "heuristic's (remarks)",
    .anchor = "func.func",
    .options = printRematOptimumOptions,
    .optionCount = sizeof printRematOptimumOptions / sizeof *printRematOptimumOptions,
    .run = runPrintRematOptimum,
};

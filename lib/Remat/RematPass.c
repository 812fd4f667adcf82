/* remat: static rematerialization (BladeDISC++ with static shapes). Where
 * the estimated live bytes exceed the budget, recompute values live across
 * the peak right before their later uses instead of keeping them
 * (RematSearch.c). The function is changed only when the budget is met (or
 * with allow-partial); a remark says how far it got. */
#include "IR/IR.h"
#include "Remat/Remat.h"
#include "Remat/RematSearch.h"

static MlirLogicalResult runRemat(MlirOperation func, const MemoptPassOptions *options) {
  if (mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0))))
    return mlirLogicalResultSuccess(); /* a declaration */
  RematLimits limits = {
      .budget = (uint64_t)memoptPassOptionsGetInteger(options, "budget"),
      .budgetGiven = memoptPassOptionsIsSet(options, "budget"),
      .budgetRatio = memoptPassOptionsGetFloat(options, "budget-ratio"),
      .maxChain = (size_t)memoptPassOptionsGetInteger(options, "max-chain"),
      .maxSteps = (size_t)memoptPassOptionsGetInteger(options, "max-steps"),
      .maxRecompute = memoptPassOptionsGetFloat(options, "max-recompute"),
      .allowPartial = memoptPassOptionsGetBool(options, "allow-partial"),
  };
  RematOutcome outcome;
  MemoptStringBuffer error = memoptStringBufferCreate();
  if (!rematFunction(func, &limits, &outcome, &error)) {
    memoptEmitOpDiagnostic(func, MlirDiagnosticRemark, "remat: not applied: %s", error.data);
    memoptStringBufferDestroy(&error);
    return mlirLogicalResultSuccess();
  }
  memoptStringBufferDestroy(&error);
  double share =
      outcome.functionCost > 0 ? 100.0 * outcome.recomputeCost / outcome.functionCost : 0;
  if (outcome.budgetMet && outcome.steps == 0)
    memoptEmitOpDiagnostic(
        func, MlirDiagnosticRemark,
        "remat: estimated peak %llu bytes is within the budget of %llu bytes; nothing to do",
        (unsigned long long)outcome.initialPeak, (unsigned long long)outcome.budget);
  else if (outcome.budgetMet)
    memoptEmitOpDiagnostic(
        func, MlirDiagnosticRemark,
        "remat: estimated peak %llu -> %llu bytes (budget %llu bytes): %zu values recomputed, "
        "%zu ops cloned, %.4g element operations recomputed (%.1f%% of the function's %.4g); "
        "%zu estimates, %zu candidates refused by the estimator",
        (unsigned long long)outcome.initialPeak, (unsigned long long)outcome.finalPeak,
        (unsigned long long)outcome.budget, outcome.steps, outcome.clonedOps, outcome.recomputeCost,
        share, outcome.functionCost, outcome.estimates, outcome.rejected);
  else
    memoptEmitOpDiagnostic(
        func, MlirDiagnosticRemark,
        "remat: the budget of %llu bytes is out of reach: the best is %llu bytes (from %llu), "
        "then %s; %s",
        (unsigned long long)outcome.budget, (unsigned long long)outcome.bestPeak,
        (unsigned long long)outcome.initialPeak, outcome.stopReason,
        outcome.changed ? "the steps are kept (allow-partial)" : "the function is left unchanged");
  if (!outcome.budgetMet && outcome.changed)
    memoptEmitOpDiagnostic(
        func, MlirDiagnosticRemark,
        "remat: kept %zu values recomputed, %zu ops cloned, %.4g element operations "
        "recomputed (%.1f%% of the function's %.4g)",
        outcome.steps, outcome.clonedOps, outcome.recomputeCost, share, outcome.functionCost);
  return mlirLogicalResultSuccess();
}

static const MemoptPassOptionInfo rematOptions[] = {
    {"budget", MemoptOptionBytes, "0",
     "activation-memory budget in bytes per function (overrides budget-ratio)", NULL, 0, 9e18},
    {"budget-ratio", MemoptOptionFloat, "0.6",
     "budget as a fraction of the function's peak without rematerialization", NULL, 0, 1},
    {"max-chain", MemoptOptionInteger, "8",
     "most computing ops recomputed for one value (ops that only allocate, view or move data "
     "not counted)",
     NULL, 1, 1000},
    {"max-steps", MemoptOptionInteger, "1000", "most values rematerialized per function", NULL, 0,
     1000000},
    {"max-recompute", MemoptOptionFloat, "0.15",
     "most element operations recomputed, as a fraction of the function's (a bound on the time "
     "overhead)",
     NULL, 0, 100},
    {"allow-partial", MemoptOptionBool, "false",
     "keep the recomputations that lower the peak even when the budget stays out of reach", NULL, 0,
     0},
};

const MemoptPassInfo memoptRematPass = {
    .argument = "remat",
    .summary = "Recompute values live across the activation peak before their later uses "
               "until the budget is met (static shapes)",
    .anchor = "func.func",
    .options = rematOptions,
    .optionCount = sizeof rematOptions / sizeof *rematOptions,
    .run = runRemat,
};

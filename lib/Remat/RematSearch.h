/* Static rematerialization (BladeDISC++, static shapes): recompute values
 * live across the activation peak right before their later uses instead of
 * keeping them. Shared by the remat pass and print-remat-optimum, which
 * compares it with the ILP optimum. Internal to lib/Remat. */
#ifndef MEMOPT_REMAT_REMATSEARCH_H
#define MEMOPT_REMAT_REMATSEARCH_H

#include "Support/Support.h"

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// What the heuristic may do.
typedef struct RematLimits {
  uint64_t budget;   /* live bytes to reach, when budgetGiven */
  bool budgetGiven;
  double budgetRatio; /* otherwise: this fraction of the initial peak */
  size_t maxChain;   /* most computing ops recomputed for one value */
  size_t maxSteps;   /* most values rematerialized */
  double maxRecompute; /* most element operations recomputed, as a fraction of the function's */
  bool allowPartial; /* keep the steps taken when the budget stays out of reach */
} RematLimits;

/// What the heuristic did to one function.
typedef struct RematOutcome {
  uint64_t budget;         /* the budget in bytes */
  uint64_t initialPeak;    /* estimated live bytes at the peak, before */
  uint64_t finalPeak;      /* and after (the initial peak when the function is left unchanged) */
  uint64_t bestPeak;       /* the lowest peak reached, kept or not */
  size_t steps;            /* values rematerialized (kept) */
  size_t clonedOps;        /* ops inserted (kept) */
  double recomputeCost;    /* element operations of the cloned ops (kept) */
  double functionCost;     /* element operations of the function as it was */
  size_t estimates;        /* memory profiles computed */
  size_t rejected;         /* candidates the estimator refused */
  bool budgetMet;
  bool changed;            /* the function was rewritten */
  const char *stopReason;  /* why the search ended (static text) */
} RematOutcome;

/// Runs the heuristic on `func` (a func.func with a body and static shapes);
/// false with the reason in `error` when the function cannot be estimated
/// (the IR is then unchanged).
bool rematFunction(MlirOperation func, const RematLimits *limits, RematOutcome *outcome,
                   MemoptStringBuffer *error);

#endif /* MEMOPT_REMAT_REMATSEARCH_H */

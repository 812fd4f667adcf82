/* BladeDISC++: memory-aware op scheduling, in-place elementwise ops, static
 * rematerialization and its ILP optimum (Checkmate), dynamic-shape
 * rematerialization decided partly at run time, and its lowering to
 * memopt_rt calls. python-free-docs/remat.md. */
#ifndef MEMOPT_REMAT_REMAT_H
#define MEMOPT_REMAT_REMAT_H

#include "Analysis/Analysis.h"
#include "Pass/Pass.h"
#include "Support/Support.h"

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===------------------------------------------------------------------===*
 * The optimal rematerialization (Checkmate)
 *===------------------------------------------------------------------===*/

/// The optimal rematerialization of a function found by Checkmate's ILP (RematOptimum.c).
typedef struct MemoptRematOptimum {
  size_t nodes;           /* buffers in the ILP's graph */
  double modelPeak;       /* the graph's peak bytes without recomputation */
  double budget;          /* the budget in the graph's bytes */
  double baseCost;        /* element operations of computing every node once */
  MemoptIlpStatus status; /* what the solver proved within its time limit */
  double recomputeCost;   /* element operations recomputed by the solution, when there is one */
  double recomputeBound;  /* proven lower bound on the optimum's recompute cost; NAN: none */
  double solutionPeak;    /* the solution's peak in the graph's bytes */
} MemoptRematOptimum;

/// Solves Checkmate's ILP for `func` at `budgetFraction` of the graph's own peak with `solver`, within `timeLimitSeconds`, stopping at `relativeGap` from the proven bound on the recompute cost; false with the reason in `error` when the function cannot be modelled, has more than `maxNodes` buffers or the solver fails.
bool memoptRematOptimumSolve(MlirOperation func, double budgetFraction, size_t maxNodes,
                             MemoptIlpSolver solver, double timeLimitSeconds, double relativeGap,
                             MemoptRematOptimum *result, MemoptStringBuffer *error);

/*===------------------------------------------------------------------===*
 * Passes
 *===------------------------------------------------------------------===*/

/// memory-schedule (MemorySchedulePass.c).
extern const MemoptPassInfo memoptMemorySchedulePass;

/// inplace-elementwise (InPlaceElementwisePass.c).
extern const MemoptPassInfo memoptInPlaceElementwisePass;

/// remat (RematPass.c).
extern const MemoptPassInfo memoptRematPass;

/// print-remat-optimum (PrintRematOptimumPass.c).
extern const MemoptPassInfo memoptPrintRematOptimumPass;

/// remat-dynamic (RematDynamicPass.c).
extern const MemoptPassInfo memoptRematDynamicPass;

/// remat-to-runtime: lowers remat.evict / remat.regenerate to memopt_rt calls and a guarded in-place recomputation (RematToRuntime.c).
extern const MemoptPassInfo memoptRematToRuntimePass;

#ifdef __cplusplus
}
#endif

#endif /* MEMOPT_REMAT_REMAT_H */

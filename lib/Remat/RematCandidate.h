/* Static rematerialization's candidates (RematSearch.c has the model): the
 * search state a candidate is scored on, and the candidate itself, the ops
 * recomputing one buffer across the peak. Built and scored without touching
 * the IR by RematCandidate.c; applied by the search in RematSearch.c.
 * Internal to lib/Remat. */
#ifndef MEMOPT_REMAT_REMATCANDIDATE_H
#define MEMOPT_REMAT_REMATCANDIDATE_H

#include "Remat/RematSearch.h"

#include "Analysis/Analysis.h"
#include "Analysis/BufferizationModel.h"
#include "Support/Support.h"

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// A candidate: the ops to clone (`ops`, owned: freed with free) and what the model predicts.
typedef struct RematCandidate {
  size_t buffer;         /* the buffer freed across the peak */
  bool extendLeaves;     /* the variant: computed operands are kept alive instead */
  bool atLowPoint;       /* the variant: inserted where least is live before the first later use */
  size_t *ops;           /* positions of the ops to clone, ascending */
  size_t opCount;
  size_t insertion;      /* position of the first use after the peak */
  double cost;           /* element operations recomputed */
  uint64_t saving;       /* bytes freed at the peak, per the model */
  int64_t newPeak;       /* the function's peak after it, per the model */
  double score;
  bool closes; /* meets the budget at no more cost than the best-scored candidate */
} RematCandidate;

/// The search on one function: the profile (owned) and the per-position arrays read from it (owned), the limits (borrowed), the buffers the estimator refused.
typedef struct RematSearchState {
  MlirOperation func;
  MlirBlock body;
  MemoptMemoryProfile *profile;
  size_t positionCount;
  MlirOperation *opAt;       /* per position */
  int64_t *live;             /* per position */
  int64_t *liveBefore;       /* per position p: the most bytes live at a position before p */
  int64_t *liveFrom;         /* per position p (and one past the last): the most at p or after */
  int64_t *delta;            /* scratch: difference array of a candidate's effect, all zero
                                between candidates */
  bool *inChain;             /* scratch per position, all false between candidates */
  size_t *worklist;          /* scratch per position */
  const RematLimits *limits;
  MemoptPointerMap rejected; /* buffer value pointers (x2 + variant) refused by the estimator */
} RematSearchState;

/// Finds the position of top-level op `op` in the search's profile; false when it has none.
static inline bool positionOf(const RematSearchState *search, MlirOperation op, size_t *position) {
  return memoptMemoryProfileLookupPosition(search->profile, op, position);
}

/// Builds and scores in `candidate` the variant (`extendLeaves`, `atLowPoint`) freeing `buffer` across `peak`; false when the buffer cannot be rematerialized or the model sees no gain (`candidate` then owns nothing).
bool rematBuildCandidate(RematSearchState *search, size_t peak, size_t buffer, bool extendLeaves,
                         bool atLowPoint, RematCandidate *candidate);

#endif /* MEMOPT_REMAT_REMATCANDIDATE_H */

/* remat-dynamic: rematerialization decided at run time (BladeDISC++). What
 * the files of the pass share: the candidate, the analysis context, and the
 * steps the pass (RematDynamicPass.c) runs in turn. The search
 * (RematDynamicSearch.c) finds, orders and accepts candidates and works out
 * where each regenerate goes and what stays resident while it runs; the
 * chain (RematDynamicChain.c) is what a regenerate recomputes; the rewrite
 * (RematDynamicRewrite.c) inserts remat.evict / remat.regenerate. Internal
 * to lib/Remat.
 *
 * With dynamic shapes the compiler cannot tell whether evicting a tensor
 * pays off, so it only prepares the choice: for a tensor whose buffer sits
 * unused across a long gap, it inserts `remat.evict` after the last use
 * before the gap and `remat.regenerate` before the next use (and before
 * the ops that only prepare that use's other operands), whose body
 * recomputes the tensor from values still live there; later uses read the
 * regenerated value. The runtime (memopt_rt, after remat-to-runtime) evicts
 * only when memory runs short.
 *
 * Model: the memory profile's positions (top-level ops) and buffers, sizes
 * as polynomials over the shape symbols. A value is a candidate when
 *   - it fills a buffer of its own that the function allocates (not a view,
 *     not returned, not an uninitialized tensor.empty; written into it in
 *     place through a reshape counts), so its memory really goes while it
 *     is evicted;
 *   - between two consecutive uses (or its definition and first use) lie at
 *     least `min-gap` ops before the regenerate that touch its buffer
 *     through no value at all,
 *     and, unless `everywhere`, one of those ops is a candidate peak of the
 *     symbolic live bytes: eviction cannot lower a peak it does not span;
 *   - its producer chain is cheap (at most `max-chain` contractions and
 *     `max-ops` ops) and reads only values available at the next use: arguments,
 *     constants, scalars, and tensors the program reads at or after that
 *     use anyway (so that reading them there neither extends their life nor
 *     makes bufferization copy them);
 *   - its size is surely at least `min-bytes` (polynomial comparison).
 * A chain that reads a value another candidate may have evicted at the
 * regeneration point reads it through a nested remat.regenerate, which
 * recomputes it only when it was evicted; nested regenerates may nest in
 * turn, and a remat.evict at the end of the outermost body makes every
 * input restored inside evictable again. Candidates are taken cheapest to
 * regenerate per byte first (element operations of the chain,
 * memoptSymbolicRecomputeCost, over its bytes, when surely smaller), then
 * largest first; one is refused when some regeneration, its own or an
 * accepted candidate's, would then hold more than `max-nested` nested
 * regenerates (each copies a chain into the IR, and what they restore stays
 * resident while it runs). The runtime weighs each regeneration's cost
 * (remat-to-runtime passes it), so a longer chain (`max-chain`) only
 * widens its choice: an expensive buffer is evicted after the cheap ones.
 * Each evict also states the bytes resident while its regenerate runs
 * (`restore-footprints`), which the runtime weighs against its limit. */
#ifndef MEMOPT_REMAT_REMATDYNAMIC_H
#define MEMOPT_REMAT_REMATDYNAMIC_H

#include "Analysis/Analysis.h"
#include "IR/IR.h"

#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// A value that may be made evictable, the gap it is evicted across and the chain regenerating it; owns `bytes`, `chain`, `inputs`, `cost`, `restoreBytes` (rematDynamicCandidateDestroy frees them).
typedef struct EvictionCandidate {
  MlirValue value;
  size_t definition; /* position of the defining op */
  size_t gapStart;   /* last position using it before the gap (evict after) */
  size_t gapEnd;     /* next position using it */
  size_t regenerateAt; /* the regenerate goes before this position, at most gapEnd: the ops
                          from it up to gapEnd only prepare the next use's other operands */
  MemoptPolynomial *bytes;
  MlirOperation *chain; /* producer ops in program order, the value's own last */
  size_t chainCount;
  MlirValue *inputs; /* tensors the chain reads from outside */
  size_t inputCount, inputCapacity;
  MemoptPolynomial *cost; /* element operations of the chain; NULL when unknown */
  MemoptPolynomial *restoreBytes; /* resident, at least, while its regenerate runs; NULL: unknown */
  MlirValue restoreBytesValue;    /* restoreBytes as an index for its evicts; null: unknown */
} EvictionCandidate;

/// What the search reads: the profile and symbols (borrowed), the options, and the buffer uses and peaks (`bufferUsed`, `isPeak`: owned, filled by rematDynamicContextAnalyse, freed by rematDynamicContextDestroy).
typedef struct RematDynamicContext {
  MemoptMemoryProfile *profile;
  MemoptShapeSymbols *symbols;
  size_t positionCount;
  size_t bufferCount;
  bool *bufferUsed; /* [position * bufferCount + buffer]: some value in it is read there */
  bool *isPeak;     /* candidate peak positions */
  long long minGap, maxChain, maxOps, maxNested;
  uint64_t minBytes;
  bool everywhere, restoreFootprints;
} RematDynamicContext;

/// Finds the position of top-level op `op` in the context's profile; false when it has none.
static inline bool positionOf(const RematDynamicContext *context, MlirOperation op,
                              size_t *position) {
  return memoptMemoryProfileLookupPosition(context->profile, op, position);
}

/// True when `value` is a ranked tensor.
static inline bool isTensor(MlirValue value) {
  return mlirTypeIsARankedTensor(mlirValueGetType(value));
}

/*===------------------------------------------------------------------===*
 * The search (RematDynamicSearch.c)
 *===------------------------------------------------------------------===*/

/// Frees what `candidate` owns (not the candidate itself).
void rematDynamicCandidateDestroy(EvictionCandidate *candidate);

/// Calls `visit` on every value `op` reads from outside itself: its operands, then the values ops nested in its regions capture, until `visit` returns false.
void rematDynamicForEachExternalOperand(MlirOperation op, MemoptValueVisitor visit,
                                        void *userData);

/// True when `value` is `root` or a view of it (through view ops only), so that it reads `root`'s buffer and can be rebuilt on a regenerated root.
bool rematDynamicIsViewOf(MlirValue value, MlirValue root);

/// Fills the context's `bufferUsed` and `isPeak` from its profile and symbols.
void rematDynamicContextAnalyse(RematDynamicContext *context);

/// Frees the context's `bufferUsed` and `isPeak` (not the profile or the symbols).
void rematDynamicContextDestroy(RematDynamicContext *context);

/// Finds the candidates among the results of the profile's positions, each with its recompute cost; returns an array the caller owns (each entry destroyed with rematDynamicCandidateDestroy, then the array freed), `*count` entries long.
EvictionCandidate *rematDynamicFindCandidates(const RematDynamicContext *context, size_t *count);

/// Sorts `candidates` into their order of consideration: surely cheaper to regenerate per byte first, then larger.
void rematDynamicOrderCandidates(const MemoptShapeSymbols *symbols, EvictionCandidate *candidates,
                                 size_t count);

/// Accepts `candidates` in order, each unless some regeneration would then nest more than max-nested regenerates; returns the accepted ones (an array the caller frees, of pointers into `candidates`), `*acceptedCount` entries long.
EvictionCandidate **rematDynamicAcceptCandidates(const RematDynamicContext *context,
                                                 EvictionCandidate *candidates, size_t count,
                                                 size_t *acceptedCount);

/// True when `reader`'s chain, recomputed at `position`, reads `evicted`'s value (or a view of it) while it may be evicted: after its evict and no later than its own regenerate.
bool rematDynamicReadsWhileEvicted(const EvictionCandidate *reader, size_t position,
                                   const EvictionCandidate *evicted);

/// The positions of the ops the regenerates of `accepted` go before, one per entry (an array the caller frees).
size_t *rematDynamicRegenerationPositions(EvictionCandidate *const *accepted,
                                          size_t acceptedCount);

/// Sets each accepted candidate's `restoreBytes`: the bytes resident, at least, while its regenerate (before the op at `regenerateAt`) runs.
void rematDynamicMeasureRestoreFootprints(const RematDynamicContext *context,
                                          EvictionCandidate *const *accepted,
                                          size_t acceptedCount, const size_t *regenerateAt);

/*===------------------------------------------------------------------===*
 * The chain (RematDynamicChain.c)
 *===------------------------------------------------------------------===*/

/// Builds the producer chain and the inputs of `candidate` for its regeneration point; false when it is not recomputable within max-chain and max-ops.
bool rematDynamicBuildChain(const RematDynamicContext *context, EvictionCandidate *candidate);

/*===------------------------------------------------------------------===*
 * The rewrite (RematDynamicRewrite.c)
 *===------------------------------------------------------------------===*/

/// Builds each accepted candidate's known restore footprint as an index (its `restoreBytesValue`) in `body`, the function's entry block.
void rematDynamicBuildRestoreFootprints(const RematDynamicContext *context, MlirBlock body,
                                        EvictionCandidate *const *accepted, size_t acceptedCount);

/// Inserts the evict and regenerate ops of `candidate`, the regenerate before the op at position `regenerateAt`, and redirects later uses; `accepted` are all the candidates made evictable.
void rematDynamicRewrite(const RematDynamicContext *context, const EvictionCandidate *candidate,
                         EvictionCandidate *const *accepted, size_t acceptedCount,
                         size_t regenerateAt);

#endif /* MEMOPT_REMAT_REMATDYNAMIC_H */

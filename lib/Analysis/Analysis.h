/* memopt analyses: what a program costs in memory, computed from the IR alone.
 *
 * The memory profile of a func.func on tensors predicts the heap activation
 * memory of the function once it is bufferized and run through the upstream
 * pipeline memopt-run uses (one-shot-bufferize with
 * bufferize-function-boundaries, buffer-deallocation-pipeline,
 * optimize-allocation-liveness): which buffers exist, where each is allocated
 * and freed, and the live bytes at every op of the body.
 *
 * Positions are the ops of the function body in order, terminator included;
 * an op with regions is one position that includes the peak of its own
 * temporaries, a call one that includes the callee's peak. Live bytes are
 * payload bytes (elements times element size); allocated bytes are what the
 * lowered program asks aligned_alloc for (each size rounded up to its
 * alignment, as finalize-memref-to-llvm{use-aligned-alloc} and memopt-run
 * do). Buffers of dynamic shape count 0 bytes and flag the positions where
 * they are live.
 *
 * Analyzing callees reads other functions: only do it where no other thread
 * may be changing them (a function pass only with threading off). Without
 * it, a call is taken to read and write its tensor arguments and to allocate
 * its results, and a note says so.
 *
 * The model and its correspondence to the upstream passes are documented in
 * python-free-docs/analysis.md. Analyses read the IR and never change it;
 * they never run passes. Errors are returned, never printed. */
#ifndef MEMOPT_ANALYSIS_ANALYSIS_H
#define MEMOPT_ANALYSIS_ANALYSIS_H

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
 * Type sizes
 *===------------------------------------------------------------------===*/

/// Returns in `bytes` the size of one element of `elementType` in a lowered x86-64 buffer; false when unknown.
bool memoptTypeGetElementByteSize(MlirType elementType, uint64_t *bytes);

/// Returns in `bytes` the size of a static tensor or memref type; false when dynamic, unranked or unknown.
bool memoptTypeGetStaticByteSize(MlirType shapedType, uint64_t *bytes);

/// Returns the alignment one-shot bufferization gives the buffers it allocates, each rounded up to a multiple of it in the lowered program.
uint64_t memoptOneShotBufferAlignment(void);

/// Returns `bytes` rounded up to a multiple of `alignment` (at least 1): what the lowered program allocates for them.
uint64_t memoptRoundUpToAlignment(uint64_t bytes, uint64_t alignment);

/// Returns true when bufferization makes the result of `op` a view of its first operand's buffer (slices, reshapes, casts).
bool memoptOperationIsView(MlirOperation op);

/*===------------------------------------------------------------------===*
 * Memory profile of a function
 *===------------------------------------------------------------------===*/

/// The activation-memory profile of one func.func (opaque).
typedef struct MemoptMemoryProfile MemoptMemoryProfile;

/// Why a buffer exists.
typedef enum MemoptBufferKind {
  MemoptBufferAllocation, /* an op that materializes a new tensor: tensor.empty, pad, concat, ... */
  MemoptBufferCopy,       /* a copy bufferization inserts for an operand it cannot write in place */
  MemoptBufferReturnCopy, /* the clone the deallocation pipeline returns for a buffer the function does not own */
  MemoptBufferCallResult, /* a buffer a callee returns */
  MemoptBufferRegionResult, /* a buffer yielded out of a region op (scf.if, ...) */
  MemoptBufferMemRefAlloc,  /* a memref.alloc already present in the input */
  MemoptBufferUnmodeled     /* the result of an op the model does not know (see the notes) */
} MemoptBufferKind;

/// One buffer of the bufferized function.
typedef struct MemoptBufferInfo {
  MemoptBufferKind kind;
  MlirValue value;        /* the tensor (or memref) value first held in the buffer */
  MlirOperation op;       /* the op at which the buffer is allocated */
  bool sizeKnown;         /* false for dynamic shapes: `bytes` is then 0 */
  uint64_t bytes;         /* payload bytes */
  uint64_t alignment;     /* its alignment in the lowered program: the alloc's alignment
                             attribute, else max(16, element size) as finalize-memref-to-llvm */
  size_t firstPosition;   /* positions in the block the buffer lives in */
  size_t lastPosition;    /* freed after this position */
  bool nested;            /* lives inside a region op, at that op's position only */
  bool escapes;           /* returned: still live when the function returns */
} MemoptBufferInfo;

/// Computes the profile of `func` (a func.func with a body), its callees too if `analyzeCallees`; NULL and `error` on failure.
MemoptMemoryProfile *memoptMemoryProfileCreate(MlirOperation func, bool analyzeCallees,
                                               MemoptStringBuffer *error);

/// Frees a profile (NULL is allowed).
void memoptMemoryProfileDestroy(MemoptMemoryProfile *profile);

/// Returns the function the profile describes.
MlirOperation memoptMemoryProfileGetFunction(const MemoptMemoryProfile *profile);

/// Returns the number of positions (top-level ops of the body, terminator included).
size_t memoptMemoryProfileGetNumPositions(const MemoptMemoryProfile *profile);

/// Returns the op at `position`.
MlirOperation memoptMemoryProfileGetPositionOp(const MemoptMemoryProfile *profile, size_t position);

/// Finds the position of `op` or of its top-level ancestor; false when `op` is not in the function.
bool memoptMemoryProfileLookupPosition(const MemoptMemoryProfile *profile, MlirOperation op,
                                       size_t *position);

/// Returns the payload bytes live while the op at `position` runs.
uint64_t memoptMemoryProfileGetLiveBytes(const MemoptMemoryProfile *profile, size_t position);

/// Returns the heap bytes (aligned sizes, deallocation bookkeeping included) held at `position`.
uint64_t memoptMemoryProfileGetAllocatedBytes(const MemoptMemoryProfile *profile,
                                              size_t position);

/// Returns true when a buffer of dynamic size is live at `position` (its bytes are then a lower bound).
bool memoptMemoryProfileHasUnknownSize(const MemoptMemoryProfile *profile, size_t position);

/// Returns the position with the most live bytes (the first of equals).
size_t memoptMemoryProfileGetPeakPosition(const MemoptMemoryProfile *profile);

/// Returns the live bytes at the peak position.
uint64_t memoptMemoryProfileGetPeakBytes(const MemoptMemoryProfile *profile);

/// Returns the largest allocated bytes over all positions (the heap peak of the lowered program).
uint64_t memoptMemoryProfileGetPeakAllocatedBytes(const MemoptMemoryProfile *profile);

/// Returns the number of buffers of the function, nested ones included.
size_t memoptMemoryProfileGetNumBuffers(const MemoptMemoryProfile *profile);

/// Returns buffer number `index`.
MemoptBufferInfo memoptMemoryProfileGetBuffer(const MemoptMemoryProfile *profile, size_t index);

/// Finds the buffer a tensor or memref value lives in; false for arguments, constants and scalars.
bool memoptMemoryProfileLookupBuffer(const MemoptMemoryProfile *profile, MlirValue value,
                                     size_t *buffer);

/// Writes up to `capacity` indices of the buffers live at `position` (a region op's at their peak) and returns their count.
size_t memoptMemoryProfileGetLiveBuffers(const MemoptMemoryProfile *profile, size_t position,
                                         size_t *buffers, size_t capacity);

/// Returns the bytes at `position` that are a callee's own peak (no buffer of this profile holds them).
uint64_t memoptMemoryProfileGetCalleeBytes(const MemoptMemoryProfile *profile, size_t position);

/// Returns the number of notes: places where the IR leaves the model and the profile is approximate.
size_t memoptMemoryProfileGetNumNotes(const MemoptMemoryProfile *profile);

/// Returns how many notes were left out once the profile held its maximum number of them.
size_t memoptMemoryProfileGetNumOmittedNotes(const MemoptMemoryProfile *profile);

/// Returns note number `index`: the op it is about (in `op`) and a message owned by the profile.
const char *memoptMemoryProfileGetNote(const MemoptMemoryProfile *profile, size_t index,
                                       MlirOperation *op);

/// Returns the name of a buffer kind ("allocation", "copy", ...).
const char *memoptBufferKindName(MemoptBufferKind kind);

/*===------------------------------------------------------------------===*
 * Symbolic sizes (BladeDISC++)
 *
 * Sizes of dynamic shapes as polynomials over shape symbols (one symbol per
 * independent unknown dimension), the equalities between dimensions found in
 * the IR, and the memory profile's live bytes as such polynomials.
 *===------------------------------------------------------------------===*/

/// A polynomial with 64-bit integer coefficients over numbered symbols (opaque, heap-owned).
typedef struct MemoptPolynomial MemoptPolynomial;

/// The values a symbol may take at run time: minimum >= 1; maximum INT64_MAX when unbounded.
typedef struct MemoptSymbolRange {
  int64_t minimum;
  int64_t maximum;
} MemoptSymbolRange;

/// What holds between two polynomials for every assignment of the symbols within their ranges.
typedef enum MemoptComparison {
  MemoptComparisonLess,
  MemoptComparisonLessOrEqual,
  MemoptComparisonEqual,
  MemoptComparisonGreaterOrEqual,
  MemoptComparisonGreater,
  MemoptComparisonUnknown /* depends on the symbols' values, or overflowed */
} MemoptComparison;

/// Returns a new constant polynomial.
MemoptPolynomial *memoptPolynomialCreateConstant(int64_t value);

/// Returns a new invalid polynomial: a value nothing is known about.
MemoptPolynomial *memoptPolynomialCreateUnknown(void);

/// Returns a new polynomial that is symbol number `symbol`.
MemoptPolynomial *memoptPolynomialCreateSymbol(unsigned symbol);

/// Returns a new copy of `polynomial`.
MemoptPolynomial *memoptPolynomialClone(const MemoptPolynomial *polynomial);

/// Frees a polynomial (NULL is allowed).
void memoptPolynomialDestroy(MemoptPolynomial *polynomial);

/// The highest degree of a polynomial's term (symbols multiplied in it, powers repeated).
enum { MEMOPT_POLYNOMIAL_MAX_DEGREE = 8 };

/// Returns false once arithmetic overflowed 64 bits or MEMOPT_POLYNOMIAL_MAX_DEGREE: the value is
/// then unknown.
bool memoptPolynomialIsValid(const MemoptPolynomial *polynomial);

/// Returns true and the value in `value` when `polynomial` is a valid constant.
bool memoptPolynomialIsConstant(const MemoptPolynomial *polynomial, int64_t *value);

/// Adds `factor` times `polynomial` to `into`.
void memoptPolynomialAccumulate(MemoptPolynomial *into, const MemoptPolynomial *polynomial,
                                int64_t factor);

/// Returns a new polynomial, the product of `a` and `b`.
MemoptPolynomial *memoptPolynomialMultiply(const MemoptPolynomial *a, const MemoptPolynomial *b);

/// Evaluates with symbol i = values[i]; false when invalid, a symbol has no value, or on overflow.
bool memoptPolynomialEvaluate(const MemoptPolynomial *polynomial, const int64_t *values,
                              size_t valueCount, int64_t *result);

/// Returns true when both are valid and have the same terms.
bool memoptPolynomialEqual(const MemoptPolynomial *a, const MemoptPolynomial *b);

/// Appends `polynomial` as "3072*s0*s1 + 64" (symbols named by `symbolNames`, else "sN") to `out`.
void memoptPolynomialPrint(const MemoptPolynomial *polynomial, const char *const *symbolNames,
                           size_t symbolCount, MemoptStringBuffer *out);

/// Returns the number of terms (0 for the zero polynomial).
size_t memoptPolynomialGetNumTerms(const MemoptPolynomial *polynomial);

/// Returns the coefficient of term `index` and writes its symbols (sorted, repeated for powers; at most `capacity`) and their count.
int64_t memoptPolynomialGetTerm(const MemoptPolynomial *polynomial, size_t index,
                                unsigned *symbols, unsigned capacity, unsigned *degree);

/// Compares `a` with `b` soundly for symbols in `ranges` (symbols past `rangeCount`: [1, unbounded)).
MemoptComparison memoptPolynomialCompare(const MemoptPolynomial *a, const MemoptPolynomial *b,
                                         const MemoptSymbolRange *ranges, size_t rangeCount);

/// Returns the name of a comparison result ("less", "greater or equal", "unknown", ...).
const char *memoptComparisonName(MemoptComparison comparison);

/// The shape symbols of one func.func and the size of every dimension as a polynomial (opaque).
typedef struct MemoptShapeSymbols MemoptShapeSymbols;

/// Discovers the symbols of `func`; NULL and `error` when its bounds attribute is malformed.
MemoptShapeSymbols *memoptShapeSymbolsCreate(MlirOperation func, MemoptStringBuffer *error);

/// Frees the symbols (NULL is allowed).
void memoptShapeSymbolsDestroy(MemoptShapeSymbols *symbols);

/// Returns the number of symbols.
size_t memoptShapeSymbolsGetNumSymbols(const MemoptShapeSymbols *symbols);

/// Returns the names of all symbols, indexed by symbol (owned by `symbols`).
const char *const *memoptShapeSymbolsGetNames(const MemoptShapeSymbols *symbols);

/// Returns the ranges of all symbols, indexed by symbol (owned by `symbols`).
const MemoptSymbolRange *memoptShapeSymbolsGetRanges(const MemoptShapeSymbols *symbols);

/// Returns the value and dimension (-1 for an index value) where symbol `symbol` was first seen.
MlirValue memoptShapeSymbolsGetSource(const MemoptShapeSymbols *symbols, size_t symbol,
                                      int64_t *dim);

/// Returns the size of dimension `dim` of a ranked tensor or memref value (NULL when not known to the analysis).
const MemoptPolynomial *memoptShapeSymbolsGetDimSize(const MemoptShapeSymbols *symbols,
                                                     MlirValue value, int64_t dim);

/// Returns the value of an integer or index value as a polynomial (NULL when not known to the analysis).
const MemoptPolynomial *memoptShapeSymbolsGetIndexValue(const MemoptShapeSymbols *symbols,
                                                        MlirValue value);

/// Returns a new polynomial: the elements of a ranked tensor or memref value (static extents from
/// its type), NULL when unknown.
MemoptPolynomial *memoptShapeSymbolsGetElementCount(const MemoptShapeSymbols *symbols,
                                                    MlirValue value);

/// Returns a new polynomial: the payload bytes of a ranked tensor or memref value, NULL when unknown.
MemoptPolynomial *memoptShapeSymbolsGetByteSize(const MemoptShapeSymbols *symbols,
                                                MlirValue value);

/// Compares two polynomials under the ranges of `symbols`.
MemoptComparison memoptShapeSymbolsCompare(const MemoptShapeSymbols *symbols,
                                           const MemoptPolynomial *a, const MemoptPolynomial *b);

/// Returns a new polynomial: `buffer`'s payload bytes, dynamic ones by `symbols`; NULL if unsized.
MemoptPolynomial *memoptSymbolicBufferBytes(const MemoptShapeSymbols *symbols,
                                            const MemoptBufferInfo *buffer);

/// Returns a new polynomial: the live bytes at `position` of `profile`, dynamic buffers sized by `symbols`.
MemoptPolynomial *memoptSymbolicLiveBytes(const MemoptMemoryProfile *profile,
                                          const MemoptShapeSymbols *symbols, size_t position);

/// Writes up to `capacity` positions whose live bytes no other position surely exceeds (the candidate peaks) and returns their count.
size_t memoptSymbolicPeakPositions(const MemoptMemoryProfile *profile,
                                   const MemoptShapeSymbols *symbols, size_t *positions,
                                   size_t capacity);

/// Creates the shape symbols of `func` for a pass; on failure emits why as an error at
/// `func` and returns NULL (the pass then fails) (PassShapeSymbols.c).
MemoptShapeSymbols *memoptPassCreateShapeSymbols(MlirOperation func);

/*===------------------------------------------------------------------===*
 * Recompute cost and the optimal rematerialization (Checkmate)
 *===------------------------------------------------------------------===*/

/// Returns the arithmetic ops a linalg op's body performs per point of its iteration domain (at
/// least 1).
double memoptLinalgBodyOperations(MlirOperation op);

/// Returns true when a clone of `op` elsewhere computes the same results: it has results and is pure (memoptOperationIsPure).
bool memoptOpIsRecomputable(MlirOperation op);

/// Returns the element operations `op` performs when it runs once more (linalg: iteration domain times body ops; views, empties, constants: 0).
double memoptOpRecomputeCost(MlirOperation op);

/// Returns a new polynomial: memoptOpRecomputeCost of `op` with its dynamic extents sized by
/// `symbols`; NULL when some extent is unknown.
MemoptPolynomial *memoptSymbolicRecomputeCost(const MemoptShapeSymbols *symbols, MlirOperation op);

/// Returns a new polynomial: the sum of memoptSymbolicRecomputeCost over `ops`; NULL when one is
/// unknown.
MemoptPolynomial *memoptSymbolicRecomputeCostOfOps(const MemoptShapeSymbols *symbols,
                                                   const MlirOperation *ops, size_t count);

/*===------------------------------------------------------------------===*
 * Passes on these analyses
 *===------------------------------------------------------------------===*/

/// memory-estimate (MemoryEstimatePass.c).
extern const MemoptPassInfo memoptMemoryEstimatePass;

/// memopt-verify (VerifyPass.c).
extern const MemoptPassInfo memoptVerifyPass;

/// print-shape-symbols (PrintShapeSymbolsPass.c).
extern const MemoptPassInfo memoptPrintShapeSymbolsPass;

#ifdef __cplusplus
}
#endif

#endif /* MEMOPT_ANALYSIS_ANALYSIS_H */

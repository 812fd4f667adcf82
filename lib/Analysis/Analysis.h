/* memopt analyses: what a program costs in memory, computed from the IR alone.
 *
 * The memory profile of a func.func on tensors predicts the heap activation
 * memory of the function once it is bufferized and run through the upstream
 * pipeline of ARCHITECTURE.md (one-shot-bufferize with
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
 * Dimension flow and chunk plans (AutoChunk)
 *
 * How a dimension of an op's result maps to dimensions of its operands and,
 * for a contiguous range of ops, the chunk dimension of every value when the
 * range is computed chunk by chunk.
 *===------------------------------------------------------------------===*/

/// How an operand takes part when one result dimension is chunked.
typedef enum MemoptOperandFlowKind {
  MemoptOperandFlowMapped, /* sliced along `dim` */
  MemoptOperandFlowWhole   /* read whole by every chunk (weights, scalars, sizes) */
} MemoptOperandFlowKind;

/// The flow of one result dimension into one operand.
typedef struct MemoptOperandFlow {
  MemoptOperandFlowKind kind;
  int64_t dim; /* MemoptOperandFlowMapped only */
} MemoptOperandFlow;

/// Why a result dimension cannot be chunked through an op.
typedef enum MemoptDimFlowStatus {
  MemoptDimFlowOk,
  MemoptDimFlowReduced,     /* the op reduces or normalizes along it */
  MemoptDimFlowUnsupported  /* the op mixes elements along it, or is not modelled */
} MemoptDimFlowStatus;

/// Maps dimension `dim` of result `resultIndex` of `op` to its operands: fills
/// `operands` (one entry per operand of `op`). On a status other than Ok,
/// appends the reason to `reason`.
MemoptDimFlowStatus memoptDimFlowThroughOp(MlirOperation op, intptr_t resultIndex, int64_t dim,
                                           MemoptOperandFlow *operands,
                                           MemoptStringBuffer *reason);

/// Returns the loop of linalg op `op` along which dimension `dim` of result
/// `resultIndex` runs when the op's body reads that loop's index (linalg.index),
/// else -1: a chunk of the op must then add its offset to the index.
int64_t memoptDimFlowIndexedLoop(MlirOperation op, intptr_t resultIndex, int64_t dim);

/// A plan for computing a contiguous range of ops chunk by chunk (opaque).
typedef struct MemoptChunkPlan MemoptChunkPlan;

/// Plans chunking ops `first`..`last` (same block, `first` not after `last`)
/// along dimension `outputDim` of the primary output: the last value the
/// range defines that is used after it. Ops the primary output does not
/// depend on are hoisted. Returns NULL and appends the reason to `reason`
/// when the dimension does not flow through every op it depends on, a value
/// would be needed whole and in chunks, or the chunked extents differ. The
/// caller destroys the plan.
MemoptChunkPlan *memoptChunkPlanCreate(MlirOperation first, MlirOperation last, int64_t outputDim,
                                       MemoptStringBuffer *reason);

/// Frees a plan (NULL is allowed).
void memoptChunkPlanDestroy(MemoptChunkPlan *plan);

/// Returns the static extent of the chunked dimension of the plan's inputs
/// and outputs.
int64_t memoptChunkPlanExtent(const MemoptChunkPlan *plan);

/// Returns the number of ops in the range.
intptr_t memoptChunkPlanNumOps(const MemoptChunkPlan *plan);

/// Returns op `index` of the range, in block order.
MlirOperation memoptChunkPlanOp(const MemoptChunkPlan *plan, intptr_t index);

/// Returns true when op `index` does not depend on the chunked values and
/// must be computed once before the chunk loop instead of in every chunk.
bool memoptChunkPlanOpIsHoisted(const MemoptChunkPlan *plan, intptr_t index);

/// Returns the loop of op `index` (not hoisted) whose linalg.index reads must
/// be offset by the chunk's position, or -1 when the op reads no chunked index.
int64_t memoptChunkPlanOpIndexedLoop(const MemoptChunkPlan *plan, intptr_t index);

/// Returns the number of values defined before the range that are sliced.
intptr_t memoptChunkPlanNumInputs(const MemoptChunkPlan *plan);

/// Returns sliced input `index` and its chunk dimension through `dim`.
MlirValue memoptChunkPlanInput(const MemoptChunkPlan *plan, intptr_t index, int64_t *dim);

/// Returns the number of values defined in the range and used after it.
intptr_t memoptChunkPlanNumOutputs(const MemoptChunkPlan *plan);

/// Returns output `index` and its chunk dimension through `dim`.
MlirValue memoptChunkPlanOutput(const MemoptChunkPlan *plan, intptr_t index, int64_t *dim);

/// Returns true when operand `operand` of op `index` (not hoisted) is read in
/// chunks, false when every chunk reads it whole.
bool memoptChunkPlanOperandIsChunked(const MemoptChunkPlan *plan, intptr_t index,
                                     intptr_t operand);

/// Returns the chunk dimension of `value` inside the range, or -1 when the
/// value is not chunked (computed or read whole).
int64_t memoptChunkPlanDimOf(const MemoptChunkPlan *plan, MlirValue value);

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

/*===------------------------------------------------------------------===*
 * Pin or Fuse: accelerator target, layer graph, halo and cost model
 *
 * A CNN function seen as a list of layers in program order (each a linalg
 * op, or another op that reads a feature map), the rows of each layer a tile
 * of a fused group needs (the halo), and what a group costs on a scratchpad
 * (SPM) accelerator (python-free-docs/analysis.md).
 *===------------------------------------------------------------------===*/

/// An accelerator with a software-managed scratchpad.
typedef struct MemoptSpmTarget {
  uint64_t spmBytes;          /* scratchpad capacity */
  uint64_t dramBytesPerCycle; /* off-chip bandwidth */
  uint64_t macsPerCycle;      /* compute throughput */
  uint64_t elementBytes;      /* bytes per tensor element; 0: the IR's element size */
  uint64_t dmaSetupCycles;    /* fixed latency of one DMA transfer */
} MemoptSpmTarget;

/// Returns the number of documented target presets.
size_t memoptSpmTargetPresetCount(void);

/// Returns the name of preset `index` ("spm-512k", ...).
const char *memoptSpmTargetPresetName(size_t index);

/// Finds preset `name`; false when there is none.
bool memoptSpmTargetPreset(const char *name, MemoptSpmTarget *target);

/// Reads the module attribute `spm.target` (a preset name as a string, or a
/// dictionary with `preset` and/or the fields spm_bytes, dram_bytes_per_cycle,
/// macs_per_cycle, element_bytes, dma_setup_cycles) over `target`. Returns
/// false with the reason in `error` when the attribute is malformed; leaves
/// `target` alone when the attribute is absent.
bool memoptSpmTargetFromModule(MlirOperation module, MemoptSpmTarget *target,
                               MemoptStringBuffer *error);

/// What a layer computes.
typedef enum MemoptLayerKind {
  MemoptLayerConv,        /* regular convolution */
  MemoptLayerPointwise,   /* 1x1 convolution */
  MemoptLayerDepthwise,   /* depthwise convolution */
  MemoptLayerPool,        /* pooling window */
  MemoptLayerElementwise, /* one feature-map input, element by element */
  MemoptLayerAdd,         /* residual add: two or more feature-map inputs */
  MemoptLayerConcat,      /* concatenation */
  MemoptLayerNorm,        /* normalization (batch norm at inference is per element) */
  MemoptLayerReduction,   /* reduces over rows (instance/layer norm statistics, softmax) */
  MemoptLayerMatmul,      /* matrix product (classifier) */
  MemoptLayerReshape,     /* reshape of a feature map */
  MemoptLayerOther        /* any other op that reads a feature map */
} MemoptLayerKind;

/// How many rows of a feature-map input a tile of a layer's output reads.
typedef enum MemoptRowRule {
  MemoptRowSame,      /* the same rows */
  MemoptRowWindow,    /* a window: (rows - 1) * stride + dilated kernel */
  MemoptRowBroadcast, /* one row (a per-channel vector broadcast over rows) */
  MemoptRowWhole      /* every row */
} MemoptRowRule;

/// One feature-map input of a layer.
typedef struct MemoptLayerInput {
  intptr_t producer;      /* layer index, or -1 for a function argument */
  MlirValue value;        /* the feature map as produced (before any tensor.pad) */
  MemoptRowRule rule;
  int64_t kernel, stride; /* MemoptRowWindow: rows of the dilated kernel, row stride */
  int64_t sourceRows;           /* rows of the feature map */
  uint64_t sourceRowElements;   /* elements of one of its rows */
} MemoptLayerInput;

/// One layer of a layer graph.
typedef struct MemoptLayer {
  MlirOperation op;
  MemoptLayerKind kind;
  MlirValue output;         /* the layer's feature map */
  int64_t rows;             /* rows of the output (H; 1 without a spatial layout) */
  intptr_t rowDim;          /* the dimension of the output holding rows, or -1 */
  uint64_t rowElements;     /* elements of one output row (batch x width x channels) */
  uint64_t weightElements;  /* elements of the inputs that are not feature maps */
  uint64_t weightSlices;    /* output channels: the weights split into this many equal slices */
  uint64_t macs;            /* multiply-accumulates (or element operations) of the layer */
  uint64_t irElementBytes;  /* element size of the output in the IR */
  MemoptLayerInput *inputs; /* feature-map inputs */
  size_t inputCount;
  intptr_t lastUse;         /* last layer reading the output; layer count when returned */
  bool isResult;            /* returned by the function */
} MemoptLayer;

/// The layers of one func.func (opaque).
typedef struct MemoptLayerGraph MemoptLayerGraph;

/// Builds the layer graph of `func` (static shapes, one block). Returns NULL
/// with the reason in `error` when the function cannot be modelled.
MemoptLayerGraph *memoptLayerGraphCreate(MlirOperation func, MemoptStringBuffer *error);

/// Frees a layer graph (NULL is allowed).
void memoptLayerGraphDestroy(MemoptLayerGraph *graph);

/// Returns the number of layers.
size_t memoptLayerGraphCount(const MemoptLayerGraph *graph);

/// Returns layer `index`, in program order.
const MemoptLayer *memoptLayerGraphAt(const MemoptLayerGraph *graph, size_t index);

/// Returns the layer that owns `op` (the layer itself, or a tensor.pad,
/// tensor.empty or linalg.fill used only by it), or -1.
intptr_t memoptLayerGraphOwner(const MemoptLayerGraph *graph, MlirOperation op);

/// Returns the name of a layer kind ("conv", "depthwise", ...).
const char *memoptLayerKindName(MemoptLayerKind kind);

/// Returns the rows of a producer a consumer reads through `input` for
/// `rows` rows of its output, at most `producerRows`.
int64_t memoptLayerInputRows(const MemoptLayerInput *input, int64_t rows, int64_t producerRows);

/// Fills `rows` (one entry per layer of the group `first`..`last`, inclusive)
/// with the rows each layer computes per tile when the group's last layer
/// produces `tileRows` rows per tile: the receptive field through the group
/// (halo included). Returns the number of tiles.
int64_t memoptLayerGraphHalo(const MemoptLayerGraph *graph, size_t first, size_t last,
                             int64_t tileRows, int64_t *rows);

/// The modelled cost of running one fused group.
typedef struct MemoptGroupCost {
  int64_t tiles;
  uint64_t offchipBytes;   /* feature-map bytes loaded and stored */
  uint64_t weightBytes;    /* weight bytes loaded (once, or once per tile when streamed) */
  bool weightsStreamed;    /* the weights do not fit beside the tiles: streamed in channel blocks */
  uint64_t macs;           /* including the halo recomputation */
  uint64_t cycles;         /* sum over tiles of max(transfer, compute) */
  uint64_t footprintBytes; /* SPM bytes needed, pinned tensors included */
  uint64_t pinnedBytes;    /* the part of the footprint held by pinned tensors */
} MemoptGroupCost;

/// The most working buffers memoptGroupBuffers lists.
enum { MEMOPT_MAX_GROUP_BUFFERS = 256 };

/// The working buffers of a group: tiles and resident weights, each
/// contiguous in the SPM, and the double buffer of streamed weights, which
/// may be split at any multiple of one output-channel slice.
typedef struct MemoptGroupBuffers {
  uint64_t sizes[MEMOPT_MAX_GROUP_BUFFERS];
  size_t count;
  uint64_t streamedBytes; /* 0 when the weights are resident */
  uint64_t sliceBytes;    /* the largest output-channel slice of the streamed weights */
} MemoptGroupBuffers;

/// Returns the bytes of layer `index`'s output on `target`.
uint64_t memoptLayerBytes(const MemoptLayerGraph *graph, size_t index,
                          const MemoptSpmTarget *target);

/// Computes the cost of the group `first`..`last` with `tileRows` rows of
/// its last layer per tile. Weights stay resident when they fit in
/// `target->spmBytes` beside everything else, else they stream through a
/// double buffer of output-channel slices, reloaded every tile; an input the
/// group reads whole (a global pooling) streams row by row. `pinned[i]` tells whether layer i's output is
/// pinned (one entry per layer of the graph): pinned inputs load nothing,
/// pinned outputs store nothing, and every pinned output live during the
/// group (produced before or in it, read in or after it) counts in full in
/// the footprint.
void memoptGroupCost(const MemoptLayerGraph *graph, size_t first, size_t last, int64_t tileRows,
                     const bool *pinned, const MemoptSpmTarget *target, MemoptGroupCost *cost);

/// Lists the working buffers of the group costed by memoptGroupCost with the
/// same arguments (pinned tensors excluded): the footprint less the pinned
/// bytes, buffer by buffer.
void memoptGroupBuffersList(const MemoptLayerGraph *graph, size_t first, size_t last,
                            int64_t tileRows, const bool *pinned, const MemoptSpmTarget *target,
                            MemoptGroupBuffers *buffers);

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

#ifdef __cplusplus
}
#endif

#endif /* MEMOPT_ANALYSIS_ANALYSIS_H */

/* AutoChunk: how a dimension flows through ops, plans for computing a range
 * of ops chunk by chunk, and the passes that search for chunk regions
 * (autochunk), print the flow (print-dimension-flow) and lower chunk.region
 * to loops over slices (chunk-to-scf). python-free-docs/autochunk.md. */
#ifndef MEMOPT_CHUNK_CHUNK_H
#define MEMOPT_CHUNK_CHUNK_H

#include "Analysis/Analysis.h"
#include "IR/IR.h"
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

/// Maps loop `loop` of `op` to its operands (fills `operands`, one entry per
/// operand) when result `resultIndex` can be computed chunk by chunk of that
/// loop and combined: a linalg op's single result whose payload sums or
/// maximizes into the accumulator, which starts from the identity (a
/// linalg.fill of 0 or -inf), or a chunk.region's result it combines by a sum
/// or a maximum along its own loop (loop 0). Sets `combiner`. On a status
/// other than Ok, appends the reason to `reason`.
MemoptDimFlowStatus memoptDimFlowThroughCombinedLoop(MlirOperation op, intptr_t resultIndex,
                                                     int64_t loop, MemoptOperandFlow *operands,
                                                     MemoptChunkCombiner *combiner,
                                                     MemoptStringBuffer *reason);

/// Returns the number of loops of linalg op `op`, 1 for a chunk.region (its
/// chunked loop), 0 for any other op.
int64_t memoptDimFlowLoopCount(MlirOperation op);

/// Returns true when linalg op `op` reduces loop `loop`: no result is
/// written along it.
bool memoptDimFlowLoopIsReduced(MlirOperation op, int64_t loop);

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

/// Plans chunking ops `first`..`last` along reduction loop `loop` of the
/// producer of the primary output, whose chunks' partial results are combined
/// (summed or maximized) instead of concatenated. Otherwise as
/// memoptChunkPlanCreate.
MemoptChunkPlan *memoptChunkPlanCreateCombining(MlirOperation first, MlirOperation last,
                                                int64_t loop, MemoptStringBuffer *reason);

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

/// Returns how output `index` combines the partial results of the chunks
/// (MemoptChunkCombineConcat: along its chunk dimension).
MemoptChunkCombiner memoptChunkPlanOutputCombiner(const MemoptChunkPlan *plan, intptr_t index);

/// Returns true when operand `operand` of op `index` (not hoisted) is read in
/// chunks, false when every chunk reads it whole.
bool memoptChunkPlanOperandIsChunked(const MemoptChunkPlan *plan, intptr_t index,
                                     intptr_t operand);

/// Returns the chunk dimension of `value` inside the range, or -1 when the
/// value is not chunked (computed or read whole, or combined across chunks).
int64_t memoptChunkPlanDimOf(const MemoptChunkPlan *plan, MlirValue value);

/// Returns how the chunks' partial values of `value` are combined when each
/// chunk computes one (an output combined across chunks, or a value of the
/// range it is reshaped from), Concat otherwise.
MemoptChunkCombiner memoptChunkPlanCombinerOf(const MemoptChunkPlan *plan, MlirValue value);

/*===------------------------------------------------------------------===*
 * Passes
 *===------------------------------------------------------------------===*/

/// autochunk (AutoChunkPass.c).
extern const MemoptPassInfo memoptAutoChunkPass;

/// print-dimension-flow (PrintDimensionFlowPass.c).
extern const MemoptPassInfo memoptPrintDimensionFlowPass;

/// Replaces every chunk.region nested in `root` by an scf.for over full
/// chunks (tensor.extract_slice of each input, tensor.insert_slice of each
/// output slice into a tensor.empty destination carried in iter_args; a
/// combined output is carried from its combiner's identity and each chunk's
/// value folded in by a linalg.generic),
/// followed by a second scf.for for the partial last chunk when the chunk
/// size may not divide the extent. Emits an error on each region it cannot
/// lower and then returns failure without changing the IR.
MlirLogicalResult memoptLowerChunkRegions(MlirOperation root);

/// chunk-to-scf: the pass that runs memoptLowerChunkRegions on each function (ChunkToScf.c).
extern const MemoptPassInfo memoptChunkToScfPass;

#ifdef __cplusplus
}
#endif

#endif /* MEMOPT_CHUNK_CHUNK_H */

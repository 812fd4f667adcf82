/* Recomputing, where it is read again, a value larger than what it is
 * computed from. A training step keeps the attention probabilities P
 * (heads x S x S) from the forward pass to the backward pass, though they
 * come from q and k (S x d each), which the backward pass reads anyway. No
 * chunk region can make P internal: its readers lie further apart than a
 * region spans. Computing P again right before its first reader in the
 * backward pass (FlashAttention's recomputation) lets the forward copy die
 * at its last forward reader, and puts the new chain beside the backward
 * ops, where one region chunked along the query rows holds it.
 *
 * A value qualifies when
 *   - two of its readers (through reshapes of it) lie more than `minGap` ops
 *     apart: the later ones then read a clone;
 *   - its chain, cloned just before the first later reader, reads only values
 *     live there anyway (arguments, constants, tensors read at or after it):
 *     recomputing extends no lifetime;
 *   - the chain holds at most `maxChainOps` computing ops (empties, fills and
 *     reshapes are free), all pure, without tensors captured by their bodies;
 *   - the value has more bytes than the tensors its chain reads together:
 *     recomputing an equal-sized value is rematerialization's trade (remat),
 *     not one that chunking turns into a saving. */
#include "Chunk/ChunkBlockOps.h"
#include "Chunk/ChunkRegion.h"

#include "Analysis/Analysis.h"
#include "IR/Builders.h"
#include "IR/IR.h"

#include "mlir-c/BuiltinTypes.h"

#include <stdlib.h>

static bool isReshape(MlirOperation op) {
  return memoptOperationIsA(op, "tensor.expand_shape") ||
         memoptOperationIsA(op, "tensor.collapse_shape");
}

/* Destinations and views: cloned at no cost. */
static bool isFree(MlirOperation op) { return memoptChunkOpIsDestination(op) || isReshape(op); }

static bool isTensorCapture(MlirValue value, void *userData) {
  (void)userData;
  return !mlirTypeIsARankedTensor(mlirValueGetType(value));
}

/* The candidate being built: the ops to clone (`chain`, by index, owned),
 * how many of them compute, the bytes of the tensors the chain reads, and
 * where the clones go. */
typedef struct Candidate {
  bool *chain;
  intptr_t computing; /* chain ops other than free ones */
  uint64_t leafBytes; /* tensors the chain reads that stay as they are */
  intptr_t insertion; /* the first later reader */
} Candidate;

static bool takeOp(const MemoptChunkBlockOps *b, Candidate *c, intptr_t index,
                   intptr_t maxChainOps);

/* Takes operand `value` of a chain op: left as it is when it is live at the
 * insertion point anyway (or not a tensor), cloned otherwise (a destination
 * always: the clone writes a buffer of its own). */
static bool takeOperand(const MemoptChunkBlockOps *b, Candidate *c, MlirValue value,
                        intptr_t maxChainOps) {
  if (!mlirTypeIsARankedTensor(mlirValueGetType(value)))
    return true; /* scalars and indices are defined before the insertion point */
  intptr_t producer = memoptChunkBlockOpsProducerOf(b, value);
  if (producer < 0 || (!memoptChunkOpIsDestination(b->ops[producer]) &&
                       memoptChunkBlockOpsReadFrom(b, value, c->insertion))) {
    c->leafBytes += memoptChunkValueBytes(value);
    return true;
  }
  return takeOp(b, c, producer, maxChainOps);
}

static bool takeOp(const MemoptChunkBlockOps *b, Candidate *c, intptr_t index,
                   intptr_t maxChainOps) {
  if (c->chain[index])
    return true;
  MlirOperation op = b->ops[index];
  if (!memoptOpIsRecomputable(op) || mlirOperationGetNumResults(op) != 1 ||
      !memoptOperationForEachCapture(op, isTensorCapture, NULL))
    return false;
  c->chain[index] = true;
  if (!isFree(op) && ++c->computing > maxChainOps)
    return false;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i)
    if (!takeOperand(b, c, mlirOperationGetOperand(op, i), maxChainOps))
      return false;
  return true;
}

/* Marks in `group` the reshapes of op `index`'s result, and collects in
 * `readers` (sorted, owned) the indices of the other ops reading the result
 * or one of them; returns their number. */
static intptr_t readersOf(const MemoptChunkBlockOps *b, intptr_t index, bool *group,
                          intptr_t **readers) {
  intptr_t count = 0;
  *readers = memoptAllocateZeroed((size_t)b->count, sizeof **readers);
  bool *reads = memoptAllocateZeroed((size_t)b->count, sizeof *reads);
  group[index] = true;
  for (intptr_t i = index; i < b->count; ++i) {
    if (!group[i])
      continue;
    MlirValue result = mlirOperationGetResult(b->ops[i], 0);
    for (MlirOpOperand use = mlirValueGetFirstUse(result); !mlirOpOperandIsNull(use);
         use = mlirOpOperandGetNextUse(use)) {
      intptr_t user = memoptChunkBlockOpsIndexOf(b, mlirOpOperandGetOwner(use));
      if (user < 0)
        continue;
      if (mlirOperationEqual(b->ops[user], mlirOpOperandGetOwner(use)) && isReshape(b->ops[user]))
        group[user] = true;
      else
        reads[user] = true;
    }
  }
  for (intptr_t i = 0; i < b->count; ++i)
    if (reads[i])
      (*readers)[count++] = i;
  free(reads);
  return count;
}

/* Clones the chain and the value's reshapes before the first later reader
 * and redirects the later readers; returns the clones kept. */
static intptr_t rewrite(const MemoptChunkBlockOps *b, const bool *clone, const intptr_t *readers,
                        intptr_t readerCount, intptr_t firstLater) {
  MemoptChunkValueMap mapping = memoptChunkValueMapCreate(b->count);
  MlirOperation anchor = b->ops[readers[firstLater]];
  MlirOperation *clones = memoptAllocateZeroed((size_t)b->count, sizeof *clones);
  intptr_t cloneCount = 0;
  for (intptr_t i = 0; i < b->count; ++i) {
    if (!clone[i])
      continue;
    MlirOperation copy = mlirOperationClone(b->ops[i]);
    mlirBlockInsertOwnedOperationBefore(b->block, anchor, copy);
    memoptChunkRedirectOperands(copy, &mapping);
    mapping.from[mapping.count] = mlirOperationGetResult(b->ops[i], 0);
    mapping.to[mapping.count++] = mlirOperationGetResult(copy, 0);
    clones[cloneCount++] = copy;
  }
  for (intptr_t r = firstLater; r < readerCount; ++r)
    mlirOperationWalk(b->ops[readers[r]], memoptChunkRedirectOperands, &mapping,
                      MlirWalkPreOrder);
  /* Reshapes of the value that no later reader reads through. */
  intptr_t kept = cloneCount;
  for (intptr_t i = cloneCount - 1; i >= 0; --i)
    if (mlirOpOperandIsNull(mlirValueGetFirstUse(mlirOperationGetResult(clones[i], 0)))) {
      memoptEraseOp(clones[i]);
      --kept;
    }
  free(clones);
  memoptChunkValueMapDestroy(&mapping);
  return kept;
}

/* Recomputes op `index`'s result for its readers after its widest gap when
 * it qualifies (see the model above); returns the ops cloned, 0 when not. */
static intptr_t recomputeOne(const MemoptChunkBlockOps *b, intptr_t index, intptr_t maxChainOps,
                             intptr_t minGap) {
  MlirOperation op = b->ops[index];
  if (isFree(op) || mlirOperationGetNumResults(op) != 1 ||
      !mlirTypeIsARankedTensor(mlirValueGetType(mlirOperationGetResult(op, 0))))
    return 0;
  bool *group = memoptAllocateZeroed((size_t)b->count, sizeof *group);
  intptr_t *readers;
  intptr_t readerCount = readersOf(b, index, group, &readers);
  intptr_t firstLater = -1;
  for (intptr_t r = 1; r < readerCount; ++r)
    if (readers[r] - readers[r - 1] > minGap &&
        (firstLater < 0 || readers[r] - readers[r - 1] >
                               readers[firstLater] - readers[firstLater - 1]))
      firstLater = r;
  intptr_t cloned = 0;
  bool returned = firstLater > 0 &&
                  mlirOperationEqual(b->ops[readers[readerCount - 1]],
                                     mlirBlockGetTerminator(b->block));
  if (firstLater > 0 && !returned) {
    Candidate c = {memoptAllocateZeroed((size_t)b->count, sizeof(bool)), 0, 0,
                   readers[firstLater]};
    if (takeOp(b, &c, index, maxChainOps) &&
        memoptChunkValueBytes(mlirOperationGetResult(op, 0)) > c.leafBytes) {
      for (intptr_t i = 0; i < b->count; ++i)
        c.chain[i] |= group[i];
      cloned = rewrite(b, c.chain, readers, readerCount, firstLater);
    }
    free(c.chain);
  }
  free(readers);
  free(group);
  return cloned;
}

intptr_t memoptChunkRecomputeExpandedValues(MlirBlock block, intptr_t maxChainOps,
                                            intptr_t minGap) {
  intptr_t total = 0;
  MemoptChunkBlockOps b = memoptChunkBlockOpsCreate(block);
  for (intptr_t i = 0; i < b.count; ++i) {
    intptr_t cloned = recomputeOne(&b, i, maxChainOps, minGap);
    if (!cloned)
      continue;
    total += cloned;
    /* The block changed: index it again (the clones come after op i). */
    memoptChunkBlockOpsDestroy(&b);
    b = memoptChunkBlockOpsCreate(block);
  }
  memoptChunkBlockOpsDestroy(&b);
  return total;
}

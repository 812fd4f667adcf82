/* Recomputing a chunk region's inputs from values that are live anyway. A
 * value the range reads (a LayerNorm of the residual stream, a projection of
 * it) keeps its whole buffer alive up to the range even when every other
 * reader ran long before. When it is computed by cheap ops (elementwise and
 * reducing linalg.generic ops, linear layers with a weight argument,
 * reshapes, transposes) from values the range keeps live anyway (read by the
 * range or after it), the range can compute it again, chunk by chunk: the
 * chain is cloned just before the range, the range's reads are redirected to
 * the clones, and the original dies at its last earlier reader (or is erased
 * when none is left). How far back the chain may reach does not depend on
 * where it sits: any op from `from` on. */
#include "Chunk/Chunk.h"
#include "Chunk/ChunkBlockOps.h"
#include "Chunk/ChunkRegion.h"

#include "Analysis/Analysis.h"
#include "IR/Builders.h"
#include "IR/IR.h"

#include "mlir-c/BuiltinTypes.h"

#include <stdlib.h>

/* The ops of a block and what the planning decided for each. */
typedef struct Rederive {
  MemoptChunkBlockOps b;
  intptr_t from, first, last;
  signed char *state;    /* 1: cloned, -1: kept as it is, 0: not decided yet */
  uint64_t freed, kept;  /* bytes that die before the range / stay live into it */
  MlirValue *keptValues; /* counted in `kept` */
  intptr_t keptCount;
  size_t keptCapacity;
} Rederive;

/* Ops worth running again per chunk: their work is proportional to the
 * elements they read and write. A matmul qualifies only as a linear layer,
 * whose right-hand side is an argument (a weight), not an activation. */
static bool isCheap(MlirOperation op) {
  if (!memoptOperationIsPure(op) || mlirOperationGetNumResults(op) != 1)
    return false;
  if (memoptOperationIsA(op, "linalg.matmul"))
    return mlirValueIsABlockArgument(mlirOperationGetOperand(op, 1));
  return memoptOperationIsA(op, "linalg.generic") || memoptOperationIsA(op, "linalg.transpose") ||
         memoptOperationIsA(op, "linalg.broadcast") ||
         memoptOperationIsA(op, "tensor.expand_shape") ||
         memoptOperationIsA(op, "tensor.collapse_shape");
}

static bool decide(Rederive *r, intptr_t index);

/* Takes operand `value` of a cloned op: cloned too when it can be, else kept,
 * counting its bytes when the range is all that keeps it alive. */
static void takeOperand(Rederive *r, MlirValue value) {
  if (!mlirTypeIsARankedTensor(mlirValueGetType(value)))
    return;
  intptr_t producer = memoptChunkBlockOpsProducerOf(&r->b, value);
  bool candidate = producer >= r->from && producer < r->first;
  if (candidate && memoptChunkOpIsDestination(r->b.ops[producer])) {
    r->state[producer] = 1;
    for (intptr_t i = 0; i < mlirOperationGetNumOperands(r->b.ops[producer]); ++i)
      takeOperand(r, mlirOperationGetOperand(r->b.ops[producer], i));
    return;
  }
  if (memoptChunkBlockOpsReadFrom(&r->b, value, r->first) || producer < 0)
    return; /* live across the range anyway, or an argument */
  if (candidate && decide(r, producer))
    return;
  for (intptr_t i = 0; i < r->keptCount; ++i)
    if (mlirValueEqual(r->keptValues[i], value))
      return;
  r->keptValues = memoptGrowArray(r->keptValues, &r->keptCapacity, (size_t)r->keptCount + 1,
                                  sizeof *r->keptValues);
  r->keptValues[r->keptCount++] = value;
  r->kept += memoptChunkValueBytes(value);
}

/* Decides whether op `index` (before the range) is computed again in it:
 * when it is cheap and nothing after the range reads it. */
static bool decide(Rederive *r, intptr_t index) {
  if (r->state[index])
    return r->state[index] > 0;
  MlirOperation op = r->b.ops[index];
  if (!isCheap(op) ||
      memoptChunkBlockOpsReadFrom(&r->b, mlirOperationGetResult(op, 0), r->last + 1)) {
    r->state[index] = -1;
    return false;
  }
  r->state[index] = 1;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i)
    takeOperand(r, mlirOperationGetOperand(op, i));
  return true;
}

/* Marks in `erased` the cloned ops whose originals nothing reads once the
 * range reads the clones (users come after producers: one backward pass). */
static void findErased(const Rederive *r, bool *erased) {
  for (intptr_t i = r->first - 1; i >= r->from; --i) {
    if (r->state[i] <= 0)
      continue;
    erased[i] = true;
    MlirValue result = mlirOperationGetResult(r->b.ops[i], 0);
    for (MlirOpOperand use = mlirValueGetFirstUse(result); !mlirOpOperandIsNull(use) && erased[i];
         use = mlirOpOperandGetNextUse(use)) {
      intptr_t user = memoptChunkBlockOpsIndexOf(&r->b, mlirOpOperandGetOwner(use));
      erased[i] = (user >= r->first && user <= r->last) || (user >= 0 && erased[user]);
    }
  }
}

/* Clones the decided ops before the range, redirects the range's reads and
 * erases the originals in `erased`; returns the clone count. */
static intptr_t rewrite(Rederive *r, const bool *erased, intptr_t *first, intptr_t *last) {
  MemoptChunkValueMap mapping = memoptChunkValueMapCreate(r->b.count);
  MlirOperation anchor = r->b.ops[r->first];
  intptr_t clones = 0, erasedCount = 0;
  for (intptr_t i = r->from; i < r->first; ++i) {
    if (r->state[i] <= 0)
      continue;
    MlirOperation clone = mlirOperationClone(r->b.ops[i]);
    mlirBlockInsertOwnedOperationBefore(r->b.block, anchor, clone);
    memoptChunkRedirectOperands(clone, &mapping);
    mapping.from[mapping.count] = mlirOperationGetResult(r->b.ops[i], 0);
    mapping.to[mapping.count++] = mlirOperationGetResult(clone, 0);
    ++clones;
  }
  for (intptr_t i = r->first; i <= r->last; ++i)
    mlirOperationWalk(r->b.ops[i], memoptChunkRedirectOperands, &mapping, MlirWalkPreOrder);
  for (intptr_t i = r->first - 1; i >= r->from; --i)
    if (erased[i]) {
      memoptEraseOp(r->b.ops[i]);
      ++erasedCount;
    }
  memoptChunkValueMapDestroy(&mapping);
  *first = r->first - erasedCount;
  *last = r->last + clones - erasedCount;
  return clones;
}

MemoptRederive memoptChunkRederiveInputs(MlirBlock block, intptr_t from, intptr_t *first,
                                         intptr_t *last, const MlirValue *targets,
                                         intptr_t targetCount, intptr_t watched, bool apply) {
  Rederive r = {.b = memoptChunkBlockOpsCreate(block), .from = from, .first = *first,
                .last = *last};
  r.state = memoptAllocateZeroed((size_t)r.b.count, sizeof *r.state);
  bool *freed = memoptAllocateZeroed((size_t)r.b.count, sizeof *freed);
  /* The targets an earlier cheap op computes and nothing after the range
   * reads: recomputing them lets them die before it. */
  for (intptr_t t = 0; t < targetCount; ++t) {
    MlirValue value = targets[t];
    intptr_t producer = memoptChunkBlockOpsProducerOf(&r.b, value);
    if (producer < r.from || producer >= r.first || freed[producer] ||
        memoptChunkOpIsDestination(r.b.ops[producer]) ||
        !mlirTypeIsARankedTensor(mlirValueGetType(value)))
      continue;
    if (decide(&r, producer)) {
      freed[producer] = true;
      r.freed += memoptChunkValueBytes(value);
    }
  }
  MemoptRederive result = {0, 0, false};
  bool *erased = memoptAllocateZeroed((size_t)r.b.count, sizeof *erased);
  /* Worth it only when more dies before the range than the chains keep alive into it. */
  if (r.freed > r.kept) {
    findErased(&r, erased);
    for (intptr_t i = r.from; i < r.first; ++i)
      if (r.state[i] > 0) {
        ++result.clones;
        if (!memoptChunkOpIsDestination(r.b.ops[i]))
          result.recomputedBytes += memoptChunkValueBytes(mlirOperationGetResult(r.b.ops[i], 0));
      }
    result.removesWatched = watched >= 0 && watched < r.b.count && erased[watched];
    if (apply)
      rewrite(&r, erased, first, last);
  }
  free(erased);
  free(freed);
  memoptChunkBlockOpsDestroy(&r.b);
  free(r.state);
  free(r.keptValues);
  return result;
}

intptr_t memoptChunkRederiveReach(MlirBlock block, intptr_t first, intptr_t last) {
  Rederive r = {.b = memoptChunkBlockOpsCreate(block), .first = first, .last = last};
  r.state = memoptAllocateZeroed((size_t)r.b.count, sizeof *r.state);
  /* Backwards, since producers come first: an op before `first` is reached
   * when an op of the range or one reached reads it and a range ending by
   * `last` could recompute it. */
  intptr_t reach = first;
  for (intptr_t i = last; i >= 0; --i) {
    if (i < first && !r.state[i])
      continue;
    for (intptr_t o = 0; o < mlirOperationGetNumOperands(r.b.ops[i]); ++o) {
      MlirValue value = mlirOperationGetOperand(r.b.ops[i], o);
      intptr_t producer = memoptChunkBlockOpsProducerOf(&r.b, value);
      if (producer < 0 || producer >= first || r.state[producer])
        continue;
      MlirOperation source = r.b.ops[producer];
      if (memoptChunkOpIsDestination(source) ||
          (isCheap(source) && !memoptChunkBlockOpsReadFrom(&r.b, value, last + 1))) {
        r.state[producer] = 1;
        reach = producer < reach ? producer : reach;
      }
    }
  }
  memoptChunkBlockOpsDestroy(&r.b);
  free(r.state);
  return reach;
}

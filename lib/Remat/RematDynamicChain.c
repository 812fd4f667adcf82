/* remat-dynamic's producer chains (RematDynamic.h has the model): the ops a
 * regenerate recomputes. A chain follows the value's producers back to
 * values available at the regeneration point (arguments, constants,
 * scalars, tensors read there or later anyway, which become its inputs),
 * within max-chain contractions and max-ops ops of recomputable top-level
 * ops, in program order. */
#include "Remat/RematDynamic.h"

#include "Analysis/Analysis.h"
#include "IR/IR.h"

#include "mlir-c/AffineExpr.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"

#include <string.h>

/* True when the program reads `value` itself at `position` or later. */
static bool readAtOrAfter(const RematDynamicContext *context, MlirValue value, size_t position) {
  for (MlirOpOperand use = mlirValueGetFirstUse(value); !mlirOpOperandIsNull(use);
       use = mlirOpOperandGetNextUse(use)) {
    size_t at;
    if (positionOf(context, mlirOpOperandGetOwner(use), &at) && at >= position)
      return true;
  }
  return false;
}

/* True for the ops whose cost grows with a reduced dimension besides
 * their output: named contractions and convolutions, and generics that read
 * a reduced loop in two inputs. Elementwise ops, fills, views and reductions
 * of one operand (softmax's max and sum, a variance) cost about what their
 * operands weigh, so only contractions count against max-chain. */
static bool isContraction(MlirOperation op) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  static const char *const kinds[] = {"matmul", "matvec", "vecmat", "dot", "conv", "contract"};
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; ++i)
    for (size_t at = 0; at + strlen(kinds[i]) <= name.length; ++at)
      if (strncmp(name.data + at, kinds[i], strlen(kinds[i])) == 0)
        return true;
  if (!memoptOperationIsA(op, "linalg.generic"))
    return false;
  MlirAttribute iterators =
      mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("iterator_types"));
  MlirAttribute maps =
      mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("indexing_maps"));
  if (mlirAttributeIsNull(iterators) || mlirAttributeIsNull(maps) ||
      !mlirAttributeIsAArray(iterators))
    return false;
  intptr_t inputs = mlirOperationGetNumOperands(op) - mlirOperationGetNumResults(op);
  for (intptr_t loop = 0; loop < mlirArrayAttrGetNumElements(iterators); ++loop) {
    if (memoptLinalgIteratorKind(mlirArrayAttrGetElement(iterators, loop)) !=
        MemoptIteratorReduction)
      continue;
    /* A contraction reads the reduced loop in two inputs (a matmul's k). */
    int readers = 0;
    for (intptr_t i = 0; i < inputs && i < mlirArrayAttrGetNumElements(maps); ++i) {
      MlirAffineMap map = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, i));
      for (intptr_t r = 0; r < mlirAffineMapGetNumResults(map); ++r) {
        MlirAffineExpr expr = mlirAffineMapGetResult(map, r);
        if (mlirAffineExprIsADim(expr) && mlirAffineDimExprGetPosition(expr) == loop) {
          ++readers;
          break;
        }
      }
    }
    if (readers >= 2)
      return true;
  }
  return false;
}

/* Builds the producer chain of a candidate for regeneration before
 * `regeneratePosition`. */
typedef struct ChainBuilder {
  const RematDynamicContext *context;
  size_t regeneratePosition;
  EvictionCandidate *candidate;
  long long contractions;
  bool failed;
} ChainBuilder;

static bool chainContains(const EvictionCandidate *candidate, MlirOperation op) {
  for (size_t i = 0; i < candidate->chainCount; ++i)
    if (mlirOperationEqual(candidate->chain[i], op))
      return true;
  return false;
}

static void addChainOp(ChainBuilder *builder, MlirOperation op);

static bool isNotTensor(MlirValue value, void *userData) {
  (void)userData;
  return !isTensor(value);
}

static bool addChainOperand(MlirValue value, void *userData) {
  ChainBuilder *builder = userData;
  if (builder->failed || !isTensor(value) || mlirValueIsABlockArgument(value))
    return !builder->failed; /* scalars dominate the use; arguments stay live */
  MlirOperation producer = mlirOpResultGetOwner(value);
  if (memoptOperationIsA(producer, "arith.constant"))
    return true;
  if (readAtOrAfter(builder->context, value, builder->regeneratePosition)) {
    EvictionCandidate *candidate = builder->candidate;
    for (size_t i = 0; i < candidate->inputCount; ++i)
      if (mlirValueEqual(candidate->inputs[i], value))
        return true;
    candidate->inputs = memoptGrowArray(candidate->inputs, &candidate->inputCapacity,
                                        candidate->inputCount + 1, sizeof *candidate->inputs);
    candidate->inputs[candidate->inputCount++] = value;
    return true;
  }
  addChainOp(builder, producer);
  return !builder->failed;
}

static void addChainOp(ChainBuilder *builder, MlirOperation op) {
  EvictionCandidate *candidate = builder->candidate;
  size_t position;
  if (builder->failed || chainContains(candidate, op))
    return;
  if (!memoptOpIsRecomputable(op) || !positionOf(builder->context, op, &position) ||
      !mlirOperationEqual(memoptMemoryProfileGetPositionOp(builder->context->profile, position),
                          op)) {
    builder->failed = true;
    return;
  }
  builder->contractions += isContraction(op);
  if (builder->contractions > builder->context->maxChain ||
      (long long)builder->candidate->chainCount >= builder->context->maxOps) {
    builder->failed = true;
    return;
  }
  /* A clone remaps only its own operands: tensors read from outside by ops
   * nested in its regions would keep pointing at the originals. */
  if (!memoptOperationForEachCapture(op, isNotTensor, NULL)) {
    builder->failed = true;
    return;
  }
  rematDynamicForEachExternalOperand(op, addChainOperand, builder);
  if (!builder->failed)
    candidate->chain[candidate->chainCount++] = op;
}

/* Sorts the chain into program order. */
static void sortChain(const RematDynamicContext *context, EvictionCandidate *candidate) {
  for (size_t i = 1; i < candidate->chainCount; ++i) {
    MlirOperation op = candidate->chain[i];
    size_t position;
    positionOf(context, op, &position);
    size_t j = i;
    for (; j > 0; --j) {
      size_t other;
      positionOf(context, candidate->chain[j - 1], &other);
      if (other <= position)
        break;
      candidate->chain[j] = candidate->chain[j - 1];
    }
    candidate->chain[j] = op;
  }
}

/* Builds the producer chain of `candidate` for its regeneration point;
 * false when it is not recomputable. */
bool rematDynamicBuildChain(const RematDynamicContext *context, EvictionCandidate *candidate) {
  ChainBuilder builder = {context, candidate->gapEnd, candidate, 0, false};
  addChainOp(&builder, mlirOpResultGetOwner(candidate->value));
  if (builder.failed)
    return false;
  sortChain(context, candidate);
  return true;
}

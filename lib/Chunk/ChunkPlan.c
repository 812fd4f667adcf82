/* Planning a chunked region: starting from the primary output's chunk
 * dimension, walk the producers backwards through per-op dimension flow and
 * give every value its chunk dimension (or mark it as needed whole). The
 * range is legal when no value is needed both ways, every op the output
 * depends on passes the dimension through, and everything else can be
 * hoisted before the chunk loop. */
#include "Chunk/Chunk.h"
#include "Analysis/Analysis.h"

#include "IR/IR.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdlib.h>
#include <string.h>

/* How a chunk covers its dimension. A plain chunk is a contiguous run of
 * indices. A dimension that flattens a reshape group (a linear layer's
 * [i, j, c] -> [i * j, c]) whose chunked member j is not the outermost one
 * has chunks strided over it: index x is in chunk k when member j's index,
 * (x / inner) mod span, is. Ops that keep the dimension's index (linalg maps,
 * elementwise ops) keep the pattern; the reshape back to the group turns it
 * into a plain chunk of member j again. */
typedef struct Stride {
  int64_t span;  /* extent of the chunked member; 0 for a plain chunk */
  int64_t inner; /* product of the extents of the members after it */
} Stride;

static const Stride kPlain = {0, 1};

static bool sameStride(Stride a, Stride b) { return a.span == b.span && a.inner == b.inner; }

typedef struct ValueInfo {
  MlirValue value;
  int64_t dim;   /* chunk dimension, -1 when not chunked */
  Stride stride; /* how chunks cover `dim` */
  bool whole;    /* read whole by some op of the range */
  MemoptChunkCombiner combiner; /* not Concat: a result combined across chunks (dim is -1) */
} ValueInfo;

typedef struct ValueDim {
  MlirValue value;
  int64_t dim;
  Stride stride;
  MemoptChunkCombiner combiner;
} ValueDim;

struct MemoptChunkPlan {
  MlirOperation *ops;
  bool *traced; /* the op computes chunks (else it is hoisted) */
  MemoptOperandFlow **flows; /* per traced op, its operands' flow */
  Stride *strides;           /* per traced op, how chunks cover the results it was traced from */
  int64_t *indexedLoops;     /* per traced op, the loop whose index it reads, or -1 */
  intptr_t opCount;
  ValueInfo *values;
  intptr_t valueCount;
  size_t valueCapacity;
  ValueDim *inputs;
  intptr_t inputCount;
  ValueDim *outputs;
  intptr_t outputCount;
  int64_t extent;
};

static intptr_t opIndex(const MemoptChunkPlan *plan, MlirOperation op) {
  for (intptr_t i = 0; i < plan->opCount; ++i)
    if (mlirOperationEqual(plan->ops[i], op))
      return i;
  return -1;
}

/* The op of the range that is or contains `op`, or -1. */
static intptr_t rangeIndexOfAncestor(const MemoptChunkPlan *plan, MlirOperation op) {
  op = memoptOperationAncestorInBlock(op, mlirOperationGetBlock(plan->ops[0]));
  return mlirOperationIsNull(op) ? -1 : opIndex(plan, op);
}

/* The range index of the op defining `value`, or -1 when defined before it. */
static intptr_t definingIndex(const MemoptChunkPlan *plan, MlirValue value) {
  if (!mlirValueIsAOpResult(value))
    return -1;
  return opIndex(plan, mlirOpResultGetOwner(value));
}

static ValueInfo *infoOf(MemoptChunkPlan *plan, MlirValue value, bool create) {
  for (intptr_t i = 0; i < plan->valueCount; ++i)
    if (mlirValueEqual(plan->values[i].value, value))
      return &plan->values[i];
  if (!create)
    return NULL;
  plan->values = memoptGrowArray(plan->values, &plan->valueCapacity, (size_t)plan->valueCount + 1,
                                 sizeof *plan->values);
  ValueInfo *info = &plan->values[plan->valueCount++];
  *info = (ValueInfo){value, -1, kPlain, false, MemoptChunkCombineConcat};
  return info;
}

static bool usedAfterRange(const MemoptChunkPlan *plan, MlirValue value) {
  for (MlirOpOperand use = mlirValueGetFirstUse(value); !mlirOpOperandIsNull(use);
       use = mlirOpOperandGetNextUse(use))
    if (rangeIndexOfAncestor(plan, mlirOpOperandGetOwner(use)) < 0)
      return true;
  return false;
}

/* A pending (value, dim) pair of the backward walk. */
typedef struct Work {
  ValueDim *items;
  intptr_t count;
  size_t capacity;
} Work;

static void push(Work *work, MlirValue value, int64_t dim, Stride stride) {
  work->items =
      memoptGrowArray(work->items, &work->capacity, (size_t)work->count + 1, sizeof *work->items);
  work->items[work->count++] = (ValueDim){value, dim, stride, MemoptChunkCombineConcat};
}

/* Gives `value` chunk dimension `dim` covered as `stride` says; false on a
 * conflicting earlier one. */
static bool assign(MemoptChunkPlan *plan, Work *work, MlirValue value, int64_t dim, Stride stride,
                   MemoptStringBuffer *reason) {
  ValueInfo *info = infoOf(plan, value, true);
  if (info->dim == dim && sameStride(info->stride, stride))
    return true;
  if (info->dim >= 0) {
    if (info->dim == dim)
      memoptStringBufferAppendFormat(
          reason, "a value would be chunked along dimension %lld in two strided patterns",
          (long long)dim);
    else
      memoptStringBufferAppendFormat(reason,
                                     "a value would be chunked along both dimension %lld and %lld",
                                     (long long)info->dim, (long long)dim);
    return false;
  }
  info->dim = dim;
  info->stride = stride;
  push(work, value, dim, stride);
  return true;
}

/* The members of group `group` of a reshape's reassociation and their
 * extents on its expanded side `expanded`, into `members` and `extents`;
 * returns the member count, or -1 when there are more than 16 or an extent
 * is dynamic. */
static intptr_t groupExtents(MlirAttribute reassociation, MlirType expanded, intptr_t group,
                             int64_t *members, int64_t *extents) {
  MlirAttribute list = mlirArrayAttrGetElement(reassociation, group);
  intptr_t count = mlirArrayAttrGetNumElements(list);
  if (count > 16)
    return -1;
  for (intptr_t m = 0; m < count; ++m) {
    members[m] = mlirIntegerAttrGetValueInt(mlirArrayAttrGetElement(list, m));
    extents[m] = mlirShapedTypeGetDimSize(expanded, members[m]);
    if (mlirShapedTypeIsDynamicSize(extents[m]))
      return -1;
  }
  return count;
}

/* The group of a reshape's reassociation that holds dimension `dim` of the
 * expanded side, or -1. */
static intptr_t groupHolding(MlirAttribute reassociation, int64_t dim) {
  for (intptr_t g = 0; g < mlirArrayAttrGetNumElements(reassociation); ++g) {
    MlirAttribute list = mlirArrayAttrGetElement(reassociation, g);
    for (intptr_t m = 0; m < mlirArrayAttrGetNumElements(list); ++m)
      if (mlirIntegerAttrGetValueInt(mlirArrayAttrGetElement(list, m)) == dim)
        return g;
  }
  return -1;
}

/* The flow of a reshape that the per-op rules leave out: an expand_shape
 * whose chunked result dimension is an inner member of its group (its
 * source's dimension chunks strided), and a collapse_shape whose strided
 * chunk of a group is a plain chunk of one member. Returns false when `op`
 * is neither case; `ok` then says nothing. */
static bool throughStridedReshape(MlirOperation op, int64_t dim, Stride stride,
                                  MemoptOperandFlow *flows, Stride *operandStride, bool *ok) {
  bool expanding = memoptOperationIsA(op, "tensor.expand_shape");
  if (!expanding && !memoptOperationIsA(op, "tensor.collapse_shape"))
    return false;
  MlirAttribute reassociation =
      mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("reassociation"));
  MlirType expanded =
      mlirValueGetType(expanding ? mlirOperationGetResult(op, 0) : mlirOperationGetOperand(op, 0));
  int64_t members[16], extents[16];
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i)
    flows[i] = (MemoptOperandFlow){MemoptOperandFlowWhole, -1};
  *ok = false;
  if (expanding) {
    if (stride.span != 0)
      return true;
    intptr_t group = groupHolding(reassociation, dim);
    intptr_t count =
        group < 0 ? -1 : groupExtents(reassociation, expanded, group, members, extents);
    int64_t before = 1, after = 1;
    intptr_t position = -1;
    for (intptr_t m = 0; m < count; ++m) {
      if (members[m] == dim)
        position = m;
      else if (position < 0)
        before *= extents[m];
      else
        after *= extents[m];
    }
    /* Members before it all of extent 1 give a plain chunk, and dynamic
     * extents no pattern: the per-op rule decides. */
    if (position < 0 || before == 1)
      return false;
    flows[0] = (MemoptOperandFlow){MemoptOperandFlowMapped, group};
    *operandStride = (Stride){extents[position], after};
    *ok = true;
    return true;
  }
  if (stride.span == 0)
    return false;
  intptr_t count = groupExtents(reassociation, expanded, dim, members, extents);
  int64_t after = 1;
  for (intptr_t m = count - 1; m >= 0; after *= extents[m], --m)
    if (extents[m] == stride.span && after == stride.inner) {
      flows[0] = (MemoptOperandFlow){MemoptOperandFlowMapped, members[m]};
      *operandStride = kPlain;
      *ok = true;
      return true;
    }
  return true;
}

static bool sameFlows(const MemoptOperandFlow *a, const MemoptOperandFlow *b, intptr_t count) {
  for (intptr_t i = 0; i < count; ++i)
    if (a[i].kind != b[i].kind || a[i].dim != b[i].dim)
      return false;
  return true;
}

/* The flow of `op` from its result `result` chunked along `dim` as `stride`
 * says, into `flows` (one per operand) and `operandStride` (how the mapped
 * operands' chunks cover their dimensions). */
static bool flowThrough(MlirOperation op, intptr_t result, int64_t dim, Stride stride,
                        MemoptOperandFlow *flows, Stride *operandStride,
                        MemoptStringBuffer *reason) {
  *operandStride = stride;
  bool ok;
  if (throughStridedReshape(op, dim, stride, flows, operandStride, &ok)) {
    if (!ok)
      memoptStringBufferAppendFormat(
          reason, "'%s' regroups a dimension chunked in a strided pattern",
          memoptOperationIsA(op, "tensor.expand_shape") ? "tensor.expand_shape"
                                                        : "tensor.collapse_shape");
    return ok;
  }
  if (memoptDimFlowThroughOp(op, result, dim, flows, reason) != MemoptDimFlowOk)
    return false;
  /* A strided chunk needs ops that keep the dimension's index as it is: not
   * a region taken in (it slices plainly) nor a body reading the index. */
  if (stride.span != 0 &&
      (memoptOperationIsA(op, "chunk.region") || memoptDimFlowIndexedLoop(op, result, dim) >= 0)) {
    memoptStringBufferAppendCString(reason, "a dimension chunked in a strided pattern reaches an "
                                            "op that needs plain chunks");
    return false;
  }
  return true;
}

/* Gives each operand of `op` what `flows` says: a chunk dimension (pending
 * in `work`), or a whole read. */
static bool takeOperands(MemoptChunkPlan *plan, Work *work, MlirOperation op,
                         const MemoptOperandFlow *flows, Stride stride,
                         MemoptStringBuffer *reason) {
  bool ok = true;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op) && ok; ++i) {
    MlirValue operand = mlirOperationGetOperand(op, i);
    if (flows[i].kind == MemoptOperandFlowMapped)
      ok = assign(plan, work, operand, flows[i].dim, stride, reason);
    else
      infoOf(plan, operand, true)->whole = true;
  }
  return ok;
}

/* A chunk.region computes all its results chunk by chunk of its loop once it
 * is traced through one: the others are chunked along their own dimension or
 * combined as the region combines them. */
static bool takeRegionResults(MemoptChunkPlan *plan, Work *work, MlirOperation op,
                              MemoptStringBuffer *reason) {
  MlirAttribute outputDims =
      mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("output_dims"));
  bool ok = true;
  for (intptr_t r = 0; r < mlirOperationGetNumResults(op) && ok; ++r) {
    MlirValue result = mlirOperationGetResult(op, r);
    int64_t dim = mlirDenseI64ArrayGetElement(outputDims, r);
    if (dim >= 0) {
      ok = assign(plan, work, result, dim, kPlain, reason);
      continue;
    }
    MemoptChunkCombiner combiner = memoptChunkRegionCombiner(op, r, NULL);
    if (combiner != MemoptChunkCombineAdd && combiner != MemoptChunkCombineMax)
      continue; /* a rescaled-add: an error below if it is used */
    ValueInfo *info = infoOf(plan, result, true);
    if (info->dim >= 0) {
      memoptStringBufferAppendCString(reason, "a combined value would also be chunked");
      return false;
    }
    info->combiner = combiner;
  }
  return ok;
}

/* Walks producers backwards from the pending values of `work` (freed). */
static bool drain(MemoptChunkPlan *plan, Work work, bool ok, MemoptStringBuffer *reason) {
  while (ok && work.count) {
    ValueDim item = work.items[--work.count];
    intptr_t index = definingIndex(plan, item.value);
    if (index < 0)
      continue; /* defined before the range: a sliced input */
    MlirOperation op = plan->ops[index];
    intptr_t operandCount = mlirOperationGetNumOperands(op);
    MemoptOperandFlow *flows = memoptAllocateZeroed((size_t)operandCount, sizeof *flows);
    Stride operandStride;
    if (!flowThrough(op, mlirOpResultGetResultNumber(item.value), item.dim, item.stride, flows,
                     &operandStride, reason)) {
      free(flows);
      ok = false;
      break;
    }
    if (plan->traced[index]) {
      /* Reached again through another result: it must chunk the same loop. */
      ok = sameFlows(plan->flows[index], flows, operandCount) &&
           sameStride(plan->strides[index], item.stride);
      free(flows);
      if (!ok) {
        MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
        memoptStringBufferAppendFormat(reason, "'%.*s' would be chunked along two loops",
                                       (int)name.length, name.data);
      }
      continue;
    }
    plan->traced[index] = true;
    plan->flows[index] = flows;
    plan->strides[index] = item.stride;
    plan->indexedLoops[index] =
        memoptDimFlowIndexedLoop(op, mlirOpResultGetResultNumber(item.value), item.dim);
    ok = takeOperands(plan, &work, op, flows, operandStride, reason);
    if (ok && memoptOperationIsA(op, "chunk.region"))
      ok = takeRegionResults(plan, &work, op, reason);
  }
  free(work.items);
  return ok;
}

/* Walks producers backwards from `output` chunked along `dim`. */
static bool trace(MemoptChunkPlan *plan, MlirValue output, int64_t dim, MemoptStringBuffer *reason) {
  Work work = {NULL, 0, 0};
  bool ok = assign(plan, &work, output, dim, kPlain, reason);
  return drain(plan, work, ok, reason);
}

/* Walks producers backwards from `output`, computed chunk by chunk of the
 * reduction loop `loop` of its producer and combined across chunks. */
static bool traceCombined(MemoptChunkPlan *plan, MlirValue output, int64_t loop,
                          MemoptStringBuffer *reason) {
  intptr_t index = definingIndex(plan, output);
  if (index < 0 || plan->traced[index]) {
    memoptStringBufferAppendCString(reason, index < 0 ? "the combined value is not computed in the range"
                                                      : "the combined value's op is already chunked");
    return false;
  }
  MlirOperation op = plan->ops[index];
  intptr_t operandCount = mlirOperationGetNumOperands(op);
  MemoptOperandFlow *flows = memoptAllocateZeroed((size_t)operandCount, sizeof *flows);
  MemoptChunkCombiner combiner;
  if (memoptDimFlowThroughCombinedLoop(op, mlirOpResultGetResultNumber(output), loop, flows,
                                       &combiner, reason) != MemoptDimFlowOk) {
    free(flows);
    return false;
  }
  ValueInfo *info = infoOf(plan, output, true);
  if (info->dim >= 0 || info->combiner != MemoptChunkCombineConcat) {
    memoptStringBufferAppendCString(reason, "a combined value would also be chunked");
    free(flows);
    return false;
  }
  info->combiner = combiner;
  plan->traced[index] = true;
  plan->flows[index] = flows;
  plan->strides[index] = kPlain;
  plan->indexedLoops[index] = -1;
  Work work = {NULL, 0, 0};
  bool ok = takeOperands(plan, &work, op, flows, kPlain, reason);
  if (ok && memoptOperationIsA(op, "chunk.region"))
    ok = takeRegionResults(plan, &work, op, reason);
  return drain(plan, work, ok, reason);
}


/* What tracing changes in a plan, saved so a failed trace can be undone. */
typedef struct TraceSnapshot {
  ValueInfo *values;
  intptr_t valueCount;
  bool *traced;
} TraceSnapshot;

static TraceSnapshot takeSnapshot(const MemoptChunkPlan *plan) {
  TraceSnapshot snapshot = {memoptAllocateZeroed((size_t)plan->valueCount, sizeof *snapshot.values),
                            plan->valueCount,
                            memoptAllocateZeroed((size_t)plan->opCount, sizeof *snapshot.traced)};
  if (plan->valueCount)
    memcpy(snapshot.values, plan->values, (size_t)plan->valueCount * sizeof *plan->values);
  memcpy(snapshot.traced, plan->traced, (size_t)plan->opCount * sizeof *plan->traced);
  return snapshot;
}

/* Restores `snapshot` into `plan` (when `undo`) and frees it. */
static void releaseSnapshot(MemoptChunkPlan *plan, TraceSnapshot snapshot, bool undo) {
  if (undo) {
    memcpy(plan->values, snapshot.values, (size_t)snapshot.valueCount * sizeof *plan->values);
    plan->valueCount = snapshot.valueCount;
    for (intptr_t i = 0; i < plan->opCount; ++i)
      if (plan->traced[i] && !snapshot.traced[i]) {
        free(plan->flows[i]);
        plan->flows[i] = NULL;
        plan->traced[i] = false;
      }
  }
  free(snapshot.values);
  free(snapshot.traced);
}

/* True when an operand of op `index` is computed chunk by chunk in the range
 * or by an op that is (`dependent` marks the ops found so far). */
static bool readsChunkedValue(const MemoptChunkPlan *plan, intptr_t index, const bool *dependent) {
  MlirOperation op = plan->ops[index];
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i) {
    intptr_t producer = definingIndex(plan, mlirOperationGetOperand(op, i));
    if (producer >= 0 && (plan->traced[producer] || dependent[producer]))
      return true;
  }
  return false;
}

/* A backward walk from a value along an axis (trace, traceCombined). */
typedef bool (*TraceWalk)(MemoptChunkPlan *plan, MlirValue value, int64_t axis,
                          MemoptStringBuffer *reason);

/* Runs `walk` from `value` along `axis`; undoes what it traced when it fails
 * (its reason is not needed: another axis is tried). */
static bool tryTrace(MemoptChunkPlan *plan, TraceWalk walk, MlirValue value, int64_t axis) {
  TraceSnapshot snapshot = takeSnapshot(plan);
  MemoptStringBuffer ignored = memoptStringBufferCreate();
  bool traced = walk(plan, value, axis, &ignored);
  memoptStringBufferDestroy(&ignored);
  releaseSnapshot(plan, snapshot, !traced);
  return traced;
}

/* Makes `value`, computed in the range, a value combined across chunks when
 * its op can combine its chunks' partial results along one of its loops, or
 * when it reshapes such a value (tensor.expand_shape / collapse_shape): the
 * reshape of a sum or maximum of partial values is the sum or maximum of
 * their reshapes, so the reshape runs on each chunk's partial value (dV of
 * attention is summed over the query rows as 1 x S x d and expanded to
 * 1 x 1 x S x d). Returns the combiner, or Concat when neither holds (the
 * plan is then as it was). */
static MemoptChunkCombiner combine(MemoptChunkPlan *plan, MlirValue value) {
  intptr_t index = definingIndex(plan, value);
  if (index < 0)
    return MemoptChunkCombineConcat;
  ValueInfo *info = infoOf(plan, value, false);
  if (info && info->combiner != MemoptChunkCombineConcat)
    return info->combiner;
  if (plan->traced[index] || (info && info->dim >= 0))
    return MemoptChunkCombineConcat;
  MlirOperation op = plan->ops[index];
  if (memoptOperationIsA(op, "tensor.expand_shape") ||
      memoptOperationIsA(op, "tensor.collapse_shape")) {
    MemoptChunkCombiner combiner = combine(plan, mlirOperationGetOperand(op, 0));
    if (combiner == MemoptChunkCombineConcat)
      return combiner;
    plan->traced[index] = true;
    plan->flows[index] = memoptAllocateZeroed(1, sizeof *plan->flows[index]);
    plan->flows[index][0] = (MemoptOperandFlow){MemoptOperandFlowWhole, -1};
    plan->strides[index] = kPlain;
    plan->indexedLoops[index] = -1;
    infoOf(plan, value, true)->combiner = combiner;
    return combiner;
  }
  for (int64_t loop = 0; loop < memoptDimFlowLoopCount(op); ++loop)
    if (tryTrace(plan, traceCombined, value, loop))
      return infoOf(plan, value, false)->combiner;
  return MemoptChunkCombineConcat;
}

/* The primary output fixes the chunked loop; other values used after the
 * range that are computed from chunked values (q, k and v split from one
 * projection) must be chunked too: each takes the first of its dimensions
 * that traces back consistently. The rest stays untraced, and is hoisted or
 * reported as a conflict. */
static void traceOtherOutputs(MemoptChunkPlan *plan) {
  bool *dependent = memoptAllocateZeroed((size_t)plan->opCount, sizeof *dependent);
  for (intptr_t i = 0; i < plan->opCount; ++i) {
    if (plan->traced[i] || !readsChunkedValue(plan, i, dependent))
      continue;
    dependent[i] = true;
    MlirOperation op = plan->ops[i];
    for (intptr_t r = 0; r < mlirOperationGetNumResults(op) && !plan->traced[i]; ++r) {
      MlirValue result = mlirOperationGetResult(op, r);
      MlirType type = mlirValueGetType(result);
      if (!usedAfterRange(plan, result) || !mlirTypeIsARankedTensor(type))
        continue;
      /* A dimension of the result, else a reduced loop whose partial
       * results are combined across chunks (weight gradients summed over
       * the chunks of the tokens). */
      bool traced = false;
      for (int64_t d = 0; d < mlirShapedTypeGetRank(type) && !traced; ++d)
        traced = tryTrace(plan, trace, result, d);
      if (!traced)
        combine(plan, result);
    }
  }
  free(dependent);
}

static bool markCaptured(MlirValue value, void *userData) {
  MemoptChunkPlan *plan = userData;
  if (definingIndex(plan, value) >= 0)
    infoOf(plan, value, true)->whole = true;
  return true;
}

/* Marks as whole every value of the range an op reads that is not computed
 * chunk by chunk: operands of hoisted ops, and values captured by regions. */
static void markWholeReads(MemoptChunkPlan *plan, MlirOperation op, bool operandsToo) {
  if (operandsToo)
    for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i)
      infoOf(plan, mlirOperationGetOperand(op, i), true)->whole = true;
  memoptOperationForEachCapture(op, markCaptured, plan);
}

/* A value computed in the range cannot be both chunked and read whole; one
 * defined before it can (the loop slices it and also reads it whole). A
 * combined value is complete only after the last chunk: no op of the range
 * may read it. */
static bool checkConflicts(MemoptChunkPlan *plan, MemoptStringBuffer *reason) {
  for (intptr_t i = 0; i < plan->valueCount; ++i)
    if (plan->values[i].combiner != MemoptChunkCombineConcat && plan->values[i].whole) {
      memoptStringBufferAppendCString(
          reason, "a value combined across chunks is also read in the range");
      return false;
    }
  for (intptr_t i = 0; i < plan->valueCount; ++i)
    if (plan->values[i].dim >= 0 && plan->values[i].whole &&
        definingIndex(plan, plan->values[i].value) >= 0) {
      memoptStringBufferAppendFormat(
          reason, "a value chunked along dimension %lld is also needed whole in the range",
          (long long)plan->values[i].dim);
      return false;
    }
  return true;
}

/* Collects sliced inputs and outputs and checks their extents agree. */
static bool collectBoundary(MemoptChunkPlan *plan, MemoptStringBuffer *reason) {
  plan->inputs = memoptAllocateZeroed((size_t)plan->valueCount, sizeof *plan->inputs);
  plan->outputs = memoptAllocateZeroed((size_t)plan->valueCount, sizeof *plan->outputs);
  for (intptr_t i = 0; i < plan->valueCount; ++i) {
    ValueInfo *info = &plan->values[i];
    if (info->combiner != MemoptChunkCombineConcat) {
      /* (One only reshaped in the range leaves it as its reshape.) */
      if (usedAfterRange(plan, info->value))
        plan->outputs[plan->outputCount++] = (ValueDim){info->value, -1, kPlain, info->combiner};
      continue;
    }
    if (info->dim < 0)
      continue;
    intptr_t index = definingIndex(plan, info->value);
    bool boundary = index < 0 || usedAfterRange(plan, info->value);
    /* The loop slices inputs and outputs plainly. */
    if (boundary && info->stride.span != 0) {
      memoptStringBufferAppendCString(reason, "a value chunked in a strided pattern (an inner "
                                              "member of a reshaped group) crosses the range");
      return false;
    }
    if (index < 0)
      plan->inputs[plan->inputCount++] =
          (ValueDim){info->value, info->dim, kPlain, MemoptChunkCombineConcat};
    else if (boundary)
      plan->outputs[plan->outputCount++] =
          (ValueDim){info->value, info->dim, kPlain, MemoptChunkCombineConcat};
  }
  /* Results of chunked ops that are used must all be chunked. */
  for (intptr_t i = 0; i < plan->opCount; ++i) {
    if (!plan->traced[i])
      continue;
    for (intptr_t r = 0; r < mlirOperationGetNumResults(plan->ops[i]); ++r) {
      MlirValue result = mlirOperationGetResult(plan->ops[i], r);
      ValueInfo *info = infoOf(plan, result, false);
      if ((!info || (info->dim < 0 && info->combiner == MemoptChunkCombineConcat)) &&
          !mlirOpOperandIsNull(mlirValueGetFirstUse(result))) {
        memoptStringBufferAppendFormat(reason, "result #%ld of a chunked op is used but not chunked",
                                       (long)r);
        return false;
      }
    }
  }
  plan->extent = mlirShapedTypeGetDynamicSize();
  for (intptr_t i = 0; i < plan->inputCount + plan->outputCount; ++i) {
    ValueDim *boundary = i < plan->inputCount ? &plan->inputs[i]
                                              : &plan->outputs[i - plan->inputCount];
    if (boundary->dim < 0)
      continue; /* combined: not sliced */
    int64_t extent = mlirShapedTypeGetDimSize(mlirValueGetType(boundary->value), boundary->dim);
    if (mlirShapedTypeIsDynamicSize(extent)) {
      memoptStringBufferAppendCString(reason, "the chunked dimension has a dynamic extent");
      return false;
    }
    if (!mlirShapedTypeIsDynamicSize(plan->extent) && plan->extent != extent) {
      memoptStringBufferAppendFormat(reason,
                                     "the chunked dimensions of the inputs and outputs differ in "
                                     "extent (%lld and %lld)",
                                     (long long)plan->extent, (long long)extent);
      return false;
    }
    plan->extent = extent;
  }
  return true;
}

/* The last value the range defines that is used after it. */
static bool primaryOutput(const MemoptChunkPlan *plan, MlirValue *output) {
  for (intptr_t i = plan->opCount - 1; i >= 0; --i)
    for (intptr_t r = mlirOperationGetNumResults(plan->ops[i]) - 1; r >= 0; --r)
      if (usedAfterRange(plan, mlirOperationGetResult(plan->ops[i], r))) {
        *output = mlirOperationGetResult(plan->ops[i], r);
        return true;
      }
  return false;
}

/* memoptChunkPlanCreate (`combining` false: `axis` is a dimension of the
 * primary output) and memoptChunkPlanCreateCombining (`axis` is a reduced
 * loop of its producer). */
static MemoptChunkPlan *createPlan(MlirOperation first, MlirOperation last, int64_t axis,
                                   bool combining, MemoptStringBuffer *reason) {
  MemoptChunkPlan *plan = memoptAllocateZeroed(1, sizeof *plan);
  for (MlirOperation op = first;; op = mlirOperationGetNextInBlock(op)) {
    if (mlirOperationIsNull(op)) {
      memoptStringBufferAppendCString(reason, "the range does not end in the block it starts in");
      memoptChunkPlanDestroy(plan);
      return NULL;
    }
    ++plan->opCount;
    if (mlirOperationEqual(op, last))
      break;
  }
  plan->ops = memoptAllocateZeroed((size_t)plan->opCount, sizeof *plan->ops);
  plan->traced = memoptAllocateZeroed((size_t)plan->opCount, sizeof *plan->traced);
  plan->flows = memoptAllocateZeroed((size_t)plan->opCount, sizeof *plan->flows);
  plan->strides = memoptAllocateZeroed((size_t)plan->opCount, sizeof *plan->strides);
  plan->indexedLoops = memoptAllocateZeroed((size_t)plan->opCount, sizeof *plan->indexedLoops);
  MlirOperation op = first;
  for (intptr_t i = 0; i < plan->opCount; ++i, op = mlirOperationGetNextInBlock(op))
    plan->ops[i] = op;

  MlirValue output;
  bool ok = primaryOutput(plan, &output);
  if (!ok)
    memoptStringBufferAppendCString(reason, "no value of the range is used after it");
  ok = ok && (combining ? traceCombined(plan, output, axis, reason)
                        : trace(plan, output, axis, reason));
  if (ok)
    traceOtherOutputs(plan);
  if (ok)
    for (intptr_t i = 0; i < plan->opCount; ++i)
      markWholeReads(plan, plan->ops[i], !plan->traced[i]);
  ok = ok && checkConflicts(plan, reason) && collectBoundary(plan, reason);
  if (!ok) {
    memoptChunkPlanDestroy(plan);
    return NULL;
  }
  return plan;
}

MemoptChunkPlan *memoptChunkPlanCreate(MlirOperation first, MlirOperation last, int64_t outputDim,
                                       MemoptStringBuffer *reason) {
  return createPlan(first, last, outputDim, false, reason);
}

MemoptChunkPlan *memoptChunkPlanCreateCombining(MlirOperation first, MlirOperation last,
                                                int64_t loop, MemoptStringBuffer *reason) {
  return createPlan(first, last, loop, true, reason);
}

void memoptChunkPlanDestroy(MemoptChunkPlan *plan) {
  if (!plan)
    return;
  for (intptr_t i = 0; plan->flows && i < plan->opCount; ++i)
    free(plan->flows[i]);
  free(plan->flows);
  free(plan->strides);
  free(plan->indexedLoops);
  free(plan->traced);
  free(plan->ops);
  free(plan->values);
  free(plan->inputs);
  free(plan->outputs);
  free(plan);
}

int64_t memoptChunkPlanExtent(const MemoptChunkPlan *plan) { return plan->extent; }

intptr_t memoptChunkPlanNumOps(const MemoptChunkPlan *plan) { return plan->opCount; }

MlirOperation memoptChunkPlanOp(const MemoptChunkPlan *plan, intptr_t index) {
  return plan->ops[index];
}

bool memoptChunkPlanOpIsHoisted(const MemoptChunkPlan *plan, intptr_t index) {
  return !plan->traced[index];
}

bool memoptChunkPlanOperandIsChunked(const MemoptChunkPlan *plan, intptr_t index,
                                     intptr_t operand) {
  return plan->traced[index] && plan->flows[index][operand].kind == MemoptOperandFlowMapped;
}

int64_t memoptChunkPlanOpIndexedLoop(const MemoptChunkPlan *plan, intptr_t index) {
  return plan->traced[index] ? plan->indexedLoops[index] : -1;
}

intptr_t memoptChunkPlanNumInputs(const MemoptChunkPlan *plan) { return plan->inputCount; }

MlirValue memoptChunkPlanInput(const MemoptChunkPlan *plan, intptr_t index, int64_t *dim) {
  *dim = plan->inputs[index].dim;
  return plan->inputs[index].value;
}

intptr_t memoptChunkPlanNumOutputs(const MemoptChunkPlan *plan) { return plan->outputCount; }

MlirValue memoptChunkPlanOutput(const MemoptChunkPlan *plan, intptr_t index, int64_t *dim) {
  *dim = plan->outputs[index].dim;
  return plan->outputs[index].value;
}

MemoptChunkCombiner memoptChunkPlanOutputCombiner(const MemoptChunkPlan *plan, intptr_t index) {
  return plan->outputs[index].combiner;
}

MemoptChunkCombiner memoptChunkPlanCombinerOf(const MemoptChunkPlan *plan, MlirValue value) {
  for (intptr_t i = 0; i < plan->valueCount; ++i)
    if (mlirValueEqual(plan->values[i].value, value))
      return plan->values[i].combiner;
  return MemoptChunkCombineConcat;
}

int64_t memoptChunkPlanDimOf(const MemoptChunkPlan *plan, MlirValue value) {
  for (intptr_t i = 0; i < plan->valueCount; ++i)
    if (mlirValueEqual(plan->values[i].value, value))
      return plan->values[i].dim;
  return -1;
}

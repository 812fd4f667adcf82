/* Running place-to-shard's pipeline driver on MPI ranks (python-free-docs/
 * harness.md, "A pipeline on ranks"): the driver (an entry carrying
 * `place.pipeline_stages`) runs stage s on rank s and returns the whole
 * results on every rank, so its plan has one rank per stage and nothing
 * split; each rank's stage, its prediction and the bytes of the inputs it
 * reads come from the driver's case for that rank. Without an independent
 * reference (the model before --pipeline), the single-device program is the
 * driver with its cases run one after the other on one process, each
 * received value replaced by the value sent with the same tag. */
#include "Harness.h"

#include "Analysis/Analysis.h"
#include "IR/Builders.h"
#include "IR/IR.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdlib.h>
#include <string.h>

static MlirAttribute attribute(MlirOperation op, const char *name) {
  return mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name));
}

int64_t harnessPipelineStages(MlirOperation function) {
  MlirAttribute stages = attribute(function, "place.pipeline_stages");
  if (mlirAttributeIsNull(stages) || !mlirAttributeIsAInteger(stages))
    return 0;
  return mlirIntegerAttrGetValueInt(stages);
}

/* The top-level scf.index_switch of the driver `function`, or a null op. */
static MlirOperation findDispatch(MlirOperation function) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(function, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (memoptOperationIsA(op, "scf.index_switch"))
      return op;
  return (MlirOperation){NULL};
}

/* The bytes the wrapper allocates for a tensor of static shape (0 for
 * anything else): its payload rounded up as one-shot bufferization aligns it. */
static int64_t tensorBytes(MlirType type) {
  uint64_t bytes;
  return mlirTypeIsARankedTensor(type) && memoptTypeGetStaticByteSize(type, &bytes)
             ? (int64_t)memoptRoundUpToAlignment(bytes, memoptOneShotBufferAlignment())
             : 0;
}

/* What the walk of one case collects: which driver arguments it reads, and
 * the stage function it calls. */
typedef struct CaseUses {
  MlirBlock body; /* the driver's entry block */
  bool *reads;    /* one flag per argument */
  MlirOperation call;
} CaseUses;

static MlirWalkResult collectCaseUses(MlirOperation op, void *userData) {
  CaseUses *uses = userData;
  for (intptr_t k = 0; k < mlirOperationGetNumOperands(op); ++k) {
    MlirValue operand = mlirOperationGetOperand(op, k);
    if (mlirValueIsABlockArgument(operand) &&
        mlirBlockEqual(mlirBlockArgumentGetOwner(operand), uses->body))
      uses->reads[mlirBlockArgumentGetArgNumber(operand)] = true;
  }
  if (memoptOperationIsA(op, "func.call") && mlirOperationIsNull(uses->call))
    uses->call = op;
  return MlirWalkResultAdvance;
}

/* Reads what rank `rank` runs from the driver's case for it: the stage, its
 * predicted bytes per device, the bytes of the driver inputs it reads. */
static bool readStage(MlirModule module, MlirOperation function, MlirRegion region, int64_t rank,
                      HarnessShardPlan *plan, MemoptStringBuffer *error) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(function, 0));
  CaseUses uses = {
      body, memoptAllocateZeroed((size_t)mlirBlockGetNumArguments(body) + 1, sizeof(bool)), {NULL}};
  MlirBlock block = mlirRegionGetFirstBlock(region);
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    mlirOperationWalk(op, collectCaseUses, &uses, MlirWalkPreOrder);
  plan->stageInputBytes[rank] = 0;
  for (intptr_t k = 0; k < mlirBlockGetNumArguments(body); ++k)
    if (uses.reads[k])
      plan->stageInputBytes[rank] += tensorBytes(mlirValueGetType(mlirBlockGetArgument(body, k)));
  free(uses.reads);
  if (mlirOperationIsNull(uses.call)) {
    memoptEmitOpError(function, "the pipeline driver's case for rank %lld calls no stage",
                      (long long)rank);
    memoptStringBufferAppendFormat(error, "rank %lld of the pipeline runs no stage",
                                   (long long)rank);
    return false;
  }
  MlirStringRef callee = mlirFlatSymbolRefAttrGetValue(attribute(uses.call, "callee"));
  plan->stageNames[rank] = memoptStrndup(callee.data, callee.length);
  MlirSymbolTable symbols = mlirSymbolTableCreate(mlirModuleGetOperation(module));
  MlirOperation stage = mlirSymbolTableLookup(symbols, callee);
  mlirSymbolTableDestroy(symbols);
  MlirAttribute predicted = mlirOperationIsNull(stage)
                                ? mlirAttributeGetNull()
                                : attribute(stage, "place.memory_bytes_per_device");
  plan->stagePredictedBytes[rank] =
      !mlirAttributeIsNull(predicted) && mlirAttributeIsAInteger(predicted)
          ? mlirIntegerAttrGetValueSInt(predicted)
          : -1;
  return true;
}

/* A value whole on every rank. */
static void replicated(HarnessShardedValue *value, const HarnessValueType *type) {
  value->rank = type->isTensor ? type->rank : 0;
  size_t rows = value->rank > 0 ? (size_t)value->rank : 1;
  value->globalShape = memoptAllocateZeroed(rows, sizeof *value->globalShape);
  value->localShape = memoptAllocateZeroed(rows, sizeof *value->localShape);
  value->splitAxes = memoptAllocateZeroed(rows, sizeof *value->splitAxes);
  for (size_t d = 0; d < rows; ++d)
    value->splitAxes[d] = -1;
  for (intptr_t d = 0; d < value->rank; ++d)
    value->globalShape[d] = value->localShape[d] = type->shape[d];
}

bool harnessPipelinePlanRead(MlirModule module, const HarnessEntry *entry, long long ranks,
                             HarnessShardPlan *plan, MemoptStringBuffer *error) {
  memset(plan, 0, sizeof *plan);
  int64_t stages = harnessPipelineStages(entry->function);
  MlirOperation dispatch = findDispatch(entry->function);
  if (mlirOperationIsNull(dispatch) || mlirOperationGetNumRegions(dispatch) != stages + 1) {
    memoptEmitOpError(entry->function,
                      "place.pipeline_stages says %lld stages, but @%s has no "
                      "scf.index_switch with a case per stage",
                      (long long)stages, entry->name);
    memoptStringBufferAppendFormat(error, "@%s is not a pipeline driver memopt-run can read",
                                   entry->name);
    return false;
  }
  if (stages != ranks) {
    memoptEmitOpError(entry->function,
                      "@%s drives a pipeline of %lld stages, one per rank, but "
                      "--ranks=%lld starts %lld processes",
                      entry->name, (long long)stages, ranks, ranks);
    memoptStringBufferAppendFormat(error,
                                   "the pipeline has %lld stages, --ranks=%lld; give every "
                                   "stage one rank",
                                   (long long)stages, ranks);
    return false;
  }
  plan->pipelineStages = stages;
  plan->gridRank = 1;
  plan->gridShape = memoptAllocateZeroed(1, sizeof *plan->gridShape);
  plan->gridShape[0] = plan->devices = stages;
  plan->predictedBytes = -1;
  plan->stageNames = memoptAllocateZeroed((size_t)stages, sizeof *plan->stageNames);
  plan->stagePredictedBytes =
      memoptAllocateZeroed((size_t)stages, sizeof *plan->stagePredictedBytes);
  plan->stageInputBytes = memoptAllocateZeroed((size_t)stages, sizeof *plan->stageInputBytes);
  plan->argumentCount = entry->argumentCount;
  plan->arguments = memoptAllocateZeroed(entry->argumentCount + 1, sizeof *plan->arguments);
  for (size_t i = 0; i < entry->argumentCount; ++i)
    replicated(&plan->arguments[i], &entry->arguments[i]);
  plan->resultCount = entry->resultCount;
  plan->results = memoptAllocateZeroed(entry->resultCount + 1, sizeof *plan->results);
  for (size_t i = 0; i < entry->resultCount; ++i)
    replicated(&plan->results[i], &entry->results[i]);
  /* Region 0 is the default; case c (rank c) is region c + 1. */
  MlirAttribute cases = attribute(dispatch, "cases");
  bool ok = true;
  for (int64_t c = 0; ok && c < stages; ++c) {
    int64_t rank = mlirDenseI64ArrayGetElement(cases, c);
    if (rank < 0 || rank >= stages) {
      memoptEmitOpError(dispatch, "case %lld of the pipeline driver is no rank of its %lld",
                        (long long)rank, (long long)stages);
      memoptStringBufferAppendFormat(error, "the pipeline driver has a case for rank %lld",
                                     (long long)rank);
      return false;
    }
    ok = readStage(module, entry->function, mlirOperationGetRegion(dispatch, c + 1), rank, plan,
                   error);
  }
  return ok;
}

/* The value of the arith.constant `value` comes from; false when it is not one. */
static bool constantOf(MlirValue value, int64_t *result) {
  if (!mlirValueIsAOpResult(value) ||
      !memoptOperationIsA(mlirOpResultGetOwner(value), "arith.constant"))
    return false;
  *result = mlirIntegerAttrGetValueInt(attribute(mlirOpResultGetOwner(value), "value"));
  return true;
}

/* The tensors the driver sends, by tag. */
typedef struct Sent {
  int64_t *tags;
  MlirValue *tensors;
  size_t count, tagCapacity, tensorCapacity;
  MlirOperation unreadable; /* a send or receive whose tag or buffer is not what the driver emits */
} Sent;

static MlirWalkResult collectSends(MlirOperation op, void *userData) {
  Sent *sent = userData;
  if (!memoptOperationIsA(op, "mpi.send"))
    return MlirWalkResultAdvance;
  int64_t tag;
  MlirValue buffer = mlirOperationGetOperand(op, 0);
  if (!constantOf(mlirOperationGetOperand(op, 1), &tag) || !mlirValueIsAOpResult(buffer) ||
      !memoptOperationIsA(mlirOpResultGetOwner(buffer), "bufferization.to_buffer")) {
    sent->unreadable = op;
    return MlirWalkResultInterrupt;
  }
  sent->tags = memoptGrowArray(sent->tags, &sent->tagCapacity, sent->count + 1, sizeof *sent->tags);
  sent->tensors =
      memoptGrowArray(sent->tensors, &sent->tensorCapacity, sent->count + 1, sizeof *sent->tensors);
  sent->tags[sent->count] = tag;
  sent->tensors[sent->count++] = mlirOperationGetOperand(mlirOpResultGetOwner(buffer), 0);
  return MlirWalkResultAdvance;
}

/* The tag of the mpi.recv filling `buffer`; false when there is none. */
static bool receivedTag(MlirValue buffer, int64_t *tag) {
  for (MlirOpOperand use = mlirValueGetFirstUse(buffer); !mlirOpOperandIsNull(use);
       use = mlirOpOperandGetNextUse(use))
    if (memoptOperationIsA(mlirOpOperandGetOwner(use), "mpi.recv"))
      return constantOf(mlirOperationGetOperand(mlirOpOperandGetOwner(use), 1), tag);
  return false;
}

/* True when `op` goes once the driver runs on one process: an mpi op (when
 * `mpi`), or, left unused, what fed one or read one (a buffer, a flattened
 * tensor, the rank, a tag). */
static bool isTransferLeftover(MlirOperation op, bool mpi) {
  if (memoptOperationIsInDialect(op, "mpi"))
    return mpi;
  for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r)
    if (!mlirOpOperandIsNull(mlirValueGetFirstUse(mlirOperationGetResult(op, r))))
      return false;
  static const char *const leftovers[] = {
      "memref.alloc",        "bufferization.to_buffer", "bufferization.to_tensor",
      "tensor.expand_shape", "tensor.collapse_shape",   "arith.index_cast",
      "arith.constant"};
  for (size_t k = 0; k < sizeof leftovers / sizeof *leftovers; ++k)
    if (memoptOperationIsA(op, leftovers[k]))
      return true;
  return false;
}

/* Erases the transfer leftovers of `body`, users before what they use. */
static void eraseLeftovers(MlirBlock body, bool mpi) {
  size_t count = 0;
  MlirOperation *ops = memoptBlockGetOperations(body, &count);
  for (size_t k = count; k-- > 0;)
    if (isTransferLeftover(ops[k], mpi))
      memoptEraseOp(ops[k]);
  free(ops);
}

bool harnessPipelineSequential(const HarnessEntry *entry, MemoptStringBuffer *error) {
  MlirOperation function = entry->function;
  MlirOperation dispatch = findDispatch(function);
  int64_t stages = harnessPipelineStages(function);
  Sent sent = {NULL, NULL, 0, 0, 0, {NULL}};
  mlirOperationWalk(function, collectSends, &sent, MlirWalkPreOrder);
  bool ok = !mlirOperationIsNull(dispatch) && mlirOperationIsNull(sent.unreadable) &&
            mlirOperationGetNumRegions(dispatch) == stages + 1;
  /* Every case in rank order, on one process: stage s's ops after stage s - 1's. */
  MlirAttribute cases = ok ? attribute(dispatch, "cases") : mlirAttributeGetNull();
  MlirOperation last = {NULL};
  for (int64_t rank = 0; ok && rank < stages; ++rank)
    for (int64_t c = 0; c < stages; ++c) {
      if (mlirDenseI64ArrayGetElement(cases, c) != rank)
        continue;
      MlirBlock block = mlirRegionGetFirstBlock(mlirOperationGetRegion(dispatch, c + 1));
      last = mlirBlockGetTerminator(block);
      for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationEqual(op, last);) {
        MlirOperation next = mlirOperationGetNextInBlock(op);
        mlirOperationMoveBefore(op, dispatch);
        op = next;
      }
    }
  ok = ok && !mlirOperationIsNull(last);
  /* The last stage's results, which it computed or received, are the results. */
  for (intptr_t q = 0; ok && q < mlirOperationGetNumResults(dispatch); ++q)
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(dispatch, q),
                                  mlirOperationGetOperand(last, q));
  if (ok)
    memoptEraseOp(dispatch);
  /* Each received tensor still read (the results of the earlier cases are
   * not) is the one sent with its tag. */
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(function, 0));
  if (ok)
    eraseLeftovers(body, false);
  for (MlirOperation op = mlirBlockGetFirstOperation(body); ok && !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    int64_t tag;
    if (!memoptOperationIsA(op, "bufferization.to_tensor") ||
        mlirOpOperandIsNull(mlirValueGetFirstUse(mlirOperationGetResult(op, 0))) ||
        !receivedTag(mlirOperationGetOperand(op, 0), &tag))
      continue;
    size_t k = 0;
    while (k < sent.count && sent.tags[k] != tag)
      ++k;
    if (k == sent.count) {
      memoptEmitOpError(op, "the pipeline driver receives tag %lld here, which no rank sends",
                        (long long)tag);
      ok = false;
    } else
      mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), sent.tensors[k]);
  }
  if (ok)
    eraseLeftovers(body, true);
  if (!ok && !error->length)
    memoptStringBufferAppendFormat(error,
                                   "@%s carries place.pipeline_stages but is not a pipeline "
                                   "driver memopt-run can run on one process",
                                   entry->name);
  free(sent.tags);
  free(sent.tensors);
  return ok;
}

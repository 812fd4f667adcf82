/* What a function holds as written, op by op, for place-search's
 * `memory=program`: the buffers memopt's memory estimator (lib/Analysis)
 * finds in the bufferized function, live from the op that allocates them to
 * their last use, split into those that carry the batch (their bytes scale
 * with the microbatch, so they are kept per sample) and those that do not
 * (a training step's parameter gradients and loss, whole on every device
 * whatever the microbatch).
 *
 * A value carries the batch along one dimension. A data argument carries it
 * along its first. A linalg op's operand carrying it along dimension k reads
 * it with loop d_l of its indexing map there; a result whose map has d_l at
 * position j carries it along j (a loop the result does not index is a
 * reduction, and the result is a sum over the batch: it does not carry it).
 * A collapse_shape carries it in the group holding k, an expand_shape in
 * the first dimension of group k (the batch is outermost in row-major
 * order), any other op along k when the result has the operand's rank, else
 * along its first dimension; a scalar never does. */
#include "Place/PlaceSearch.h"

#include "Analysis/Analysis.h"
#include "Analysis/BufferizationModel.h"
#include "IR/IR.h"

#include "mlir-c/AffineExpr.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/Linalg.h"

#include <stdlib.h>
#include <string.h>

/* Ops writing into one another's results as inits that bufferCarriesBatch
 * follows (tensor.empty, fill, generic, and a few more for nested inits). */
enum { initChainDepth = 8 };

/* Values carrying the batch, each mapped to its dimension. */
typedef MemoptPointerMap BatchMap;

static int64_t batchDimOf(const BatchMap *batch, MlirValue value) {
  size_t dim = memoptPointerMapLookup(batch, value.ptr);
  return dim == MEMOPT_NO_INDEX ? -1 : (int64_t)dim;
}

static intptr_t rankOf(MlirValue value) {
  MlirType type = mlirValueGetType(value);
  return mlirTypeIsAShaped(type) && mlirShapedTypeHasRank(type) ? mlirShapedTypeGetRank(type) : 0;
}

/* The loop a linalg op reads operand `operand`'s dimension `dim` with; -1
 * when that map result is not a single loop. */
static int64_t loopOfOperandDim(MlirAttribute maps, intptr_t operand, int64_t dim) {
  MlirAffineMap map = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, operand));
  MlirAffineExpr expr = mlirAffineMapGetResult(map, (intptr_t)dim);
  return mlirAffineExprIsADim(expr) ? (int64_t)mlirAffineDimExprGetPosition(expr) : -1;
}

/* The dimension of linalg op `op`'s result `result` that carries the batch, or -1. */
static int64_t linalgResultBatchDim(MlirOperation op, MlirAttribute maps, intptr_t result,
                                    const BatchMap *batch) {
  intptr_t operands = mlirOperationGetNumOperands(op);
  intptr_t inits = mlirOperationGetNumResults(op);
  MlirAffineMap out =
      mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, operands - inits + result));
  for (intptr_t o = 0; o < operands; ++o) {
    int64_t dim = batchDimOf(batch, mlirOperationGetOperand(op, o));
    if (dim < 0 || dim >= rankOf(mlirOperationGetOperand(op, o)))
      continue;
    int64_t loop = loopOfOperandDim(maps, o, dim);
    for (intptr_t j = 0; loop >= 0 && j < mlirAffineMapGetNumResults(out); ++j) {
      MlirAffineExpr expr = mlirAffineMapGetResult(out, j);
      if (mlirAffineExprIsADim(expr) && (int64_t)mlirAffineDimExprGetPosition(expr) == loop)
        return j;
    }
  }
  return -1;
}

/* The result dimension of reshape `op` holding its source's dimension `dim`. */
static int64_t reshapedDim(MlirOperation op, int64_t dim) {
  MlirAttribute groups =
      mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("reassociation"));
  if (mlirAttributeIsNull(groups))
    return 0;
  bool collapse = memoptOperationIsA(op, "tensor.collapse_shape");
  int64_t first = 0;
  for (intptr_t g = 0; g < mlirArrayAttrGetNumElements(groups); ++g) {
    MlirAttribute group = mlirArrayAttrGetElement(groups, g);
    intptr_t size = mlirArrayAttrGetNumElements(group);
    if (collapse && dim >= first && dim < first + size)
      return g;
    if (!collapse && g == dim)
      return first;
    first += size;
  }
  return 0;
}

/* Records which results of top-level op `op` carry the batch, and along which dimension. */
static void followBatch(MlirOperation op, BatchMap *batch) {
  MlirAttribute maps = memoptOperationIsInDialect(op, "linalg")
                           ? mlirLinalgGetIndexingMapsAttribute(op)
                           : (MlirAttribute){NULL};
  for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r) {
    MlirValue result = mlirOperationGetResult(op, r);
    if (rankOf(result) == 0)
      continue;
    int64_t dim = -1;
    if (!mlirAttributeIsNull(maps)) {
      dim = linalgResultBatchDim(op, maps, r, batch);
    } else {
      for (intptr_t o = 0; o < mlirOperationGetNumOperands(op) && dim < 0; ++o) {
        MlirValue operand = mlirOperationGetOperand(op, o);
        int64_t from = batchDimOf(batch, operand);
        if (from < 0)
          continue;
        if (memoptOperationIsA(op, "tensor.collapse_shape") ||
            memoptOperationIsA(op, "tensor.expand_shape"))
          dim = reshapedDim(op, from);
        else
          dim = rankOf(result) == rankOf(operand) ? from : 0;
      }
    }
    if (dim >= 0)
      memoptPointerMapInsert(batch, result.ptr, (size_t)dim);
  }
}

/* Whether the buffer first holding `value` carries the batch: `value` does,
 * or an op writes into it (a linalg op's init: a tensor.empty, a fill of
 * one; an insert_slice's destination) a result that does, `depth` such steps at most. */
static bool bufferCarriesBatch(MlirValue value, const BatchMap *batch, int depth) {
  if (batchDimOf(batch, value) >= 0)
    return true;
  for (MlirOpOperand use = mlirValueGetFirstUse(value); depth > 0 && !mlirOpOperandIsNull(use);
       use = mlirOpOperandGetNextUse(use)) {
    MlirOperation user = mlirOpOperandGetOwner(use);
    intptr_t inits = mlirOperationGetNumResults(user);
    intptr_t init =
        (intptr_t)mlirOpOperandGetOperandNumber(use) - (mlirOperationGetNumOperands(user) - inits);
    if (memoptOperationIsInDialect(user, "linalg")) {
      if (init >= 0 && init < inits &&
          bufferCarriesBatch(mlirOperationGetResult(user, init), batch, depth - 1))
        return true;
      continue;
    }
    /* Another op writing into it (a tensor.insert_slice's destination)
     * gives a result of its type. */
    for (intptr_t r = 0; r < inits; ++r) {
      MlirValue result = mlirOperationGetResult(user, r);
      if (mlirTypeEqual(mlirValueGetType(result), mlirValueGetType(value)) &&
          bufferCarriesBatch(result, batch, depth - 1))
        return true;
    }
  }
  return false;
}

/* Bytes a buffer takes in the lowered program: its payload rounded up to its alignment. */
static double allocatedBytes(const MemoptBufferInfo *info) {
  uint64_t alignment = info->alignment ? info->alignment : 1;
  return (double)((info->bytes + alignment - 1) / alignment * alignment);
}

bool memoptPlaceProgramMemoryCompute(MlirOperation func, size_t dataArguments, double irBatch,
                                     MemoptPlaceProgramMemory *memory, MemoptStringBuffer *error) {
  memset(memory, 0, sizeof *memory);
  MemoptMemoryProfile *profile = memoptMemoryProfileCreate(func, false, error);
  if (!profile)
    return false;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  BatchMap batch = memoptPointerMapCreate();
  MemoptPointerMap indexOf = memoptPointerMapCreate();
  size_t count = 0;
  for (intptr_t a = 0; a < mlirBlockGetNumArguments(body); ++a) {
    MlirValue argument = mlirBlockGetArgument(body, a);
    uint64_t bytes;
    if ((size_t)a >= dataArguments ||
        !memoptTypeGetStaticByteSize(mlirValueGetType(argument), &bytes))
      continue;
    memory->dataBytesPerSample += (double)bytes / irBatch;
    if (rankOf(argument) > 0)
      memoptPointerMapInsert(&batch, argument.ptr, 0);
  }
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    memoptPointerMapInsert(&indexOf, op.ptr, count++);
    followBatch(op, &batch);
  }
  memory->opCount = count;
  memory->perSampleBytes = memoptAllocateZeroed(count + 1, sizeof *memory->perSampleBytes);
  memory->fixedBytes = memoptAllocateZeroed(count + 1, sizeof *memory->fixedBytes);
  size_t positions = memoptMemoryProfileGetNumPositions(profile);
  size_t *opAt = memoptAllocateZeroed(positions + 1, sizeof *opAt);
  for (size_t p = 0; p < positions; ++p)
    opAt[p] = memoptPointerMapLookup(&indexOf, memoptMemoryProfileGetPositionOp(profile, p).ptr);
  for (size_t b = 0; b < memoptMemoryProfileGetNumBuffers(profile); ++b) {
    MemoptBufferInfo info = memoptMemoryProfileGetBuffer(profile, b);
    MlirOperation owner = memoptOperationAncestorInBlock(info.op, body);
    bool perSample =
        bufferCarriesBatch(info.value, &batch, initChainDepth) ||
        (info.nested && !mlirOperationIsNull(owner) && mlirOperationGetNumResults(owner) > 0 &&
         batchDimOf(&batch, mlirOperationGetResult(owner, 0)) >= 0);
    double bytes = allocatedBytes(&info);
    double *into = perSample ? memory->perSampleBytes : memory->fixedBytes;
    for (size_t p = info.firstPosition; p <= info.lastPosition && p < positions; ++p)
      if (opAt[p] != MEMOPT_NO_INDEX)
        into[opAt[p]] += perSample ? bytes / irBatch : bytes;
  }
  free(opAt);
  memoptPointerMapDestroy(&indexOf);
  memoptPointerMapDestroy(&batch);
  memoptMemoryProfileDestroy(profile);
  return true;
}

double memoptPlaceProgramMemoryPeak(const MemoptPlaceProgramMemory *memory, size_t first,
                                    size_t end, double microbatch) {
  double peak = 0;
  for (size_t i = first; i < end && i < memory->opCount; ++i) {
    double held = memory->perSampleBytes[i] * microbatch + memory->fixedBytes[i];
    peak = held > peak ? held : peak;
  }
  return peak + memory->dataBytesPerSample * microbatch;
}

void memoptPlaceProgramMemoryDestroy(MemoptPlaceProgramMemory *memory) {
  free(memory->perSampleBytes);
  free(memory->fixedBytes);
}

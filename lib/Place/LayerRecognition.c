/* Layer recognition: a transformer written out layer by layer repeats the
 * same op sequence once per layer, with only the weights changing. Each
 * top-level op gets a signature (its name and its operand and result types,
 * which MLIR uniques, so pointers compare them); the layers are the longest
 * run of consecutive equal windows of signatures. */
#include "Analysis/BufferizationModel.h"
#include "Place/Place.h"
#include "IR/IR.h"

#include "mlir-c/BuiltinTypes.h"

#include <stdlib.h>

static uint64_t mix(uint64_t hash, const void *pointer) {
  hash ^= (uint64_t)(uintptr_t)pointer;
  hash *= UINT64_C(0x100000001B3);
  return hash ^ (hash >> 29);
}

static uint64_t signatureOf(MlirOperation op) {
  uint64_t hash = mix(UINT64_C(0xCBF29CE484222325), mlirOperationGetName(op).ptr);
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i)
    hash = mix(hash, mlirValueGetType(mlirOperationGetOperand(op, i)).ptr);
  hash = mix(hash, (const void *)(uintptr_t)0x5EED);
  for (intptr_t i = 0; i < mlirOperationGetNumResults(op); ++i)
    hash = mix(hash, mlirValueGetType(mlirOperationGetResult(op, i)).ptr);
  return hash;
}

/* crossing[b], for every boundary b in [0, count]: the tensors defined
 * before position b and used at or after it, the values a cut there sends
 * from one layer to the next. A value defined at d whose last use (by the
 * op of the block that holds it) is at u crosses the boundaries (d, u]: one
 * pass over the uses and a prefix sum. The caller frees the array. */
static size_t *valuesCrossing(MlirOperation *ops, size_t count, MlirBlock block,
                              const MemoptPointerMap *position) {
  size_t *crossing = memoptAllocateZeroed(count + 1, sizeof *crossing);
  /* Differences: crossing[b] - crossing[b - 1] is starts[b] - ends[b]. */
  size_t *starts = memoptAllocateZeroed(count + 1, sizeof *starts);
  size_t *ends = memoptAllocateZeroed(count + 1, sizeof *ends);
  for (size_t i = 0; i < count; ++i)
    for (intptr_t r = 0; r < mlirOperationGetNumResults(ops[i]); ++r) {
      MlirValue value = mlirOperationGetResult(ops[i], r);
      if (!mlirTypeIsARankedTensor(mlirValueGetType(value)))
        continue;
      size_t last = i;
      for (MlirOpOperand use = mlirValueGetFirstUse(value); !mlirOpOperandIsNull(use);
           use = mlirOpOperandGetNextUse(use)) {
        MlirOperation user = memoptOperationAncestorInBlock(mlirOpOperandGetOwner(use), block);
        size_t at = mlirOperationIsNull(user) ? MEMOPT_NO_INDEX
                                              : memoptPointerMapLookup(position, user.ptr);
        if (at != MEMOPT_NO_INDEX && at > last)
          last = at;
      }
      if (last > i) {
        ++starts[i + 1];
        ++ends[last + 1];
      }
    }
  size_t open = 0;
  for (size_t b = 0; b <= count; ++b) {
    open = open + starts[b] - ends[b];
    crossing[b] = open;
  }
  free(ends);
  free(starts);
  return crossing;
}

/* Scalar constants are materialized wherever the printer or builder put
 * them (often once, in the first layer, for all layers): they are not part
 * of a layer's signature. */
static bool isScalarConstant(MlirOperation op) {
  return memoptOperationIsA(op, "arith.constant") &&
         !mlirTypeIsARankedTensor(mlirValueGetType(mlirOperationGetResult(op, 0)));
}

bool memoptFindLayerRun(const uint64_t *signatures, size_t count, MemoptLayerRun *run) {
  *run = (MemoptLayerRun){0, 0, count, 1};
  if (count < 2)
    return false;
  /* Common extensions forwards, and backwards through the reversed
   * sequence: the suffixes of the reversal at count - j and count - j - p
   * are the prefixes [0, j) and [0, j + p) read from their end. */
  uint64_t *reversed = memoptAllocateZeroed(count, sizeof *reversed);
  for (size_t i = 0; i < count; ++i)
    reversed[i] = signatures[count - 1 - i];
  MemoptCommonExtension forward = memoptCommonExtensionCreate(signatures, count);
  MemoptCommonExtension backward = memoptCommonExtensionCreate(reversed, count);
  free(reversed);
  /* For a period p, the positions i with signatures[i] == signatures[i + p]
   * form maximal stretches [a, b); signatures [a, b + p) then repeat with
   * period p, (b - a + p) / p whole times. A stretch of at least p positions
   * (two windows or more) holds a multiple of p, j: extending from j and
   * j + p backwards and forwards finds it, from n / p starting points per
   * period, n log n in all. Stretches are met in order, so ties go as a scan
   * of every period and position would break them: the most signatures
   * covered, then the shortest period, then the earliest run. */
  size_t bestCoverage = 0;
  for (size_t p = 1; 2 * p <= count; ++p) {
    size_t seen = 0; /* the end of the last stretch found */
    for (size_t j = 0; j + p < count; j += p) {
      if (j < seen || signatures[j] != signatures[j + p])
        continue;
      size_t ahead = memoptCommonExtensionQuery(&forward, j, j + p);
      size_t behind = j ? memoptCommonExtensionQuery(&backward, count - j, count - j - p) : 0;
      size_t length = behind + ahead + p, repeats = length / p;
      if (repeats >= 2 && repeats * p > bestCoverage) {
        bestCoverage = repeats * p;
        *run = (MemoptLayerRun){j - behind, length, p, repeats};
      }
      seen = j + ahead;
    }
  }
  memoptCommonExtensionDestroy(&backward);
  memoptCommonExtensionDestroy(&forward);
  /* A repetition inside one layer (the same rotary embedding applied to
   * queries and keys) is not the layer structure: layers make up most of a
   * model, so a run covering less than half of the body is ignored. */
  if (2 * bestCoverage < count) {
    *run = (MemoptLayerRun){0, 0, count, 1};
    return false;
  }
  return true;
}

bool memoptLayerRecognize(MlirOperation func, MemoptLayerStructure *structure) {
  MlirBlock block = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  if (mlirBlockIsNull(block))
    return false;
  size_t count = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    ++count;
  /* The terminator is not part of any layer. */
  size_t numOps = count ? count - 1 : 0;
  MlirOperation *ops = memoptAllocateZeroed(count, sizeof *ops);
  uint64_t *signatures = memoptAllocateZeroed(count, sizeof *signatures);
  size_t *opIndex = memoptAllocateZeroed(count, sizeof *opIndex); /* signature -> op */
  MemoptPointerMap position = memoptPointerMapCreate();
  size_t index = 0, numSignatures = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op), ++index) {
    ops[index] = op;
    memoptPointerMapInsert(&position, op.ptr, index);
    if (index < numOps && !isScalarConstant(op)) {
      signatures[numSignatures] = signatureOf(op);
      opIndex[numSignatures++] = index;
    }
  }
  opIndex[numSignatures] = numOps;

  MemoptLayerRun run;
  bool found = memoptFindLayerRun(signatures, numSignatures, &run);
  size_t first = 0;
  if (found) {
    /* Any shift of the window within the run repeats as well: cut where the
     * fewest tensors cross from one layer to the next. */
    size_t *crossing = valuesCrossing(ops, count, block, &position);
    size_t slack = run.length - run.repeats * run.period, fewest = (size_t)-1;
    for (size_t start = run.start; start <= run.start + slack; ++start)
      if (crossing[opIndex[start + run.period]] < fewest) {
        fewest = crossing[opIndex[start + run.period]];
        first = start;
      }
    free(crossing);
  }
  structure->numOps = numOps;
  structure->count = run.repeats;
  structure->bounds = memoptAllocateZeroed(run.repeats + 1, sizeof *structure->bounds);
  if (found)
    for (size_t i = 0; i <= run.repeats; ++i)
      structure->bounds[i] = opIndex[first + i * run.period];
  else {
    structure->bounds[0] = 0;
    structure->bounds[1] = numOps;
  }
  memoptPointerMapDestroy(&position);
  free(opIndex);
  free(signatures);
  free(ops);
  return true;
}

void memoptLayerStructureDestroy(MemoptLayerStructure *structure) {
  free(structure->bounds);
  structure->bounds = NULL;
}

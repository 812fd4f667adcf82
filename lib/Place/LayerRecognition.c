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

/* Tensors defined before position `boundary` and used at or after it: the
 * values a cut there sends from one layer to the next. */
static size_t valuesCrossing(MlirOperation *ops, size_t boundary, MlirBlock block,
                             const MemoptPointerMap *position) {
  size_t crossing = 0;
  for (size_t i = 0; i < boundary; ++i)
    for (intptr_t r = 0; r < mlirOperationGetNumResults(ops[i]); ++r) {
      MlirValue value = mlirOperationGetResult(ops[i], r);
      if (!mlirTypeIsARankedTensor(mlirValueGetType(value)))
        continue;
      for (MlirOpOperand use = mlirValueGetFirstUse(value); !mlirOpOperandIsNull(use);
           use = mlirOpOperandGetNextUse(use)) {
        MlirOperation user = memoptOperationAncestorInBlock(mlirOpOperandGetOwner(use), block);
        size_t at = mlirOperationIsNull(user) ? MEMOPT_NO_INDEX
                                              : memoptPointerMapLookup(position, user.ptr);
        if (at != MEMOPT_NO_INDEX && at >= boundary) {
          ++crossing;
          break;
        }
      }
    }
  return crossing;
}

/* Scalar constants are materialized wherever the printer or builder put
 * them (often once, in the first layer, for all layers): they are not part
 * of a layer's signature. */
static bool isScalarConstant(MlirOperation op) {
  return memoptOperationIsA(op, "arith.constant") &&
         !mlirTypeIsARankedTensor(mlirValueGetType(mlirOperationGetResult(op, 0)));
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

  size_t bestCoverage = 0, runStart = 0, runLength = 0, period = numSignatures, repeats = 1;
  for (size_t p = 1; 2 * p <= numSignatures; ++p) {
    size_t run = 0;
    for (size_t i = 0; i + p <= numSignatures; ++i) {
      if (i + p < numSignatures && signatures[i] == signatures[i + p]) {
        ++run;
        continue;
      }
      /* Signatures [i - run, i + p) repeat with period p. */
      size_t k = (run + p) / p;
      if (k >= 2 && k * p > bestCoverage) {
        bestCoverage = k * p;
        runStart = i - run;
        runLength = run + p;
        period = p;
        repeats = k;
      }
      run = 0;
    }
  }
  /* A repetition inside one layer (the same rotary embedding applied to
   * queries and keys) is not the layer structure: layers make up most of a
   * model, so a run covering less than half of the body is ignored. */
  if (2 * bestCoverage < numSignatures) {
    bestCoverage = 0;
    period = numSignatures;
    repeats = 1;
  }
  size_t first = 0;
  if (bestCoverage) {
    /* Any shift of the window within the run repeats as well: cut where the
     * fewest tensors cross from one layer to the next. */
    size_t slack = runLength - repeats * period, fewest = (size_t)-1;
    for (size_t start = runStart; start <= runStart + slack; ++start) {
      size_t crossing = valuesCrossing(ops, opIndex[start + period], block, &position);
      if (crossing < fewest) {
        fewest = crossing;
        first = start;
      }
    }
  }
  structure->numOps = numOps;
  structure->count = repeats;
  structure->bounds = memoptAllocateZeroed(repeats + 1, sizeof *structure->bounds);
  if (bestCoverage)
    for (size_t i = 0; i <= repeats; ++i)
      structure->bounds[i] = opIndex[first + i * period];
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

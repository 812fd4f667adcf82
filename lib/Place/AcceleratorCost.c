/* Operator cost on an accelerator configuration (PHAZE's tensor cores,
 * vector cores and global buffer).
 *
 * A contraction (matmul, batch matmul, a linalg.generic that multiplies two
 * inputs and accumulates over reduction dimensions) runs on the tensor
 * cores: its dimensions are batch B (parallel, in both inputs), M (parallel,
 * only in the first), N (parallel, only in the second) and K (reduction).
 * Each systolic array holds a depth x width tile of the K x N operand
 * (weight-stationary): loading it takes `depth` cycles, streaming the M rows
 * through and draining takes M + width - 1. The B * ceil(K/depth) *
 * ceil(N/width) tiles are spread over the tensor cores.
 *
 * Every other linalg op runs on the vector cores: one cycle per arithmetic
 * op of its body per element of its iteration domain, over
 * vectorCores * vectorWidth lanes (copies count one op per element).
 * Views (reshapes, slices), tensor.empty and scalar ops are free.
 *
 * Off-chip traffic is the bytes of operands and results; when they exceed
 * the on-chip buffer, the smaller input is read again for every
 * buffer-sized part of the rest. The op takes the longer of compute and
 * traffic (a roofline). */
#include "Analysis/BufferizationModel.h"
#include "IR/IR.h"
#include "Place/Place.h"

#include "mlir-c/AffineExpr.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_LOOPS = 16 };

static bool hasPrefix(MlirStringRef text, const char *prefix) {
  size_t length = strlen(prefix);
  return text.length >= length && memcmp(text.data, prefix, length) == 0;
}

static MlirStringRef nameOf(MlirOperation op) {
  return mlirIdentifierStr(mlirOperationGetName(op));
}

/* Elements of a static ranked tensor; -1 when not one. */
static double elementsOf(MlirType type) {
  if (!mlirTypeIsARankedTensor(type) || !mlirShapedTypeHasStaticShape(type))
    return -1;
  double elements = 1;
  for (intptr_t d = 0; d < mlirShapedTypeGetRank(type); ++d)
    elements *= (double)mlirShapedTypeGetDimSize(type, d);
  return elements;
}

/* Ops that only reinterpret or select existing data. */
static bool isView(MlirOperation op) {
  static const char *const views[] = {"tensor.expand_shape",  "tensor.collapse_shape",
                                      "tensor.extract_slice", "tensor.reshape",
                                      "tensor.cast",          "tensor.empty",
                                      "tensor.dim",           "bufferization.to_tensor"};
  for (size_t i = 0; i < sizeof views / sizeof *views; ++i)
    if (memoptOperationIsA(op, views[i]))
      return true;
  return false;
}

/* True when `value` is (a view of) a function argument at index >= dataArguments or a constant. */
static bool isParameter(MlirValue value, size_t dataArguments) {
  while (mlirValueIsAOpResult(value)) {
    MlirOperation owner = mlirOpResultGetOwner(value);
    if (memoptOperationIsA(owner, "arith.constant"))
      return true;
    if (!isView(owner) || mlirOperationGetNumOperands(owner) == 0)
      return false;
    value = mlirOperationGetOperand(owner, 0);
  }
  MlirOperation parent = mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(value));
  return memoptOperationIsA(parent, "func.func") &&
         (size_t)mlirBlockArgumentGetArgNumber(value) >= dataArguments;
}

/* The loop nest of a linalg op: extents and which loops are reductions,
 * from its indexing maps (named matmuls without explicit maps get the
 * default ones). Returns the number of loops, 0 when unknown. */
typedef struct LoopNest {
  intptr_t loops;
  double extent[MAX_LOOPS];
  bool reduction[MAX_LOOPS];
  /* Loops each input (first two) and the output index. */
  bool inInput[2][MAX_LOOPS];
  intptr_t inputs;
} LoopNest;

static bool nestFromMaps(MlirOperation op, MlirAttribute maps, LoopNest *nest) {
  intptr_t numMaps = mlirArrayAttrGetNumElements(maps);
  intptr_t numOperands = mlirOperationGetNumOperands(op);
  intptr_t numResults = mlirOperationGetNumResults(op);
  if (numMaps != numOperands || numMaps == 0 || numResults == 0 || numResults > numMaps)
    return false;
  MlirAffineMap first = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, 0));
  nest->loops = mlirAffineMapGetNumDims(first);
  if (nest->loops > MAX_LOOPS)
    return false;
  nest->inputs = numOperands - numResults;
  bool inOutput[MAX_LOOPS] = {false};
  for (intptr_t l = 0; l < nest->loops; ++l)
    nest->extent[l] = -1;
  memset(nest->inInput, 0, sizeof nest->inInput);
  for (intptr_t m = 0; m < numMaps; ++m) {
    MlirAffineMap map = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, m));
    MlirType type = mlirValueGetType(mlirOperationGetOperand(op, m));
    if (!mlirTypeIsARankedTensor(type) || mlirAffineMapGetNumDims(map) != nest->loops)
      return false;
    for (intptr_t r = 0; r < mlirAffineMapGetNumResults(map); ++r) {
      MlirAffineExpr expr = mlirAffineMapGetResult(map, r);
      if (!mlirAffineExprIsADim(expr))
        continue;
      intptr_t loop = mlirAffineDimExprGetPosition(expr);
      int64_t size = mlirShapedTypeGetDimSize(type, r);
      if (mlirShapedTypeIsDynamicSize(size))
        return false;
      nest->extent[loop] = (double)size;
      if (m >= numOperands - numResults)
        inOutput[loop] = true;
      else if (m < 2)
        nest->inInput[m][loop] = true;
    }
  }
  for (intptr_t l = 0; l < nest->loops; ++l) {
    if (nest->extent[l] < 0)
      return false;
    nest->reduction[l] = !inOutput[l];
  }
  return true;
}

/* Default maps of the named matmuls: (m, n, k) and (b, m, n, k). */
static bool nestOfNamedMatmul(MlirOperation op, LoopNest *nest) {
  bool batched = memoptOperationIsA(op, "linalg.batch_matmul");
  if (!batched && !memoptOperationIsA(op, "linalg.matmul"))
    return false;
  MlirType lhs = mlirValueGetType(mlirOperationGetOperand(op, 0));
  MlirType out = mlirValueGetType(mlirOperationGetResult(op, 0));
  if (elementsOf(lhs) < 0 || elementsOf(out) < 0)
    return false;
  intptr_t rank = mlirShapedTypeGetRank(out);
  memset(nest, 0, sizeof *nest);
  nest->inputs = 2;
  nest->loops = rank + 1;
  for (intptr_t d = 0; d < rank; ++d)
    nest->extent[d] = (double)mlirShapedTypeGetDimSize(out, d);
  nest->extent[rank] = (double)mlirShapedTypeGetDimSize(lhs, rank - 1);
  nest->reduction[rank] = true;
  intptr_t m = rank - 2, n = rank - 1, k = rank;
  nest->inInput[0][m] = nest->inInput[0][k] = true;
  nest->inInput[1][n] = nest->inInput[1][k] = true;
  if (batched)
    nest->inInput[0][0] = nest->inInput[1][0] = true;
  return true;
}

/* Arithmetic ops per element in a linalg body (at least one: a copy). */
static double bodyOps(MlirOperation op, bool *multiplies, bool *accumulates) {
  *multiplies = *accumulates = false;
  if (mlirOperationGetNumRegions(op) == 0)
    return 1;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  double count = 0;
  for (MlirOperation inner = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(inner);
       inner = mlirOperationGetNextInBlock(inner)) {
    if (memoptOperationIsA(inner, "linalg.yield") || memoptOperationIsA(inner, "linalg.index") ||
        memoptOperationIsA(inner, "arith.index_cast") ||
        memoptOperationIsA(inner, "arith.constant"))
      continue;
    if (memoptOperationIsA(inner, "arith.mulf") || memoptOperationIsA(inner, "arith.muli"))
      *multiplies = true;
    if (memoptOperationIsA(inner, "arith.addf") || memoptOperationIsA(inner, "arith.addi"))
      *accumulates = true;
    count += 1;
  }
  return count > 0 ? count : 1;
}

static double operandBytes(MlirOperation op, const MemoptAcceleratorConfig *config,
                           size_t dataArguments, double scale, double *smallestInput) {
  double bytes = 0;
  *smallestInput = -1;
  intptr_t numInputs = mlirOperationGetNumOperands(op) - mlirOperationGetNumResults(op);
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i) {
    MlirValue operand = mlirOperationGetOperand(op, i);
    double elements = elementsOf(mlirValueGetType(operand));
    if (elements < 0)
      continue;
    /* Parameters do not grow with the batch; activations do. */
    double operandScale = isParameter(operand, dataArguments) ? 1 : scale;
    double size = elements * operandScale * (double)config->bytesPerElement;
    if (i < numInputs && (*smallestInput < 0 || size < *smallestInput))
      *smallestInput = size;
    bytes += size;
  }
  /* Results of destination-style ops reuse their init operand's buffer. */
  if (!hasPrefix(nameOf(op), "linalg."))
    for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r) {
      double elements = elementsOf(mlirValueGetType(mlirOperationGetResult(op, r)));
      if (elements > 0)
        bytes += elements * scale * (double)config->bytesPerElement;
    }
  return bytes;
}

static void finish(MlirOperation op, const MemoptAcceleratorConfig *config, size_t dataArguments,
                   double scale, MemoptOpCost *cost) {
  double smallestInput;
  double bytes = operandBytes(op, config, dataArguments, scale, &smallestInput);
  if (bytes > (double)config->bufferBytes && smallestInput > 0)
    bytes += smallestInput * (ceil(bytes / (double)config->bufferBytes) - 1);
  cost->memoryBytes = bytes;
  cost->seconds = fmax(cost->cycles / config->frequencyHz, bytes / config->memoryBandwidth);
}

static void tensorCost(MlirOperation op, const LoopNest *nest,
                       const MemoptAcceleratorConfig *config, size_t dataArguments, double scale,
                       bool weightOperand, MemoptOpCost *cost) {
  double b = 1, m = 1, n = 1, k = 1;
  for (intptr_t l = 0; l < nest->loops; ++l) {
    if (nest->reduction[l])
      k *= nest->extent[l];
    else if (nest->inInput[0][l] && nest->inInput[1][l])
      b *= nest->extent[l];
    else if (nest->inInput[1][l])
      n *= nest->extent[l];
    else
      m *= nest->extent[l];
  }
  /* Against a weight, the batch joins the rows (M); between two activations
   * (attention) it multiplies the batch of independent products. */
  if (weightOperand || b == 1)
    m = ceil(m * scale);
  else
    b = ceil(b * scale);
  double tiles = b * ceil(k / (double)config->depth) * ceil(n / (double)config->width);
  double rounds = ceil(tiles / (double)config->tensorCores);
  cost->unit = MemoptOpUnitTensor;
  cost->flops = 2 * b * m * n * k;
  cost->cycles = rounds * ((double)config->depth + m + (double)config->width - 1);
  finish(op, config, dataArguments, scale, cost);
}

static void vectorCost(MlirOperation op, double elements, double opsPerElement,
                       const MemoptAcceleratorConfig *config, size_t dataArguments, double scale,
                       MemoptOpCost *cost) {
  double work = ceil(elements * scale) * opsPerElement;
  cost->unit = MemoptOpUnitVector;
  cost->flops = work;
  cost->cycles = ceil(work / (double)(config->vectorCores * config->vectorWidth));
  finish(op, config, dataArguments, scale, cost);
}

/* Elements of the largest static tensor result (the work of a data-moving op). */
static double largestResult(MlirOperation op) {
  double largest = 0;
  for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r)
    largest = fmax(largest, elementsOf(mlirValueGetType(mlirOperationGetResult(op, r))));
  return largest;
}

bool memoptOpCostEstimate(MlirOperation op, const MemoptAcceleratorConfig *config,
                          size_t dataArguments, double batchScale, MemoptOpCost *cost,
                          MemoptStringBuffer *reason) {
  *cost = (MemoptOpCost){MemoptOpUnitNone, 0, 0, 0, 0};
  MlirStringRef name = nameOf(op);
  bool anyTensorResult = false;
  for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r)
    anyTensorResult |= mlirTypeIsARankedTensor(mlirValueGetType(mlirOperationGetResult(op, r)));
  if (isView(op) || !anyTensorResult || memoptOperationIsA(op, "arith.constant"))
    return true;
  if (largestResult(op) < 0 || mlirOperationGetNumResults(op) == 0 ||
      elementsOf(mlirValueGetType(mlirOperationGetResult(op, 0))) < 0) {
    memoptStringBufferAppendFormat(reason, "'%.*s' has a result of dynamic shape", (int)name.length,
                                   name.data);
    return false;
  }
  LoopNest nest;
  bool haveNest = false;
  if (hasPrefix(name, "linalg.")) {
    MlirAttribute maps =
        mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("indexing_maps"));
    haveNest = !mlirAttributeIsNull(maps) && mlirAttributeIsAArray(maps)
                   ? nestFromMaps(op, maps, &nest)
                   : nestOfNamedMatmul(op, &nest);
  }
  bool multiplies, accumulates;
  double perElement = bodyOps(op, &multiplies, &accumulates);
  if (haveNest) {
    bool reduces = false, onlyInFirst = false, onlyInSecond = false;
    for (intptr_t l = 0; l < nest.loops; ++l) {
      reduces |= nest.reduction[l];
      onlyInFirst |= nest.inInput[0][l] && !nest.inInput[1][l] && !nest.reduction[l];
      onlyInSecond |= nest.inInput[1][l] && !nest.inInput[0][l] && !nest.reduction[l];
    }
    bool named =
        memoptOperationIsA(op, "linalg.matmul") || memoptOperationIsA(op, "linalg.batch_matmul");
    bool contraction = nest.inputs == 2 && reduces && (onlyInFirst || onlyInSecond) &&
                       (named || (multiplies && accumulates));
    if (contraction) {
      bool weight = isParameter(mlirOperationGetOperand(op, 0), dataArguments) ||
                    isParameter(mlirOperationGetOperand(op, 1), dataArguments);
      tensorCost(op, &nest, config, dataArguments, batchScale, weight, cost);
      return true;
    }
    double domain = 1;
    for (intptr_t l = 0; l < nest.loops; ++l)
      domain *= nest.extent[l];
    vectorCost(op, domain, perElement, config, dataArguments, batchScale, cost);
    return true;
  }
  /* Ops without a loop nest (fill, transpose, pad, concat, TOSA, ...): their
   * body's work, or a copy, per result element. */
  vectorCost(op, largestResult(op), perElement, config, dataArguments, batchScale, cost);
  return true;
}

bool memoptSegmentCostEstimate(MlirOperation func, size_t first, size_t count, size_t dataArguments,
                               const MemoptAcceleratorConfig *config, double batchScale,
                               MemoptSegmentCost *cost, MemoptStringBuffer *reason) {
  memset(cost, 0, sizeof *cost);
  MlirBlock block = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  MemoptPointerMap seen = memoptPointerMapCreate();   /* values counted once */
  MemoptPointerMap inside = memoptPointerMapCreate(); /* ops of the segment */
  MlirOperation op = mlirBlockGetFirstOperation(block);
  for (size_t i = 0; i < first && !mlirOperationIsNull(op); ++i)
    op = mlirOperationGetNextInBlock(op);
  bool ok = true;
  for (size_t i = 0; i < count && !mlirOperationIsNull(op) && ok;
       ++i, op = mlirOperationGetNextInBlock(op)) {
    memoptPointerMapInsert(&inside, op.ptr, i);
    MemoptOpCost opCost;
    if (!memoptOpCostEstimate(op, config, dataArguments, batchScale, &opCost, reason)) {
      ok = false;
      break;
    }
    cost->forwardSeconds += opCost.seconds;
    cost->flops += opCost.flops;
    cost->tensorOps += opCost.unit == MemoptOpUnitTensor;
    cost->vectorOps += opCost.unit == MemoptOpUnitVector;
    if (opCost.unit != MemoptOpUnitNone)
      for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r)
        cost->activationElements +=
            fmax(0, elementsOf(mlirValueGetType(mlirOperationGetResult(op, r))));
    for (intptr_t o = 0; o < mlirOperationGetNumOperands(op); ++o) {
      MlirValue operand = mlirOperationGetOperand(op, o);
      double elements = elementsOf(mlirValueGetType(operand));
      if (elements < 0 || memoptPointerMapLookup(&seen, operand.ptr) != MEMOPT_NO_INDEX)
        continue;
      if (mlirValueIsABlockArgument(operand)) {
        MlirOperation parent = mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(operand));
        if (!mlirOperationEqual(parent, func))
          continue;
        memoptPointerMapInsert(&seen, operand.ptr, 0);
        if ((size_t)mlirBlockArgumentGetArgNumber(operand) >= dataArguments)
          cost->parameterElements += elements;
        else
          cost->boundaryElements += elements;
      } else if (memoptPointerMapLookup(&inside, mlirOpResultGetOwner(operand).ptr) ==
                 MEMOPT_NO_INDEX) {
        MlirOperation owner = mlirOpResultGetOwner(operand);
        memoptPointerMapInsert(&seen, operand.ptr, 0);
        if (memoptOperationIsA(owner, "arith.constant"))
          cost->parameterElements += elements;
        else if (mlirBlockEqual(mlirOperationGetBlock(owner), block))
          cost->boundaryElements += elements;
      }
    }
  }
  memoptPointerMapDestroy(&inside);
  memoptPointerMapDestroy(&seen);
  return ok;
}

double memoptAcceleratorArea(const MemoptAcceleratorConfig *config, const MemoptAreaModel *model) {
  double macs = (double)config->tensorCores * (double)config->width * (double)config->depth;
  double lanes = (double)config->vectorCores * (double)config->vectorWidth;
  double mib = (double)config->bufferBytes / (1024.0 * 1024.0);
  return macs * model->perMac + lanes * model->perVectorLane + mib * model->perBufferMiB;
}

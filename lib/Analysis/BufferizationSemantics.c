/* What one-shot bufferization does with each op, restated from the upstream
 * BufferizableOpInterface implementations (MLIR 22): which tensor operands
 * the op reads, which it writes, which result shares an operand's buffer,
 * which results are new buffers, which buffers are read-only.
 *
 * Arith and math ops on tensors have no bufferization in upstream MLIR; they
 * are modeled as convert-elementwise-to-linalg rewrites them (a
 * linalg.generic whose init is the first operand of the result's type, or a
 * new tensor.empty), the rewrite every pipeline that bufferizes them runs. */
#include "Analysis/BufferizationModel.h"
#include "IR/IR.h"

#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/Linalg.h"

#include <string.h>

static bool hasPrefix(MlirStringRef name, const char *prefix) {
  size_t length = strlen(prefix);
  return name.length >= length && memcmp(name.data, prefix, length) == 0;
}

static bool isTensorType(MlirType type) { return mlirTypeIsATensor(type); }

static bool hasTensorResult(MlirOperation op) {
  for (intptr_t i = 0; i < mlirOperationGetNumResults(op); ++i)
    if (isTensorType(mlirValueGetType(mlirOperationGetResult(op, i))))
      return true;
  return false;
}

static bool allOperandsAreRankedTensors(MlirOperation op) {
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i)
    if (!mlirTypeIsARankedTensor(mlirValueGetType(mlirOperationGetOperand(op, i))))
      return false;
  return mlirOperationGetNumOperands(op) > 0;
}

/* Linalg structured ops (generic, named ops, map, reduce, transpose, ...) are
 * the linalg ops that carry a payload region. */
static bool isLinalgStructured(const IrOp *op) {
  return hasPrefix(op->name, "linalg.") && mlirOperationGetNumRegions(op->op) == 1;
}

static IrOpClass classify(const IrOp *info);

bool memoptOperationIsView(MlirOperation op) {
  IrOp info = {.op = op, .name = mlirIdentifierStr(mlirOperationGetName(op))};
  return classify(&info) == IrOpView;
}

static IrOpClass classify(const IrOp *info) {
  MlirStringRef name = info->name;
  MlirOperation op = info->op;
  bool tensorResult = hasTensorResult(op);

  if (memoptNameIs(name, "tensor.empty") || memoptNameIs(name, "bufferization.alloc_tensor") ||
      memoptNameIs(name, "tensor.pad") || memoptNameIs(name, "tensor.concat") ||
      memoptNameIs(name, "tensor.generate") || memoptNameIs(name, "tensor.from_elements") ||
      memoptNameIs(name, "tensor.splat"))
    return IrOpAllocation;
  if (memoptNameIs(name, "tensor.extract_slice") || memoptNameIs(name, "tensor.expand_shape") ||
      memoptNameIs(name, "tensor.collapse_shape") || memoptNameIs(name, "tensor.cast") ||
      memoptNameIs(name, "tensor.bitcast") || memoptNameIs(name, "tensor.reshape"))
    return IrOpView;
  if (memoptNameIs(name, "tensor.insert_slice") || memoptNameIs(name, "tensor.insert") ||
      memoptNameIs(name, "linalg.softmax") ||
      memoptNameIs(name, "bufferization.materialize_in_destination") ||
      (memoptNameIs(name, "vector.transfer_write") && tensorResult))
    return IrOpDestination;
  if (isLinalgStructured(info) && tensorResult)
    return IrOpDestination;
  if (memoptNameIs(name, "arith.constant"))
    return tensorResult ? IrOpConstant : IrOpOther;
  if (memoptNameIs(name, "arith.select") && tensorResult)
    return mlirTypeIsATensor(mlirValueGetType(mlirOperationGetOperand(op, 0))) ? IrOpElementwise
                                                                             : IrOpSelect;
  if ((hasPrefix(name, "arith.") || hasPrefix(name, "math.")) && tensorResult)
    return allOperandsAreRankedTensors(op) ? IrOpElementwise : IrOpUnknown;
  if (memoptNameIs(name, "func.return"))
    return IrOpReturn;
  if (memoptNameIs(name, "func.call"))
    return IrOpCall;
  if (memoptNameIs(name, "scf.for"))
    return tensorResult ? IrOpFor : IrOpLoop;
  if (memoptNameIs(name, "scf.if") || memoptNameIs(name, "scf.index_switch"))
    return IrOpIf;
  if (memoptNameIs(name, "scf.yield"))
    return IrOpYield;
  if (memoptNameIs(name, "scf.while") || memoptNameIs(name, "scf.forall") ||
      memoptNameIs(name, "scf.parallel") || memoptNameIs(name, "affine.for") ||
      memoptNameIs(name, "affine.parallel"))
    return tensorResult ? IrOpUnknown : IrOpLoop;
  if (memoptNameIs(name, "bufferization.to_buffer"))
    return IrOpToBuffer;
  if (memoptNameIs(name, "bufferization.to_tensor"))
    return IrOpToTensor;
  if (memoptNameIs(name, "memref.alloc"))
    return IrOpMemRefAlloc;
  if (memoptNameIs(name, "memref.get_global"))
    return IrOpMemRefGlobal;
  if (memoptNameIs(name, "memref.subview") || memoptNameIs(name, "memref.expand_shape") ||
      memoptNameIs(name, "memref.collapse_shape") || memoptNameIs(name, "memref.cast") ||
      memoptNameIs(name, "memref.reinterpret_cast") || memoptNameIs(name, "memref.view") ||
      memoptNameIs(name, "memref.transpose") || memoptNameIs(name, "memref.reshape") ||
      memoptNameIs(name, "memref.memory_space_cast") ||
      memoptNameIs(name, "memref.assume_alignment"))
    return IrOpMemRefView;
  if (tensorResult)
    return IrOpUnknown;
  return IrOpOther;
}

/* Number of DPS inputs of a linalg structured op: the first operand segment
 * (inputs, inits); without segments, every tensor result has one init. */
static size_t linalgNumInputs(MlirOperation op) {
  MlirAttribute segments =
      mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("operandSegmentSizes"));
  if (!mlirAttributeIsNull(segments) && mlirAttributeIsADenseI32Array(segments) &&
      mlirDenseArrayGetNumElements(segments) == 2)
    return (size_t)mlirDenseI32ArrayGetElement(segments, 0);
  return (size_t)(mlirOperationGetNumOperands(op) - mlirOperationGetNumResults(op));
}

/* linalg's payloadUsesValueFromOperand: the payload block argument of
 * operand `number` has uses. */
static bool linalgPayloadUses(MlirOperation op, size_t number) {
  MlirBlock payload = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  if (mlirBlockIsNull(payload) || (intptr_t)number >= mlirBlockGetNumArguments(payload))
    return false;
  return !mlirOpOperandIsNull(mlirValueGetFirstUse(mlirBlockGetArgument(payload, (intptr_t)number)));
}

static IrOperandSemantics readOnly(void) {
  return (IrOperandSemantics){.read = true, .aliasResult = MEMOPT_NO_INDEX};
}

static IrOperandSemantics untouched(void) {
  return (IrOperandSemantics){.aliasResult = MEMOPT_NO_INDEX};
}

static IrOperandSemantics writtenInto(size_t result, bool read) {
  return (IrOperandSemantics){
      .read = read, .write = true, .aliasResult = result, .equivalent = true, .definite = true};
}

/* The first operand of the same type as result 0, which
 * convert-elementwise-to-linalg uses as the init; MEMOPT_NO_INDEX when none. */
static size_t elementwiseInit(MlirOperation op) {
  MlirType resultType = mlirValueGetType(mlirOperationGetResult(op, 0));
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i)
    if (mlirTypeEqual(mlirValueGetType(mlirOperationGetOperand(op, i)), resultType))
      return (size_t)i;
  return MEMOPT_NO_INDEX;
}

static IrOperandSemantics callOperand(const IrFunction *function, const IrOp *info, size_t number) {
  if (info->callee == MEMOPT_NO_INDEX)
    return (IrOperandSemantics){.read = true, .write = true, .aliasResult = MEMOPT_NO_INDEX};
  const IrCalleeSummary *callee = &function->callees[info->callee];
  IrOperandSemantics semantics = {.aliasResult = MEMOPT_NO_INDEX};
  if (number < callee->numArguments) {
    semantics.read = callee->argumentRead[number];
    semantics.write = callee->argumentWritten[number];
  }
  for (size_t r = 0; r < callee->numResults; ++r) {
    if (callee->resultAliasedArgument[r] != number)
      continue;
    semantics.aliasResult = r;
    semantics.equivalent = callee->resultEquivalentArgument[r] == number;
    semantics.definite = semantics.equivalent;
  }
  return semantics;
}

static IrOperandSemantics operandSemantics(const IrFunction *function, const IrOp *info,
                                           size_t number) {
  MlirOperation op = info->op;
  MlirStringRef name = info->name;
  switch (info->opClass) {
  case IrOpDestination:
    if (isLinalgStructured(info)) {
      size_t inputs = linalgNumInputs(op);
      if (number < inputs)
        return (IrOperandSemantics){.read = linalgPayloadUses(op, number),
                                    .aliasResult = MEMOPT_NO_INDEX};
      return writtenInto(number - inputs, linalgPayloadUses(op, number));
    }
    if (memoptNameIs(name, "linalg.softmax"))
      return number == 0 ? readOnly() : writtenInto(0, false);
    if (memoptNameIs(name, "bufferization.materialize_in_destination")) {
      if (number == 0)
        return readOnly();
      IrOperandSemantics dest = writtenInto(0, false);
      dest.mustInPlace = true;
      return dest;
    }
    /* tensor.insert_slice / tensor.insert / vector.transfer_write: operand 1
     * is the destination; the untouched part of it is read. */
    if (number == 1)
      return writtenInto(0, true);
    return readOnly();
  case IrOpElementwise: {
    size_t init = elementwiseInit(op);
    if (number == init)
      return writtenInto(0, true);
    return readOnly();
  }
  case IrOpAllocation:
    return readOnly();
  case IrOpView:
    if (number != 0)
      return readOnly(); /* tensor.reshape's shape operand */
    return (IrOperandSemantics){.aliasResult = 0,
                                .equivalent = !memoptNameIs(name, "tensor.extract_slice"),
                                .definite = true};
  case IrOpSelect:
    if (number == 0)
      return untouched();
    return (IrOperandSemantics){.aliasResult = 0, .equivalent = true};
  case IrOpReturn:
    return readOnly();
  case IrOpCall:
    return callOperand(function, info, number);
  case IrOpFor: {
    /* Operands: lower bound, upper bound, step, inits. */
    size_t firstInit = (size_t)(mlirOperationGetNumOperands(op) - mlirOperationGetNumResults(op));
    if (number < firstInit)
      return untouched();
    /* The loop itself only passes the init on; it is read when the body
     * reads the iter_arg (decided in the in-place analysis). Tensor
     * iter_args always count as written. */
    return (IrOperandSemantics){.write = true,
                                .aliasResult = number - firstInit,
                                .equivalent = true,
                                .definite = true};
  }
  case IrOpYield: {
    size_t parent = info->parent;
    if (parent != MEMOPT_NO_INDEX && function->ops[parent].opClass == IrOpIf) {
      IrOperandSemantics yield = {.read = true, .aliasResult = number, .equivalent = true};
      yield.mustInPlace = true;
      return yield;
    }
    IrOperandSemantics yield = readOnly();
    yield.mustInPlace = true;
    return yield;
  }
  case IrOpToBuffer: {
    bool readOnlyAttr = !mlirAttributeIsNull(
        mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("read_only")));
    return (IrOperandSemantics){.read = true, .write = !readOnlyAttr, .aliasResult = MEMOPT_NO_INDEX};
  }
  case IrOpUnknown:
    /* One-Shot's rule for ops without an interface: read and written. */
    return (IrOperandSemantics){.read = true, .write = true, .aliasResult = MEMOPT_NO_INDEX};
  case IrOpOther:
    if (memoptNameIs(name, "tensor.dim") || memoptNameIs(name, "tensor.rank"))
      return untouched();
    return readOnly();
  default:
    return untouched();
  }
}

void memoptBufferizationSemanticsCompute(IrFunction *function) {
  for (size_t op = 0; op < function->numOps; ++op)
    function->ops[op].opClass = classify(&function->ops[op]);
  /* scf.yield looks at its parent's class: classify everything first. */
  for (size_t i = 0; i < function->numOperands; ++i) {
    IrOperand *operand = &function->operands[i];
    if (operand->value == MEMOPT_NO_INDEX || !function->values[operand->value].isTensor) {
      operand->semantics = untouched();
      /* Memrefs: to_tensor's result aliases its operand. */
      continue;
    }
    operand->semantics = operandSemantics(function, &function->ops[operand->op], operand->number);
  }
  /* An scf.for init is read when the body reads its iter_arg: known once all
   * uses are indexed. */
  for (size_t op = 0; op < function->numOps; ++op) {
    IrOp *info = &function->ops[op];
    if (info->opClass != IrOpFor || info->numBlocks == 0)
      continue;
    const IrBlock *body = &function->blocks[info->firstBlock];
    size_t firstInit = info->numOperands - (size_t)mlirOperationGetNumResults(info->op);
    for (size_t k = firstInit; k < info->numOperands; ++k) {
      /* iter_args follow the induction variable. */
      MlirValue iterArg = mlirBlockGetArgument(body->block, (intptr_t)(k - firstInit + 1));
      size_t value = memoptIrFunctionLookupValue(function, iterArg);
      if (value != MEMOPT_NO_INDEX)
        function->operands[info->firstOperand + k].semantics.read =
            memoptValueIsRead(function, value);
    }
  }
}

bool memoptResultIsAllocation(const IrFunction *function, size_t op, size_t number) {
  const IrOp *info = &function->ops[op];
  (void)number; /* every result of these ops is allocated alike */
  switch (info->opClass) {
  case IrOpAllocation:
  case IrOpUnknown:
  case IrOpMemRefAlloc:
  case IrOpCall:
    return true;
  case IrOpElementwise:
    return elementwiseInit(info->op) == MEMOPT_NO_INDEX;
  default:
    return false;
  }
}

void memoptAliasingOperands(const IrFunction *function, size_t op, size_t number,
                            IrIndexList *out) {
  const IrOp *info = &function->ops[op];
  out->count = 0;
  for (size_t k = 0; k < info->numOperands; ++k) {
    const IrOperand *operand = &function->operands[info->firstOperand + k];
    if (operand->value != MEMOPT_NO_INDEX && operand->semantics.aliasResult == number &&
        info->opClass != IrOpYield)
      memoptIndexListPush(out, info->firstOperand + k);
  }
  /* scf.if results alias the yielded values of every branch. */
  if (info->opClass == IrOpIf) {
    for (size_t b = info->firstBlock; b < info->firstBlock + info->numBlocks; ++b) {
      const IrBlock *block = &function->blocks[b];
      if (!block->numOps)
        continue;
      size_t yield = memoptIrBlockOp(function, b, block->numOps - 1);
      const IrOp *yieldInfo = &function->ops[yield];
      if (yieldInfo->opClass == IrOpYield && number < yieldInfo->numOperands)
        memoptIndexListPush(out, yieldInfo->firstOperand + number);
    }
  }
}

bool memoptValueIsDefinition(const IrFunction *function, size_t value) {
  const IrValue *info = &function->values[value];
  if (info->definingOp == MEMOPT_NO_INDEX)
    return true;
  const IrOp *op = &function->ops[info->definingOp];
  if (memoptNameIs(op->name, "tensor.empty"))
    return false;
  if (memoptNameIs(op->name, "bufferization.alloc_tensor")) {
    /* Operand segments: dynamic sizes, copy, size hint. With a copy operand
     * the new buffer starts as a copy of it, which defines its contents. */
    MlirAttribute segments = mlirOperationGetAttributeByName(
        op->op, mlirStringRefCreateFromCString("operandSegmentSizes"));
    return !mlirAttributeIsNull(segments) && mlirAttributeIsADenseI32Array(segments) &&
           mlirDenseArrayGetNumElements(segments) > 1 &&
           mlirDenseI32ArrayGetElement(segments, 1) > 0;
  }
  IrIndexList aliases = {NULL, 0, 0};
  memoptAliasingOperands(function, info->definingOp, info->number, &aliases);
  bool definition = aliases.count == 0;
  if (op->opClass == IrOpIf) {
    /* A branch that yields a value written inside it defines the result. */
    for (size_t i = 0; i < aliases.count && !definition; ++i) {
      size_t yielded = function->operands[aliases.items[i]].value;
      size_t def = function->values[yielded].definingOp;
      definition = def != MEMOPT_NO_INDEX && def > info->definingOp && def < op->subtreeEnd &&
                   memoptValueIsDefinition(function, yielded);
    }
  } else {
    for (size_t i = 0; i < aliases.count && !definition; ++i)
      definition = function->operands[aliases.items[i]].semantics.write;
  }
  memoptIndexListDestroy(&aliases);
  return definition;
}

/* A function argument is writable unless marked `bufferization.writable =
 * false` (bufferize-function-boundaries makes the others writable). */
static bool argumentIsWritable(MlirOperation func, size_t number) {
  MlirAttribute writable = memoptFuncGetArgAttr(func, (intptr_t)number, "bufferization.writable");
  return mlirAttributeIsNull(writable) || !mlirAttributeIsABool(writable) ||
         mlirBoolAttrGetValue(writable);
}

bool memoptValueIsWritable(const IrFunction *function, size_t value) {
  const IrValue *info = &function->values[value];
  if (info->definingOp == MEMOPT_NO_INDEX) {
    if (function->blocks[info->block].owner == MEMOPT_NO_INDEX)
      return argumentIsWritable(function->func, info->number);
    return true; /* iter_args */
  }
  const IrOp *op = &function->ops[info->definingOp];
  switch (op->opClass) {
  case IrOpConstant:
  case IrOpUnknown:
    return false;
  case IrOpToTensor:
    return !mlirAttributeIsNull(
        mlirOperationGetAttributeByName(op->op, mlirStringRefCreateFromCString("writable")));
  default:
    return true;
  }
}

static bool mapIsIdentity(MlirAttribute maps, size_t index) {
  if (mlirAttributeIsNull(maps) || !mlirAttributeIsAArray(maps) ||
      (intptr_t)index >= mlirArrayAttrGetNumElements(maps))
    return false;
  MlirAttribute map = mlirArrayAttrGetElement(maps, (intptr_t)index);
  return mlirAttributeIsAAffineMap(map) && mlirAffineMapIsIdentity(mlirAffineMapAttrGetValue(map));
}

bool memoptOpIsElementwiseFor(const IrFunction *function, size_t op, size_t operandA,
                              size_t operandB) {
  const IrOp *info = &function->ops[op];
  if (info->opClass == IrOpElementwise)
    return true;
  if (info->opClass != IrOpDestination || !isLinalgStructured(info))
    return false;
  MlirAttribute maps = mlirLinalgGetIndexingMapsAttribute(info->op);
  size_t numberA = function->operands[operandA].number;
  size_t numberB = function->operands[operandB].number;
  if (!mapIsIdentity(maps, numberA) || !mapIsIdentity(maps, numberB))
    return false;
  /* All loops must be parallel. linalg.generic states it; a named op whose
   * tensor operands all have identity maps has only parallel loops. */
  MlirAttribute iterators =
      mlirOperationGetAttributeByName(info->op, mlirStringRefCreateFromCString("iterator_types"));
  if (!mlirAttributeIsNull(iterators) && mlirAttributeIsAArray(iterators)) {
    for (intptr_t i = 0; i < mlirArrayAttrGetNumElements(iterators); ++i)
      if (memoptLinalgIteratorKind(mlirArrayAttrGetElement(iterators, i)) !=
          MemoptIteratorParallel)
        return false;
    return true;
  }
  for (size_t k = 0; k < info->numOperands; ++k) {
    const IrOperand *operand = &function->operands[info->firstOperand + k];
    if (operand->value != MEMOPT_NO_INDEX && function->values[operand->value].isTensor &&
        !mapIsIdentity(maps, k))
      return false;
  }
  return true;
}

/* Same static and dynamic offsets, sizes and strides: compares the
 * attributes and the trailing dynamic operands from the given first ones. */
static bool sameSlice(MlirOperation a, intptr_t firstDynamicA, MlirOperation b,
                      intptr_t firstDynamicB) {
  static const char *const attributes[] = {"static_offsets", "static_sizes", "static_strides"};
  for (size_t i = 0; i < 3; ++i) {
    MlirStringRef name = mlirStringRefCreateFromCString(attributes[i]);
    if (!mlirAttributeEqual(mlirOperationGetAttributeByName(a, name),
                            mlirOperationGetAttributeByName(b, name)))
      return false;
  }
  intptr_t countA = mlirOperationGetNumOperands(a) - firstDynamicA;
  intptr_t countB = mlirOperationGetNumOperands(b) - firstDynamicB;
  if (countA != countB)
    return false;
  for (intptr_t i = 0; i < countA; ++i)
    if (!mlirValueEqual(mlirOperationGetOperand(a, firstDynamicA + i),
                        mlirOperationGetOperand(b, firstDynamicB + i)))
      return false;
  return true;
}

bool memoptIsMatchingSubset(const IrFunction *function, size_t insertOp, size_t value) {
  const IrOp *insert = &function->ops[insertOp];
  if (!memoptNameIs(insert->name, "tensor.insert_slice"))
    return false;
  const IrValue *info = &function->values[value];
  if (info->definingOp == MEMOPT_NO_INDEX)
    return false;
  const IrOp *extract = &function->ops[info->definingOp];
  if (!memoptNameIs(extract->name, "tensor.extract_slice"))
    return false;
  size_t source = function->operands[extract->firstOperand].value;
  size_t dest = function->operands[insert->firstOperand + 1].value;
  if (source == MEMOPT_NO_INDEX || dest == MEMOPT_NO_INDEX)
    return false;
  IrFunction *mutableFunction = (IrFunction *)function;
  if (memoptEquivalenceLeader(mutableFunction, source) != memoptEquivalenceLeader(mutableFunction, dest))
    return false;
  return sameSlice(extract->op, 1, insert->op, 2);
}

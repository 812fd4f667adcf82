/* Which storage holds each tensor and memref value of a profiled function
 * (a buffer bufferization allocates, a copy it inserts, an argument, a
 * global), following one-shot-bufferize's decisions: in-place operands share
 * their buffer, out-of-place ones get a copy, views alias their source. */
#include "Analysis/MemoryProfile.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <string.h>

/*===------------------------------------------------------------------===*
 * Buffers and storage
 *===------------------------------------------------------------------===*/

/* The alignment a buffer of `type` gets in the lowered program: `requested`
 * (an alignment attribute), else finalize-memref-to-llvm's default. */
static uint64_t effectiveAlignment(MlirType type, uint64_t requested) {
  if (requested)
    return requested;
  uint64_t element = 0;
  if (mlirTypeIsAShaped(type))
    memoptTypeGetElementByteSize(mlirShapedTypeGetElementType(type), &element);
  uint64_t alignment = 1;
  while (alignment < element)
    alignment *= 2;
  return alignment > minimumAlignedAllocAlignment ? alignment : minimumAlignedAllocAlignment;
}

/* `alignment` is the one bufferization gives the buffer, 0 for none. */
static size_t newBuffer(MemoptMemoryProfile *profile, MemoptBufferKind kind, MlirValue value,
                        size_t op, MlirType sizedType, uint64_t alignment) {
  profile->buffers = memoptGrowArray(profile->buffers, &profile->buffersCapacity,
                                     profile->numBuffers + 1, sizeof *profile->buffers);
  const IrOp *info = &profile->ir.ops[op];
  Buffer *buffer = &profile->buffers[profile->numBuffers];
  memset(buffer, 0, sizeof *buffer);
  buffer->info.kind = kind;
  buffer->info.value = value;
  buffer->info.op = info->op;
  buffer->info.sizeKnown = memoptTypeGetStaticByteSize(sizedType, &buffer->info.bytes);
  if (!buffer->info.sizeKnown)
    buffer->info.bytes = 0;
  buffer->info.alignment = effectiveAlignment(sizedType, alignment);
  buffer->info.firstPosition = info->position;
  buffer->info.lastPosition = info->position;
  buffer->info.nested = info->block != profile->bodyBlock;
  buffer->block = info->block;
  buffer->countsFrom = info->position;
  return profile->numBuffers++;
}

static Storage bufferStorage(size_t buffer, IrLayout layout) {
  return (Storage){StorageBuffer, buffer, layout};
}

static Storage noStorage(void) { return (Storage){StorageNone, MEMOPT_NO_INDEX, {0}}; }

/* The storage an op sees for `operand`: the copy bufferization made of it,
 * or the storage of its value. */
static Storage operandStorage(const MemoptMemoryProfile *profile, size_t operand) {
  const IrOperand *info = &profile->ir.operands[operand];
  if (profile->operandCopy[operand] != MEMOPT_NO_INDEX)
    return bufferStorage(profile->operandCopy[operand],
                         memoptLayoutIdentity(profile->ir.values[info->value].type));
  if (info->value == MEMOPT_NO_INDEX)
    return noStorage();
  return profile->storage[info->value];
}

static void setStorage(MemoptMemoryProfile *profile, size_t value, Storage storage) {
  if (value != MEMOPT_NO_INDEX)
    profile->storage[value] = storage;
}

/* One-Shot's canOmitTensorCopy: the copy of an out-of-place operand need not
 * be filled when the operand's contents are undefined (tensor.empty), when
 * the op overwrites it without reading, or when nothing reads it. */
static bool canOmitCopy(MemoptMemoryProfile *profile, size_t operand) {
  IrFunction *ir = &profile->ir;
  const IrOperandSemantics *semantics = &ir->operands[operand].semantics;
  if (memoptOperandHasUndefinedContents(ir, operand))
    return true;
  if (semantics->write && !semantics->read)
    return true;
  if (!semantics->read) {
    size_t alias = semantics->aliasResult == MEMOPT_NO_INDEX
                       ? MEMOPT_NO_INDEX
                       : memoptIrResultValue(ir, ir->operands[operand].op, semantics->aliasResult);
    return alias == MEMOPT_NO_INDEX || !memoptValueIsRead(ir, alias);
  }
  return false;
}

/* Copies bufferization inserts before `op` for operands it could not
 * bufferize in place (TensorCopyInsertion); an operand that only creates a
 * view gets its result copied instead (handled with the results). */
static void insertOperandCopies(MemoptMemoryProfile *profile, size_t op) {
  IrFunction *ir = &profile->ir;
  const IrOp *info = &ir->ops[op];
  for (size_t k = 0; k < info->numOperands; ++k) {
    size_t operand = info->firstOperand + k;
    const IrOperand *operandInfo = &ir->operands[operand];
    if (operandInfo->value == MEMOPT_NO_INDEX || !ir->values[operandInfo->value].isTensor ||
        operandInfo->inPlace)
      continue;
    const IrOperandSemantics *semantics = &operandInfo->semantics;
    if (!semantics->read && !semantics->write && semantics->aliasResult != MEMOPT_NO_INDEX)
      continue;
    const IrValue *value = &ir->values[operandInfo->value];
    profile->operandCopy[operand] = newBuffer(profile, MemoptBufferCopy, value->value, op,
                                              value->type, oneShotBufferAlignment);
    profile->operandCopyOmitted[operand] = canOmitCopy(profile, operand);
  }
}

static bool storageSame(const Storage *a, const Storage *b) {
  if (a->kind != b->kind)
    return false;
  return a->kind != StorageBuffer || a->buffer == b->buffer;
}

static IrLayout argumentLayout(MlirType type) {
  if (mlirTypeIsAMemRef(type))
    return memoptLayoutOfMemRefType(type);
  return memoptLayoutDynamic(mlirShapedTypeHasRank(type) ? (size_t)mlirShapedTypeGetRank(type) : 0);
}

static void newResultBuffer(MemoptMemoryProfile *profile, size_t op, size_t value,
                            MemoptBufferKind kind, uint64_t alignment) {
  const IrValue *info = &profile->ir.values[value];
  size_t buffer = newBuffer(profile, kind, info->value, op, info->type, alignment);
  setStorage(profile, value, bufferStorage(buffer, memoptLayoutIdentity(info->type)));
}

static uint64_t memrefAllocAlignment(MlirOperation op) {
  MlirAttribute alignment =
      mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("alignment"));
  if (mlirAttributeIsNull(alignment) || !mlirAttributeIsAInteger(alignment))
    return 0;
  return (uint64_t)mlirIntegerAttrGetValueInt(alignment);
}

static void assignView(MemoptMemoryProfile *profile, size_t op) {
  IrFunction *ir = &profile->ir;
  const IrOp *info = &ir->ops[op];
  size_t result = memoptIrResultValue(ir, op, 0);
  if (result == MEMOPT_NO_INDEX)
    return;
  const IrOperand *source = &ir->operands[info->firstOperand];
  if (source->value == MEMOPT_NO_INDEX) {
    setStorage(profile, result, noStorage());
    return;
  }
  if (!source->inPlace) {
    /* Out of place: bufferization copies the view's result right after it. */
    newResultBuffer(profile, op, result, MemoptBufferCopy, oneShotBufferAlignment);
    return;
  }
  Storage storage = profile->storage[source->value];
  MlirType sourceType = ir->values[source->value].type;
  MlirType resultType = ir->values[result].type;
  if (memoptNameIs(info->name, "tensor.extract_slice")) {
    storage.layout = memoptLayoutOfSlice(storage.layout, info->op);
  } else if (memoptNameIs(info->name, "tensor.expand_shape")) {
    storage.layout = memoptLayoutOfExpand(storage.layout, info->op);
  } else if (memoptNameIs(info->name, "tensor.collapse_shape")) {
    bool collapsible;
    storage.layout = memoptLayoutOfCollapse(storage.layout, info->op, &collapsible);
    if (!collapsible) {
      /* memref.collapse_shape cannot view a buffer whose strides are not
       * provably contiguous: bufferization copies the source first. */
      size_t copy = newBuffer(profile, MemoptBufferCopy, ir->values[result].value, op, sourceType,
                              oneShotBufferAlignment);
      storage = bufferStorage(copy, memoptLayoutIdentity(resultType));
    }
  } else if (memoptNameIs(info->name, "tensor.reshape")) {
    /* memref.reshape needs the identity layout; otherwise a copy is made. */
    if (!memoptLayoutIsIdentity(storage.layout, sourceType)) {
      size_t copy = newBuffer(profile, MemoptBufferCopy, ir->values[result].value, op, sourceType,
                              oneShotBufferAlignment);
      storage.kind = StorageBuffer;
      storage.buffer = copy;
    }
    storage.layout = memoptLayoutIdentity(resultType);
  } else if (storage.layout.rank != (mlirShapedTypeHasRank(resultType)
                                         ? (size_t)mlirShapedTypeGetRank(resultType)
                                         : 0)) {
    storage.layout = memoptLayoutDynamic(
        mlirShapedTypeHasRank(resultType) ? (size_t)mlirShapedTypeGetRank(resultType) : 0);
  }
  setStorage(profile, result, storage);
}

/* Results that share the buffer of an operand (destination-style ops,
 * elementwise ops, scf.for and its iter_args, to_buffer); to_buffer copies
 * when the cast needs a check, an elementwise result may be a new buffer. */
static void assignAliasingResults(MemoptMemoryProfile *profile, size_t op) {
  IrFunction *ir = &profile->ir;
  const IrOp *info = &ir->ops[op];
  for (size_t k = 0; k < info->numOperands; ++k) {
    size_t operand = info->firstOperand + k;
    size_t aliasResult = ir->operands[operand].semantics.aliasResult;
    if (aliasResult == MEMOPT_NO_INDEX || ir->operands[operand].value == MEMOPT_NO_INDEX)
      continue;
    Storage storage = operandStorage(profile, operand);
    setStorage(profile, memoptIrResultValue(ir, op, aliasResult), storage);
    if (info->opClass == IrOpFor && info->numBlocks) {
      /* The iter_arg (after the induction variable) holds the same buffer. */
      MlirBlock body = ir->blocks[info->firstBlock].block;
      setStorage(profile,
                 memoptIrFunctionLookupValue(
                     ir, mlirBlockGetArgument(body, (intptr_t)(aliasResult + 1))),
                 storage);
    }
  }
  if (info->opClass == IrOpToBuffer) {
    Storage storage = operandStorage(profile, info->firstOperand);
    size_t result = memoptIrResultValue(ir, op, 0);
    if (result != MEMOPT_NO_INDEX) {
      MlirType resultType = ir->values[result].type;
      if (storage.kind != StorageNone && !memoptLayoutCastsTo(storage.layout, resultType)) {
        /* The buffer cannot be cast to the declared memref type without a
         * runtime check: bufferization copies it (castOrReallocMemRefValue). */
        size_t copy = newBuffer(profile, MemoptBufferCopy, ir->values[result].value, op,
                                resultType, oneShotBufferAlignment);
        storage = bufferStorage(copy, memoptLayoutIdentity(resultType));
      }
      storage.layout = memoptLayoutOfMemRefType(resultType);
      setStorage(profile, result, storage);
    }
  }
  if (info->opClass == IrOpElementwise && memoptResultIsAllocation(ir, op, 0)) {
    size_t result = memoptIrResultValue(ir, op, 0);
    if (result != MEMOPT_NO_INDEX)
      newResultBuffer(profile, op, result, MemoptBufferAllocation, oneShotBufferAlignment);
  }
}

/* Results of a tensor allocation (tensor.empty, alloc_tensor): new buffers. */
static void assignAllocations(MemoptMemoryProfile *profile, size_t op) {
  IrFunction *ir = &profile->ir;
  const IrOp *info = &ir->ops[op];
  size_t numResults = (size_t)mlirOperationGetNumResults(info->op);
  for (size_t r = 0; r < numResults; ++r) {
    size_t result = memoptIrResultValue(ir, op, r);
    if (result == MEMOPT_NO_INDEX)
      continue;
    newResultBuffer(profile, op, result, MemoptBufferAllocation, oneShotBufferAlignment);
    Buffer *buffer = &profile->buffers[profile->storage[result].buffer];
    buffer->droppable = memoptNameIs(info->name, "tensor.empty") ||
                        (memoptNameIs(info->name, "bufferization.alloc_tensor") &&
                         !memoptValueIsDefinition(ir, result));
  }
}

/* The result of a select: the buffer of its true operand. */
static void assignSelect(MemoptMemoryProfile *profile, size_t op) {
  IrFunction *ir = &profile->ir;
  const IrOp *info = &ir->ops[op];
  size_t result = memoptIrResultValue(ir, op, 0);
  Storage whenTrue = operandStorage(profile, info->firstOperand + 1);
  Storage whenFalse = operandStorage(profile, info->firstOperand + 2);
  if (!storageSame(&whenTrue, &whenFalse))
    memoptProfileAddNote(profile, info->op,
            "select between different buffers: counted as the first one");
  setStorage(profile, result, whenTrue);
}

/* Results of constants and memref.get_global: global storage. */
static void assignGlobals(MemoptMemoryProfile *profile, size_t op) {
  IrFunction *ir = &profile->ir;
  size_t numResults = (size_t)mlirOperationGetNumResults(ir->ops[op].op);
  for (size_t r = 0; r < numResults; ++r) {
    size_t result = memoptIrResultValue(ir, op, r);
    if (result != MEMOPT_NO_INDEX)
      setStorage(profile, result,
                 (Storage){StorageGlobal, MEMOPT_NO_INDEX,
                           memoptLayoutIdentity(ir->values[result].type)});
  }
}

/* Results of a call: buffers the callee allocated, with its summary's
 * alignment and layout when it has one. */
static void assignCallResults(MemoptMemoryProfile *profile, size_t op) {
  IrFunction *ir = &profile->ir;
  const IrOp *info = &ir->ops[op];
  size_t numResults = (size_t)mlirOperationGetNumResults(info->op);
  const IrCalleeSummary *callee =
      info->callee == MEMOPT_NO_INDEX ? NULL : &profile->callees[info->callee];
  for (size_t r = 0; r < numResults; ++r) {
    size_t result = memoptIrResultValue(ir, op, r);
    if (result == MEMOPT_NO_INDEX)
      continue;
    const IrValue *value = &ir->values[result];
    uint64_t alignment = oneShotBufferAlignment;
    if (callee && r < callee->numResults)
      alignment = callee->resultAlignment[r];
    size_t buffer =
        newBuffer(profile, MemoptBufferCallResult, value->value, op, value->type, alignment);
    /* The callee allocated it while running: its peak includes it. */
    profile->buffers[buffer].countsFrom = ir->ops[op].position + 1;
    profile->buffers[buffer].unknownOrigin = true;
    bool identity = callee && r < callee->numResults && callee->resultIdentityLayout[r];
    setStorage(profile, result,
               bufferStorage(buffer, identity ? memoptLayoutIdentity(value->type)
                                              : argumentLayout(value->type)));
  }
}

/* The result of to_tensor: the memref operand's buffer, with its layout. */
static void assignToTensor(MemoptMemoryProfile *profile, size_t op) {
  IrFunction *ir = &profile->ir;
  const IrOp *info = &ir->ops[op];
  size_t result = memoptIrResultValue(ir, op, 0);
  Storage storage = operandStorage(profile, info->firstOperand);
  if (result != MEMOPT_NO_INDEX) {
    MlirType memrefType = mlirValueGetType(mlirOperationGetOperand(info->op, 0));
    storage.layout = memoptLayoutOfMemRefType(memrefType);
    setStorage(profile, result, storage);
  }
}

/* Results of memref.alloc: new buffers with the op's alignment. */
static void assignMemRefAllocs(MemoptMemoryProfile *profile, size_t op) {
  IrFunction *ir = &profile->ir;
  const IrOp *info = &ir->ops[op];
  size_t numResults = (size_t)mlirOperationGetNumResults(info->op);
  for (size_t r = 0; r < numResults; ++r) {
    size_t result = memoptIrResultValue(ir, op, r);
    if (result != MEMOPT_NO_INDEX)
      newResultBuffer(profile, op, result, MemoptBufferMemRefAlloc,
                      memrefAllocAlignment(info->op));
  }
}

/* The result of a memref view: the first operand's buffer, with the result type's layout. */
static void assignMemRefView(MemoptMemoryProfile *profile, size_t op) {
  IrFunction *ir = &profile->ir;
  const IrOp *info = &ir->ops[op];
  size_t result = memoptIrResultValue(ir, op, 0);
  Storage storage = operandStorage(profile, info->firstOperand);
  if (result != MEMOPT_NO_INDEX) {
    storage.layout = memoptLayoutOfMemRefType(ir->values[result].type);
    setStorage(profile, result, storage);
  }
}

/* Results of an op without a bufferization model: new buffers, with a note. */
static void assignUnmodeled(MemoptMemoryProfile *profile, size_t op) {
  IrFunction *ir = &profile->ir;
  const IrOp *info = &ir->ops[op];
  size_t numResults = (size_t)mlirOperationGetNumResults(info->op);
  memoptProfileAddNote(profile, info->op, "'%.*s' has no bufferization model: its results count as new buffers",
          (int)info->name.length, info->name.data);
  for (size_t r = 0; r < numResults; ++r) {
    size_t result = memoptIrResultValue(ir, op, r);
    if (result != MEMOPT_NO_INDEX && ir->values[result].isTensor)
      newResultBuffer(profile, op, result, MemoptBufferUnmodeled, oneShotBufferAlignment);
  }
}

/* Results of other ops: views of their first memref operand
 * (extract_strided_metadata, ...); memref.alloca lives on the stack. */
static void assignOtherResults(MemoptMemoryProfile *profile, size_t op) {
  IrFunction *ir = &profile->ir;
  const IrOp *info = &ir->ops[op];
  size_t numResults = (size_t)mlirOperationGetNumResults(info->op);
  for (size_t r = 0; r < numResults; ++r) {
    size_t result = memoptIrResultValue(ir, op, r);
    if (result == MEMOPT_NO_INDEX)
      continue;
    Storage storage = noStorage();
    if (!memoptNameIs(info->name, "memref.alloca"))
      for (size_t k = 0; k < info->numOperands; ++k)
        if (ir->operands[info->firstOperand + k].value != MEMOPT_NO_INDEX) {
          storage = operandStorage(profile, info->firstOperand + k);
          break;
        }
    storage.layout = argumentLayout(ir->values[result].type);
    setStorage(profile, result, storage);
  }
}

/* Storage of the results of `op`, before its regions are visited. */
static void assignResults(MemoptMemoryProfile *profile, size_t op) {
  switch (profile->ir.ops[op].opClass) {
  case IrOpDestination:
  case IrOpElementwise:
  case IrOpFor:
  case IrOpToBuffer:
    assignAliasingResults(profile, op);
    return;
  case IrOpAllocation:
    assignAllocations(profile, op);
    return;
  case IrOpView:
    assignView(profile, op);
    return;
  case IrOpSelect:
    assignSelect(profile, op);
    return;
  case IrOpConstant:
  case IrOpMemRefGlobal:
    assignGlobals(profile, op);
    return;
  case IrOpCall:
    assignCallResults(profile, op);
    return;
  case IrOpToTensor:
    assignToTensor(profile, op);
    return;
  case IrOpMemRefAlloc:
    assignMemRefAllocs(profile, op);
    return;
  case IrOpMemRefView:
    assignMemRefView(profile, op);
    return;
  case IrOpUnknown:
    assignUnmodeled(profile, op);
    return;
  default:
    assignOtherResults(profile, op);
    return;
  }
}

/* The yield at the end of block `block`, or MEMOPT_NO_INDEX. */
static size_t blockYield(const IrFunction *ir, size_t block) {
  const IrBlock *info = &ir->blocks[block];
  if (!info->numOps)
    return MEMOPT_NO_INDEX;
  size_t last = memoptIrBlockOp(ir, block, info->numOps - 1);
  return ir->ops[last].opClass == IrOpYield ? last : MEMOPT_NO_INDEX;
}

/* Storage of region results, once the regions have been visited. */
static void finishRegionOp(MemoptMemoryProfile *profile, size_t op) {
  IrFunction *ir = &profile->ir;
  const IrOp *info = &ir->ops[op];
  size_t numResults = (size_t)mlirOperationGetNumResults(info->op);
  if (info->opClass == IrOpIf) {
    for (size_t r = 0; r < numResults; ++r) {
      size_t result = memoptIrResultValue(ir, op, r);
      if (result == MEMOPT_NO_INDEX)
        continue;
      Storage first = noStorage();
      bool same = true;
      bool any = false;
      uint64_t alignment = 0;
      for (size_t b = info->firstBlock; b < info->firstBlock + info->numBlocks; ++b) {
        size_t yield = blockYield(ir, b);
        if (yield == MEMOPT_NO_INDEX || r >= ir->ops[yield].numOperands)
          continue;
        Storage yielded = operandStorage(profile, ir->ops[yield].firstOperand + r);
        /* The result is one of the yielded buffers: it keeps their alignment. */
        if (yielded.kind == StorageBuffer &&
            profile->buffers[yielded.buffer].info.alignment > alignment)
          alignment = profile->buffers[yielded.buffer].info.alignment;
        if (!any)
          first = yielded;
        else if (!storageSame(&first, &yielded))
          same = false;
        any = true;
      }
      if (same && any) {
        setStorage(profile, result, first);
        continue;
      }
      /* Each branch yields its own buffer: after the op the result holds one
       * of them, freed only at the end of the block (its deallocation is
       * conditional, so optimize-allocation-liveness cannot move it). */
      const IrValue *value = &ir->values[result];
      size_t buffer =
          newBuffer(profile, MemoptBufferRegionResult, value->value, op, value->type, alignment);
      profile->buffers[buffer].countsFrom = info->position + 1;
      profile->buffers[buffer].freeAtBlockEnd = true;
      for (size_t b = info->firstBlock; b < info->firstBlock + info->numBlocks; ++b) {
        size_t yield = blockYield(ir, b);
        if (yield == MEMOPT_NO_INDEX || r >= ir->ops[yield].numOperands)
          continue;
        Storage yielded = operandStorage(profile, ir->ops[yield].firstOperand + r);
        if (yielded.kind == StorageBuffer && profile->buffers[yielded.buffer].block == info->block) {
          profile->buffers[yielded.buffer].freeAtBlockEnd = true;
          memoptProfileAddNote(profile, info->op,
                  "a branch yields a buffer from outside: both are counted to the end of the block");
        }
      }
      setStorage(profile, result, bufferStorage(buffer, memoptLayoutIdentity(value->type)));
    }
    return;
  }
  if (info->opClass == IrOpFor && info->numBlocks) {
    size_t yield = blockYield(ir, info->firstBlock);
    MlirBlock body = ir->blocks[info->firstBlock].block;
    for (size_t r = 0; r < numResults; ++r) {
      size_t iterArg =
          memoptIrFunctionLookupValue(ir, mlirBlockGetArgument(body, (intptr_t)(r + 1)));
      size_t result = memoptIrResultValue(ir, op, r);
      if (yield == MEMOPT_NO_INDEX || iterArg == MEMOPT_NO_INDEX || result == MEMOPT_NO_INDEX ||
          r >= ir->ops[yield].numOperands)
        continue;
      Storage yielded = operandStorage(profile, ir->ops[yield].firstOperand + r);
      if (storageSame(&yielded, &profile->storage[iterArg]))
        continue;
      memoptProfileAddNote(profile, info->op,
              "loop yields a new buffer each iteration: the carried buffers are approximated");
      const IrValue *value = &ir->values[result];
      size_t buffer = newBuffer(profile, MemoptBufferRegionResult, value->value, op, value->type,
                                oneShotBufferAlignment);
      profile->buffers[buffer].countsFrom = info->position + 1;
      profile->buffers[buffer].freeAtBlockEnd = true;
      setStorage(profile, result, bufferStorage(buffer, memoptLayoutIdentity(value->type)));
    }
  }
}

/* Clones the deallocation pipeline returns for buffers the function does
 * not own (arguments, globals); returned buffers stay live. */
static void finishReturn(MemoptMemoryProfile *profile, size_t op) {
  IrFunction *ir = &profile->ir;
  const IrOp *info = &ir->ops[op];
  for (size_t k = 0; k < info->numOperands; ++k) {
    size_t operand = info->firstOperand + k;
    size_t value = ir->operands[operand].value;
    if (value == MEMOPT_NO_INDEX)
      continue;
    Storage storage = operandStorage(profile, operand);
    if (storage.kind == StorageBuffer) {
      profile->buffers[storage.buffer].info.escapes = true;
    } else if (storage.kind == StorageArgument || storage.kind == StorageGlobal) {
      /* bufferization.clone lowers to a plain memref.alloc: no alignment. */
      size_t clone =
          newBuffer(profile, MemoptBufferReturnCopy, ir->values[value].value, op, ir->values[value].type, 0);
      profile->buffers[clone].info.escapes = true;
    }
  }
}

static void assignBlock(MemoptMemoryProfile *profile, size_t block) {
  IrFunction *ir = &profile->ir;
  const IrBlock *info = &ir->blocks[block];
  for (size_t p = 0; p < info->numOps; ++p) {
    size_t op = memoptIrBlockOp(ir, block, p);
    insertOperandCopies(profile, op);
    assignResults(profile, op);
    const IrOp *opInfo = &ir->ops[op];
    for (size_t b = opInfo->firstBlock; b < opInfo->firstBlock + opInfo->numBlocks; ++b)
      assignBlock(profile, b);
    finishRegionOp(profile, op);
    if (opInfo->opClass == IrOpReturn && block == profile->bodyBlock)
      finishReturn(profile, op);
  }
}

void memoptProfileAssignStorage(MemoptMemoryProfile *profile) {
  const IrFunction *ir = &profile->ir;
  for (size_t v = 0; v < ir->numValues; ++v) {
    const IrValue *value = &ir->values[v];
    if (value->definingOp == MEMOPT_NO_INDEX && value->block == profile->bodyBlock)
      profile->storage[v] = (Storage){StorageArgument, MEMOPT_NO_INDEX, argumentLayout(value->type)};
  }
  assignBlock(profile, profile->bodyBlock);
}

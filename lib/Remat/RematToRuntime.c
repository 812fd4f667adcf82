/* remat-to-runtime: lowers remat.evict / remat.regenerate to calls into
 * memopt_rt (lib/Runtime/Runtime.h, "Eviction") and a guarded
 * recomputation.
 *
 *   remat.evict %v          ->  %m = bufferization.to_buffer %v read_only
 *                               %p = memref.extract_aligned_pointer_as_index %m
 *                               call @memoptRtEvictable(%p as i64, position, next use,
 *                                                       cost, restore bytes)
 *   %r = remat.regenerate %v ->  %m, %p as above
 *                               %e = call @memoptRtRestore(%p as i64, position)
 *                               scf.if %e != 0 { nested regenerates,
 *                                 call @memoptRtRecommit(%p as i64),
 *                                 the rest of the body, written into %m }
 *                               uses of %r read %v
 *
 * The recomputation writes into the evicted buffer itself, so every
 * descriptor of it (views included) stays valid and uses of %r can read %v:
 * the body's destination `tensor.empty` (found through the inits of the
 * destination-style ops that produce the yielded value) becomes
 * `bufferization.to_tensor %m restrict writable`, and
 * `bufferization.materialize_in_destination` ties the result to %m (a copy
 * onto itself, which canonicalization in the deallocation pipeline drops).
 * Positions are the indices of the function's top-level ops before
 * lowering; the next use of an evict is its regenerate. An evict that no
 * top-level regenerate of its value follows is dropped: its value is never
 * read again, so its buffer is dead. The cost is the element operations the
 * regenerate's body performs (memoptSymbolicRecomputeCost of its ops), built
 * before the evict from the dimensions the shape symbols were first seen in;
 * -1 when some extent is unknown there. The
 * restore bytes are the evict's optional second operand (what remat-dynamic
 * found resident at the regenerate), -1 without one.
 *
 * A regenerate's body may hold remat ops of its own (remat-dynamic reads an
 * input that may be evicted through a nested regenerate, then makes it
 * evictable again): they are lowered the same way, inside the scf.if, at
 * the position of the top-level op, and a nested evict lasts until the next
 * top-level regenerate of its value; it takes effect once the body has run,
 * after the write into the regenerated buffer, wherever it is in the body.
 * A regeneration's cost leaves the nested regenerates out: each recomputes
 * only when its value was evicted, and counts its own then.
 *
 * The lowering relies on memoptVerifyOps, which it runs first: no op reads a
 * value between an evict and the next regenerate of it, and no regenerate's
 * body uses the value it regenerates. */
#include "Analysis/Analysis.h"
#include "Remat/Remat.h"
#include "Remat/SymbolicSizeValue.h"
#include "IR/Builders.h"
#include "IR/IR.h"

#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/Arith.h"
#include "mlir-c/Dialect/Bufferization.h"
#include "mlir-c/Dialect/Func.h"
#include "mlir-c/Dialect/MemRef.h"
#include "mlir-c/Dialect/SCF.h"
#include "mlir-c/Dialect/Tensor.h"

#include <stdlib.h>
#include <string.h>

static MlirNamedAttribute unitAttribute(MlirContext context, const char *name) {
  return memoptNamedAttribute(context, name, mlirUnitAttrGet(context));
}

/* Creates `arith.constant value : type` for an integer `type`. */
static MlirValue integerConstant(const MemoptBuilder *builder, MlirType type, int64_t value) {
  return memoptBuildConstant(builder, mlirIntegerAttrGet(type, value));
}

static MlirValue i64Constant(const MemoptBuilder *builder, int64_t value) {
  return integerConstant(builder,
                         mlirIntegerTypeGet(mlirLocationGetContext(builder->location), 64), value);
}

/* The memref type of identity layout with the shape and element type of `tensorType`. */
static MlirType contiguousMemRefType(MlirType tensorType) {
  intptr_t rank = mlirShapedTypeGetRank(tensorType);
  int64_t *shape = memoptAllocateZeroed((size_t)(rank ? rank : 1), sizeof *shape);
  for (intptr_t i = 0; i < rank; ++i)
    shape[i] = mlirShapedTypeGetDimSize(tensorType, i);
  MlirType type = mlirMemRefTypeContiguousGet(mlirShapedTypeGetElementType(tensorType), rank, shape,
                                              mlirAttributeGetNull());
  free(shape);
  return type;
}

/* The buffer of tensor `value` (identity layout) and its address as an i64. */
static MlirValue bufferOf(const MemoptBuilder *builder, MlirValue value, MlirValue *address) {
  MlirContext context = mlirLocationGetContext(builder->location);
  MlirType memrefType = contiguousMemRefType(mlirValueGetType(value));
  MlirNamedAttribute readOnly = unitAttribute(context, "read_only");
  MlirValue buffer = mlirOperationGetResult(
      memoptBuildOp(builder, "bufferization.to_buffer", &value, 1, &memrefType, 1, &readOnly, 1), 0);
  MlirType index = mlirIndexTypeGet(context), i64 = mlirIntegerTypeGet(context, 64);
  MlirValue pointer = mlirOperationGetResult(
      memoptBuildOp(builder, "memref.extract_aligned_pointer_as_index", &buffer, 1, &index, 1, NULL, 0), 0);
  *address = mlirOperationGetResult(memoptBuildOp(builder, "arith.index_cast", &pointer, 1, &i64, 1, NULL, 0), 0);
  return buffer;
}

static MlirOperation buildCall(const MemoptBuilder *builder, const char *callee,
                               const MlirValue *operands, intptr_t count, const MlirType *results,
                               intptr_t resultCount) {
  MlirContext context = mlirLocationGetContext(builder->location);
  MlirNamedAttribute attribute = mlirNamedAttributeGet(
      mlirIdentifierGet(context, mlirStringRefCreateFromCString("callee")),
      mlirFlatSymbolRefAttrGet(context, mlirStringRefCreateFromCString(callee)));
  return memoptBuildOp(builder, "func.call", operands, count, results, resultCount, &attribute, 1);
}

/* True when every use of `value` is by one op (an elementwise step reading
 * and writing it in place uses it twice). */
static bool usedByOneOp(MlirValue value) {
  MlirOpOperand first = mlirValueGetFirstUse(value);
  if (mlirOpOperandIsNull(first))
    return false;
  for (MlirOpOperand use = first; !mlirOpOperandIsNull(use); use = mlirOpOperandGetNextUse(use))
    if (!mlirOperationEqual(mlirOpOperandGetOwner(use), mlirOpOperandGetOwner(first)))
      return false;
  return true;
}

static bool isLinalg(MlirOperation op) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  return name.length > 7 && strncmp(name.data, "linalg.", 7) == 0;
}

static bool indexingMapIsIdentity(MlirOperation generic, intptr_t operand) {
  MlirAttribute maps =
      mlirOperationGetAttributeByName(generic, mlirStringRefCreateFromCString("indexing_maps"));
  return !mlirAttributeIsNull(maps) && mlirAttributeIsAArray(maps) &&
         operand < mlirArrayAttrGetNumElements(maps) &&
         mlirAffineMapIsIdentity(mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, operand)));
}

/* True when `value` is computed in `body` by a linalg op (possibly seen
 * through a tensor.expand_shape, as a 2-D matmul feeds a 3-D bias add) and
 * read only once. */
static bool isBodyTemporary(MlirValue value, MlirBlock body) {
  if (!memoptValueHasOneUse(value) || !mlirValueIsAOpResult(value))
    return false;
  MlirOperation producer = mlirOpResultGetOwner(value);
  if (!mlirBlockEqual(mlirOperationGetBlock(producer), body))
    return false;
  if (memoptOperationIsA(producer, "tensor.expand_shape"))
    return isBodyTemporary(mlirOperationGetOperand(producer, 0), body);
  return isLinalg(producer);
}

/* For a one-result linalg.generic that writes its init at the same index it
 * reads an input of the result's type (both maps the identity, so every
 * loop is parallel) and never reads the init: that input, when it is a
 * temporary of the body read only here. Writing into it instead of a fresh
 * init saves one buffer per elementwise step of a recomputation. */
static MlirValue reusableInput(MlirOperation op, MlirBlock body) {
  intptr_t operands = mlirOperationGetNumOperands(op);
  if (!memoptOperationIsA(op, "linalg.generic") || mlirOperationGetNumResults(op) != 1 ||
      !indexingMapIsIdentity(op, operands - 1))
    return (MlirValue){NULL};
  MlirBlock generic = memoptSingleBlock(op);
  if (mlirBlockGetNumArguments(generic) != operands ||
      !mlirOpOperandIsNull(mlirValueGetFirstUse(mlirBlockGetArgument(generic, operands - 1))))
    return (MlirValue){NULL};
  MlirType resultType = mlirValueGetType(mlirOperationGetResult(op, 0));
  for (intptr_t i = 0; i + 1 < operands; ++i) {
    MlirValue input = mlirOperationGetOperand(op, i);
    if (mlirTypeEqual(mlirValueGetType(input), resultType) && indexingMapIsIdentity(op, i) &&
        isBodyTemporary(input, body))
      return input;
  }
  return (MlirValue){NULL};
}

/* Makes the recomputation in `body` of `value` write into `buffer`: follows
 * destination-style inits from `value`, writing elementwise steps into
 * their input in place, down to a tensor.empty read by nothing else, which
 * becomes `bufferization.to_tensor %buffer restrict writable`. Leaves the
 * body as it is when the chain ends elsewhere (then the result is copied). */
static void recomputeIntoBuffer(MlirValue value, MlirBlock body, MlirValue buffer) {
  MlirContext context = mlirValueGetContext(value);
  while (mlirValueIsAOpResult(value)) {
    MlirOperation op = mlirOpResultGetOwner(value);
    if (!mlirBlockEqual(mlirOperationGetBlock(op), body))
      return;
    if (memoptOperationIsA(op, "tensor.empty")) {
      if (!memoptValueHasOneUse(value))
        return; /* another op writes it too */
      MemoptBuilder atEmpty = memoptBuilderBefore(op);
      MlirNamedAttribute flags[] = {unitAttribute(context, "restrict"),
                                    unitAttribute(context, "writable")};
      MlirType tensorType = mlirValueGetType(value);
      MlirValue inPlace = mlirOperationGetResult(
          memoptBuildOp(&atEmpty, "bufferization.to_tensor", &buffer, 1, &tensorType, 1, flags, 2), 0);
      mlirValueReplaceAllUsesOfWith(value, inPlace);
      memoptEraseOp(op);
      return;
    }
    if (memoptOperationIsA(op, "tensor.expand_shape") && usedByOneOp(value)) {
      /* The source fills the same memory, seen with the source's shape. */
      /* At the start of the body: the destination of earlier ops needs it. */
      MemoptBuilder atView = memoptBuilderBefore(mlirBlockGetFirstOperation(body));
      MlirValue source = mlirOperationGetOperand(op, 0);
      MlirType sourceType = mlirValueGetType(source);
      MlirNamedAttribute reassociation = mlirNamedAttributeGet(
          mlirIdentifierGet(context, mlirStringRefCreateFromCString("reassociation")),
          mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("reassociation")));
      MlirType collapsedType = contiguousMemRefType(sourceType);
      buffer = mlirOperationGetResult(memoptBuildOp(&atView, "memref.collapse_shape", &buffer, 1,
                                                    &collapsedType, 1, &reassociation, 1),
                                      0);
      value = source;
      continue;
    }
    if (mlirOperationGetNumResults(op) != 1 || !isLinalg(op))
      return;
    intptr_t initNumber = mlirOperationGetNumOperands(op) - 1; /* a one-result linalg op's init */
    MlirValue init = mlirOperationGetOperand(op, initNumber);
    MlirValue input = reusableInput(op, body);
    if (!mlirValueIsNull(input) && mlirValueIsAOpResult(init) &&
        memoptOperationIsA(mlirOpResultGetOwner(init), "tensor.empty") &&
        memoptValueHasOneUse(init)) {
      mlirOperationSetOperand(op, initNumber, input);
      memoptEraseOp(mlirOpResultGetOwner(init));
      value = input;
    } else {
      value = init;
    }
  }
}

/* `firstRecomputed` is the first op of the body that is not a remat op:
 * the block counts again (memoptRtRecommit) right before it, once the
 * nested regenerates have restored the inputs it is recomputed from, so
 * that making room for it cannot evict them. Returns the scf.if that
 * replaces `regenerate`, and in `end` the scf.yield that ends the
 * recomputation, after the write into the buffer. */
static MlirOperation lowerRegenerate(MlirOperation regenerate, int64_t position,
                                     MlirOperation firstRecomputed, MlirOperation *end) {
  MemoptBuilder builder = memoptBuilderBefore(regenerate);
  MlirContext context = mlirLocationGetContext(builder.location);
  MlirValue value = mlirOperationGetOperand(regenerate, 0);
  MlirValue address;
  MlirValue buffer = bufferOf(&builder, value, &address);
  MlirValue operands[] = {address, i64Constant(&builder, position)};
  MlirType i32 = mlirIntegerTypeGet(context, 32);
  MlirValue evicted =
      mlirOperationGetResult(buildCall(&builder, "memoptRtRestore", operands, 2, &i32, 1), 0);
  MlirValue zero = integerConstant(&builder, i32, 0);
  MlirType i1 = mlirIntegerTypeGet(context, 1);
  MlirNamedAttribute predicate = mlirNamedAttributeGet(
      mlirIdentifierGet(context, mlirStringRefCreateFromCString("predicate")),
      mlirIntegerAttrGet(mlirIntegerTypeGet(context, 64), 1 /* ne */));
  MlirValue compared[] = {evicted, zero};
  MlirValue condition = mlirOperationGetResult(
      memoptBuildOp(&builder, "arith.cmpi", compared, 2, &i1, 1, &predicate, 1), 0);

  /* scf.if takes over the regenerate's body; its vector.yield becomes the write into the buffer. */
  MlirRegion thenRegion = mlirRegionCreate(), elseRegion = mlirRegionCreate();
  mlirRegionTakeBody(thenRegion, mlirOperationGetRegion(regenerate, 0));
  MlirOperationState state =
      mlirOperationStateGet(mlirStringRefCreateFromCString("scf.if"), builder.location);
  mlirOperationStateAddOperands(&state, 1, &condition);
  MlirRegion regions[] = {thenRegion, elseRegion};
  mlirOperationStateAddOwnedRegions(&state, 2, regions);
  MlirOperation guard = mlirOperationCreate(&state);
  mlirBlockInsertOwnedOperationBefore(builder.block, regenerate, guard);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(guard, 0));
  MemoptBuilder atRecommit = memoptBuilderBefore(firstRecomputed);
  buildCall(&atRecommit, "memoptRtRecommit", &address, 1, NULL, 0);
  MlirOperation yield = mlirBlockGetTerminator(body);
  MlirValue again = mlirOperationGetOperand(yield, 0);
  recomputeIntoBuffer(again, body, buffer);
  again = mlirOperationGetOperand(yield, 0); /* the yielded tensor.empty itself may have been replaced */
  MemoptBuilder atYield = memoptBuilderBefore(yield);
  MlirNamedAttribute flags[] = {unitAttribute(context, "restrict"), unitAttribute(context, "writable")};
  MlirValue written[] = {again, buffer};
  memoptBuildOp(&atYield, "bufferization.materialize_in_destination", written, 2, NULL, 0, flags, 2);
  memoptBuildYield(&atYield, "scf.yield", NULL, 0);
  memoptEraseOp(yield);
  *end = mlirBlockGetTerminator(body);
  MlirBlock elseBlock = mlirBlockCreate(0, NULL, NULL);
  mlirRegionAppendOwnedBlock(mlirOperationGetRegion(guard, 1), elseBlock);
  MemoptBuilder atElse = memoptBuilderAtEnd(elseBlock, builder.location);
  memoptBuildYield(&atElse, "scf.yield", NULL, 0);

  mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(regenerate, 0), value);
  memoptEraseOp(regenerate);
  return guard;
}

/* True for remat.evict and remat.regenerate. */
static bool isRematOp(MlirOperation op) {
  return memoptOperationIsA(op, "remat.evict") || memoptOperationIsA(op, "remat.regenerate");
}

/* The element operations `regenerate`'s body performs besides its nested
 * remat ops (those recompute only when their values were evicted, and count
 * their own), as an i64 built by `builder` from values available before
 * `topLevel`, the function-body op it is in; -1 when some extent is unknown
 * there. */
static MlirValue buildRegenerationCost(const MemoptBuilder *builder,
                                       const MemoptShapeSymbols *symbols, MlirOperation regenerate,
                                       MlirOperation topLevel) {
  size_t count, recomputedCount = 0;
  MlirOperation *ops = memoptBlockGetOperations(
      mlirRegionGetFirstBlock(mlirOperationGetRegion(regenerate, 0)), &count);
  for (size_t i = 0; i < count; ++i)
    if (!isRematOp(ops[i]))
      ops[recomputedCount++] = ops[i];
  MemoptPolynomial *cost = memoptSymbolicRecomputeCostOfOps(symbols, ops, recomputedCount);
  free(ops);
  MlirValue value = cost && memoptPolynomialIsValid(cost)
                        ? memoptBuildPolynomialValue(builder, symbols, cost, topLevel, NULL)
                        : (MlirValue){NULL};
  memoptPolynomialDestroy(cost);
  MlirType i64 = mlirIntegerTypeGet(mlirLocationGetContext(builder->location), 64);
  if (mlirValueIsNull(value))
    return i64Constant(builder, -1);
  return memoptBuildOneResult(builder, "arith.index_cast", &value, 1, i64, NULL, 0);
}

/* `regenerate` is the matching remat.regenerate; `topLevel` is the
 * function-body op `evict` is (in). */
static void lowerEvict(MlirOperation evict, int64_t position, int64_t nextUse,
                       MlirOperation regenerate, const MemoptShapeSymbols *symbols,
                       MlirOperation topLevel) {
  MemoptBuilder builder = memoptBuilderBefore(evict);
  MlirValue address;
  bufferOf(&builder, mlirOperationGetOperand(evict, 0), &address);
  MlirValue cost = buildRegenerationCost(&builder, symbols, regenerate, topLevel);
  MlirValue positionValue = i64Constant(&builder, position);
  MlirValue nextUseValue = i64Constant(&builder, nextUse);
  MlirValue restoreBytes;
  if (mlirOperationGetNumOperands(evict) > 1) {
    MlirValue stated = mlirOperationGetOperand(evict, 1);
    restoreBytes = memoptBuildOneResult(&builder, "arith.index_cast", &stated, 1,
                                        mlirValueGetType(positionValue), NULL, 0);
  } else {
    restoreBytes = i64Constant(&builder, -1);
  }
  MlirValue operands[] = {address, positionValue, nextUseValue, cost, restoreBytes};
  buildCall(&builder, "memoptRtEvictable", operands, 5, NULL, 0);
  memoptEraseOp(evict);
}

/* Declares `name` : (i64 x argumentCount) -> results in `module` unless present. */
static void declare(MlirOperation module, const char *name, intptr_t argumentCount,
                    const MlirType *results, intptr_t resultCount) {
  MlirContext context = mlirOperationGetContext(module);
  MlirBlock block = memoptSingleBlock(module);
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    MlirAttribute symbol = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("sym_name"));
    if (!mlirAttributeIsNull(symbol) && mlirAttributeIsAString(symbol) &&
        mlirStringRefEqual(mlirStringAttrGetValue(symbol), mlirStringRefCreateFromCString(name)))
      return;
  }
  MlirType i64 = mlirIntegerTypeGet(context, 64);
  MlirType arguments[5] = {i64, i64, i64, i64, i64};
  MlirType type = mlirFunctionTypeGet(context, argumentCount, arguments, resultCount, results);
  MlirNamedAttribute attributes[] = {
      memoptNamedAttribute(context, "sym_name",
                           mlirStringAttrGet(context, mlirStringRefCreateFromCString(name))),
      memoptNamedAttribute(context, "function_type", mlirTypeAttrGet(type)),
      memoptNamedAttribute(context, "sym_visibility",
                           mlirStringAttrGet(context, mlirStringRefCreateFromCString("private"))),
  };
  MlirOperationState state = mlirOperationStateGet(mlirStringRefCreateFromCString("func.func"),
                                                   mlirLocationUnknownGet(context));
  mlirOperationStateAddAttributes(&state, 3, attributes);
  MlirRegion body = mlirRegionCreate();
  mlirOperationStateAddOwnedRegions(&state, 1, &body);
  mlirBlockInsertOwnedOperation(block, 0, mlirOperationCreate(&state));
}

/* The index of the first remat.regenerate of `value` among `ops` after
 * `after`; `count` when there is none. */
static size_t nextRegenerate(MlirOperation *ops, size_t count, size_t after, MlirValue value) {
  size_t next = after + 1;
  while (next < count && !(memoptOperationIsA(ops[next], "remat.regenerate") &&
                           mlirValueEqual(mlirOperationGetOperand(ops[next], 0), value)))
    ++next;
  return next;
}

/* An evict with no top-level regenerate after it is dropped: nothing reads
 * its value again (the verifier refuses element reads before a regenerate),
 * so its buffer is dead, and the deallocation pipeline frees it at its last
 * use, which a call registering it would come after. */
static void lowerEvictAt(MlirOperation evict, MlirOperation *ops, size_t count, size_t position,
                         const MemoptShapeSymbols *symbols) {
  size_t next = nextRegenerate(ops, count, position, mlirOperationGetOperand(evict, 0));
  if (next == count)
    memoptEraseOp(evict);
  else
    lowerEvict(evict, (int64_t)position, (int64_t)next, ops[next], symbols, ops[position]);
}

/* Lowers the remat ops in the body of `regenerate`, then `regenerate`
 * itself, the function-body op `ops[position]` or nested in it: nested ops
 * run at its position, and a nested evict takes effect once the body has
 * run (after the write into the buffer, wherever it sits in the body) and
 * lasts until the next top-level regenerate of its value. */
static void lowerRegenerateAt(MlirOperation regenerate, MlirOperation *ops, size_t count,
                              size_t position, const MemoptShapeSymbols *symbols) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(regenerate, 0));
  MlirOperation firstRecomputed = mlirBlockGetFirstOperation(body);
  while (isRematOp(firstRecomputed)) /* the terminator ends the loop */
    firstRecomputed = mlirOperationGetNextInBlock(firstRecomputed);
  /* Split the body's remat ops before lowering erases the regenerates. */
  size_t innerCount, evictCount = 0;
  MlirOperation *inner = memoptBlockGetOperations(body, &innerCount);
  MlirOperation *evicts = memoptAllocateZeroed(innerCount, sizeof *evicts);
  for (size_t i = 0; i < innerCount; ++i)
    if (memoptOperationIsA(inner[i], "remat.evict"))
      evicts[evictCount++] = inner[i];
    else if (memoptOperationIsA(inner[i], "remat.regenerate"))
      lowerRegenerateAt(inner[i], ops, count, position, symbols);
  free(inner);
  bool isTopLevel = mlirOperationEqual(ops[position], regenerate);
  MlirOperation end;
  MlirOperation guard = lowerRegenerate(regenerate, (int64_t)position, firstRecomputed, &end);
  if (isTopLevel) /* the function-body op the nested evicts build their cost before */
    ops[position] = guard;
  for (size_t i = 0; i < evictCount; ++i) {
    mlirOperationMoveBefore(evicts[i], end);
    lowerEvictAt(evicts[i], ops, count, position, symbols);
  }
  free(evicts);
}

/* Lowers `op` when it is a remat op, at `position` (see lowerRegenerateAt). */
static void lowerRematOp(MlirOperation op, MlirOperation *ops, size_t count, size_t position,
                         const MemoptShapeSymbols *symbols) {
  if (memoptOperationIsA(op, "remat.evict"))
    lowerEvictAt(op, ops, count, position, symbols);
  else if (memoptOperationIsA(op, "remat.regenerate"))
    lowerRegenerateAt(op, ops, count, position, symbols);
}

/* Lowers the remat ops of one function; sets `any` when there were some.
 * Fails when the function's symbol bounds are malformed. */
static MlirLogicalResult lowerFunction(MlirOperation func, bool *any) {
  MlirBlock block = memoptSingleBlock(func);
  if (mlirBlockIsNull(block))
    return mlirLogicalResultSuccess();
  size_t count = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    count += isRematOp(op);
  if (count == 0)
    return mlirLogicalResultSuccess();
  /* Sizes of the regenerate bodies, read before anything is lowered. */
  MemoptShapeSymbols *symbols = memoptPassCreateShapeSymbols(func);
  if (!symbols)
    return mlirLogicalResultFailure();
  MlirOperation *ops = memoptBlockGetOperations(block, &count);
  for (size_t i = 0; i < count; ++i)
    lowerRematOp(ops[i], ops, count, i, symbols);
  *any = true;
  free(ops);
  memoptShapeSymbolsDestroy(symbols);
  return mlirLogicalResultSuccess();
}

/* Finds remat ops that are neither at the top level of a function body nor
 * in the body of a remat.regenerate (nested recomputations run at the point
 * of the function-body op they are in). */
static MlirWalkResult findMisplaced(MlirOperation op, void *userData) {
  MlirOperation *found = userData;
  if (!isRematOp(op))
    return MlirWalkResultAdvance;
  MlirOperation parent = mlirOperationGetParentOperation(op);
  while (memoptOperationIsA(parent, "remat.regenerate"))
    parent = mlirOperationGetParentOperation(parent);
  if (!memoptOperationIsA(parent, "func.func")) {
    *found = op;
    return MlirWalkResultInterrupt;
  }
  return MlirWalkResultAdvance;
}

static MlirLogicalResult runRematToRuntime(MlirOperation module, const MemoptPassOptions *options) {
  (void)options;
  /* The lowering relies on memopt's invariants (no read of a value while it
   * may be evicted, no recomputation from itself); passes since the last
   * check may have changed the IR. */
  if (mlirLogicalResultIsFailure(memoptVerifyOps(module)))
    return mlirLogicalResultFailure();
  MlirOperation nested = {NULL};
  mlirOperationWalk(module, findMisplaced, &nested, MlirWalkPreOrder);
  if (!mlirOperationIsNull(nested)) {
    memoptEmitDiagnostic(mlirOperationGetLocation(nested), MlirDiagnosticError,
                         "remat-to-runtime: remat ops are lowered only at the top level of a "
                         "function body or in a remat.regenerate body");
    return mlirLogicalResultFailure();
  }
  bool any = false;
  MlirBlock block = memoptSingleBlock(module);
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (memoptOperationIsA(op, "func.func") && mlirLogicalResultIsFailure(lowerFunction(op, &any)))
      return mlirLogicalResultFailure();
  if (any) {
    MlirType i32 = mlirIntegerTypeGet(mlirOperationGetContext(module), 32);
    declare(module, "memoptRtEvictable", 5, NULL, 0);
    declare(module, "memoptRtRestore", 2, &i32, 1);
    declare(module, "memoptRtRecommit", 1, NULL, 0);
  }
  return mlirLogicalResultSuccess();
}

static MlirDialectHandle (*const rematToRuntimeDialects[])(void) = {
    mlirGetDialectHandle__arith__, mlirGetDialectHandle__bufferization__,
    mlirGetDialectHandle__func__,  mlirGetDialectHandle__memref__,
    mlirGetDialectHandle__scf__,   mlirGetDialectHandle__tensor__,
};

const MemoptPassInfo memoptRematToRuntimePass = {
    .argument = "remat-to-runtime",
    .summary = "Lower remat.evict / remat.regenerate to memopt_rt calls and an scf.if that "
               "recomputes an evicted buffer in place",
    .anchor = "builtin.module",
    .options = NULL,
    .optionCount = 0,
    .dependentDialects = rematToRuntimeDialects,
    .dependentDialectCount = sizeof rematToRuntimeDialects / sizeof *rematToRuntimeDialects,
    .run = runRematToRuntime,
};

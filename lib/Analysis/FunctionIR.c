/* IrFunction: one walk over a func.func that numbers its ops (pre-order),
 * blocks and tensor/memref values, and records operands and uses, so the
 * analyses can work on indices instead of re-walking the IR. */
#include "Analysis/BufferizationModel.h"

#include "mlir-c/BuiltinTypes.h"

#include <stdlib.h>
#include <string.h>

/* Makes room for one more element in an array of `count` elements of
 * `size` bytes with room for `*capacity`; returns the (moved) array. */
bool memoptNameIs(MlirStringRef name, const char *literal) {
  size_t length = strlen(literal);
  return name.length == length && memcmp(name.data, literal, length) == 0;
}

static bool isTracked(MlirType type) {
  return mlirTypeIsATensor(type) || mlirTypeIsAMemRef(type) || mlirTypeIsAUnrankedMemRef(type);
}

/* State of one build: the capacities of the function's growing arrays. */
typedef struct Builder {
  IrFunction *function;
  size_t opsCapacity, blocksCapacity, valuesCapacity, operandsCapacity;
  size_t (*resolveCallee)(MlirOperation call, void *userData);
  void *userData;
} Builder;

static size_t appendOp(Builder *builder) {
  IrFunction *function = builder->function;
  function->ops = memoptGrowArray(function->ops, &builder->opsCapacity, function->numOps + 1,
                                  sizeof *function->ops);
  memset(&function->ops[function->numOps], 0, sizeof *function->ops);
  return function->numOps++;
}

static size_t appendBlock(Builder *builder) {
  IrFunction *function = builder->function;
  function->blocks = memoptGrowArray(function->blocks, &builder->blocksCapacity,
                                     function->numBlocks + 1, sizeof *function->blocks);
  memset(&function->blocks[function->numBlocks], 0, sizeof *function->blocks);
  return function->numBlocks++;
}

static size_t appendValue(Builder *builder) {
  IrFunction *function = builder->function;
  function->values = memoptGrowArray(function->values, &builder->valuesCapacity,
                                     function->numValues + 1, sizeof *function->values);
  memset(&function->values[function->numValues], 0, sizeof *function->values);
  return function->numValues++;
}

static size_t appendOperand(Builder *builder) {
  IrFunction *function = builder->function;
  function->operands = memoptGrowArray(function->operands, &builder->operandsCapacity,
                                       function->numOperands + 1, sizeof *function->operands);
  memset(&function->operands[function->numOperands], 0, sizeof *function->operands);
  return function->numOperands++;
}

static size_t addValue(Builder *builder, MlirValue value, size_t definingOp, size_t block,
                       size_t number) {
  MlirType type = mlirValueGetType(value);
  if (!isTracked(type))
    return MEMOPT_NO_INDEX;
  size_t index = appendValue(builder);
  IrValue *info = &builder->function->values[index];
  info->value = value;
  info->type = type;
  info->isTensor = mlirTypeIsATensor(type);
  info->definingOp = definingOp;
  info->block = block;
  info->number = number;
  info->aliasParent = index;
  info->aliasNext = index;
  info->equivalenceParent = index;
  memoptPointerMapInsert(&builder->function->valueIndex, value.ptr, index);
  return index;
}

static bool isLoop(MlirStringRef name) {
  return memoptNameIs(name, "scf.for") || memoptNameIs(name, "scf.while") ||
         memoptNameIs(name, "scf.forall") || memoptNameIs(name, "scf.parallel") ||
         memoptNameIs(name, "affine.for") || memoptNameIs(name, "affine.parallel");
}

static void visitBlock(Builder *builder, MlirBlock block, size_t blockIndex);

static void visitOp(Builder *builder, MlirOperation op, size_t parent, size_t block) {
  IrFunction *function = builder->function;
  size_t index = appendOp(builder);
  IrOp *info = &function->ops[index];
  info->op = op;
  info->name = mlirIdentifierStr(mlirOperationGetName(op));
  info->parent = parent;
  info->block = block;
  info->position = function->blocks[block].numOps++;
  info->callee = MEMOPT_NO_INDEX;
  memoptPointerMapInsert(&function->opIndex, op.ptr, index);
  for (intptr_t i = 0; i < mlirOperationGetNumResults(op); ++i)
    addValue(builder, mlirOperationGetResult(op, i), index, block, (size_t)i);
  if (memoptNameIs(info->name, "func.call") && builder->resolveCallee)
    info->callee = builder->resolveCallee(op, builder->userData);

  /* Create the blocks of all regions first so that an op's blocks are
   * consecutive, then visit them. */
  bool repetitive = isLoop(info->name);
  size_t firstBlock = function->numBlocks;
  for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); ++r) {
    MlirRegion region = mlirOperationGetRegion(op, r);
    size_t blocksInRegion = 0;
    for (MlirBlock b = mlirRegionGetFirstBlock(region); !mlirBlockIsNull(b);
         b = mlirBlockGetNextInRegion(b), ++blocksInRegion) {
      size_t created = appendBlock(builder);
      function->blocks[created] = (IrBlock){.block = b, .owner = index, .region = (size_t)r,
                                            .repetitive = repetitive};
    }
    if (blocksInRegion > 1)
      function->hasUnstructuredControlFlow = true;
  }
  size_t endBlock = function->numBlocks;
  function->ops[index].firstBlock = firstBlock;
  function->ops[index].numBlocks = endBlock - firstBlock;
  for (size_t b = firstBlock; b < endBlock; ++b)
    visitBlock(builder, function->blocks[b].block, b);
  function->ops[index].subtreeEnd = function->numOps;
}

static void visitBlock(Builder *builder, MlirBlock block, size_t blockIndex) {
  IrFunction *function = builder->function;
  for (intptr_t i = 0; i < mlirBlockGetNumArguments(block); ++i)
    addValue(builder, mlirBlockGetArgument(block, i), MEMOPT_NO_INDEX, blockIndex, (size_t)i);
  size_t owner = function->blocks[blockIndex].owner;
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    visitOp(builder, op, owner, blockIndex);
}

/* Lists the ops of each block contiguously, in order (counting sort). */
static void indexBlockOps(IrFunction *function) {
  size_t offset = 0;
  for (size_t b = 0; b < function->numBlocks; ++b) {
    function->blocks[b].firstOp = offset;
    offset += function->blocks[b].numOps;
  }
  function->blockOps = memoptAllocateZeroed(offset, sizeof *function->blockOps);
  for (size_t op = 0; op < function->numOps; ++op)
    function->blockOps[function->blocks[function->ops[op].block].firstOp +
                       function->ops[op].position] = op;
}

/* Records every operand and groups the uses of each value (counting sort). */
static void indexOperandsAndUses(Builder *builder) {
  IrFunction *function = builder->function;
  for (size_t op = 0; op < function->numOps; ++op) {
    MlirOperation operation = function->ops[op].op;
    intptr_t count = mlirOperationGetNumOperands(operation);
    function->ops[op].firstOperand = function->numOperands;
    function->ops[op].numOperands = (size_t)count;
    for (intptr_t i = 0; i < count; ++i) {
      size_t slot = appendOperand(builder);
      IrOperand *operand = &function->operands[slot];
      operand->op = op;
      operand->number = (size_t)i;
      operand->value = memoptPointerMapLookup(&function->valueIndex,
                                              mlirOperationGetOperand(operation, i).ptr);
    }
  }
  for (size_t i = 0; i < function->numOperands; ++i)
    if (function->operands[i].value != MEMOPT_NO_INDEX)
      ++function->values[function->operands[i].value].numUses;
  size_t offset = 0;
  for (size_t v = 0; v < function->numValues; ++v) {
    function->values[v].firstUse = offset;
    offset += function->values[v].numUses;
    function->values[v].numUses = 0;
  }
  function->numUsesTotal = offset;
  function->uses = memoptAllocateZeroed(offset, sizeof *function->uses);
  for (size_t i = 0; i < function->numOperands; ++i) {
    size_t value = function->operands[i].value;
    if (value == MEMOPT_NO_INDEX)
      continue;
    IrValue *info = &function->values[value];
    function->uses[info->firstUse + info->numUses++] = i;
  }
}

void memoptIrFunctionBuild(IrFunction *function, MlirOperation func,
                           size_t (*resolveCallee)(MlirOperation call, void *userData),
                           void *userData, const IrCalleeSummary *callees) {
  memset(function, 0, sizeof *function);
  function->func = func;
  function->callees = callees;
  function->opIndex = memoptPointerMapCreate();
  function->valueIndex = memoptPointerMapCreate();
  Builder builder = {
      .function = function,
      .resolveCallee = resolveCallee,
      .userData = userData,
  };
  MlirRegion body = mlirOperationGetRegion(func, 0);
  size_t firstBodyBlock = function->numBlocks;
  for (MlirBlock b = mlirRegionGetFirstBlock(body); !mlirBlockIsNull(b);
       b = mlirBlockGetNextInRegion(b)) {
    size_t created = appendBlock(&builder);
    function->blocks[created] = (IrBlock){.block = b, .owner = MEMOPT_NO_INDEX};
  }
  size_t endBodyBlock = function->numBlocks;
  if (endBodyBlock - firstBodyBlock > 1)
    function->hasUnstructuredControlFlow = true;
  for (size_t b = firstBodyBlock; b < endBodyBlock; ++b)
    visitBlock(&builder, function->blocks[b].block, b);
  indexBlockOps(function);
  indexOperandsAndUses(&builder);
  function->readMarks = memoptVisitMarksCreate(function->numOperands);
  function->chainMarks = memoptVisitMarksCreate(function->numOperands);
}

void memoptIrFunctionDestroy(IrFunction *function) {
  free(function->ops);
  free(function->blocks);
  free(function->blockOps);
  free(function->values);
  free(function->operands);
  free(function->uses);
  memoptVisitMarksDestroy(&function->readMarks);
  memoptVisitMarksDestroy(&function->chainMarks);
  memoptPointerMapDestroy(&function->opIndex);
  memoptPointerMapDestroy(&function->valueIndex);
  memset(function, 0, sizeof *function);
}

size_t memoptIrFunctionLookupValue(const IrFunction *function, MlirValue value) {
  return memoptPointerMapLookup(&function->valueIndex, value.ptr);
}

size_t memoptIrFunctionLookupOp(const IrFunction *function, MlirOperation op) {
  return memoptPointerMapLookup(&function->opIndex, op.ptr);
}

size_t memoptIrBlockOp(const IrFunction *function, size_t block, size_t position) {
  return function->blockOps[function->blocks[block].firstOp + position];
}

size_t memoptIrAncestorInBlock(const IrFunction *function, size_t op, size_t block) {
  while (op != MEMOPT_NO_INDEX && function->ops[op].block != block)
    op = function->ops[op].parent;
  return op;
}

size_t memoptIrResultValue(const IrFunction *function, size_t op, size_t number) {
  return memoptPointerMapLookup(&function->valueIndex,
                                mlirOperationGetResult(function->ops[op].op, (intptr_t)number).ptr);
}

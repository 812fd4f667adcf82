/* The top-level ops of a block indexed by position, for the rewrites that
 * clone chains of ops to recompute values (see ChunkBlockOps.h). */
#include "Chunk/ChunkBlockOps.h"

#include "Analysis/Analysis.h"
#include "IR/IR.h"
#include "Support/Support.h"

#include "mlir-c/BuiltinTypes.h"

#include <stdlib.h>

MemoptChunkBlockOps memoptChunkBlockOpsCreate(MlirBlock block) {
  MemoptChunkBlockOps b = {block, NULL, 0, memoptPointerMapCreate()};
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    ++b.count;
  b.ops = memoptAllocateZeroed((size_t)b.count, sizeof *b.ops);
  MlirOperation op = mlirBlockGetFirstOperation(block);
  for (intptr_t i = 0; i < b.count; ++i, op = mlirOperationGetNextInBlock(op)) {
    b.ops[i] = op;
    memoptPointerMapInsert(&b.positions, op.ptr, (size_t)i);
  }
  return b;
}

void memoptChunkBlockOpsDestroy(MemoptChunkBlockOps *b) {
  free(b->ops);
  memoptPointerMapDestroy(&b->positions);
  b->ops = NULL;
  b->count = 0;
}

intptr_t memoptChunkBlockOpsIndexOf(const MemoptChunkBlockOps *b, MlirOperation op) {
  op = memoptOperationAncestorInBlock(op, b->block);
  size_t position;
  return !mlirOperationIsNull(op) && memoptPointerMapFind(&b->positions, op.ptr, &position)
             ? (intptr_t)position
             : -1;
}

bool memoptChunkOpIsDestination(MlirOperation op) {
  return memoptOperationIsA(op, "tensor.empty") || memoptOperationIsA(op, "linalg.fill");
}

intptr_t memoptChunkBlockOpsProducerOf(const MemoptChunkBlockOps *b, MlirValue value) {
  return mlirValueIsAOpResult(value) ? memoptChunkBlockOpsIndexOf(b, mlirOpResultGetOwner(value))
                                     : -1;
}

bool memoptChunkBlockOpsReadFrom(const MemoptChunkBlockOps *b, MlirValue value, intptr_t index) {
  for (MlirOpOperand use = mlirValueGetFirstUse(value); !mlirOpOperandIsNull(use);
       use = mlirOpOperandGetNextUse(use))
    if (memoptChunkBlockOpsIndexOf(b, mlirOpOperandGetOwner(use)) >= index)
      return true;
  return false;
}

uint64_t memoptChunkValueBytes(MlirValue value) {
  uint64_t bytes = 0;
  MlirType type = mlirValueGetType(value);
  if (mlirTypeIsARankedTensor(type))
    memoptTypeGetStaticByteSize(type, &bytes);
  return bytes;
}

MemoptChunkValueMap memoptChunkValueMapCreate(intptr_t capacity) {
  size_t size = (size_t)(capacity > 0 ? capacity : 1);
  return (MemoptChunkValueMap){memoptAllocateZeroed(size, sizeof(MlirValue)),
                               memoptAllocateZeroed(size, sizeof(MlirValue)), 0};
}

void memoptChunkValueMapDestroy(MemoptChunkValueMap *map) {
  free(map->from);
  free(map->to);
  map->from = map->to = NULL;
  map->count = 0;
}

MlirWalkResult memoptChunkRedirectOperands(MlirOperation op, void *userData) {
  const MemoptChunkValueMap *map = userData;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i)
    for (intptr_t m = 0; m < map->count; ++m)
      if (mlirValueEqual(mlirOperationGetOperand(op, i), map->from[m])) {
        mlirOperationSetOperand(op, i, map->to[m]);
        break;
      }
  return MlirWalkResultAdvance;
}

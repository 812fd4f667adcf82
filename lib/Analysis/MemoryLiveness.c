/* Liveness of a profiled function's buffers: where the deallocation pipeline
 * and optimize-allocation-liveness free each one (after the last use of any
 * value it holds), and the live and allocated bytes at every position. */
#include "Analysis/MemoryProfile.h"

#include "mlir-c/BuiltinTypes.h"

#include <stdlib.h>
#include <string.h>

/*===------------------------------------------------------------------===*
 * Liveness
 *===------------------------------------------------------------------===*/

/* Canonicalization (inside buffer-deallocation-pipeline) erases a
 * memref.alloc whose only users store into it: nothing reads the buffer. */
static void dropStoreOnlyAllocations(MemoptMemoryProfile *profile) {
  IrFunction *ir = &profile->ir;
  for (size_t b = 0; b < profile->numBuffers; ++b) {
    Buffer *buffer = &profile->buffers[b];
    if (buffer->info.kind != MemoptBufferMemRefAlloc || buffer->info.escapes)
      continue;
    size_t value = memoptIrFunctionLookupValue(ir, buffer->info.value);
    if (value == MEMOPT_NO_INDEX)
      continue;
    const IrValue *info = &ir->values[value];
    bool storeOnly = true;
    for (size_t u = 0; u < info->numUses && storeOnly; ++u) {
      const IrOperand *use = &ir->operands[ir->uses[info->firstUse + u]];
      MlirStringRef user = ir->ops[use->op].name;
      storeOnly = (memoptNameIs(user, "memref.store") && use->number == 1) ||
                  memoptNameIs(user, "memref.dealloc");
    }
    buffer->dropped = storeOnly;
  }
}

/* Each buffer is freed after the last use of any value held in it, as
 * optimize-allocation-liveness moves the dealloc after the last user of the
 * allocation and its views; returned buffers are never freed here. */
void memoptProfileComputeLastUses(MemoptMemoryProfile *profile) {
  IrFunction *ir = &profile->ir;
  for (size_t b = 0; b < profile->numBuffers; ++b) {
    Buffer *buffer = &profile->buffers[b];
    buffer->info.lastPosition = buffer->countsFrom > buffer->info.firstPosition
                                    ? buffer->countsFrom
                                    : buffer->info.firstPosition;
  }
  /* Copies are used by the op they were made for. */
  for (size_t i = 0; i < ir->numOperands; ++i)
    if (profile->operandCopy[i] != MEMOPT_NO_INDEX)
      ++profile->buffers[profile->operandCopy[i]].numUses;
  for (size_t i = 0; i < ir->numOperands; ++i) {
    const IrOperand *operand = &ir->operands[i];
    if (operand->value == MEMOPT_NO_INDEX)
      continue;
    /* An out-of-place operand whose copy is not filled no longer uses its value. */
    if (profile->operandCopy[i] != MEMOPT_NO_INDEX && profile->operandCopyOmitted[i])
      continue;
    const Storage *storage = &profile->storage[operand->value];
    if (storage->kind != StorageBuffer)
      continue;
    Buffer *buffer = &profile->buffers[storage->buffer];
    ++buffer->numUses;
    size_t user = memoptIrAncestorInBlock(ir, operand->op, buffer->block);
    if (user == MEMOPT_NO_INDEX) {
      buffer->freeAtBlockEnd = true;
      continue;
    }
    if (ir->ops[user].position > buffer->info.lastPosition)
      buffer->info.lastPosition = ir->ops[user].position;
  }
  /* A buffer is also used by the op that defines a value in it, and a view
   * result that nothing uses still keeps the view op as a user. */
  for (size_t v = 0; v < ir->numValues; ++v) {
    const Storage *storage = &profile->storage[v];
    const IrValue *value = &ir->values[v];
    if (storage->kind != StorageBuffer || value->definingOp == MEMOPT_NO_INDEX)
      continue;
    Buffer *buffer = &profile->buffers[storage->buffer];
    size_t user = memoptIrAncestorInBlock(ir, value->definingOp, buffer->block);
    if (user != MEMOPT_NO_INDEX && ir->ops[user].position > buffer->info.lastPosition &&
        ir->ops[user].position >= buffer->countsFrom)
      buffer->info.lastPosition = ir->ops[user].position;
  }

  /* A call result's origin is unknown to the deallocation pipeline: it
   * cannot prove the block's other buffers distinct from it, so it frees
   * them all together, with runtime alias checks, at the end of the block. */
  dropStoreOnlyAllocations(profile);

  bool *blockHasUnknownOrigin = memoptAllocateZeroed(ir->numBlocks, sizeof(bool));
  for (size_t b = 0; b < profile->numBuffers; ++b)
    if (profile->buffers[b].unknownOrigin)
      blockHasUnknownOrigin[profile->buffers[b].block] = true;
  for (size_t b = 0; b < profile->numBuffers; ++b) {
    Buffer *buffer = &profile->buffers[b];
    if (buffer->dropped)
      continue;
    if (buffer->droppable && buffer->numUses == 0 && !buffer->info.escapes) {
      buffer->dropped = true; /* tensor.empty without uses is erased */
      continue;
    }
    size_t end = ir->blocks[buffer->block].numOps ? ir->blocks[buffer->block].numOps - 1 : 0;
    if (buffer->info.escapes || buffer->freeAtBlockEnd || blockHasUnknownOrigin[buffer->block])
      buffer->info.lastPosition = end;
  }
  free(blockHasUnknownOrigin);
}

/* What aligned_alloc is asked for: the size rounded up to the alignment. */
static uint64_t allocatedBytes(const MemoptBufferInfo *info) {
  return memoptRoundUpToAlignment(info->bytes, info->alignment);
}

/* When the body frees several buffers of which one has an unknown origin,
 * lower-deallocations checks their aliasing at run time through a helper
 * that takes five arrays: the N pointers (index) and their N ownership flags
 * (i1), the M returned pointers (index), and N plus M result flags (i1),
 * allocated just before the return and freed right after the check. They
 * are heap, not activations: they count in allocated bytes only. */
uint64_t memoptProfileDeallocationBookkeeping(const MemoptMemoryProfile *profile) {
  const IrFunction *ir = &profile->ir;
  size_t freedAtEnd = 0;
  bool unknownOriginFreed = false;
  for (size_t b = 0; b < profile->numBuffers; ++b) {
    const Buffer *buffer = &profile->buffers[b];
    if (buffer->block != profile->bodyBlock || buffer->dropped || buffer->info.escapes)
      continue;
    ++freedAtEnd;
    unknownOriginFreed |= buffer->unknownOrigin;
  }
  if (!unknownOriginFreed || freedAtEnd < 2)
    return 0;
  /* Distinct returned buffers are the retained ones. */
  size_t retained = 0;
  const IrBlock *body = &ir->blocks[profile->bodyBlock];
  size_t terminator = memoptIrBlockOp(ir, profile->bodyBlock, body->numOps - 1);
  const IrOp *ret = &ir->ops[terminator];
  for (size_t k = 0; k < ret->numOperands; ++k) {
    size_t value = ir->operands[ret->firstOperand + k].value;
    bool seen = value == MEMOPT_NO_INDEX;
    for (size_t j = 0; j < k && !seen; ++j)
      seen = ir->operands[ret->firstOperand + j].value == value;
    retained += !seen;
  }
  uint64_t index = 0, flag = 0;
  memoptTypeGetElementByteSize(mlirIndexTypeGet(mlirOperationGetContext(ir->func)), &index);
  memoptTypeGetElementByteSize(mlirIntegerTypeGet(mlirOperationGetContext(ir->func), 1), &flag);
  uint64_t indexAlignment =
      index > minimumAlignedAllocAlignment ? index : minimumAlignedAllocAlignment;
  uint64_t flagAlignment = minimumAlignedAllocAlignment;
  return memoptRoundUpToAlignment(freedAtEnd * index, indexAlignment) +
         memoptRoundUpToAlignment(freedAtEnd * flag, flagAlignment) +
         memoptRoundUpToAlignment(retained * index, indexAlignment) +
         memoptRoundUpToAlignment(freedAtEnd * flag, flagAlignment) +
         memoptRoundUpToAlignment(retained * flag, flagAlignment);
}

/* Live bytes of every position of `block`, its nested blocks already done. */
void memoptProfileComputeBlockStats(MemoptMemoryProfile *profile, size_t block, uint64_t *live,
                                    uint64_t *allocated, uint64_t *callee, bool *unknown) {
  IrFunction *ir = &profile->ir;
  size_t numOps = ir->blocks[block].numOps;
  int64_t *unknownDelta = memoptAllocateZeroed(numOps + 1, sizeof *unknownDelta);
  uint64_t *addBytes = memoptAllocateZeroed(numOps + 1, sizeof *addBytes);
  uint64_t *removeBytes = memoptAllocateZeroed(numOps + 1, sizeof *removeBytes);
  uint64_t *addAllocated = memoptAllocateZeroed(numOps + 1, sizeof *addAllocated);
  uint64_t *removeAllocated = memoptAllocateZeroed(numOps + 1, sizeof *removeAllocated);
  for (size_t b = 0; b < profile->numBuffers; ++b) {
    const Buffer *buffer = &profile->buffers[b];
    if (buffer->block != block || buffer->dropped || buffer->countsFrom > buffer->info.lastPosition)
      continue;
    addBytes[buffer->countsFrom] += buffer->info.bytes;
    removeBytes[buffer->info.lastPosition + 1] += buffer->info.bytes;
    uint64_t total = allocatedBytes(&buffer->info);
    addAllocated[buffer->countsFrom] += total;
    removeAllocated[buffer->info.lastPosition + 1] += total;
    if (!buffer->info.sizeKnown) {
      ++unknownDelta[buffer->countsFrom];
      --unknownDelta[buffer->info.lastPosition + 1];
    }
  }
  uint64_t bytes = 0, allocatedRunning = 0;
  int64_t unknownCount = 0;
  BlockStats *stats = &profile->blockStats[block];
  memset(stats, 0, sizeof *stats);
  for (size_t p = 0; p < numOps; ++p) {
    bytes = bytes + addBytes[p] - removeBytes[p];
    allocatedRunning = allocatedRunning + addAllocated[p] - removeAllocated[p];
    unknownCount += unknownDelta[p];
    size_t op = memoptIrBlockOp(ir, block, p);
    const IrOp *info = &ir->ops[op];
    uint64_t innerBytes = 0, innerAllocated = 0, calleePart = 0;
    bool innerUnknown = false;
    for (size_t child = info->firstBlock; child < info->firstBlock + info->numBlocks; ++child) {
      const BlockStats *childStats = &profile->blockStats[child];
      if (childStats->peakBytes > innerBytes)
        innerBytes = childStats->peakBytes;
      if (childStats->peakAllocatedBytes > innerAllocated)
        innerAllocated = childStats->peakAllocatedBytes;
      innerUnknown |= childStats->peakUnknown;
    }
    if (info->opClass == IrOpCall && info->callee != MEMOPT_NO_INDEX) {
      const IrCalleeSummary *summary = &profile->callees[info->callee];
      calleePart = summary->peakBytes;
      innerBytes += summary->peakBytes;
      innerAllocated += summary->peakAllocatedBytes;
      innerUnknown |= summary->peakHasUnknownSize;
    }
    uint64_t liveHere = bytes + innerBytes;
    uint64_t allocatedHere = allocatedRunning + innerAllocated;
    if (block == profile->bodyBlock && p + 1 == numOps)
      allocatedHere += profile->bookkeepingBytes;
    bool unknownHere = unknownCount > 0 || innerUnknown;
    if (live) {
      live[p] = liveHere;
      allocated[p] = allocatedHere;
      callee[p] = calleePart;
      unknown[p] = unknownHere;
    }
    if (p == 0 || liveHere > stats->peakBytes) {
      stats->peakBytes = liveHere;
      stats->peakPosition = p;
    }
    if (allocatedHere > stats->peakAllocatedBytes)
      stats->peakAllocatedBytes = allocatedHere;
    stats->peakUnknown |= unknownHere;
  }
  free(unknownDelta);
  free(addBytes);
  free(removeBytes);
  free(addAllocated);
  free(removeAllocated);
}


/* Reading a memory profile: positions, live bytes, the peak, buffers, the
 * buffers live at a position, notes. Dropped buffers are numbered out. */
#include "Analysis/MemoryProfile.h"



MlirOperation memoptMemoryProfileGetFunction(const MemoptMemoryProfile *profile) {
  return profile->ir.func;
}

size_t memoptMemoryProfileGetNumPositions(const MemoptMemoryProfile *profile) {
  return profile->numPositions;
}

MlirOperation memoptMemoryProfileGetPositionOp(const MemoptMemoryProfile *profile, size_t position) {
  return profile->ir.ops[memoptIrBlockOp(&profile->ir, profile->bodyBlock, position)].op;
}

bool memoptMemoryProfileLookupPosition(const MemoptMemoryProfile *profile, MlirOperation op,
                                       size_t *position) {
  size_t index = memoptIrFunctionLookupOp(&profile->ir, op);
  if (index == MEMOPT_NO_INDEX)
    return false;
  size_t top = memoptIrAncestorInBlock(&profile->ir, index, profile->bodyBlock);
  if (top == MEMOPT_NO_INDEX)
    return false;
  *position = profile->ir.ops[top].position;
  return true;
}

uint64_t memoptMemoryProfileGetLiveBytes(const MemoptMemoryProfile *profile, size_t position) {
  return profile->liveBytes[position];
}

uint64_t memoptMemoryProfileGetAllocatedBytes(const MemoptMemoryProfile *profile,
                                              size_t position) {
  return profile->allocatedBytes[position];
}

bool memoptMemoryProfileHasUnknownSize(const MemoptMemoryProfile *profile, size_t position) {
  return profile->unknownSize[position];
}

uint64_t memoptMemoryProfileGetCalleeBytes(const MemoptMemoryProfile *profile, size_t position) {
  return profile->calleeBytes[position];
}

size_t memoptMemoryProfileGetPeakPosition(const MemoptMemoryProfile *profile) {
  return profile->peakPosition;
}

uint64_t memoptMemoryProfileGetPeakBytes(const MemoptMemoryProfile *profile) {
  return profile->numPositions ? profile->liveBytes[profile->peakPosition] : 0;
}

uint64_t memoptMemoryProfileGetPeakAllocatedBytes(const MemoptMemoryProfile *profile) {
  return profile->peakAllocatedBytes;
}

/* Buffers are numbered without the dropped ones. */
size_t memoptMemoryProfileGetNumBuffers(const MemoptMemoryProfile *profile) {
  return profile->numPublicBuffers;
}

static size_t internalBufferIndex(const MemoptMemoryProfile *profile, size_t index) {
  return index < profile->numPublicBuffers ? profile->internalOfPublic[index] : MEMOPT_NO_INDEX;
}

static size_t publicBufferIndex(const MemoptMemoryProfile *profile, size_t internal) {
  return profile->publicOfInternal[internal];
}

MemoptBufferInfo memoptMemoryProfileGetBuffer(const MemoptMemoryProfile *profile, size_t index) {
  return profile->buffers[internalBufferIndex(profile, index)].info;
}

bool memoptMemoryProfileLookupBuffer(const MemoptMemoryProfile *profile, MlirValue value,
                                     size_t *buffer) {
  size_t index = memoptIrFunctionLookupValue(&profile->ir, value);
  if (index == MEMOPT_NO_INDEX)
    return false;
  const Storage *storage = &profile->storage[index];
  if (storage->kind != StorageBuffer || profile->buffers[storage->buffer].dropped)
    return false;
  *buffer = publicBufferIndex(profile, storage->buffer);
  return true;
}

/* Appends the buffers of `block` live at `position`, then, for a region op
 * there, those of its heaviest region at that region's peak. */
static size_t collectLive(const MemoptMemoryProfile *profile, size_t block, size_t position,
                          size_t *out, size_t capacity, size_t count) {
  for (size_t b = 0; b < profile->numBuffers; ++b) {
    const Buffer *buffer = &profile->buffers[b];
    if (buffer->block != block || buffer->dropped || buffer->countsFrom > position ||
        buffer->info.lastPosition < position)
      continue;
    if (count < capacity)
      out[count] = publicBufferIndex(profile, b);
    ++count;
  }
  const IrOp *op = &profile->ir.ops[memoptIrBlockOp(&profile->ir, block, position)];
  size_t heaviest = MEMOPT_NO_INDEX;
  for (size_t child = op->firstBlock; child < op->firstBlock + op->numBlocks; ++child)
    if (heaviest == MEMOPT_NO_INDEX ||
        profile->blockStats[child].peakBytes > profile->blockStats[heaviest].peakBytes)
      heaviest = child;
  if (heaviest != MEMOPT_NO_INDEX && profile->ir.blocks[heaviest].numOps)
    count = collectLive(profile, heaviest, profile->blockStats[heaviest].peakPosition, out,
                        capacity, count);
  return count;
}

size_t memoptMemoryProfileGetLiveBuffers(const MemoptMemoryProfile *profile, size_t position,
                                         size_t *buffers, size_t capacity) {
  return collectLive(profile, profile->bodyBlock, position, buffers, capacity, 0);
}

size_t memoptMemoryProfileGetNumNotes(const MemoptMemoryProfile *profile) {
  return profile->numNotes;
}

size_t memoptMemoryProfileGetNumOmittedNotes(const MemoptMemoryProfile *profile) {
  return profile->numNotesDropped;
}

const char *memoptMemoryProfileGetNote(const MemoptMemoryProfile *profile, size_t index,
                                       MlirOperation *op) {
  if (op)
    *op = profile->notes[index].op;
  return profile->notes[index].message;
}

const char *memoptBufferKindName(MemoptBufferKind kind) {
  switch (kind) {
  case MemoptBufferAllocation:
    return "allocation";
  case MemoptBufferCopy:
    return "copy";
  case MemoptBufferReturnCopy:
    return "return-copy";
  case MemoptBufferCallResult:
    return "call-result";
  case MemoptBufferRegionResult:
    return "region-result";
  case MemoptBufferMemRefAlloc:
    return "memref-alloc";
  case MemoptBufferUnmodeled:
    return "unmodeled";
  }
  return "unknown";
}


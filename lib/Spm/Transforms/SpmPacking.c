/* Interval packing of pinned feature maps: each lives in the SPM from the
 * group that produces it to the group that reads it last; tensors whose
 * lifetimes overlap must not overlap in address. Each group's working
 * buffers (tiles, weights) take the gaps the pinned tensors live during it
 * leave, so tensors that live through the groups with the least room left go
 * first (largest first among equals), each at the lowest offset free for its
 * whole lifetime; then every group checks that its working buffers fit in
 * the gaps, largest first. */
#include "Spm/Spm.h"
#include "Spm/Transforms/SpmPinFuse.h"

#include <stdlib.h>

typedef struct Interval {
  size_t layer;
  size_t start, end; /* groups, inclusive */
  uint64_t size;
  uint64_t room; /* the least SPM left for pinned tensors in a group of its lifetime */
} Interval;

static int byRoomThenSize(const void *a, const void *b) {
  const Interval *x = a, *y = b;
  if (x->room != y->room)
    return x->room < y->room ? -1 : 1;
  if (x->size != y->size)
    return x->size < y->size ? 1 : -1;
  return x->start < y->start ? -1 : x->start > y->start;
}

static int bySizeDescendingU64(const void *a, const void *b) {
  const uint64_t *x = a, *y = b;
  return *x < *y ? 1 : *x > *y ? -1 : 0;
}

static int byOffset(const void *a, const void *b) {
  const uint64_t *x = a, *y = b;
  return x[0] < y[0] ? -1 : x[0] > y[0];
}

bool spmPackPinned(const MemoptLayerGraph *graph, const MemoptSpmTarget *target, SpmPlan *plan,
                   uint64_t capacity) {
  size_t count = memoptLayerGraphCount(graph);
  size_t *groupOf = memoptAllocateZeroed(count, sizeof *groupOf);
  Interval *intervals = memoptAllocateZeroed(count, sizeof *intervals);
  uint64_t(*taken)[2] = memoptAllocateZeroed(count, sizeof *taken);
  for (size_t g = 0; g < plan->groupCount; ++g)
    for (size_t l = plan->groups[g].first; l <= plan->groups[g].last; ++l)
      groupOf[l] = g;
  size_t pinnedCount = 0;
  for (size_t l = 0; l < count; ++l)
    if (plan->pinned[l])
      intervals[pinnedCount++] =
          (Interval){l, groupOf[l], groupOf[memoptLayerGraphAt(graph, l)->lastUse],
                     memoptLayerBytes(graph, l, target), UINT64_MAX};
  for (size_t i = 0; i < pinnedCount; ++i)
    for (size_t g = intervals[i].start; g <= intervals[i].end; ++g) {
      const MemoptGroupCost *cost = &plan->groups[g].cost;
      uint64_t working = cost->footprintBytes - cost->pinnedBytes;
      uint64_t room = working < capacity ? capacity - working : 0;
      if (room < intervals[i].room)
        intervals[i].room = room;
    }
  qsort(intervals, pinnedCount, sizeof *intervals, byRoomThenSize);
  for (size_t i = 0; i < pinnedCount; ++i) {
    /* The address ranges of placed tensors alive at the same time, in order. */
    size_t takenCount = 0;
    for (size_t j = 0; j < i; ++j)
      if (intervals[j].start <= intervals[i].end && intervals[i].start <= intervals[j].end) {
        taken[takenCount][0] = plan->offsets[intervals[j].layer];
        taken[takenCount][1] = plan->offsets[intervals[j].layer] + intervals[j].size;
        ++takenCount;
      }
    qsort(taken, takenCount, sizeof *taken, byOffset);
    uint64_t offset = 0;
    for (size_t j = 0; j < takenCount; ++j) {
      if (taken[j][0] >= offset + intervals[i].size)
        break;
      if (taken[j][1] > offset)
        offset = taken[j][1];
    }
    plan->offsets[intervals[i].layer] = offset;
  }
  /* Each group's working buffers go, largest first, into the gaps the
   * pinned tensors live during it leave; a block of streamed weights may
   * span gaps (it is loaded in as many transfers). */
  MemoptSpmTarget reduced = *target;
  reduced.spmBytes = plan->capacityUsed;
  MemoptGroupBuffers *buffers = memoptAllocateZeroed(1, sizeof *buffers);
  uint64_t *gaps = memoptAllocateZeroed(pinnedCount + 1, sizeof *gaps);
  bool fits = true;
  for (size_t g = 0; g < plan->groupCount && fits; ++g) {
    size_t takenCount = 0;
    for (size_t i = 0; i < pinnedCount; ++i)
      if (intervals[i].start <= g && g <= intervals[i].end) {
        taken[takenCount][0] = plan->offsets[intervals[i].layer];
        taken[takenCount][1] = plan->offsets[intervals[i].layer] + intervals[i].size;
        ++takenCount;
      }
    qsort(taken, takenCount, sizeof *taken, byOffset);
    size_t gapCount = 0;
    uint64_t cursor = 0;
    for (size_t i = 0; i <= takenCount; ++i) {
      uint64_t end = i < takenCount ? taken[i][0] : capacity;
      if (end > cursor)
        gaps[gapCount++] = end - cursor;
      if (i < takenCount && taken[i][1] > cursor)
        cursor = taken[i][1];
    }
    const SpmGroup *group = &plan->groups[g];
    memoptGroupBuffersList(graph, group->first, group->last, group->tileRows, plan->pinned,
                           &reduced, buffers);
    qsort(buffers->sizes, buffers->count, sizeof *buffers->sizes, bySizeDescendingU64);
    for (size_t b = 0; b < buffers->count && fits; ++b) {
      size_t gap = 0;
      while (gap < gapCount && gaps[gap] < buffers->sizes[b])
        ++gap;
      if (gap == gapCount)
        fits = false;
      else
        gaps[gap] -= buffers->sizes[b];
    }
    /* Streamed weights take whole slices from whatever gaps remain. */
    uint64_t slices = 0;
    for (size_t gap = 0; gap < gapCount && buffers->sliceBytes; ++gap)
      slices += gaps[gap] / buffers->sliceBytes;
    if (buffers->streamedBytes && slices * buffers->sliceBytes < buffers->streamedBytes)
      fits = false;
  }
  free(gaps);
  free(buffers);
  free(taken);
  free(intervals);
  free(groupOf);
  return fits;
}

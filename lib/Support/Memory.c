/* Heap arrays: zeroed allocation and growth that abort when memory runs
 * out, as everywhere in memopt (an out-of-memory compiler has nothing
 * better to do), and check the size arithmetic for overflow. */
#include "Support/Support.h"

#include <stdint.h>
#include <stdlib.h>

void *memoptAllocateZeroed(size_t count, size_t size) {
  void *memory = calloc(count ? count : 1, size ? size : 1);
  if (!memory)
    abort();
  return memory;
}

void *memoptReallocArray(void *items, size_t count, size_t size) {
  if (count == 0)
    count = 1;
  if (size != 0 && count > SIZE_MAX / size)
    abort();
  void *grown = realloc(items, count * size);
  if (!grown)
    abort();
  return grown;
}

void *memoptGrowArray(void *items, size_t *capacity, size_t needed, size_t size) {
  if (needed <= *capacity)
    return items;
  size_t next = *capacity ? *capacity : 16;
  while (next < needed) {
    if (next > SIZE_MAX / 2)
      abort();
    next *= 2;
  }
  items = memoptReallocArray(items, next, size);
  *capacity = next;
  return items;
}

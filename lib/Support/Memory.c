/* Heap arrays: zeroed allocation and growth that report and abort when
 * memory runs out, as everywhere in memopt (an out-of-memory compiler has
 * nothing better to do), and check the size arithmetic for overflow. */
#include "Support/Support.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The one place memopt gives up on memory. */
static _Noreturn void outOfMemory(size_t count, size_t size) {
  fprintf(stderr, "memopt: out of memory allocating %zu items of %zu bytes\n", count, size);
  abort();
}

void *memoptTryAllocateZeroed(size_t count, size_t size) {
  if (count == 0)
    count = 1;
  if (size == 0)
    size = 1;
  size_t bytes;
  if (__builtin_mul_overflow(count, size, &bytes))
    return NULL;
  return calloc(count, size);
}

void *memoptAllocateZeroed(size_t count, size_t size) {
  void *memory = memoptTryAllocateZeroed(count, size);
  if (!memory)
    outOfMemory(count, size);
  return memory;
}

void *memoptReallocArray(void *items, size_t count, size_t size) {
  if (count == 0)
    count = 1;
  size_t bytes;
  if (__builtin_mul_overflow(count, size, &bytes))
    outOfMemory(count, size);
  void *grown = realloc(items, bytes ? bytes : 1);
  if (!grown)
    outOfMemory(count, size);
  return grown;
}

void *memoptGrowArray(void *items, size_t *capacity, size_t needed, size_t size) {
  if (needed <= *capacity)
    return items;
  size_t next = *capacity ? *capacity : 16;
  while (next < needed)
    if (__builtin_mul_overflow(next, 2, &next))
      outOfMemory(needed, size);
  items = memoptReallocArray(items, next, size);
  *capacity = next;
  return items;
}

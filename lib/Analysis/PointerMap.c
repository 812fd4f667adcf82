/* An open-addressing hash map from MLIR handles (pointers) to dense indices:
 * the analyses number ops and values once and refer to them by index. */
#include "Analysis/BufferizationModel.h"

#include <stdint.h>
#include <stdlib.h>

MemoptPointerMap memoptPointerMapCreate(void) {
  return (MemoptPointerMap){NULL, NULL, 0, 0};
}

void memoptPointerMapDestroy(MemoptPointerMap *map) {
  free(map->keys);
  free(map->values);
  *map = memoptPointerMapCreate();
}

/* Pointers are at least 8-byte aligned: drop the low bits, then mix. */
static size_t slotOf(const void *key, size_t capacity) {
  uint64_t hash = (uint64_t)(uintptr_t)key >> 3;
  hash *= UINT64_C(0x9E3779B97F4A7C15);
  return (size_t)(hash >> 32) & (capacity - 1);
}

static void grow(MemoptPointerMap *map) {
  size_t capacity = map->capacity ? 2 * map->capacity : 64;
  const void **keys = memoptAllocateZeroed(capacity, sizeof *keys);
  size_t *values = memoptAllocateZeroed(capacity, sizeof *values);
  for (size_t i = 0; i < map->capacity; ++i) {
    if (!map->keys[i])
      continue;
    size_t slot = slotOf(map->keys[i], capacity);
    while (keys[slot])
      slot = (slot + 1) & (capacity - 1);
    keys[slot] = map->keys[i];
    values[slot] = map->values[i];
  }
  free(map->keys);
  free(map->values);
  map->keys = keys;
  map->values = values;
  map->capacity = capacity;
}

void memoptPointerMapInsert(MemoptPointerMap *map, const void *key, size_t value) {
  /* Keep the load factor at most one half so probes stay short. */
  if (2 * (map->count + 1) > map->capacity)
    grow(map);
  size_t slot = slotOf(key, map->capacity);
  while (map->keys[slot] && map->keys[slot] != key)
    slot = (slot + 1) & (map->capacity - 1);
  if (!map->keys[slot])
    ++map->count;
  map->keys[slot] = key;
  map->values[slot] = value;
}

bool memoptPointerMapFind(const MemoptPointerMap *map, const void *key, size_t *value) {
  if (!map->capacity || !key)
    return false;
  size_t slot = slotOf(key, map->capacity);
  while (map->keys[slot]) {
    if (map->keys[slot] == key) {
      *value = map->values[slot];
      return true;
    }
    slot = (slot + 1) & (map->capacity - 1);
  }
  return false;
}

size_t memoptPointerMapLookup(const MemoptPointerMap *map, const void *key) {
  size_t value;
  return memoptPointerMapFind(map, key, &value) ? value : MEMOPT_NO_INDEX;
}

/* Longest common extensions: the length of the longest common prefix of two
 * suffixes of a sequence of 64-bit symbols, in constant time after
 * O(n log n) preprocessing. The suffix array comes from prefix doubling with
 * counting sorts (Manber and Myers), the LCP array of adjacent suffixes from
 * Kasai et al.'s algorithm, and the answer is the minimum of the LCP array
 * between the two suffixes' ranks, read from a sparse table. */
#include "Support/Support.h"

#include <stdlib.h>

typedef struct SymbolAt {
  uint64_t symbol;
  size_t index;
} SymbolAt;

static int compareSymbolAt(const void *a, const void *b) {
  const SymbolAt *x = a, *y = b;
  if (x->symbol != y->symbol)
    return x->symbol < y->symbol ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* The index of the highest set bit of `value` (> 0). */
static size_t floorLog2(size_t value) {
  return (size_t)(63 - __builtin_clzll((unsigned long long)value));
}

/* Fills `order` with the suffixes of `symbols` in sorted order and `rank`
 * with each suffix's place in it. */
static void sortSuffixes(const uint64_t *symbols, size_t count, size_t *order, size_t *rank) {
  SymbolAt *sorted = memoptAllocateZeroed(count, sizeof *sorted);
  for (size_t i = 0; i < count; ++i)
    sorted[i] = (SymbolAt){symbols[i], i};
  qsort(sorted, count, sizeof *sorted, compareSymbolAt);
  /* Classes of the suffixes by their first symbol. */
  size_t classes = 0;
  for (size_t i = 0; i < count; ++i) {
    if (i == 0 || sorted[i].symbol != sorted[i - 1].symbol)
      ++classes;
    order[i] = sorted[i].index;
    rank[sorted[i].index] = classes - 1;
  }
  free(sorted);
  size_t *byNext = memoptAllocateZeroed(count, sizeof *byNext);
  size_t *start = memoptAllocateZeroed(count, sizeof *start);
  /* Classes by the first 2k symbols from those by the first k: sort by the
   * class of the suffix k further on (none, the smallest, past the end), then
   * stably by the class of the first k. */
  for (size_t k = 1; classes < count; k *= 2) {
    size_t placed = 0;
    for (size_t i = count - (k < count ? k : count); i < count; ++i)
      byNext[placed++] = i;
    for (size_t i = 0; i < count; ++i)
      if (order[i] >= k)
        byNext[placed++] = order[i] - k;
    for (size_t c = 0; c < classes; ++c)
      start[c] = 0;
    for (size_t i = 0; i < count; ++i)
      ++start[rank[i]];
    for (size_t c = 0, sum = 0; c < classes; ++c) {
      size_t here = start[c];
      start[c] = sum;
      sum += here;
    }
    for (size_t i = 0; i < count; ++i)
      order[start[rank[byNext[i]]]++] = byNext[i];
    /* New classes, into byNext (free now), then back into rank. */
    classes = 1;
    byNext[order[0]] = 0;
    for (size_t i = 1; i < count; ++i) {
      size_t a = order[i - 1], b = order[i];
      size_t nextA = a + k < count ? rank[a + k] + 1 : 0;
      size_t nextB = b + k < count ? rank[b + k] + 1 : 0;
      if (rank[a] != rank[b] || nextA != nextB)
        ++classes;
      byNext[b] = classes - 1;
    }
    for (size_t i = 0; i < count; ++i)
      rank[i] = byNext[i];
  }
  free(start);
  free(byNext);
}

MemoptCommonExtension memoptCommonExtensionCreate(const uint64_t *symbols, size_t count) {
  MemoptCommonExtension lce = {count, NULL, NULL};
  lce.rank = memoptAllocateZeroed(count, sizeof *lce.rank);
  size_t levels = count ? floorLog2(count) + 1 : 1;
  size_t table;
  if (__builtin_mul_overflow(levels, count ? count : 1, &table))
    abort();
  lce.minima = memoptAllocateZeroed(table, sizeof *lce.minima);
  if (count == 0)
    return lce;
  size_t *order = memoptAllocateZeroed(count, sizeof *order);
  sortSuffixes(symbols, count, order, lce.rank);
  /* minima[r] (level 0): the common prefix of the suffixes ranked r - 1 and r;
   * each suffix shares at least one less than the one before it in text order. */
  for (size_t i = 0, shared = 0; i < count; ++i) {
    if (lce.rank[i] == 0) {
      shared = 0;
      continue;
    }
    size_t previous = order[lce.rank[i] - 1];
    while (i + shared < count && previous + shared < count &&
           symbols[i + shared] == symbols[previous + shared])
      ++shared;
    lce.minima[lce.rank[i]] = shared;
    if (shared)
      --shared;
  }
  free(order);
  /* Level l: the minimum of level 0 over [r, r + 2^l). */
  for (size_t level = 1; level < levels; ++level) {
    size_t half = (size_t)1 << (level - 1);
    const size_t *below = lce.minima + (level - 1) * count;
    size_t *row = lce.minima + level * count;
    for (size_t r = 0; r + 2 * half <= count; ++r)
      row[r] = below[r] < below[r + half] ? below[r] : below[r + half];
  }
  return lce;
}

size_t memoptCommonExtensionQuery(const MemoptCommonExtension *lce, size_t first, size_t second) {
  if (first == second)
    return lce->count - first;
  size_t low = lce->rank[first], high = lce->rank[second];
  if (low > high) {
    size_t swap = low;
    low = high;
    high = swap;
  }
  /* The minimum over ranks (low, high]. */
  ++low;
  size_t level = floorLog2(high - low + 1);
  const size_t *row = lce->minima + level * lce->count;
  size_t left = row[low], right = row[high + 1 - ((size_t)1 << level)];
  return left < right ? left : right;
}

void memoptCommonExtensionDestroy(MemoptCommonExtension *lce) {
  free(lce->rank);
  free(lce->minima);
  *lce = (MemoptCommonExtension){0, NULL, NULL};
}

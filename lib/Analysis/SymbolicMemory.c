/* The memory profile in symbols: live bytes at a position as a polynomial,
 * buffers of dynamic shape sized by the shape symbols instead of counting 0,
 * and the positions that may hold the peak when sizes are symbolic. */
#include "Analysis/Analysis.h"

#include <stdlib.h>

MemoptPolynomial *memoptSymbolicBufferBytes(const MemoptShapeSymbols *symbols,
                                            const MemoptBufferInfo *buffer) {
  return buffer->sizeKnown ? memoptPolynomialCreateConstant((int64_t)buffer->bytes)
                           : memoptShapeSymbolsGetByteSize(symbols, buffer->value);
}

MemoptPolynomial *memoptSymbolicLiveBytes(const MemoptMemoryProfile *profile,
                                          const MemoptShapeSymbols *symbols, size_t position) {
  size_t count = memoptMemoryProfileGetLiveBuffers(profile, position, NULL, 0);
  size_t *buffers = memoptAllocateZeroed(count, sizeof *buffers);
  memoptMemoryProfileGetLiveBuffers(profile, position, buffers, count);
  MemoptPolynomial *live =
      memoptPolynomialCreateConstant((int64_t)memoptMemoryProfileGetCalleeBytes(profile, position));
  for (size_t i = 0; i < count; ++i) {
    MemoptBufferInfo buffer = memoptMemoryProfileGetBuffer(profile, buffers[i]);
    MemoptPolynomial *bytes = memoptSymbolicBufferBytes(symbols, &buffer);
    if (!bytes) {
      /* A buffer the symbols cannot size (unranked, unknown element): the
       * total is unknown rather than too small. */
      MemoptPolynomial *unknown = memoptPolynomialCreateUnknown();
      memoptPolynomialAccumulate(live, unknown, 1);
      memoptPolynomialDestroy(unknown);
      continue;
    }
    memoptPolynomialAccumulate(live, bytes, 1);
    memoptPolynomialDestroy(bytes);
  }
  free(buffers);
  return live;
}

size_t memoptSymbolicPeakPositions(const MemoptMemoryProfile *profile,
                                   const MemoptShapeSymbols *symbols, size_t *positions,
                                   size_t capacity) {
  size_t positionCount = memoptMemoryProfileGetNumPositions(profile);
  MemoptPolynomial **live = memoptAllocateZeroed(positionCount, sizeof *live);
  for (size_t p = 0; p < positionCount; ++p)
    live[p] = memoptSymbolicLiveBytes(profile, symbols, p);
  size_t found = 0;
  for (size_t p = 0; p < positionCount; ++p) {
    /* Dominated: another position holds surely more, or as much and comes
     * first (the first of equals is the peak, as in the static profile). */
    bool dominated = false;
    for (size_t q = 0; q < positionCount && !dominated; ++q) {
      if (q == p)
        continue;
      MemoptComparison comparison = memoptShapeSymbolsCompare(symbols, live[q], live[p]);
      dominated = comparison == MemoptComparisonGreater ||
                  ((comparison == MemoptComparisonEqual ||
                    comparison == MemoptComparisonGreaterOrEqual) &&
                   q < p);
    }
    if (!dominated) {
      if (found < capacity)
        positions[found] = p;
      ++found;
    }
  }
  for (size_t p = 0; p < positionCount; ++p)
    memoptPolynomialDestroy(live[p]);
  free(live);
  return found;
}

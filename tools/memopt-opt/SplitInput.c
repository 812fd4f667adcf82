/* Cutting an input into chunks as mlir-opt 22's --split-input-file does.
 * Its rules, kept to the letter so that a file splits the same way under
 * both tools: the input is cut at the marker less its last two characters
 * ("// ---"), and each piece after a cut decides whether that cut was the
 * marker (the piece starts with "--" and its third character is not '0') or
 * a near miss, which is glued back. An empty piece starts a chunk without
 * deciding. */
#include "SplitInput.h"

#include <stdlib.h>
#include <string.h>

/* How many trailing characters of the marker tell a cut from a near miss. */
enum { CheckLength = 2 };

/* Returns the first occurrence of `needle` in [from, end), or NULL. */
static const char *findText(const char *from, const char *end, const char *needle,
                            size_t needleLength) {
  for (const char *p = from; (size_t)(end - p) >= needleLength; ++p) {
    p = memchr(p, needle[0], (size_t)(end - p) - needleLength + 1);
    if (!p)
      return NULL;
    if (memcmp(p, needle, needleLength) == 0)
      return p;
  }
  return NULL;
}

static void addChunk(SplitInput *split, size_t *capacity, const char *begin, const char *end) {
  split->chunks =
      memoptGrowArray(split->chunks, capacity, split->chunkCount + 1, sizeof *split->chunks);
  split->chunks[split->chunkCount++] = (SplitChunk){begin, end};
}

SplitInput splitInputCreate(const char *input, size_t length, const char *marker) {
  SplitInput split = {0};
  size_t chunkCapacity = 0, nearMissCapacity = 0;
  size_t prefixLength = strlen(marker) - CheckLength;
  const char *inputEnd = input + length;
  /* The chunk being extended: [chunk, chunkEnd); empty at first. */
  const char *chunk = input, *chunkEnd = input;
  for (const char *piece = input;;) {
    const char *found = findText(piece, inputEnd, marker, prefixLength);
    const char *pieceEnd = found ? found : inputEnd;
    if (chunkEnd == chunk) {
      chunk = piece;
    } else if ((size_t)(pieceEnd - piece) > CheckLength &&
               memcmp(piece, marker + prefixLength, CheckLength) == 0 &&
               piece[CheckLength] != '0') {
      addChunk(&split, &chunkCapacity, chunk, chunkEnd);
      chunk = piece + CheckLength;
    } else {
      split.nearMisses = memoptGrowArray(split.nearMisses, &nearMissCapacity,
                                         split.nearMissCount + 1, sizeof *split.nearMisses);
      split.nearMisses[split.nearMissCount++] = piece;
    }
    chunkEnd = pieceEnd;
    if (!found)
      break;
    piece = found + prefixLength;
  }
  if (chunkEnd != chunk)
    addChunk(&split, &chunkCapacity, chunk, chunkEnd);
  return split;
}

void splitInputDestroy(SplitInput *split) {
  free(split->chunks);
  free(split->nearMisses);
  *split = (SplitInput){0};
}

void splitChunkAppendInPlace(const char *input, SplitChunk chunk, MemoptStringBuffer *out) {
  const char *lineStart = input;
  for (const char *p = input; p < chunk.begin; ++p)
    if (*p == '\n') {
      memoptStringBufferAppend(out, "\n", 1);
      lineStart = p + 1;
    }
  for (const char *p = lineStart; p < chunk.begin; ++p)
    memoptStringBufferAppend(out, " ", 1);
  memoptStringBufferAppend(out, chunk.begin, (size_t)(chunk.end - chunk.begin));
}

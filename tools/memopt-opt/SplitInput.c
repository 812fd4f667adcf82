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

/* Moves `place` forward to `to`, counting lines and columns on the way:
 * places are found in order, so the input is read once. */
static SplitPlace advance(SplitPlace place, const char *to) {
  for (; place.at < to; ++place.at) {
    if (*place.at == '\n') {
      ++place.line;
      place.column = 1;
    } else {
      ++place.column;
    }
  }
  return place;
}

SplitInput splitInputCreate(const char *input, size_t length, const char *marker) {
  SplitInput split = {0};
  size_t chunkCapacity = 0, nearMissCapacity = 0;
  size_t prefixLength = strlen(marker) - CheckLength;
  const char *inputEnd = input + length;
  SplitPlace cursor = {input, 1, 1};
  /* The chunk being extended: [chunk.at, chunkEnd); empty at first. */
  SplitPlace chunk = cursor;
  const char *chunkEnd = input;
  for (const char *piece = input;;) {
    const char *found = findText(piece, inputEnd, marker, prefixLength);
    const char *pieceEnd = found ? found : inputEnd;
    if (chunkEnd == chunk.at) {
      chunk = cursor = advance(cursor, piece);
    } else if ((size_t)(pieceEnd - piece) > CheckLength &&
               memcmp(piece, marker + prefixLength, CheckLength) == 0 &&
               piece[CheckLength] != '0') {
      split.chunks = memoptGrowArray(split.chunks, &chunkCapacity, split.chunkCount + 1,
                                     sizeof *split.chunks);
      split.chunks[split.chunkCount++] = (SplitChunk){chunk, chunkEnd};
      chunk = cursor = advance(cursor, piece + CheckLength);
    } else {
      split.nearMisses = memoptGrowArray(split.nearMisses, &nearMissCapacity,
                                         split.nearMissCount + 1, sizeof *split.nearMisses);
      split.nearMisses[split.nearMissCount++] = cursor = advance(cursor, piece);
    }
    chunkEnd = pieceEnd;
    if (!found)
      break;
    piece = found + prefixLength;
  }
  if (chunkEnd != chunk.at) {
    split.chunks = memoptGrowArray(split.chunks, &chunkCapacity, split.chunkCount + 1,
                                   sizeof *split.chunks);
    split.chunks[split.chunkCount++] = (SplitChunk){chunk, chunkEnd};
  }
  return split;
}

void splitInputDestroy(SplitInput *split) {
  free(split->chunks);
  free(split->nearMisses);
  *split = (SplitInput){0};
}

void splitChunkAppendInPlace(SplitChunk chunk, MemoptStringBuffer *out) {
  for (unsigned line = 1; line < chunk.start.line; ++line)
    memoptStringBufferAppend(out, "\n", 1);
  for (unsigned column = 1; column < chunk.start.column; ++column)
    memoptStringBufferAppend(out, " ", 1);
  memoptStringBufferAppend(out, chunk.start.at, (size_t)(chunk.end - chunk.start.at));
}

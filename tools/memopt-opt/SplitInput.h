/* Cutting an input into chunks as mlir-opt 22's --split-input-file does
 * (splitAndProcessBuffer in mlir/lib/Support/ToolUtilities.cpp). */
#ifndef MEMOPT_OPT_SPLITINPUT_H
#define MEMOPT_OPT_SPLITINPUT_H

#include "Support/Support.h"

#include <stddef.h>

/// A place in the input and its position in the file (1-based).
typedef struct SplitPlace {
  const char *at;
  unsigned line;
  unsigned column;
} SplitPlace;

/// One chunk: [start.at, end) of the input.
typedef struct SplitChunk {
  SplitPlace start;
  const char *end;
} SplitChunk;

/// The chunks of an input and the places where the marker nearly occurs.
/// Points into the input, which must outlive it.
typedef struct SplitInput {
  SplitChunk *chunks; /* owned; empty chunks are left out */
  size_t chunkCount;
  SplitPlace *nearMisses; /* owned; where each near miss starts */
  size_t nearMissCount;
} SplitInput;

/// Cuts `input` at every occurrence of `marker` less its last two characters:
/// one followed by those two characters (and not by '0') ends a chunk, even
/// after other text on its line; any other is a near miss and stays in its
/// chunk. `marker` has at least 3 characters.
SplitInput splitInputCreate(const char *input, size_t length, const char *marker);

/// Frees the arrays of `split`.
void splitInputDestroy(SplitInput *split);

/// Appends `chunk` to `out` preceded by as many newlines as lines before it
/// in the file and as many spaces as columns before it on its line, so that
/// parsing `out` gives the positions the chunk has in the file.
void splitChunkAppendInPlace(SplitChunk chunk, MemoptStringBuffer *out);

#endif /* MEMOPT_OPT_SPLITINPUT_H */

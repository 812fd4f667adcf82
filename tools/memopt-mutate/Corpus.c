/* The seeds of a campaign: every .mlir file under the given directories, cut
 * at `// -----` lines (the chunks lit's --split-input-file tests hold). */
#include "Mutate.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool endsWith(const char *string, const char *suffix) {
  size_t length = strlen(string), suffixLength = strlen(suffix);
  return length >= suffixLength && strcmp(string + length - suffixLength, suffix) == 0;
}

/* Returns true when the line at `line` (up to `end`) is the split marker. */
static bool isSplitLine(const char *line, const char *end) {
  static const char marker[] = "// -----";
  size_t length = (size_t)(end - line);
  while (length && (line[length - 1] == ' ' || line[length - 1] == '\r'))
    --length;
  return length == sizeof marker - 1 && memcmp(line, marker, length) == 0;
}

static void addSeed(MutateCorpus *corpus, const char *path, size_t chunk, bool split,
                    const char *text, size_t length, size_t maxBytes) {
  if (length > maxBytes) {
    ++corpus->skippedLarge;
    return;
  }
  corpus->seeds = memoptGrowArray(corpus->seeds, &corpus->capacity, corpus->count + 1,
                                  sizeof *corpus->seeds);
  MutateSeed *seed = &corpus->seeds[corpus->count++];
  MemoptStringBuffer name = memoptStringBufferCreate();
  memoptStringBufferAppendCString(&name, path);
  if (split)
    memoptStringBufferAppendFormat(&name, "#%zu", chunk);
  seed->name = memoptStringBufferRelease(&name);
  seed->text = memoptStrndup(text, length);
  seed->length = length;
}

/* Adds the chunks of one file. */
static void addFile(MutateCorpus *corpus, const char *path, const char *text, size_t length,
                    size_t maxBytes) {
  bool split = false;
  for (const char *p = text; p < text + length;) {
    const char *newline = memchr(p, '\n', (size_t)(text + length - p));
    const char *end = newline ? newline : text + length;
    if (isSplitLine(p, end))
      split = true;
    p = end + 1;
  }
  size_t chunk = 1;
  const char *start = text;
  for (const char *p = text;;) {
    const char *newline = memchr(p, '\n', (size_t)(text + length - p));
    const char *end = newline ? newline : text + length;
    if (isSplitLine(p, end) || !newline) {
      const char *chunkEnd = isSplitLine(p, end) ? p : end;
      addSeed(corpus, path, chunk++, split, start, (size_t)(chunkEnd - start), maxBytes);
      if (!newline)
        break;
      start = newline + 1;
    }
    p = newline + 1;
  }
}

bool mutateCorpusAddDirectory(MutateCorpus *corpus, const char *directory, size_t maxBytes,
                              MemoptStringBuffer *error) {
  DIR *dir = opendir(directory);
  if (!dir) {
    memoptStringBufferAppendFormat(error, "cannot read directory '%s': %s", directory,
                                   strerror(errno));
    return false;
  }
  bool ok = true;
  for (struct dirent *entry; ok && (entry = readdir(dir));) {
    if (entry->d_name[0] == '.')
      continue;
    MemoptStringBuffer path = memoptStringBufferCreate();
    memoptStringBufferAppendFormat(&path, "%s/%s", directory, entry->d_name);
    struct stat info;
    /* lstat: a symbolic link is not followed, so no loop is walked. */
    if (lstat(path.data, &info) != 0) {
      /* Gone since it was listed: nothing to read. */
    } else if (S_ISDIR(info.st_mode)) {
      ok = mutateCorpusAddDirectory(corpus, path.data, maxBytes, error);
    } else if (S_ISREG(info.st_mode) && endsWith(entry->d_name, ".mlir")) {
      MemoptStringBuffer text = memoptStringBufferCreate();
      ok = memoptFileRead(path.data, &text, error);
      if (ok)
        addFile(corpus, path.data, memoptStringBufferGet(&text), text.length, maxBytes);
      memoptStringBufferDestroy(&text);
    }
    memoptStringBufferDestroy(&path);
  }
  closedir(dir);
  return ok;
}

static int compareSeeds(const void *a, const void *b) {
  return strcmp(((const MutateSeed *)a)->name, ((const MutateSeed *)b)->name);
}

void mutateCorpusSort(MutateCorpus *corpus) {
  if (corpus->count)
    qsort(corpus->seeds, corpus->count, sizeof *corpus->seeds, compareSeeds);
}

void mutateCorpusDestroy(MutateCorpus *corpus) {
  for (size_t i = 0; i < corpus->count; ++i) {
    free(corpus->seeds[i].name);
    free(corpus->seeds[i].text);
  }
  free(corpus->seeds);
  *corpus = (MutateCorpus){0};
}

/* Whole-file reads and atomic writes (temporary file + rename), so that a
 * failing run never leaves a partial output file behind. */
#include "Support/Support.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool memoptFileRead(const char *path, MemoptStringBuffer *out, MemoptStringBuffer *error) {
  bool isStdin = strcmp(path, "-") == 0;
  FILE *file = isStdin ? stdin : fopen(path, "rb");
  if (!file) {
    memoptStringBufferAppendFormat(error, "cannot open '%s': %s", path, strerror(errno));
    return false;
  }
  char chunk[65536];
  size_t got;
  while ((got = fread(chunk, 1, sizeof chunk, file)) > 0)
    memoptStringBufferAppend(out, chunk, got);
  bool failed = ferror(file) != 0;
  int savedErrno = errno;
  if (!isStdin)
    fclose(file);
  if (failed) {
    memoptStringBufferAppendFormat(error, "cannot read '%s': %s", path, strerror(savedErrno));
    return false;
  }
  /* An empty file still yields a valid empty string. */
  memoptStringBufferAppend(out, "", 0);
  return true;
}

bool memoptFileWriteAtomic(const char *path, const char *bytes, size_t length,
                           MemoptStringBuffer *error) {
  if (strcmp(path, "-") == 0) {
    if (fwrite(bytes, 1, length, stdout) != length || fflush(stdout) != 0) {
      memoptStringBufferAppendFormat(error, "cannot write standard output: %s", strerror(errno));
      return false;
    }
    return true;
  }
  MemoptStringBuffer temp = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&temp, "%s.tmp-XXXXXX", path);
  int fd = mkstemp(temp.data);
  if (fd < 0) {
    memoptStringBufferAppendFormat(error, "cannot create a temporary file for '%s': %s", path,
                                   strerror(errno));
    memoptStringBufferDestroy(&temp);
    return false;
  }
  /* mkstemp creates the file private; give it the mode a plain create would. */
  mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0666 & ~mask);
  FILE *file = fdopen(fd, "wb");
  bool ok = file && fwrite(bytes, 1, length, file) == length;
  int savedErrno = errno;
  if (file)
    ok = (fclose(file) == 0) && ok;
  else
    close(fd);
  if (ok && rename(temp.data, path) != 0) {
    savedErrno = errno;
    ok = false;
  }
  if (!ok) {
    memoptStringBufferAppendFormat(error, "cannot write '%s': %s", path, strerror(savedErrno));
    unlink(temp.data);
  }
  memoptStringBufferDestroy(&temp);
  return ok;
}

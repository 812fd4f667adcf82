/* Whole-file reads, and output writes that never leave a partial regular
 * file behind (temporary file + rename) and never replace a node they did
 * not create: devices, FIFOs and symlinks are written through; JSON reports
 * are written that way too. */
/* realpath is an XSI function. */
#define _XOPEN_SOURCE 700

#include "Support/Support.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
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

/* Writes all `length` bytes to `fd`, retrying short and interrupted writes. */
static bool writeAll(int fd, const char *bytes, size_t length) {
  while (length) {
    ssize_t written = write(fd, bytes, length);
    if (written < 0 && errno == EINTR)
      continue;
    if (written <= 0)
      return false;
    bytes += written;
    length -= (size_t)written;
  }
  return true;
}

/* Opens `path` as it is and writes into it: a device, a FIFO, or a symlink
 * whose target is not a regular file keeps its node, as with mlir-opt. */
static bool writeInPlace(const char *path, const char *bytes, size_t length,
                         MemoptStringBuffer *error) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  bool ok = fd >= 0 && writeAll(fd, bytes, length);
  int savedErrno = errno;
  if (fd >= 0 && close(fd) != 0 && ok) {
    savedErrno = errno;
    ok = false;
  }
  if (!ok)
    memoptStringBufferAppendFormat(error, "cannot write '%s': %s", path, strerror(savedErrno));
  return ok;
}

/* Writes a regular file through a temporary beside it, renamed over `path`
 * once complete, so that a failure leaves no partial file. */
static bool writeThroughTemporary(const char *path, const char *bytes, size_t length,
                                  MemoptStringBuffer *error) {
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
  bool ok = writeAll(fd, bytes, length);
  int savedErrno = errno;
  if (close(fd) != 0 && ok) {
    savedErrno = errno;
    ok = false;
  }
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

bool memoptFileWriteOutput(const char *path, const char *bytes, size_t length,
                           MemoptStringBuffer *error) {
  if (strcmp(path, "-") == 0) {
    if (fwrite(bytes, 1, length, stdout) != length || fflush(stdout) != 0) {
      memoptStringBufferAppendFormat(error, "cannot write standard output: %s", strerror(errno));
      return false;
    }
    return true;
  }
  struct stat status;
  if (lstat(path, &status) != 0) {
    if (errno != ENOENT) {
      memoptStringBufferAppendFormat(error, "cannot write '%s': %s", path, strerror(errno));
      return false;
    }
    return writeThroughTemporary(path, bytes, length, error);
  }
  if (S_ISREG(status.st_mode))
    return writeThroughTemporary(path, bytes, length, error);
  /* A symlink to a regular file: replace the target, keep the link. */
  char target[PATH_MAX];
  if (S_ISLNK(status.st_mode) && realpath(path, target) && stat(target, &status) == 0 &&
      S_ISREG(status.st_mode))
    return writeThroughTemporary(target, bytes, length, error);
  return writeInPlace(path, bytes, length, error);
}

bool memoptJsonWriteFile(const json_t *root, const char *path, size_t flags,
                         MemoptStringBuffer *error) {
  char *text = json_dumps(root, flags);
  if (!text) {
    memoptStringBufferAppendFormat(error, "cannot write '%s': the report cannot be serialized as JSON",
                                   path);
    return false;
  }
  MemoptStringBuffer file = memoptStringBufferCreate();
  memoptStringBufferAppendCString(&file, text);
  memoptStringBufferAppendCString(&file, "\n"); /* ends in a newline like every text file */
  free(text);
  bool ok = memoptFileWriteOutput(path, file.data, file.length, error);
  memoptStringBufferDestroy(&file);
  return ok;
}

/* Capturing file descriptor 1 in an anonymous temporary file while passes
 * run (see OutputCapture.h for why). */
#include "OutputCapture.h"

#include <unistd.h>

bool outputCaptureBegin(OutputCapture *capture) {
  fflush(stdout);
  capture->file = tmpfile();
  if (!capture->file)
    return false;
  capture->savedDescriptor = dup(STDOUT_FILENO);
  if (capture->savedDescriptor < 0 || dup2(fileno(capture->file), STDOUT_FILENO) < 0) {
    if (capture->savedDescriptor >= 0)
      close(capture->savedDescriptor);
    fclose(capture->file);
    capture->file = NULL;
    return false;
  }
  return true;
}

bool outputCaptureEnd(OutputCapture *capture, MemoptStringBuffer *out) {
  fflush(stdout);
  dup2(capture->savedDescriptor, STDOUT_FILENO);
  close(capture->savedDescriptor);
  size_t before = out->length;
  rewind(capture->file);
  char chunk[65536];
  size_t got;
  while ((got = fread(chunk, 1, sizeof chunk, capture->file)) > 0)
    memoptStringBufferAppend(out, chunk, got);
  fclose(capture->file);
  capture->file = NULL;
  return out->length > before;
}

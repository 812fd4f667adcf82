/* Capturing what passes print on standard output. mlir-opt writes its output
 * and what passes print (transform.print writes LLVM's stream and flushes it)
 * through one buffered stream, so a pass's print lands between the IR of the
 * chunks before it and its own chunk's IR, and everything buffered so far
 * leaves when the pass flushes. memopt-opt keeps its output in a buffer of
 * its own; capturing file descriptor 1 while passes run puts their prints in
 * that buffer at the same place. */
#ifndef MEMOPT_OPT_OUTPUTCAPTURE_H
#define MEMOPT_OPT_OUTPUTCAPTURE_H

#include "Support/Support.h"

#include <stdbool.h>
#include <stdio.h>

/// Where standard output went before the capture, and the file holding what
/// was written since.
typedef struct OutputCapture {
  int savedDescriptor;
  FILE *file;
} OutputCapture;

/// Sends file descriptor 1 to an anonymous temporary file. Returns false and
/// leaves standard output as it was when no temporary file can be made.
bool outputCaptureBegin(OutputCapture *capture);

/// Restores file descriptor 1 and appends what was written meanwhile to
/// `out`. Returns true when anything was.
bool outputCaptureEnd(OutputCapture *capture, MemoptStringBuffer *out);

#endif /* MEMOPT_OPT_OUTPUTCAPTURE_H */

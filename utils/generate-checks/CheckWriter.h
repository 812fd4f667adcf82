/* generate-checks: turning printed MLIR into FileCheck lines.
 *
 * The conversion works line by line on the text memopt-opt (or mlir-opt)
 * prints, like mlir/utils/generate-test-checks.py: every SSA name becomes a
 * FileCheck capture (`%[[VAL_0:.*]]` where it is defined, `%[[VAL_0]]` where
 * it is used), every attribute alias (`#map`) a global capture, every
 * top-level op a CHECK-LABEL, and `// -----` separators are kept. Nothing here
 * parses MLIR: scopes follow the braces of the pretty printer, which puts a
 * region's `{` last on a line and its `}` first. */
#ifndef MEMOPT_GENERATE_CHECKS_CHECK_WRITER_H
#define MEMOPT_GENERATE_CHECKS_CHECK_WRITER_H

#include "Support/Support.h"

#include <stddef.h>

/// Appends to `out` the check lines (with `prefix`, e.g. "CHECK") for one
/// split of printed IR (text without `// -----` lines), each ending in '\n'.
void generateChecksForSplit(const char *text, size_t length, const char *prefix,
                            MemoptStringBuffer *out);

/// Appends to `out` the check lines for a whole printed output: one block per
/// `// -----` split, the blocks separated by a `// -----` line.
void generateChecks(const char *text, const char *prefix, MemoptStringBuffer *out);

#endif

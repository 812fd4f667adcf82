/* --verify-diagnostics: checks the diagnostics a run produced against the
 * `expected-error/warning/remark/note` comments of the input, as mlir-opt. */
#ifndef MEMOPT_OPT_DIAGNOSTICVERIFIER_H
#define MEMOPT_OPT_DIAGNOSTICVERIFIER_H

#include "IR/IR.h"

/// Checks `log` against the expectations written in `source` (the text of
/// file `sourceName`; its line numbers are the file's). Appends a diagnostic
/// for every unexpected diagnostic and every unmet expectation to `out`, and
/// returns true when there are none.
bool memoptVerifyDiagnostics(const char *source, const char *sourceName,
                             const MemoptDiagnosticLog *log, MemoptStringBuffer *out);

#endif /* MEMOPT_OPT_DIAGNOSTICVERIFIER_H */

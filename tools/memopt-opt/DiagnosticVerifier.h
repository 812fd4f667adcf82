/* --verify-diagnostics: checks the diagnostics a run produced against the
 * `expected-error/warning/remark/note` comments of the input, as mlir-opt's
 * SourceMgrDiagnosticVerifierHandler. */
#ifndef MEMOPT_OPT_DIAGNOSTICVERIFIER_H
#define MEMOPT_OPT_DIAGNOSTICVERIFIER_H

#include "IR/IR.h"

/// What --verify-diagnostics reports, as the values of mlir-opt's option.
typedef enum MemoptVerifyLevel {
  MemoptVerifyAll,          /* "all", or no value: unexpected diagnostics fail too */
  MemoptVerifyOnlyExpected, /* "only-expected": only unmet expectations fail */
} MemoptVerifyLevel;

/// Reads a --verify-diagnostics value ("all", "" or "only-expected") into
/// `level`; false when it is none of them.
bool memoptVerifyLevelParse(const char *value, MemoptVerifyLevel *level);

/// The expectations of one input and which diagnostics met them.
typedef struct MemoptDiagnosticVerifier MemoptDiagnosticVerifier;

/// Reads the expectations written in `source` (the whole text of file
/// `sourceName`, which must outlive the verifier), appending an error to
/// `out` for each malformed `-re` pattern. As in mlir-opt, one verifier
/// serves every chunk of a split input: an @unknown expectation of any chunk
/// is met by a diagnostic of any chunk.
MemoptDiagnosticVerifier *memoptDiagnosticVerifierCreate(MlirStringRef source,
                                                         const char *sourceName,
                                                         MemoptVerifyLevel level,
                                                         MemoptStringBuffer *out);

/// Checks the diagnostics of `log` (their positions are lines of the whole
/// source), appending an error to `out` for each one no expectation meets
/// (at MemoptVerifyAll).
void memoptDiagnosticVerifierCheck(MemoptDiagnosticVerifier *verifier,
                                   const MemoptDiagnosticLog *log, MemoptStringBuffer *out);

/// Appends an error to `out` for each expectation no diagnostic met, frees
/// the verifier, and returns true when it reported no error at all.
bool memoptDiagnosticVerifierFinish(MemoptDiagnosticVerifier *verifier, MemoptStringBuffer *out);

#endif /* MEMOPT_OPT_DIAGNOSTICVERIFIER_H */

/* The checks memoptVerifyOps runs, shared by the files that verify one
 * dialect's ops each (internal to lib/IR). */
#ifndef MEMOPT_IR_VERIFIER_H
#define MEMOPT_IR_VERIFIER_H

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// The state of one verification walk.
typedef struct MemoptVerifier {
  bool failed;
  MlirOperation *pins; /* the spm.pin ops seen, in walk order */
  size_t pinCount;
  size_t pinCapacity;
} MemoptVerifier;

/// An i64 dense array attribute and its length.
typedef struct MemoptI64Array {
  MlirAttribute attr;
  intptr_t count;
} MemoptI64Array;

/// Emits "'<op>' op <message>" at the op's location and marks the walk failed.
void memoptVerifierError(MemoptVerifier *verifier, MlirOperation op,
                         const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/// Returns attribute `name` of `op` (null when absent).
MlirAttribute memoptVerifierAttribute(MlirOperation op, const char *name);

/// Returns element `index` of `array`.
int64_t memoptI64ArrayAt(MemoptI64Array array, intptr_t index);

/// Reads i64 dense array attribute `name`; false (with an error) for other
/// kinds.
bool memoptVerifierI64Array(MemoptVerifier *verifier, MlirOperation op,
                            const char *name, MemoptI64Array *array);

/// Reads integer attribute `name` into `value`; false (with an error) for other
/// kinds and values outside int64_t.
bool memoptVerifierInteger(MemoptVerifier *verifier, MlirOperation op,
                           const char *name, int64_t *value);

/// Reads integer attribute `name` into `value` and checks it is at least
/// `minimum`.
bool memoptVerifierAtLeast(MemoptVerifier *verifier, MlirOperation op,
                           const char *name, int64_t minimum, int64_t *value);

/// Returns the single block of region `index` of `op`, with an error when it is
/// empty.
bool memoptVerifierBody(MemoptVerifier *verifier, MlirOperation op,
                        intptr_t index, MlirBlock *block);

/// Checks that `block` ends in the region terminator and returns it.
bool memoptVerifierYieldOf(MemoptVerifier *verifier, MlirOperation op,
                           MlirBlock block, MlirOperation *yield);

/// Checks that the body yields exactly the op's result types.
void memoptVerifierYieldMatchesResults(MemoptVerifier *verifier,
                                       MlirOperation op, MlirOperation yield);

/// Checks a chunk.region (VerifyChunkRegion.c).
void memoptVerifyChunkRegion(MemoptVerifier *verifier, MlirOperation op);

#endif /* MEMOPT_IR_VERIFIER_H */

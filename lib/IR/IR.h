/* memopt IR: the memopt dialects (chunk, spm, place, remat), the context that
 * holds them beside every upstream dialect, and the checks IRDL cannot state.
 *
 * The dialects are defined in IRDL (dialects/<name>.irdl.mlir) and embedded in the
 * library at build time. IRDL ops carry no traits, so every region of a memopt
 * op ends in an upstream `vector.yield` (python-free-docs/dialects.md). */
#ifndef MEMOPT_IR_IR_H
#define MEMOPT_IR_IR_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Name of the terminator that ends every region of a memopt op.
#define MEMOPT_REGION_TERMINATOR "vector.yield"

/// Returns the combined IRDL text of all memopt dialects (static storage).
const char *memoptDialectsIRDL(void);

/// Registers the memopt dialects in `context` from the embedded IRDL; on
/// failure the reason is reported through the context's diagnostic handlers.
MlirLogicalResult memoptDialectsLoad(MlirContext context);

/// Returns true when `name` ("chunk", "spm", ...) is one of memopt's dialects.
bool memoptIsMemoptDialect(MlirStringRef name);

/// Creates a context with every upstream dialect and the memopt dialects
/// registered and loaded; returns a null context when loading fails.
/// The caller destroys it with mlirContextDestroy.
MlirContext memoptContextCreate(bool allowUnregisteredDialects);

/// Checks the invariants of every memopt op nested in `root` that IRDL cannot
/// express (dimensions in range, matching extents, terminators, unique stage
/// indices, ...), emitting an error on each offending op. Returns success when
/// all hold.
MlirLogicalResult memoptVerifyOps(MlirOperation root);

#ifdef __cplusplus
}
#endif

#endif /* MEMOPT_IR_IR_H */

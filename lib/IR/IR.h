/* memopt IR: the memopt dialects (chunk, spm, place, remat), the context that
 * holds them beside every upstream dialect, and the checks IRDL cannot state.
 *
 * The dialects are defined in IRDL (dialects/<name>.irdl.mlir) and embedded in the
 * library at build time. IRDL ops carry no traits, so every region of a memopt
 * op ends in an upstream `vector.yield` (python-free-docs/dialects.md). */
#ifndef MEMOPT_IR_IR_H
#define MEMOPT_IR_IR_H

#include "mlir-c/AffineMap.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include "Support/Support.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Name of the terminator that ends every region of a memopt op.
#define MEMOPT_REGION_TERMINATOR "vector.yield"

/// The most operands (results) a memopt op takes where they may differ in type:
/// IRDL binds a variadic group to one type, so such ops have this many
/// optional slots, described by an `operandSegmentSizes` (`resultSegmentSizes`)
/// attribute.
enum { MEMOPT_MAX_SLOTS = 8 };

/// Returns the segment-sizes attribute `name` ("operandSegmentSizes" or
/// "resultSegmentSizes") for `used` (<= MEMOPT_MAX_SLOTS) values filling the
/// first slots.
MlirNamedAttribute memoptSlotSegments(MlirContext context, const char *name, intptr_t used);

/// Returns the combined IRDL text of all memopt dialects (static storage).
const char *memoptDialectsIRDL(void);

/// Registers the memopt dialects in `context` from the embedded IRDL; on
/// failure the reason is reported through the context's diagnostic handlers.
MlirLogicalResult memoptDialectsLoad(MlirContext context);

/// Returns true when `name` ("chunk", "spm", ...) is one of memopt's dialects.
bool memoptIsMemoptDialect(MlirStringRef name);

/// Appends the names of every available dialect, upstream and memopt, in
/// alphabetical order and separated by commas, to `out`.
void memoptListDialects(MemoptStringBuffer *out);

/// Returns true when `op` is named `name` ("chunk.region", "linalg.matmul", ...).
bool memoptOperationIsA(MlirOperation op, const char *name);

/// Returns true when `op` belongs to dialect `dialect` ("linalg", "tensor", ...).
bool memoptOperationIsInDialect(MlirOperation op, const char *dialect);

/// Returns true when `op` is known free of side effects with value semantics:
/// an arith, math, linalg or tensor op (tensor.print excepted) with no memref
/// operand or result and regions only if it is a linalg op. Such an op may be
/// moved or run again with the same result.
bool memoptOperationIsPure(MlirOperation op);

/// The kind of one loop of a linalg op, as an element of its `iterator_types`
/// states it.
typedef enum MemoptIteratorKind {
  MemoptIteratorParallel,
  MemoptIteratorReduction,
  MemoptIteratorOther /* not a #linalg.iterator_type */
} MemoptIteratorKind;

/// Returns the kind of `iterator`, an element of a linalg op's
/// `iterator_types`. Reads the attribute without parsing or loading anything,
/// so it is safe in passes that run on several threads.
MemoptIteratorKind memoptLinalgIteratorKind(MlirAttribute iterator);

/// Returns true when the body of linalg op `op` reads the index of loop
/// `loop` (linalg.index), or of any loop when `loop` is negative: an op that
/// sees only part of a loop (a slice of it, or one device's share) counts it
/// from 0 there.
bool memoptLinalgReadsLoopIndex(MlirOperation op, int64_t loop);

/// Returns true when `op` is a tensor.collapse_shape or tensor.expand_shape.
bool memoptOperationIsTensorReshape(MlirOperation op);

/// Returns the loop that result `index` of indexing map `map` is (d_loop), or -1 when that result is another expression.
int64_t memoptAffineMapResultLoop(MlirAffineMap map, intptr_t index);

/// Returns the position of the result of indexing map `map` that is loop `loop` (d_loop), or -1 when none is.
int64_t memoptAffineMapLoopPosition(MlirAffineMap map, int64_t loop);

/// Returns true when `op` is `ancestor` or nested in it.
bool memoptOperationIsInside(MlirOperation op, MlirOperation ancestor);

/// Returns true when an op nested in a region of an op of `block` reads `value` (a gather reads its table in its body).
bool memoptValueIsReadInRegion(MlirValue value, MlirBlock block);

/// Returns true when `value` has exactly one use.
bool memoptValueHasOneUse(MlirValue value);

/// Returns the ops of `block` in order (a new array the caller frees) and their number in `count`.
MlirOperation *memoptBlockGetOperations(MlirBlock block, size_t *count);

/// Returns the op of `block` that is `op` or holds it, or a null op when `op` is not in `block`.
MlirOperation memoptOperationAncestorInBlock(MlirOperation op, MlirBlock block);

/// Returns true when `value` is defined by `ancestor`, by an op nested in it,
/// or as an argument of a block nested in it: false for values a region of
/// `ancestor` captures from outside.
bool memoptValueIsDefinedInside(MlirValue value, MlirOperation ancestor);

/// Receives one value for memoptOperationForEachCapture; returning false stops the walk.
typedef bool (*MemoptValueVisitor)(MlirValue value, void *userData);

/// Calls `visit` on each use, by an op nested in `op`, of a value defined outside `op` (arguments
/// of blocks in `op`'s regions count as inside; `op`'s own operands are not visited), in pre-order
/// until it returns false; returns false when stopped. Allocates nothing; values are borrowed.
bool memoptOperationForEachCapture(MlirOperation op, MemoptValueVisitor visit, void *userData);

/// Redirects to `to` the uses of `from` whose user is nested in `scope` (when
/// `inside`) or is not (when not `inside`).
void memoptValueReplaceUsesByScope(MlirValue from, MlirValue to, MlirOperation scope,
                                   bool inside);

/// Creates a context with every upstream dialect registered and the memopt
/// dialects loaded; returns a null context when loading fails. An upstream
/// dialect loads when the input uses it or a pass lists it as dependent (the
/// pass manager loads those before it starts threads): a function pass must
/// not parse attributes or types of a dialect, which would load it while
/// other threads run. The caller destroys it with mlirContextDestroy.
MlirContext memoptContextCreate(bool allowUnregisteredDialects);

/// An MlirStringCallback that appends `text` to the MemoptStringBuffer passed
/// as `userData`: the way to collect MLIR's printed output.
void memoptAppendToBuffer(MlirStringRef text, void *userData);

/// Returns the value of integer attribute `name` of `op`, which must have it (an attribute its verifier requires): the low 64 bits, as mlirIntegerAttrGetValueInt.
int64_t memoptOperationGetIntegerAttr(MlirOperation op, const char *name);

/// Returns attribute `name` of argument `argument` of the function `func` (its `arg_attrs`), or a null attribute.
MlirAttribute memoptFuncGetArgAttr(MlirOperation func, intptr_t argument, const char *name);

/// Reads the value of integer attribute `attr`, of any width and signedness,
/// into `value`; false when it lies outside int64_t.
bool memoptIntegerAttrGetInt64(MlirAttribute attr, int64_t *value);

/// Checks the invariants of every memopt op nested in `root` that IRDL cannot
/// express (dimensions in range, matching extents, terminators, unique stage
/// indices, ...), emitting an error on each offending op. Returns success when
/// all hold.
MlirLogicalResult memoptVerifyOps(MlirOperation root);

/*===------------------------------------------------------------------===*
 * chunk.region combiners
 *
 * How a chunk.region assembles each result from its chunks: its optional
 * `combiners` attribute (an array of strings, one per result; absent: all
 * "concat") and, for "rescaled-add" results, `rescale_by` (array<i64>, one
 * entry per result: the index of a "max" result, -1 where unused).
 * python-free-docs/dialects.md ("chunk") gives the formulas.
 *===------------------------------------------------------------------===*/

/// How a chunk.region combines the values its chunks yield for one result.
typedef enum MemoptChunkCombiner {
  MemoptChunkCombineConcat,     /* "concat": slices inserted along the output_dims entry */
  MemoptChunkCombineAdd,        /* "add": elementwise sum of the chunks' partial values */
  MemoptChunkCombineMax,        /* "max": elementwise maximum of the chunks' values */
  MemoptChunkCombineRescaledAdd /* "rescaled-add": online-softmax sum, rescaled by a "max" result */
} MemoptChunkCombiner;

/// Returns the name of `combiner` in the `combiners` attribute ("concat", "add", ...).
const char *memoptChunkCombinerName(MemoptChunkCombiner combiner);

/// Reads the combiner called `name` into `combiner`; false when no combiner has that name.
bool memoptChunkCombinerFromName(MlirStringRef name, MemoptChunkCombiner *combiner);

/// Returns how chunk.region `op` combines result `resultIndex` (concat when the
/// op has no `combiners` attribute) and, when `rescaleBy` is not NULL, sets it
/// to the index of the "max" result a "rescaled-add" result is rescaled by
/// (-1 for the other combiners). `op` must have passed memoptVerifyOps.
MemoptChunkCombiner memoptChunkRegionCombiner(MlirOperation op, intptr_t resultIndex,
                                              int64_t *rescaleBy);

/*===------------------------------------------------------------------===*
 * Diagnostics
 *===------------------------------------------------------------------===*/

/// One diagnostic as reported to the user: a position and a message.
typedef struct MemoptDiagnostic {
  MlirDiagnosticSeverity severity;
  char *file;      /* NULL when the location has no file position */
  unsigned line;   /* 1-based; 0 when unknown */
  unsigned column; /* 1-based; 0 when unknown */
  char *message;
  char *where;     /* no file position: the location as MLIR prints it (`loc("name")`),
                      shown before the message; NULL for an unknown location */
  bool isCallerNote;     /* a "called from" note the log adds for a call-site location */
  bool hideSourceLine;   /* a note at the location shown just before it: no source line */
  unsigned rangeLength;  /* columns from the caret on underlined with '~' (0: the caret alone) */
} MemoptDiagnostic;

/// The diagnostics a context reported while the log was attached, in order;
/// notes follow the diagnostic they belong to. As mlir-opt, a diagnostic at a
/// call-site location is followed by a "called from" note for each caller
/// (ten at most), before its own notes.
typedef struct MemoptDiagnosticLog {
  MemoptDiagnostic *entries;
  size_t count;
  size_t capacity;
  const char *sourceName;  /* replaces the "-" file name mlirModuleCreateParse gives */
  MlirDiagnosticHandlerID handler;
  MlirContext context;
  struct MemoptDiagnosticLog *nextAttached; /* memopt's registry of attached logs */
} MemoptDiagnosticLog;

/// Starts recording every diagnostic of `context` in `log`, which must stay
/// at the same address until memoptDiagnosticLogDetach.
void memoptDiagnosticLogAttach(MemoptDiagnosticLog *log, MlirContext context,
                               const char *sourceName);

/// Stops recording; the entries stay until memoptDiagnosticLogDestroy.
void memoptDiagnosticLogDetach(MemoptDiagnosticLog *log);

/// Frees the entries of a detached log.
void memoptDiagnosticLogDestroy(MemoptDiagnosticLog *log);

/// Reports a diagnostic at `location`. Errors go through MLIR (so the pass
/// manager sees them); the C API cannot emit remarks or warnings, so memopt
/// delivers those itself to the log attached to the location's context, or
/// prints them to standard error when no log is attached. Thread-safe.
void memoptEmitDiagnostic(MlirLocation location, MlirDiagnosticSeverity severity,
                          const char *message);

/// Reports a diagnostic of `severity` with printf-formatted text at `op`'s
/// location (through memoptEmitDiagnostic).
void memoptEmitOpDiagnostic(MlirOperation op, MlirDiagnosticSeverity severity, const char *format,
                            ...) __attribute__((format(printf, 3, 4)));

/// Reports an error "'<op name>' op <printf-formatted text>" at `op`'s location, as MLIR's emitOpError.
void memoptEmitOpErrorV(MlirOperation op, const char *format, va_list args);

/// memoptEmitOpErrorV with the arguments after `format`.
void memoptEmitOpError(MlirOperation op, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/// Orders a log's entries by file position (each diagnostic keeps its notes
/// after it), so the output does not depend on how passes were scheduled.
void memoptDiagnosticLogSort(MemoptDiagnosticLog *log);

/// Returns the name of a severity as printed: "error", "warning", "note", "remark".
const char *memoptSeverityName(MlirDiagnosticSeverity severity);

/// Appends `diagnostic` as mlir-opt prints it ("file:line:col: error: msg"),
/// followed by the source line and a caret when `source` holds the text the
/// line number refers to (a null `source.data` when none does) and that line
/// has the column; as LLVM's SourceMgr, tabs expand to 8 columns and a line
/// with non-ASCII bytes gets no caret.
void memoptDiagnosticFormat(const MemoptDiagnostic *diagnostic, MlirStringRef source,
                            MemoptStringBuffer *out);

/// Appends every diagnostic of `log` to `out` as memoptDiagnosticFormat does,
/// showing source lines of `source` for those in the log's source file, in
/// time linear in the source and the diagnostics.
void memoptDiagnosticLogFormat(const MemoptDiagnosticLog *log, MlirStringRef source,
                               MemoptStringBuffer *out);

/// Finds the file position a location points at: its first file location in
/// pre-order (a name's child, a call site's callee then caller, a fused
/// location's parts), as MLIR's findInstanceOf<FileLineColLoc>; false when
/// it has none.
bool memoptLocationPosition(MlirLocation location, MlirStringRef *file, unsigned *line,
                            unsigned *column);

/// Parses `source` (named `sourceName` in locations and diagnostics; it may
/// hold NUL bytes, which MLIR's lexer skips like white space, as mlir-opt
/// does) into a module, wrapping top-level ops in one as mlir-opt does (that
/// module is located at line 0, column 0 of the file, as in mlir-opt), and
/// rejects what MLIR's verifier accepts but its printer crashes on (Parse.c).
/// Returns a null module after reporting through the context's diagnostics.
MlirModule memoptParseModule(MlirContext context, MlirStringRef source, const char *sourceName);

/// Parses `source` as memoptParseModule does but without wrapping: it must
/// hold exactly one top-level op, which is returned (owned by the caller), as
/// mlir-opt --no-implicit-module does. Returns a null op after reporting.
MlirOperation memoptParseOperation(MlirContext context, MlirStringRef source,
                                   const char *sourceName);

#ifdef __cplusplus
}
#endif

#endif /* MEMOPT_IR_IR_H */

/* memopt passes: the registry of memopt's own passes, their typed options,
 * and pass pipelines that mix memopt passes with upstream MLIR passes.
 *
 * MLIR's C API cannot put external passes in MLIR's global registry, so memopt
 * keeps its own: a pipeline string is parsed here, memopt passes become
 * external passes (mlirCreateExternalPass) and everything else is handed to
 * MLIR's own pipeline parser, all in one pass manager. */
#ifndef MEMOPT_PASS_PASS_H
#define MEMOPT_PASS_PASS_H

#include "Support/Support.h"

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===------------------------------------------------------------------===*
 * Pass options
 *===------------------------------------------------------------------===*/

/// The kinds of value a pass option takes.
typedef enum MemoptOptionKind {
  MemoptOptionInteger, /* a signed 64-bit integer */
  MemoptOptionBytes,   /* a byte count; accepts KiB/MiB/GiB (and KB/MB/GB) suffixes */
  MemoptOptionFloat,   /* a finite double */
  MemoptOptionBool,    /* true/false/1/0; a bare name means true */
  MemoptOptionString,  /* any text */
  MemoptOptionOutputFile, /* a file the pass writes ("" for none): its folder must exist */
  MemoptOptionChoice   /* one of the '|'-separated words in `choices` */
} MemoptOptionKind;

/// Describes one option of a pass: its name, kind, default and bounds.
typedef struct MemoptPassOptionInfo {
  const char *name;         /* as written in `pass{name=value}` */
  MemoptOptionKind kind;
  const char *defaultValue; /* in textual form; parsed like a user value */
  const char *summary;      /* one line for --help */
  const char *choices;      /* MemoptOptionChoice only: "dp|fuse-only|ilp" */
  double minimum;           /* numeric kinds: smallest accepted value */
  double maximum;           /* numeric kinds: largest accepted value */
} MemoptPassOptionInfo;

/// The parsed option values of one pass instance (opaque).
typedef struct MemoptPassOptions MemoptPassOptions;

/// Describes a memopt pass: its name, summary, anchor op, options and body.
typedef struct MemoptPassInfo {
  const char *argument; /* pipeline name, e.g. "autochunk" */
  const char *summary;  /* one line for --help */
  const char *anchor;   /* op the pass runs on, e.g. "func.func"; "" for any op */
  const MemoptPassOptionInfo *options;
  size_t optionCount;
  /// Dialects whose ops the pass creates (loaded before multi-threaded runs).
  MlirDialectHandle (*const *dependentDialects)(void);
  size_t dependentDialectCount;
  /// Checks what the option bounds cannot (a value's syntax, options that go
  /// together) when the pipeline is parsed, before any input is read; false
  /// with a message in `error`. NULL when the bounds say it all.
  bool (*checkOptions)(const MemoptPassOptions *options, MemoptStringBuffer *error);
  /// Runs the pass on `op`; on failure it has emitted a diagnostic on an op.
  MlirLogicalResult (*run)(MlirOperation op, const MemoptPassOptions *options);
} MemoptPassInfo;

/// Parses `text` ("a=1 b=x c={...}") against the options of `pass`. Returns
/// the values, or NULL with a message in `error` (and the byte offset of the
/// offending option in `errorOffset`). The caller frees the result.
MemoptPassOptions *memoptPassOptionsParse(const MemoptPassInfo *pass, const char *text,
                                          MemoptStringBuffer *error, size_t *errorOffset);

/// Returns a deep copy of `options`.
MemoptPassOptions *memoptPassOptionsClone(const MemoptPassOptions *options);

/// Frees option values (NULL is allowed).
void memoptPassOptionsDestroy(MemoptPassOptions *options);

/// Returns true when the user gave option `name` explicitly.
bool memoptPassOptionsIsSet(const MemoptPassOptions *options, const char *name);

/// Returns the value of an Integer or Bytes option.
long long memoptPassOptionsGetInteger(const MemoptPassOptions *options, const char *name);

/// Returns the value of a Float option.
double memoptPassOptionsGetFloat(const MemoptPassOptions *options, const char *name);

/// Returns the value of a Bool option.
bool memoptPassOptionsGetBool(const MemoptPassOptions *options, const char *name);

/// Returns the value of a String, OutputFile or Choice option (owned by `options`).
const char *memoptPassOptionsGetString(const MemoptPassOptions *options, const char *name);

/// Appends the options in canonical textual form ("a=1 b=x") to `out`.
void memoptPassOptionsPrint(const MemoptPassOptions *options, MemoptStringBuffer *out);

/*===------------------------------------------------------------------===*
 * Registry
 *===------------------------------------------------------------------===*/

/// Returns the number of memopt passes.
size_t memoptPassCount(void);

/// Adds `pass` to the registry (a pass already registered under its argument is ignored); not thread-safe: register at startup.
void memoptPassRegister(const MemoptPassInfo *pass);

/// Returns memopt pass number `index` (0 <= index < memoptPassCount()).
const MemoptPassInfo *memoptPassAt(size_t index);

/// Returns the memopt pass named `argument`, or NULL.
const MemoptPassInfo *memoptPassLookup(const char *argument, size_t length);

/// Returns the number of upstream MLIR passes and pass pipelines the C API
/// can run (mlir-opt's test-library passes are not among them).
size_t memoptUpstreamPassCount(void);

/// Returns the name of upstream pass number `index`.
const char *memoptUpstreamPassName(size_t index);

/// Returns the one-line summary of upstream pass number `index`.
const char *memoptUpstreamPassSummary(size_t index);

/// Returns true when upstream pass number `index` is a pass pipeline.
bool memoptUpstreamPassIsPipeline(size_t index);

/// Appends to `out` up to three known pass names (memopt or upstream) close
/// to `name`, as "'a', 'b'"; appends nothing when none is close.
void memoptPassSuggest(const char *name, MemoptStringBuffer *out);

/// Creates an external MLIR pass running `pass` with `options` (copied).
MlirPass memoptPassCreate(const MemoptPassInfo *pass, const MemoptPassOptions *options);

/*===------------------------------------------------------------------===*
 * Pipelines
 *===------------------------------------------------------------------===*/

/// Adds the passes of a textual pipeline (`builtin.module(a, b{x=1}, func.func(c))`)
/// to `passManager`. On failure fills `error` with a message and
/// `errorOffset` with the byte offset in `pipeline` it refers to.
MlirLogicalResult memoptPipelineParse(MlirPassManager passManager, const char *pipeline,
                                      MemoptStringBuffer *error, size_t *errorOffset);

/// Adds one pass, memopt's or upstream's, with options text `options` (may be
/// empty) to the top level of `passManager`, nesting it under the op it is
/// anchored on as mlir-opt does for pass flags. Errors as memoptPipelineParse.
MlirLogicalResult memoptPipelineAddPass(MlirPassManager passManager, const char *name,
                                        const char *options, MemoptStringBuffer *error);

#ifdef __cplusplus
}
#endif

#endif /* MEMOPT_PASS_PASS_H */

/* memopt-opt's command line: the flags mlir-opt users know, plus one flag per
 * pass (memopt's and upstream's), parsed into DriverOptions. */
#ifndef MEMOPT_OPT_COMMANDLINE_H
#define MEMOPT_OPT_COMMANDLINE_H

#include "Support/Support.h"

#include <stdbool.h>
#include <stddef.h>

/// A pass given as its own flag: `--name` or `--name="options"`.
typedef struct PassFlag {
  const char *name;    /* points into argv */
  size_t nameLength;
  const char *options; /* "" when none; points into argv */
} PassFlag;

/// Everything the command line asks for.
typedef struct DriverOptions {
  const char *inputPath;    /* "-" for standard input */
  const char *outputPath;   /* "-" for standard output */
  const char *passPipeline; /* NULL unless --pass-pipeline */
  PassFlag *passFlags;      /* in command-line order; owned */
  size_t passFlagCount;
  const char *splitMarker;  /* NULL unless --split-input-file */
  const char *outputSplitMarker; /* joins the outputs of split chunks */
  const char *reportPath;   /* NULL unless --memopt-report */
  const char *timelinePath; /* NULL unless --memopt-timeline */
  const char *verifyDiagnostics; /* NULL unless --verify-diagnostics: "all", "" or "only-expected" */
  bool verifyEach;
  bool printIRBeforeAll;
  bool printIRAfterAll;
  bool printIRAfterChange;
  bool printIRAfterFailure;
  bool printIRModuleScope;
  bool timing;
  bool printOpGeneric;
  bool printDebugInfo;
  bool allowUnregisteredDialect;
  bool disableThreading;
  bool showDialects;
  bool listPasses;
  bool help;
  bool version;
} DriverOptions;

/// Parses argv into `options`; on a bad flag returns false with the reason
/// in `error`. Frees nothing of argv; call driverOptionsDestroy after.
bool driverOptionsParse(int argc, char **argv, DriverOptions *options, MemoptStringBuffer *error);

/// Frees what driverOptionsParse allocated.
void driverOptionsDestroy(DriverOptions *options);

/// Appends the --help text (flags, memopt passes and their options) to `out`.
void driverOptionsHelp(MemoptStringBuffer *out);

#endif /* MEMOPT_OPT_COMMANDLINE_H */

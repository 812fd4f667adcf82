/* memopt-opt's command line: the flags mlir-opt users know, plus one flag per
 * pass (memopt's and upstream's), parsed into DriverOptions. */
#ifndef MEMOPT_OPT_COMMANDLINE_H
#define MEMOPT_OPT_COMMANDLINE_H

#include "Support/Support.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// A pass given as its own flag: `--name` or `--name="options"`.
typedef struct PassFlag {
  const char *name;    /* points into argv */
  size_t nameLength;
  const char *options; /* "" when none; points into argv */
} PassFlag;

/// An integer flag's value; `given` is false when the flag is absent.
typedef struct IntegerFlag {
  bool given;
  int64_t value;
} IntegerFlag;

/// Everything the command line asks for.
typedef struct DriverOptions {
  const char *inputPath;    /* "-" for standard input */
  const char *outputPath;   /* "-" for standard output */
  const char *passPipeline; /* NULL unless --pass-pipeline or -p */
  PassFlag *passFlags;      /* in command-line order; owned */
  size_t passFlagCount;
  const char *splitMarker;  /* NULL unless --split-input-file */
  const char *outputSplitMarker; /* joins the outputs of split chunks */
  const char *reportPath;   /* NULL unless --memopt-report */
  const char *timelinePath; /* NULL unless --memopt-timeline */
  const char *verifyDiagnostics; /* NULL unless --verify-diagnostics: "all", "" or "only-expected" */
  const char *irTreeDir;    /* NULL unless --mlir-print-ir-tree-dir */
  const char *reproducerPath; /* NULL unless --mlir-generate-reproducer */
  const char *irdlPath;       /* NULL unless --irdl-file */
  const char *timingDisplay;     /* "tree" (the only one supported) */
  const char *statisticsDisplay; /* "pipeline" or "list" */
  const char *verbosityLevel;    /* "errors", "warnings" or "remarks" */
  const char *timingOutputFormat; /* "text" (the only one supported) */
  IntegerFlag elideElementsAttrsIfLarger;
  IntegerFlag elideResourceStringsIfLarger;
  IntegerFlag bytecodeVersion;
  bool verifyEach;
  bool printIRBeforeAll;
  bool printIRAfterAll;
  bool printIRAfterChange;
  bool printIRAfterFailure;
  bool printIRModuleScope;
  bool timing;
  bool printOpGeneric;
  bool printDebugInfo;
  bool prettyDebugInfo;
  bool printLocalScope;
  bool useNameLocAsPrefix;
  bool printSkipRegions;
  bool printAssumeVerified;
  bool printOpOnDiagnostic; /* always true: the C API cannot turn it off */
  bool disableDiagnosticNotes;
  bool noImplicitModule;
  bool dumpPassPipeline;
  bool emitBytecode;
  bool runReproducer;
  bool verifyRoundtrip;
  bool passStatistics;
  bool allowUnregisteredDialect;
  bool disableThreading;
  bool showDialects;
  bool listPasses;
  bool help;
  bool version;
} DriverOptions;

/// How driverOptionsParse ended.
typedef enum DriverParseResult {
  DriverParseOk,
  DriverParseBadFlag,    /* unknown flag or bad value: `error` says which */
  DriverParseUnsupported /* an mlir-opt flag memopt-opt cannot honour: `error` says why */
} DriverParseResult;

/// Parses argv into `options`; on a bad or unsupported flag fills `error`
/// with the reason. Frees nothing of argv; call driverOptionsDestroy after.
DriverParseResult driverOptionsParse(int argc, char **argv, DriverOptions *options,
                                     MemoptStringBuffer *error);

/// Frees what driverOptionsParse allocated.
void driverOptionsDestroy(DriverOptions *options);

/// Appends the --help text (flags, memopt passes and their options) to `out`.
void driverOptionsHelp(MemoptStringBuffer *out);

#endif /* MEMOPT_OPT_COMMANDLINE_H */

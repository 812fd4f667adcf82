/* Flags are matched against one table that also produces --help, so a flag
 * cannot exist without its documentation. LLVM accepts one or two dashes;
 * so does memopt-opt. */
#include "CommandLine.h"

#include "DiagnosticVerifier.h"
#include "Pass/Pass.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef enum FlagKind {
  FlagBool,
  FlagString,
  FlagOptionalString,
  FlagInteger,     /* an IntegerFlag */
  FlagChoice,      /* a string, one of `choices` */
  FlagAlias,       /* another name of the flag `choices` names */
  FlagUnsupported, /* an mlir-opt flag the C API cannot honour; `reason` says why */
} FlagKind;

typedef struct Flag {
  const char *name;
  FlagKind kind;
  size_t offset; /* of the field in DriverOptions */
  const char *help;
  const char *defaultValue; /* FlagOptionalString: the value of the bare flag */
  const char *choices;      /* FlagChoice: the values, '|'-separated; FlagAlias: the flag */
  const char *unsupportedValue; /* a value mlir-opt has and memopt-opt cannot honour */
  const char *reason;           /* why that value, or the whole FlagUnsupported flag, cannot be */
  bool nonNegative;             /* FlagInteger: rejects values below 0 */
} Flag;

#define FIELD(name) offsetof(DriverOptions, name)
#define UNSUPPORTED(flagName, why) {.name = flagName, .kind = FlagUnsupported, .reason = why}

/* The flags of mlir-opt memopt-opt has, then memopt's own, then those of
 * mlir-opt it cannot have: each is still recognised, and rejected with why. */
static const Flag flags[] = {
    {.name = "o", .kind = FlagString, .offset = FIELD(outputPath),
     .help = "Output file (default: standard output)"},
    {.name = "pass-pipeline", .kind = FlagString, .offset = FIELD(passPipeline),
     .help = "Textual pass pipeline mixing memopt and upstream passes, e.g. "
             "'builtin.module(canonicalize,memopt-verify)'"},
    {.name = "p", .kind = FlagAlias, .choices = "pass-pipeline", .help = "Short for --pass-pipeline"},
    {.name = "split-input-file", .kind = FlagOptionalString, .offset = FIELD(splitMarker),
     .help = "Process each chunk of the input separated by '// -----' (or the given marker) on "
             "its own",
     .defaultValue = "// -----"},
    {.name = "output-split-marker", .kind = FlagString, .offset = FIELD(outputSplitMarker),
     .help = "With --split-input-file, the line that joins the outputs of the chunks (default: "
             "'// -----')"},
    {.name = "no-implicit-module", .kind = FlagBool, .offset = FIELD(noImplicitModule),
     .help = "Do not wrap the input in a builtin.module: it must hold exactly one top-level op, "
             "which the pipeline runs on"},
    {.name = "run-reproducer", .kind = FlagBool, .offset = FIELD(runReproducer),
     .help = "Run the pipeline (and disable_threading, verify_each) the input's "
             "{-# external_resources: { mlir_reproducer: ... } #-} gives, before the command "
             "line's passes"},
    {.name = "mlir-generate-reproducer", .kind = FlagString, .offset = FIELD(reproducerPath),
     .help = "After a successful pipeline, write the output IR with the pipeline in its "
             "mlir_reproducer resource (for --run-reproducer) to this file"},
    {.name = "verify-roundtrip", .kind = FlagBool, .offset = FIELD(verifyRoundtrip),
     .help = "Check that the parsed input prints and parses back (as text and as bytecode) to "
             "the same IR"},
    {.name = "irdl-file", .kind = FlagString, .offset = FIELD(irdlPath),
     .help = "Load the IRDL dialects this file defines before reading the input"},
    {.name = "dump-pass-pipeline", .kind = FlagBool, .offset = FIELD(dumpPassPipeline),
     .help = "Print the pipeline that will be run to standard error"},
    {.name = "emit-bytecode", .kind = FlagBool, .offset = FIELD(emitBytecode),
     .help = "Write the output as MLIR bytecode"},
    {.name = "emit-bytecode-version", .kind = FlagInteger, .offset = FIELD(bytecodeVersion),
     .help = "With --emit-bytecode, the bytecode version to write"},
    {.name = "memopt-report", .kind = FlagString, .offset = FIELD(reportPath),
     .help = "Write a JSON memory report: live activation bytes of every function by op "
             "position before and after the pipeline, and the passes' remarks"},
    {.name = "memopt-timeline", .kind = FlagString, .offset = FIELD(timelinePath),
     .help = "Write an SVG chart of every function's live activation bytes by op position, "
             "before and after the pipeline"},
    {.name = "verify-diagnostics", .kind = FlagOptionalString, .offset = FIELD(verifyDiagnostics),
     .help = "Check that the diagnostics match the expected-* comments of the input: all (the "
             "default) or only-expected (diagnostics no comment expects are not errors)",
     .defaultValue = "all"},
    {.name = "verify-each", .kind = FlagBool, .offset = FIELD(verifyEach),
     .help = "Verify the IR after each pass (default: true)"},
    {.name = "mlir-print-ir-before-all", .kind = FlagBool, .offset = FIELD(printIRBeforeAll),
     .help = "Print the IR before each pass"},
    {.name = "mlir-print-ir-after-all", .kind = FlagBool, .offset = FIELD(printIRAfterAll),
     .help = "Print the IR after each pass"},
    {.name = "mlir-print-ir-after-change", .kind = FlagBool, .offset = FIELD(printIRAfterChange),
     .help = "With --mlir-print-ir-after-all, print only when the pass changed the IR"},
    {.name = "mlir-print-ir-after-failure", .kind = FlagBool, .offset = FIELD(printIRAfterFailure),
     .help = "Print the IR after a pass fails"},
    {.name = "mlir-print-ir-module-scope", .kind = FlagBool, .offset = FIELD(printIRModuleScope),
     .help = "Print the whole module when printing IR around a pass on a nested op"},
    {.name = "mlir-print-ir-tree-dir", .kind = FlagString, .offset = FIELD(irTreeDir),
     .help = "With --mlir-print-ir-*, write each dump to a file in a tree under this directory "
             "instead of standard error"},
    {.name = "mlir-timing", .kind = FlagBool, .offset = FIELD(timing),
     .help = "Report the time spent in each pass"},
    {.name = "mlir-timing-display", .kind = FlagChoice, .offset = FIELD(timingDisplay),
     .help = "How --mlir-timing shows the times", .choices = "tree|list",
     .unsupportedValue = "list",
     .reason = "MLIR's C API times passes with the default tree display only "
               "(mlirPassManagerEnableTiming takes no display)"},
    {.name = "mlir-output-format", .kind = FlagChoice, .offset = FIELD(timingOutputFormat),
     .help = "Format of the --mlir-timing report", .choices = "text|json",
     .unsupportedValue = "json",
     .reason = "MLIR's C API reports timing as text only (mlirPassManagerEnableTiming takes no "
               "output format)"},
    {.name = "mlir-pass-statistics", .kind = FlagBool, .offset = FIELD(passStatistics),
     .help = "Report the statistics of each pass"},
    {.name = "mlir-pass-statistics-display", .kind = FlagChoice, .offset = FIELD(statisticsDisplay),
     .help = "How --mlir-pass-statistics shows them", .choices = "list|pipeline"},
    {.name = "mlir-print-op-generic", .kind = FlagBool, .offset = FIELD(printOpGeneric),
     .help = "Print ops in the generic form"},
    {.name = "mlir-print-debuginfo", .kind = FlagBool, .offset = FIELD(printDebugInfo),
     .help = "Print locations"},
    {.name = "mlir-pretty-debuginfo", .kind = FlagBool, .offset = FIELD(prettyDebugInfo),
     .help = "With --mlir-print-debuginfo, print locations in the pretty form (file:line:col)"},
    {.name = "mlir-print-local-scope", .kind = FlagBool, .offset = FIELD(printLocalScope),
     .help = "Print attributes, types and locations inline instead of as #aliases"},
    {.name = "mlir-elide-elementsattrs-if-larger", .kind = FlagInteger,
     .offset = FIELD(elideElementsAttrsIfLarger),
     .help = "Print elements attributes with more elements than this as dense_resource<__elided__>",
     .nonNegative = true},
    {.name = "mlir-elide-resource-strings-if-larger", .kind = FlagInteger,
     .offset = FIELD(elideResourceStringsIfLarger),
     .help = "Leave resource strings (blobs) longer than this many characters out of the output",
     .nonNegative = true},
    {.name = "mlir-use-nameloc-as-prefix", .kind = FlagBool, .offset = FIELD(useNameLocAsPrefix),
     .help = "Name SSA values after their NameLoc locations (loc(\"name\") prints %name)"},
    {.name = "mlir-print-skip-regions", .kind = FlagBool, .offset = FIELD(printSkipRegions),
     .help = "Print ops without their regions ({...})"},
    {.name = "mlir-print-assume-verified", .kind = FlagBool, .offset = FIELD(printAssumeVerified),
     .help = "Print without verifying the IR first (may crash on invalid IR)"},
    {.name = "mlir-print-op-on-diagnostic", .kind = FlagBool, .offset = FIELD(printOpOnDiagnostic),
     .help = "Attach the op to a diagnostic emitted on it as a note (default: true)",
     .unsupportedValue = "false",
     .reason = "MLIR's C API has no setter for MLIRContext::printOpOnDiagnostic, which is on"},
    {.name = "mlir-diagnostic-verbosity-level", .kind = FlagChoice, .offset = FIELD(verbosityLevel),
     .help = "Which diagnostics to show: errors, warnings (and errors) or remarks (all)",
     .choices = "errors|warnings|remarks"},
    {.name = "mlir-disable-diagnostic-notes", .kind = FlagBool,
     .offset = FIELD(disableDiagnosticNotes), .help = "Drop diagnostics that are notes"},
    {.name = "mlir-disable-threading", .kind = FlagBool, .offset = FIELD(disableThreading),
     .help = "Run passes on one thread"},
    {.name = "allow-unregistered-dialect", .kind = FlagBool,
     .offset = FIELD(allowUnregisteredDialect),
     .help = "Accept ops of dialects that are not registered"},
    {.name = "show-dialects", .kind = FlagBool, .offset = FIELD(showDialects),
     .help = "List the available dialects and exit"},
    {.name = "list-passes", .kind = FlagBool, .offset = FIELD(listPasses),
     .help = "List every pass (memopt and upstream) and exit"},
    {.name = "help", .kind = FlagBool, .offset = FIELD(help), .help = "Show this help and exit"},
    {.name = "version", .kind = FlagBool, .offset = FIELD(version),
     .help = "Show the version and exit"},

    UNSUPPORTED("mlir-print-unique-ssa-ids",
                "MLIR's C API has no printing flag for unique SSA ids "
                "(OpPrintingFlags::printUniqueSSAIDs)"),
    UNSUPPORTED("mlir-print-elementsattrs-with-hex-if-larger",
                "MLIR's C API has no printing flag for the hex threshold of elements attributes"),
    UNSUPPORTED("mlir-print-value-users",
                "MLIR's C API has no printing flag for value users (OpPrintingFlags::printValueUsers)"),
    UNSUPPORTED("mlir-print-ir-before",
                "MLIR's C API prints the IR around all passes or none "
                "(mlirPassManagerEnableIRPrinting takes no pass filter); use "
                "--mlir-print-ir-before-all"),
    UNSUPPORTED("mlir-print-ir-after",
                "MLIR's C API prints the IR around all passes or none "
                "(mlirPassManagerEnableIRPrinting takes no pass filter); use "
                "--mlir-print-ir-after-all"),
    UNSUPPORTED("mlir-pass-pipeline-crash-reproducer",
                "MLIR's C API cannot enable crash reproducers on a pass manager"),
    UNSUPPORTED("mlir-pass-pipeline-local-reproducer",
                "MLIR's C API cannot enable crash reproducers on a pass manager"),
    UNSUPPORTED("mlir-print-stacktrace-on-diagnostic",
                "MLIR's C API has no setter for MLIRContext::printStackTraceOnDiagnostic"),
    UNSUPPORTED("mlir-very-unsafe-disable-verifier-on-parsing",
                "MLIR's C API parsers always verify (they take no ParserConfig)"),
    UNSUPPORTED("elide-resource-data-from-bytecode",
                "MLIR's C API bytecode writer config sets only the version"),
    UNSUPPORTED("mlir-debug-counter", "MLIR's C API has no debug counters (tracing::DebugCounter)"),
    UNSUPPORTED("mlir-print-debug-counter",
                "MLIR's C API has no debug counters (tracing::DebugCounter)"),
    UNSUPPORTED("mlir-enable-debugger-hook", "MLIR's C API has no action tracing"),
    UNSUPPORTED("log-actions-to", "MLIR's C API has no action tracing"),
    UNSUPPORTED("log-mlir-actions-filter", "MLIR's C API has no action tracing"),
    UNSUPPORTED("profile-actions-to", "MLIR's C API has no action tracing"),
    UNSUPPORTED("load-pass-plugin", "MLIR's C API cannot load pass plugins"),
    UNSUPPORTED("load-dialect-plugin", "MLIR's C API cannot load dialect plugins"),
    UNSUPPORTED("remark-format", "MLIR's C API cannot set up the remark engine"),
    UNSUPPORTED("remark-policy", "MLIR's C API cannot set up the remark engine"),
    UNSUPPORTED("remarks-filter", "MLIR's C API cannot set up the remark engine"),
    UNSUPPORTED("remarks-filter-passed", "MLIR's C API cannot set up the remark engine"),
    UNSUPPORTED("remarks-filter-missed", "MLIR's C API cannot set up the remark engine"),
    UNSUPPORTED("remarks-filter-failed", "MLIR's C API cannot set up the remark engine"),
    UNSUPPORTED("remarks-filter-analyse", "MLIR's C API cannot set up the remark engine"),
    UNSUPPORTED("remarks-output-file", "MLIR's C API cannot set up the remark engine"),
};

#define FLAG_COUNT (sizeof flags / sizeof *flags)

static const Flag *findFlag(const char *name, size_t length) {
  for (size_t i = 0; i < FLAG_COUNT; ++i)
    if (strlen(flags[i].name) == length && memcmp(flags[i].name, name, length) == 0)
      return flags[i].kind == FlagAlias ? findFlag(flags[i].choices, strlen(flags[i].choices))
                                        : &flags[i];
  return NULL;
}

static bool isKnownPass(const char *name, size_t length) {
  if (memoptPassLookup(name, length))
    return true;
  for (size_t i = 0; i < memoptUpstreamPassCount(); ++i) {
    const char *upstream = memoptUpstreamPassName(i);
    if (strlen(upstream) == length && memcmp(upstream, name, length) == 0)
      return true;
  }
  return false;
}

static void suggestFlag(const char *name, MemoptStringBuffer *error) {
  const char *best = NULL;
  size_t bestDistance = (size_t)-1;
  for (size_t i = 0; i < FLAG_COUNT; ++i) {
    size_t distance = memoptEditDistance(name, flags[i].name);
    if (distance < bestDistance) {
      bestDistance = distance;
      best = flags[i].name;
    }
  }
  if (best && bestDistance <= (strlen(best) + 2) / 3) {
    memoptStringBufferAppendFormat(error, "; did you mean '--%s'?", best);
    return;
  }
  MemoptStringBuffer passes = memoptStringBufferCreate();
  memoptPassSuggest(name, &passes);
  if (passes.length)
    memoptStringBufferAppendFormat(error, "; did you mean the pass %s?", passes.data);
  memoptStringBufferDestroy(&passes);
}

static bool setBool(const Flag *flag, const char *value, DriverOptions *options,
                    MemoptStringBuffer *error) {
  bool *field = (bool *)((char *)options + flag->offset);
  if (!value || strcmp(value, "true") == 0 || strcmp(value, "1") == 0)
    *field = true;
  else if (strcmp(value, "false") == 0 || strcmp(value, "0") == 0)
    *field = false;
  else {
    memoptStringBufferAppendFormat(error, "'--%s' takes true or false, not '%s'", flag->name,
                                   value);
    return false;
  }
  return true;
}

static bool setInteger(const Flag *flag, const char *value, DriverOptions *options,
                       MemoptStringBuffer *error) {
  IntegerFlag *field = (IntegerFlag *)((char *)options + flag->offset);
  char *end = NULL;
  errno = 0;
  long long parsed = *value ? strtoll(value, &end, 10) : 0;
  if (!*value || *end || errno == ERANGE || (flag->nonNegative && parsed < 0)) {
    memoptStringBufferAppendFormat(error, "'--%s' takes %s integer, not '%s'", flag->name,
                                   flag->nonNegative ? "a non-negative" : "an", value);
    return false;
  }
  *field = (IntegerFlag){true, (int64_t)parsed};
  return true;
}

/* Returns true when `value` is one of the '|'-separated `choices`. */
static bool isChoice(const char *value, const char *choices) {
  size_t length = strlen(value);
  for (const char *p = choices;;) {
    const char *bar = strchr(p, '|');
    size_t choiceLength = bar ? (size_t)(bar - p) : strlen(p);
    if (choiceLength == length && memcmp(p, value, length) == 0)
      return true;
    if (!bar)
      return false;
    p = bar + 1;
  }
}

static bool setChoice(const Flag *flag, const char *value, DriverOptions *options,
                      MemoptStringBuffer *error) {
  if (!isChoice(value, flag->choices)) {
    memoptStringBufferAppendFormat(error, "'--%s' takes one of %s, not '%s'", flag->name,
                                   flag->choices, value);
    return false;
  }
  *(const char **)((char *)options + flag->offset) = value;
  return true;
}

/* Fills `error` when `value` of `flag` is the value memopt-opt cannot honour. */
static bool isUnsupportedValue(const Flag *flag, const char *value, const DriverOptions *options,
                               MemoptStringBuffer *error) {
  if (!flag->unsupportedValue)
    return false;
  bool unsupported = flag->kind == FlagBool ? !*(const bool *)((const char *)options + flag->offset)
                                            : strcmp(value, flag->unsupportedValue) == 0;
  if (unsupported)
    memoptStringBufferAppendFormat(error, "'--%s=%s' is not supported: %s", flag->name,
                                   flag->unsupportedValue, flag->reason);
  return unsupported;
}

DriverParseResult driverOptionsParse(int argc, char **argv, DriverOptions *options,
                                     MemoptStringBuffer *error) {
  memset(options, 0, sizeof *options);
  options->inputPath = NULL;
  options->outputPath = "-";
  options->verifyEach = true;
  options->outputSplitMarker = "// -----";
  options->printOpOnDiagnostic = true;
  options->timingDisplay = "tree";
  options->timingOutputFormat = "text";
  options->statisticsDisplay = "pipeline";
  options->verbosityLevel = "remarks";
  bool onlyPositional = false;
  /* A value flag given twice is an error: which one counts would be a guess. */
  bool given[FLAG_COUNT] = {false};
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i];
    if (onlyPositional || arg[0] != '-' || strcmp(arg, "-") == 0) {
      if (options->inputPath) {
        memoptStringBufferAppendFormat(error, "more than one input file: '%s' and '%s'",
                                       options->inputPath, arg);
        return DriverParseBadFlag;
      }
      options->inputPath = arg;
      continue;
    }
    if (strcmp(arg, "--") == 0) {
      onlyPositional = true;
      continue;
    }
    const char *name = arg + (arg[1] == '-' ? 2 : 1);
    const char *equals = strchr(name, '=');
    size_t nameLength = equals ? (size_t)(equals - name) : strlen(name);
    const char *value = equals ? equals + 1 : NULL;
    const Flag *flag = findFlag(name, nameLength);
    if (flag && flag->kind == FlagUnsupported) {
      memoptStringBufferAppendFormat(error, "'--%s' is not supported: %s", flag->name,
                                     flag->reason);
      return DriverParseUnsupported;
    }
    if (flag) {
      if (flag->kind == FlagBool) {
        if (!setBool(flag, value, options, error))
          return DriverParseBadFlag;
        if (isUnsupportedValue(flag, value, options, error))
          return DriverParseUnsupported;
        continue;
      }
      if (given[flag - flags]) {
        memoptStringBufferAppendFormat(error, "'--%s' given twice", flag->name);
        return DriverParseBadFlag;
      }
      given[flag - flags] = true;
      if (!value && flag->kind == FlagOptionalString) {
        value = flag->defaultValue;
      } else if (!value) {
        if (i + 1 >= argc) {
          memoptStringBufferAppendFormat(error, "'--%s' needs a value", flag->name);
          return DriverParseBadFlag;
        }
        value = argv[++i];
      }
      if (flag->kind == FlagInteger) {
        if (!setInteger(flag, value, options, error))
          return DriverParseBadFlag;
        continue;
      }
      if (isUnsupportedValue(flag, value, options, error))
        return DriverParseUnsupported;
      if (flag->kind == FlagChoice) {
        if (!setChoice(flag, value, options, error))
          return DriverParseBadFlag;
        continue;
      }
      *(const char **)((char *)options + flag->offset) = value;
      continue;
    }
    if (isKnownPass(name, nameLength)) {
      options->passFlags = memoptReallocArray(options->passFlags, options->passFlagCount + 1,
                                              sizeof *options->passFlags);
      options->passFlags[options->passFlagCount++] = (PassFlag){name, nameLength, value ? value : ""};
      continue;
    }
    char *unknown = memoptStrndup(name, nameLength);
    memoptStringBufferAppendFormat(error, "unknown option '%s'", arg);
    suggestFlag(unknown, error);
    free(unknown);
    return DriverParseBadFlag;
  }
  MemoptVerifyLevel level;
  if (options->verifyDiagnostics && !memoptVerifyLevelParse(options->verifyDiagnostics, &level)) {
    memoptStringBufferAppendFormat(
        error, "'--verify-diagnostics' takes all or only-expected, not '%s'",
        options->verifyDiagnostics);
    return DriverParseBadFlag;
  }
  if (!options->inputPath)
    options->inputPath = "-";
  /* The input is cut at the marker less its last two characters, which tell
   * a split from a near miss: shorter markers cannot work. */
  if (options->splitMarker && strlen(options->splitMarker) < 3) {
    memoptStringBufferAppendFormat(
        error, "the split marker '%s' is too short: it needs at least 3 characters",
        options->splitMarker);
    return DriverParseBadFlag;
  }
  if (options->passPipeline && options->passFlagCount) {
    memoptStringBufferAppendCString(
        error, "'--pass-pipeline' cannot be combined with individual pass flags");
    return DriverParseBadFlag;
  }
  return DriverParseOk;
}

void driverOptionsDestroy(DriverOptions *options) {
  free(options->passFlags);
  options->passFlags = NULL;
  options->passFlagCount = 0;
}

static const char *kindName(MemoptOptionKind kind) {
  switch (kind) {
  case MemoptOptionInteger:
    return "<int>";
  case MemoptOptionBytes:
    return "<bytes>";
  case MemoptOptionFloat:
    return "<number>";
  case MemoptOptionBool:
    return "<bool>";
  case MemoptOptionString:
    return "<string>";
  case MemoptOptionOutputFile:
    return "<file>";
  case MemoptOptionChoice:
    return "<choice>";
  }
  return "<value>";
}

void driverOptionsHelp(MemoptStringBuffer *out) {
  memoptStringBufferAppendCString(
      out,
      "OVERVIEW: MLIR modular optimizer driver, with memopt's memory passes: runs memopt and "
      "upstream MLIR passes on MLIR files\n\n"
      "USAGE: memopt-opt [options] <input file, or - for standard input>\n\nOPTIONS:\n");
  for (size_t i = 0; i < FLAG_COUNT; ++i) {
    const Flag *flag = &flags[i];
    if (flag->kind == FlagUnsupported)
      continue;
    MemoptStringBuffer left = memoptStringBufferCreate();
    memoptStringBufferAppendFormat(&left, "%s%s", flag->kind == FlagAlias ? "-" : "--", flag->name);
    if (flag->kind == FlagString || flag->kind == FlagAlias)
      memoptStringBufferAppendCString(&left, " <value>");
    else if (flag->kind == FlagOptionalString)
      memoptStringBufferAppendCString(&left, "[=<value>]");
    else if (flag->kind == FlagInteger)
      memoptStringBufferAppendCString(&left, "=<int>");
    else if (flag->kind == FlagChoice)
      memoptStringBufferAppendFormat(&left, "=<%s>", flag->choices);
    memoptStringBufferAppendFormat(out, "  %-34s - %s\n", left.data, flag->help);
    if (flag->unsupportedValue)
      memoptStringBufferAppendFormat(out, "  %-34s   (=%s is not supported: %s)\n", "",
                                     flag->unsupportedValue, flag->reason);
    memoptStringBufferDestroy(&left);
  }
  memoptStringBufferAppendCString(
      out, "\nMLIR-OPT FLAGS MEMOPT-OPT DOES NOT SUPPORT (each is an error, and why):\n");
  for (size_t i = 0; i < FLAG_COUNT; ++i)
    if (flags[i].kind == FlagUnsupported)
      memoptStringBufferAppendFormat(out, "  --%-32s - %s\n", flags[i].name, flags[i].reason);
  memoptStringBufferAppendCString(
      out, "\nMEMOPT PASSES (as --<pass>[=\"<options>\"] or inside --pass-pipeline as "
           "<pass>{<options>}):\n");
  for (size_t i = 0; i < memoptPassCount(); ++i) {
    const MemoptPassInfo *pass = memoptPassAt(i);
    memoptStringBufferAppendFormat(out, "  --%-32s - %s\n", pass->argument, pass->summary);
    for (size_t o = 0; o < pass->optionCount; ++o) {
      const MemoptPassOptionInfo *option = &pass->options[o];
      MemoptStringBuffer left = memoptStringBufferCreate();
      memoptStringBufferAppendFormat(&left, "%s=%s", option->name,
                                     option->kind == MemoptOptionChoice ? option->choices
                                                                        : kindName(option->kind));
      memoptStringBufferAppendFormat(out, "      %-30s - %s (default: %s)\n", left.data,
                                     option->summary, option->defaultValue);
      memoptStringBufferDestroy(&left);
    }
  }
  memoptStringBufferAppendFormat(
      out,
      "\nUPSTREAM PASSES: the %zu passes and pass pipelines of mlir-opt that MLIR's C API "
      "runs (all but its test library's), as flags or in --pass-pipeline; --list-passes "
      "names them.\n",
      memoptUpstreamPassCount());
}

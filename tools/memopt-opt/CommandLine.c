/* Flags are matched against one table that also produces --help, so a flag
 * cannot exist without its documentation. LLVM accepts one or two dashes;
 * so does memopt-opt. */
#include "CommandLine.h"

#include "DiagnosticVerifier.h"
#include "Pass/Pass.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef enum FlagKind { FlagBool, FlagString, FlagOptionalString } FlagKind;

typedef struct Flag {
  const char *name;
  FlagKind kind;
  size_t offset; /* of the field in DriverOptions */
  const char *help;
  const char *defaultValue; /* FlagOptionalString: the value of the bare flag */
} Flag;


static const Flag flags[] = {
    {"o", FlagString, offsetof(DriverOptions, outputPath), "Output file (default: standard output)", NULL},
    {"pass-pipeline", FlagString, offsetof(DriverOptions, passPipeline),
     "Textual pass pipeline mixing memopt and upstream passes, e.g. "
     "'builtin.module(canonicalize,memopt-verify)'",
     NULL},
    {"split-input-file", FlagOptionalString, offsetof(DriverOptions, splitMarker),
     "Process each chunk of the input separated by '// -----' (or the given marker) on its own",
     "// -----"},
    {"output-split-marker", FlagString, offsetof(DriverOptions, outputSplitMarker),
     "With --split-input-file, the line that joins the outputs of the chunks (default: '// -----')",
     NULL},
    {"memopt-report", FlagString, offsetof(DriverOptions, reportPath),
     "Write a JSON memory report: live activation bytes of every function by op position before "
     "and after the pipeline, and the passes' remarks",
     NULL},
    {"memopt-timeline", FlagString, offsetof(DriverOptions, timelinePath),
     "Write an SVG chart of every function's live activation bytes by op position, before and "
     "after the pipeline",
     NULL},
    {"verify-diagnostics", FlagOptionalString, offsetof(DriverOptions, verifyDiagnostics),
     "Check that the diagnostics match the expected-* comments of the input: all (the default) "
     "or only-expected (diagnostics no comment expects are not errors)",
     "all"},
    {"verify-each", FlagBool, offsetof(DriverOptions, verifyEach), "Verify the IR after each pass (default: true)",
     NULL},
    {"mlir-print-ir-before-all", FlagBool, offsetof(DriverOptions, printIRBeforeAll),
     "Print the IR before each pass", NULL},
    {"mlir-print-ir-after-all", FlagBool, offsetof(DriverOptions, printIRAfterAll), "Print the IR after each pass",
     NULL},
    {"mlir-print-ir-after-change", FlagBool, offsetof(DriverOptions, printIRAfterChange),
     "With --mlir-print-ir-after-all, print only when the pass changed the IR", NULL},
    {"mlir-print-ir-after-failure", FlagBool, offsetof(DriverOptions, printIRAfterFailure),
     "Print the IR after a pass fails", NULL},
    {"mlir-print-ir-module-scope", FlagBool, offsetof(DriverOptions, printIRModuleScope),
     "Print the whole module when printing IR around a pass on a nested op", NULL},
    {"mlir-timing", FlagBool, offsetof(DriverOptions, timing), "Report the time spent in each pass", NULL},
    {"mlir-print-op-generic", FlagBool, offsetof(DriverOptions, printOpGeneric),
     "Print ops in the generic form", NULL},
    {"mlir-print-debuginfo", FlagBool, offsetof(DriverOptions, printDebugInfo), "Print locations", NULL},
    {"mlir-disable-threading", FlagBool, offsetof(DriverOptions, disableThreading),
     "Run passes on one thread", NULL},
    {"allow-unregistered-dialect", FlagBool, offsetof(DriverOptions, allowUnregisteredDialect),
     "Accept ops of dialects that are not registered", NULL},
    {"show-dialects", FlagBool, offsetof(DriverOptions, showDialects), "List the available dialects and exit", NULL},
    {"list-passes", FlagBool, offsetof(DriverOptions, listPasses),
     "List every pass (memopt and upstream) and exit", NULL},
    {"help", FlagBool, offsetof(DriverOptions, help), "Show this help and exit", NULL},
    {"version", FlagBool, offsetof(DriverOptions, version), "Show the version and exit", NULL},
};


static const Flag *findFlag(const char *name, size_t length) {
  for (size_t i = 0; i < sizeof flags / sizeof *flags; ++i)
    if (strlen(flags[i].name) == length && memcmp(flags[i].name, name, length) == 0)
      return &flags[i];
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
  for (size_t i = 0; i < sizeof flags / sizeof *flags; ++i) {
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

bool driverOptionsParse(int argc, char **argv, DriverOptions *options, MemoptStringBuffer *error) {
  memset(options, 0, sizeof *options);
  options->inputPath = NULL;
  options->outputPath = "-";
  options->verifyEach = true;
  options->outputSplitMarker = "// -----";
  bool onlyPositional = false;
  /* A value flag given twice is an error: which one counts would be a guess. */
  bool given[sizeof flags / sizeof *flags] = {false};
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i];
    if (onlyPositional || arg[0] != '-' || strcmp(arg, "-") == 0) {
      if (options->inputPath) {
        memoptStringBufferAppendFormat(error, "more than one input file: '%s' and '%s'",
                                       options->inputPath, arg);
        return false;
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
    if (flag) {
      if (flag->kind == FlagBool) {
        if (!setBool(flag, value, options, error))
          return false;
        continue;
      }
      const char **field = (const char **)((char *)options + flag->offset);
      if (given[flag - flags]) {
        memoptStringBufferAppendFormat(error, "'--%s' given twice", flag->name);
        return false;
      }
      given[flag - flags] = true;
      if (!value && flag->kind == FlagOptionalString) {
        value = flag->defaultValue;
      } else if (!value) {
        if (i + 1 >= argc) {
          memoptStringBufferAppendFormat(error, "'--%s' needs a value", flag->name);
          return false;
        }
        value = argv[++i];
      }
      *field = value;
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
    return false;
  }
  MemoptVerifyLevel level;
  if (options->verifyDiagnostics && !memoptVerifyLevelParse(options->verifyDiagnostics, &level)) {
    memoptStringBufferAppendFormat(
        error, "'--verify-diagnostics' takes all or only-expected, not '%s'",
        options->verifyDiagnostics);
    return false;
  }
  if (!options->inputPath)
    options->inputPath = "-";
  /* The input is cut at the marker less its last two characters, which tell
   * a split from a near miss: shorter markers cannot work. */
  if (options->splitMarker && strlen(options->splitMarker) < 3) {
    memoptStringBufferAppendFormat(
        error, "the split marker '%s' is too short: it needs at least 3 characters",
        options->splitMarker);
    return false;
  }
  if (options->passPipeline && options->passFlagCount) {
    memoptStringBufferAppendCString(
        error, "'--pass-pipeline' cannot be combined with individual pass flags");
    return false;
  }
  return true;
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
      "OVERVIEW: memopt optimizer driver: runs memopt and upstream MLIR passes on MLIR files\n\n"
      "USAGE: memopt-opt [options] <input file, or - for standard input>\n\nOPTIONS:\n");
  for (size_t i = 0; i < sizeof flags / sizeof *flags; ++i) {
    const char *value = flags[i].kind == FlagString           ? " <value>"
                        : flags[i].kind == FlagOptionalString ? "[=<value>]"
                                                              : "";
    MemoptStringBuffer left = memoptStringBufferCreate();
    memoptStringBufferAppendFormat(&left, "--%s%s", flags[i].name, value);
    memoptStringBufferAppendFormat(out, "  %-34s - %s\n", left.data, flags[i].help);
    memoptStringBufferDestroy(&left);
  }
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

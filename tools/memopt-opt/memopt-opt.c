/* memopt-opt: the opt-style driver. Reads MLIR, runs a pipeline that mixes
 * memopt and upstream passes, prints the result; behaves like mlir-opt for
 * every flag the two share. */
#include "CommandLine.h"
#include "DiagnosticVerifier.h"
#include "MemoryReport.h"
#include "OutputCapture.h"
#include "SplitInput.h"
#include "Reproducer.h"

#include "IR/IR.h"
#include "InitAllPasses.h"
#include "Pass/Pass.h"

#include "mlir-c/Dialect/IRDL.h"
#include "mlir-c/RegisterEverything.h"

#include <ctype.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Everything one invocation works with. */
typedef struct Driver {
  DriverOptions options;
  MlirContext context;
  const char *sourceName; /* as locations name the input: the path or "<stdin>" */
  MemoptStringBuffer output;
  MlirStringRef input; /* the whole input: diagnostics show its lines, as chunks keep its positions */
  unsigned chunkLine, chunkColumn; /* where the split chunk being run starts; 0 for the whole file */
  MemoryReport *report; /* NULL unless --memopt-report or --memopt-timeline */
  MemoptDiagnosticVerifier *verifier; /* NULL unless --verify-diagnostics; spans all chunks */
} Driver;

static void printError(const char *format, const char *detail) {
  fprintf(stderr, "memopt-opt: error: ");
  fprintf(stderr, format, detail);
  fputc('\n', stderr);
}

/* --irdl-file: loads the IRDL dialects `path` defines into `context`; false
 * after reporting (with the file's own lines) when it cannot. */
static bool loadIRDLFile(MlirContext context, const char *path) {
  MemoptStringBuffer text = memoptStringBufferCreate();
  MemoptStringBuffer error = memoptStringBufferCreate();
  bool ok = memoptFileRead(path, &text, &error);
  if (!ok)
    printError("%s", error.data);
  if (ok) {
    MemoptDiagnosticLog log;
    memoptDiagnosticLogAttach(&log, context, path);
    MlirStringRef source = mlirStringRefCreate(text.data, text.length);
    MlirModule module = memoptParseModule(context, source, path);
    ok = !mlirModuleIsNull(module) && mlirLogicalResultIsSuccess(mlirLoadIRDLDialects(module));
    if (!mlirModuleIsNull(module))
      mlirModuleDestroy(module);
    memoptDiagnosticLogDetach(&log);
    memoptDiagnosticLogSort(&log);
    MemoptStringBuffer report = memoptStringBufferCreate();
    memoptDiagnosticLogFormat(&log, source, &report);
    fputs(memoptStringBufferGet(&report), stderr);
    memoptStringBufferDestroy(&report);
    memoptDiagnosticLogDestroy(&log);
  }
  memoptStringBufferDestroy(&error);
  memoptStringBufferDestroy(&text);
  return ok;
}

/* Shows a pipeline error with the pipeline text and a caret under `offset`. */
static void printPipelineError(const char *where, const char *pipeline, size_t offset,
                               const char *message) {
  fprintf(stderr, "%s:1:%zu: error: %s\n%s\n%*s^\n", where, offset + 1, message, pipeline,
          (int)offset, "");
}

/* The printing flags of the command line, for the output and for the IR
 * --mlir-print-ir-* dumps, as mlir-opt's OpPrintingFlags() takes them. */
static MlirOpPrintingFlags createPrintingFlags(const DriverOptions *options) {
  MlirOpPrintingFlags flags = mlirOpPrintingFlagsCreate();
  if (options->printOpGeneric)
    mlirOpPrintingFlagsPrintGenericOpForm(flags);
  if (options->printDebugInfo || options->prettyDebugInfo)
    mlirOpPrintingFlagsEnableDebugInfo(flags, options->printDebugInfo, options->prettyDebugInfo);
  if (options->printLocalScope)
    mlirOpPrintingFlagsUseLocalScope(flags);
  if (options->useNameLocAsPrefix)
    mlirOpPrintingFlagsPrintNameLocAsPrefix(flags);
  if (options->printSkipRegions)
    mlirOpPrintingFlagsSkipRegions(flags);
  if (options->printAssumeVerified)
    mlirOpPrintingFlagsAssumeVerified(flags);
  if (options->elideElementsAttrsIfLarger.given)
    mlirOpPrintingFlagsElideLargeElementsAttrs(flags,
                                               (intptr_t)options->elideElementsAttrsIfLarger.value);
  if (options->elideResourceStringsIfLarger.given)
    mlirOpPrintingFlagsElideLargeResourceString(
        flags, (intptr_t)options->elideResourceStringsIfLarger.value);
  return flags;
}

/* Turns on what the command line asks the pass manager to report. */
static void instrumentPassManager(const DriverOptions *options, MlirPassManager passManager) {
  if (options->timing)
    mlirPassManagerEnableTiming(passManager);
  if (options->passStatistics)
    mlirPassManagerEnableStatistics(passManager, strcmp(options->statisticsDisplay, "list") == 0
                                                     ? MLIR_PASS_DISPLAY_MODE_LIST
                                                     : MLIR_PASS_DISPLAY_MODE_PIPELINE);
  if (options->printIRBeforeAll || options->printIRAfterAll || options->printIRAfterFailure) {
    MlirOpPrintingFlags flags = createPrintingFlags(options);
    const char *treeDir = options->irTreeDir ? options->irTreeDir : "";
    mlirPassManagerEnableIRPrinting(
        passManager, options->printIRBeforeAll,
        /* As in mlir-opt, "after change" filters --mlir-print-ir-after-all, while
         * "after failure" prints on its own. */
        options->printIRAfterAll || options->printIRAfterFailure,
        options->printIRModuleScope, options->printIRAfterChange, options->printIRAfterFailure,
        flags, mlirStringRefCreateFromCString(treeDir));
    mlirOpPrintingFlagsDestroy(flags);
  }
}

/* Adds the command line's passes to a pass manager anchored on a
 * builtin.module, with memopt's pipeline parser, after `reproducerPipeline`
 * (NULL when none). */
static bool addModulePasses(const DriverOptions *options, const char *reproducerPipeline,
                            MlirPassManager passManager) {
  MemoptStringBuffer error = memoptStringBufferCreate();
  bool ok = true;
  if (reproducerPipeline) {
    size_t offset = 0;
    ok = mlirLogicalResultIsSuccess(
        memoptPipelineParse(passManager, reproducerPipeline, &error, &offset));
    if (!ok)
      printPipelineError("<reproducer pipeline>", reproducerPipeline, offset, error.data);
  }
  if (ok && options->passPipeline) {
    size_t offset = 0;
    memoptStringBufferClear(&error);
    ok = mlirLogicalResultIsSuccess(
        memoptPipelineParse(passManager, options->passPipeline, &error, &offset));
    if (!ok)
      printPipelineError("<pass-pipeline>", options->passPipeline, offset, error.data);
  }
  for (size_t i = 0; ok && i < options->passFlagCount; ++i) {
    const PassFlag *flag = &options->passFlags[i];
    char *name = memoptStrndup(flag->name, flag->nameLength);
    memoptStringBufferClear(&error);
    ok = mlirLogicalResultIsSuccess(memoptPipelineAddPass(passManager, name, flag->options, &error));
    if (!ok)
      fprintf(stderr, "memopt-opt: error: in '--%s%s%s': %s\n", name, *flag->options ? "=" : "",
              flag->options, error.data);
    free(name);
  }
  memoptStringBufferDestroy(&error);
  return ok;
}

/* Adds the command line's passes to a pass manager anchored on another op
 * (--no-implicit-module): upstream's pipeline parser then reads them, as
 * mlir-opt does; a textual pipeline replaces the pass manager, anchor and all. */
static bool addRootPasses(const DriverOptions *options, const char *reproducerPipeline,
                          MlirPassManager passManager) {
  MlirOpPassManager top = mlirPassManagerGetAsOpPassManager(passManager);
  MemoptStringBuffer error = memoptStringBufferCreate();
  bool ok = true;
  const char *pipelines[] = {reproducerPipeline, options->passPipeline};
  for (size_t i = 0; ok && i < 2; ++i)
    ok = !pipelines[i] ||
         mlirLogicalResultIsSuccess(mlirParsePassPipeline(
             top, mlirStringRefCreateFromCString(pipelines[i]), memoptAppendToBuffer, &error));
  for (size_t i = 0; ok && i < options->passFlagCount; ++i) {
    const PassFlag *flag = &options->passFlags[i];
    MemoptStringBuffer element = memoptStringBufferCreate();
    memoptStringBufferAppendFormat(&element, *flag->options ? "%.*s{%s}" : "%.*s%s",
                                   (int)flag->nameLength, flag->name, flag->options);
    ok = mlirLogicalResultIsSuccess(mlirOpPassManagerAddPipeline(
        top, mlirStringRefCreate(element.data, element.length), memoptAppendToBuffer, &error));
    memoptStringBufferDestroy(&element);
  }
  if (!ok) {
    /* Upstream's message ends in a newline when it shows the pipeline text. */
    while (error.length && error.data[error.length - 1] == '\n')
      error.data[--error.length] = '\0';
    printError("%s", memoptStringBufferGet(&error));
  }
  memoptStringBufferDestroy(&error);
  return ok;
}

/* Builds the pass manager the command line (and a --run-reproducer
 * pipeline, NULL when none) asks for, anchored on `anchor`; reports the
 * error and returns NULL when the pipeline is invalid. `instrument` turns on
 * timing, statistics and IR printing. */
static MlirPassManager createPassManager(Driver *driver, MlirStringRef anchor,
                                         const char *reproducerPipeline, bool instrument) {
  const DriverOptions *options = &driver->options;
  MlirPassManager passManager = mlirPassManagerCreateOnOperation(driver->context, anchor);
  bool isModule = mlirStringRefEqual(anchor, mlirStringRefCreateFromCString("builtin.module"));
  bool ok = isModule ? addModulePasses(options, reproducerPipeline, passManager)
                     : addRootPasses(options, reproducerPipeline, passManager);
  if (!ok) {
    mlirPassManagerDestroy(passManager);
    return (MlirPassManager){NULL};
  }
  mlirPassManagerEnableVerifier(passManager, options->verifyEach);
  if (instrument)
    instrumentPassManager(options, passManager);
  return passManager;
}

/* Writes mlir-opt's --dump-pass-pipeline of `passManager` to standard error:
 * the count of its passes, then its pipeline with one pass a line. */
static void dumpPassPipeline(MlirPassManager passManager) {
  MemoptStringBuffer compact = memoptStringBufferCreate();
  mlirPrintPassPipeline(mlirPassManagerGetAsOpPassManager(passManager), memoptAppendToBuffer,
                        &compact);
  /* Re-indent the one-line form as OpPassManager::dump does: a new line after
   * each '(' and ',' of the pipeline (not of pass options in braces). */
  MemoptStringBuffer pretty = memoptStringBufferCreate();
  size_t depth = 0, braces = 0, passes = 0;
  bool lineStart = false, inString = false;
  for (size_t i = 0; i < compact.length; ++i) {
    char c = compact.data[i];
    bool structural = braces == 0 && !inString && (c == '(' || c == ',' || c == ')');
    if (c == ')' && structural) {
      memoptStringBufferAppendCString(&pretty, "\n");
      lineStart = true;
      --depth;
    }
    if (lineStart && c != '\n') {
      for (size_t d = 0; d < depth; ++d)
        memoptStringBufferAppendCString(&pretty, "  ");
      lineStart = false;
    }
    memoptStringBufferAppend(&pretty, &c, 1);
    if (inString) {
      if (c == '\\' && i + 1 < compact.length)
        memoptStringBufferAppend(&pretty, &compact.data[++i], 1);
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '{') {
      ++braces;
    } else if (c == '}' && braces) {
      --braces;
    } else if (structural && c != ')') {
      if (depth == 1 && c == ',')
        ++passes;
      if (c == '(')
        ++depth;
      memoptStringBufferAppendCString(&pretty, "\n");
      lineStart = true;
    }
  }
  /* One more pass than top-level commas, unless the pipeline is empty. */
  const char *open = memchr(compact.data, '(', compact.length);
  if (open && open[1] != ')')
    ++passes;
  fprintf(stderr, "Pass Manager with %zu passes:\n%s\n\n", passes, memoptStringBufferGet(&pretty));
  memoptStringBufferDestroy(&pretty);
  memoptStringBufferDestroy(&compact);
}

/* Appends the output: `root` as text, or as bytecode with --emit-bytecode.
 * False after reporting when the bytecode writer fails. */
static bool printRoot(Driver *driver, MlirOperation root) {
  const DriverOptions *options = &driver->options;
  if (options->emitBytecode) {
    MlirBytecodeWriterConfig config = mlirBytecodeWriterConfigCreate();
    if (options->bytecodeVersion.given)
      mlirBytecodeWriterConfigDesiredEmitVersion(config, options->bytecodeVersion.value);
    bool ok = mlirLogicalResultIsSuccess(
        mlirOperationWriteBytecodeWithConfig(root, config, memoptAppendToBuffer, &driver->output));
    mlirBytecodeWriterConfigDestroy(config);
    return ok;
  }
  if (options->bytecodeVersion.given) {
    mlirEmitError(mlirLocationUnknownGet(driver->context),
                  "bytecode version while not emitting bytecode");
    return false;
  }
  MlirOpPrintingFlags flags = createPrintingFlags(options);
  mlirOperationPrintWithFlags(root, flags, memoptAppendToBuffer, &driver->output);
  memoptStringBufferAppendCString(&driver->output, "\n");
  mlirOpPrintingFlagsDestroy(flags);
  return true;
}

/* Prints `op` in the generic form with locations, as --verify-roundtrip
 * compares it. */
static void printForRoundTrip(MlirOperation op, MemoptStringBuffer *out) {
  MlirOpPrintingFlags flags = mlirOpPrintingFlagsCreate();
  mlirOpPrintingFlagsPrintGenericOpForm(flags);
  mlirOpPrintingFlagsEnableDebugInfo(flags, true, false);
  mlirOperationPrintWithFlags(op, flags, memoptAppendToBuffer, out);
  mlirOpPrintingFlagsDestroy(flags);
}

/* --verify-roundtrip, as mlir-opt's doVerifyRoundTrip: `op` written as
 * text (or bytecode) and parsed back in a fresh context prints the same.
 * Emits the error at `op` and returns false when not. */
static bool verifyRoundTrip(Driver *driver, MlirOperation op, bool useBytecode) {
  const char *testType = useBytecode ? "bytecode" : "textual";
  MemoptStringBuffer reference = memoptStringBufferCreate();
  printForRoundTrip(op, &reference);
  MemoptStringBuffer written = memoptStringBufferCreate();
  if (useBytecode)
    mlirOperationWriteBytecode(op, memoptAppendToBuffer, &written);
  else
    memoptStringBufferAppend(&written, reference.data, reference.length);
  MlirContext context = memoptContextCreate(driver->options.allowUnregisteredDialect);
  bool ok = !mlirContextIsNull(context) &&
            (!driver->options.irdlPath || loadIRDLFile(context, driver->options.irdlPath));
  MlirOperation parsed =
      ok ? mlirOperationCreateParse(context, mlirStringRefCreate(written.data, written.length),
                                    mlirStringRefCreateFromCString(""))
         : (MlirOperation){NULL};
  if (mlirOperationIsNull(parsed)) {
    memoptEmitOpError(op, "failed to parse %s content back, cannot verify round-trip.\n",
                      testType);
    ok = false;
  } else {
    MemoptStringBuffer roundtrip = memoptStringBufferCreate();
    printForRoundTrip(parsed, &roundtrip);
    if (roundtrip.length != reference.length ||
        memcmp(roundtrip.data, reference.data, reference.length) != 0) {
      memoptEmitOpError(op,
                        "%s roundTrip testing roundtripped module differs from reference:\n"
                        "<<<<<<Reference\n%s\n=====\n%s\n>>>>>roundtripped\n",
                        testType, reference.data, roundtrip.data);
      ok = false;
    }
    memoptStringBufferDestroy(&roundtrip);
    mlirOperationDestroy(parsed);
  }
  if (!mlirContextIsNull(context))
    mlirContextDestroy(context);
  memoptStringBufferDestroy(&written);
  memoptStringBufferDestroy(&reference);
  return ok;
}

/* --verify-roundtrip: through text, then through bytecode; both report. */
static bool verifyRoundTrips(Driver *driver, MlirOperation op) {
  bool text = verifyRoundTrip(driver, op, false);
  bool bytecode = verifyRoundTrip(driver, op, true);
  return text && bytecode;
}

/* Appends `text` to `out` quoted as MLIR prints a resource string. */
static void appendQuoted(MemoptStringBuffer *out, const char *text) {
  memoptStringBufferAppendCString(out, "\"");
  for (const unsigned char *p = (const unsigned char *)text; *p; ++p) {
    if (*p == '\\')
      memoptStringBufferAppendCString(out, "\\\\");
    else if (isprint(*p) && *p != '"')
      memoptStringBufferAppend(out, (const char *)p, 1);
    else
      memoptStringBufferAppendFormat(out, "\\%02X", *p);
  }
  memoptStringBufferAppendCString(out, "\"");
}

/* --mlir-generate-reproducer: writes `root` (after the pipeline, as
 * mlir-opt does) with the pipeline of `passManager` in the mlir_reproducer
 * resource --run-reproducer reads; mlir-opt records threading and the
 * verifier as off. False after reporting when the file cannot be written. */
static bool writeReproducer(Driver *driver, MlirPassManager passManager, MlirOperation root) {
  MemoptStringBuffer pipeline = memoptStringBufferCreate();
  mlirPrintPassPipeline(mlirPassManagerGetAsOpPassManager(passManager), memoptAppendToBuffer,
                        &pipeline);
  MemoptStringBuffer text = memoptStringBufferCreate();
  MlirOpPrintingFlags flags = createPrintingFlags(&driver->options);
  mlirOperationPrintWithFlags(root, flags, memoptAppendToBuffer, &text);
  mlirOpPrintingFlagsDestroy(flags);
  memoptStringBufferAppendCString(&text, "\n{-#\n  external_resources: {\n    mlir_reproducer: {\n"
                                         "      pipeline: ");
  appendQuoted(&text, memoptStringBufferGet(&pipeline));
  memoptStringBufferAppendCString(&text, ",\n      disable_threading: false,\n"
                                         "      verify_each: false\n    }\n  }\n#-}\n");
  MemoptStringBuffer error = memoptStringBufferCreate();
  bool ok = memoptFileWriteOutput(driver->options.reproducerPath, text.data, text.length, &error);
  if (!ok)
    printError("%s", error.data);
  memoptStringBufferDestroy(&error);
  memoptStringBufferDestroy(&text);
  memoptStringBufferDestroy(&pipeline);
  return ok;
}

/* What --mlir-diagnostic-verbosity-level, --mlir-disable-diagnostic-notes
 * and --run-reproducer leave out of the diagnostics, as mlir-opt's
 * DiagnosticFilter does. */
typedef struct DiagnosticFilter {
  MlirDiagnosticSeverity least; /* shows this severity and the graver ones */
  bool dropNotes;
  bool readsReproducer; /* the driver reads the mlir_reproducer resource itself */
} DiagnosticFilter;

static bool isReproducerWarning(MlirDiagnostic diagnostic) {
  MemoptStringBuffer message = memoptStringBufferCreate();
  mlirDiagnosticPrint(diagnostic, memoptAppendToBuffer, &message);
  bool is = strcmp(memoptStringBufferGet(&message),
                   "ignoring unknown external resources for 'mlir_reproducer'") == 0;
  memoptStringBufferDestroy(&message);
  return is;
}

static MlirLogicalResult filterDiagnostic(MlirDiagnostic diagnostic, void *userData) {
  const DiagnosticFilter *filter = userData;
  MlirDiagnosticSeverity severity = mlirDiagnosticGetSeverity(diagnostic);
  bool drop = false;
  if (severity == MlirDiagnosticNote)
    drop = filter->dropNotes;
  else if (severity == MlirDiagnosticWarning)
    drop = filter->least == MlirDiagnosticError ||
           (filter->readsReproducer && isReproducerWarning(diagnostic));
  else if (severity == MlirDiagnosticRemark)
    drop = filter->least != MlirDiagnosticRemark;
  /* Success means handled: the handlers attached before never see it. */
  return drop ? mlirLogicalResultSuccess() : mlirLogicalResultFailure();
}

/* Writes what the output buffer holds so far to standard output, when that
 * is the output: what a pass printed and flushed on LLVM's stream leaves with
 * everything before it, as in mlir-opt. A file given with -o is written
 * once, at the end, and only when all went well. */
static bool flushStandardOutput(Driver *driver) {
  if (strcmp(driver->options.outputPath, "-") != 0 || driver->output.length == 0)
    return true;
  MemoptStringBuffer error = memoptStringBufferCreate();
  bool written = memoptFileWriteOutput("-", memoptStringBufferGet(&driver->output),
                                       driver->output.length, &error);
  if (!written)
    printError("%s", error.data);
  memoptStringBufferDestroy(&error);
  memoptStringBufferClear(&driver->output);
  return written;
}

/* Runs the pipeline on `root`. On standard output, what the passes print
 * there is captured into the output buffer, after what precedes this chunk
 * and before its IR; without a capture the buffer is written first, which
 * keeps that order. */
static bool runPasses(Driver *driver, MlirPassManager passManager, MlirOperation root) {
  bool toStdout = strcmp(driver->options.outputPath, "-") == 0;
  OutputCapture capture;
  bool capturing = toStdout && outputCaptureBegin(&capture);
  bool flushed = capturing || flushStandardOutput(driver);
  bool ok = mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(passManager, root));
  if (capturing && outputCaptureEnd(&capture, &driver->output))
    flushed = flushStandardOutput(driver);
  return ok && flushed;
}

/* Moves what the parser reported at line 0, the whole buffer (a chunk that
 * is not one op, under --no-implicit-module), to where the split chunk
 * starts in the file, as mlir-opt's parser reports it. */
static void placeAtChunkStart(const Driver *driver, MemoptDiagnosticLog *log) {
  for (size_t i = 0; driver->chunkLine && i < log->count; ++i) {
    MemoptDiagnostic *entry = &log->entries[i];
    if (entry->line == 0 && entry->file && strcmp(entry->file, driver->sourceName) == 0) {
      entry->line = driver->chunkLine;
      entry->column = driver->chunkColumn;
    }
  }
}

/* Creates the context one buffer is parsed in; NULL after reporting. */
static MlirContext createContext(const DriverOptions *options) {
  MlirContext context = memoptContextCreate(options->allowUnregisteredDialect);
  if (mlirContextIsNull(context)) {
    printError("%s", "cannot load the memopt dialects");
    return context;
  }
  mlirContextEnableMultithreading(context, !options->disableThreading);
  if (options->irdlPath && !loadIRDLFile(context, options->irdlPath)) {
    mlirContextDestroy(context);
    return (MlirContext){NULL};
  }
  return context;
}

/* Parses, transforms and prints one buffer (the input or one split chunk)
 * in a context of its own, as mlir-opt does: nothing a chunk's passes leave
 * in the context (a preloaded transform library, ...) reaches the next one.
 * `text` has the chunk's lines at the line numbers they have in the file;
 * its `length` bytes may hold NUL bytes, which the parser skips. */
static bool processBuffer(Driver *driver, const char *text, size_t length) {
  const DriverOptions *options = &driver->options;
  driver->context = createContext(options);
  if (mlirContextIsNull(driver->context))
    return false;
  MemoptDiagnosticLog log;
  memoptDiagnosticLogAttach(&log, driver->context, driver->sourceName);
  DiagnosticFilter filter = {
      .least = strcmp(options->verbosityLevel, "errors") == 0     ? MlirDiagnosticError
               : strcmp(options->verbosityLevel, "warnings") == 0 ? MlirDiagnosticWarning
                                                                  : MlirDiagnosticRemark,
      .dropNotes = options->disableDiagnosticNotes,
      .readsReproducer = options->runReproducer};
  /* As in mlir-opt, --verify-diagnostics sees every diagnostic. */
  if (options->verifyDiagnostics)
    filter = (DiagnosticFilter){.least = MlirDiagnosticRemark,
                                .readsReproducer = options->runReproducer};
  MlirDiagnosticHandlerID filterID =
      mlirContextAttachDiagnosticHandler(driver->context, filterDiagnostic, &filter, NULL);
  bool ok = false;
  MlirStringRef source = mlirStringRefCreate(text, length);
  MlirOperation root =
      options->noImplicitModule
          ? memoptParseOperation(driver->context, source, driver->sourceName)
          : mlirModuleGetOperation(memoptParseModule(driver->context, source, driver->sourceName));
  bool parsed = !mlirOperationIsNull(root);
  Reproducer reproducer = {0};
  if (!mlirOperationIsNull(root) &&
      (!options->runReproducer ||
       mlirLogicalResultIsSuccess(
           reproducerRead(driver->context, source, driver->sourceName, &reproducer))) &&
      mlirLogicalResultIsSuccess(memoptVerifyOps(root)) &&
      (!options->verifyRoundtrip || verifyRoundTrips(driver, root))) {
    if (driver->report)
      memoryReportRecordInput(driver->report, root);
    if (reproducer.hasDisableThreading)
      mlirContextEnableMultithreading(driver->context, !reproducer.disableThreading);
    MlirPassManager passManager =
        createPassManager(driver, mlirIdentifierStr(mlirOperationGetName(root)),
                          reproducer.pipeline, true);
    if (!mlirPassManagerIsNull(passManager)) {
      if (reproducer.hasVerifyEach)
        mlirPassManagerEnableVerifier(passManager, reproducer.verifyEach);
      if (options->dumpPassPipeline)
        dumpPassPipeline(passManager);
      ok = runPasses(driver, passManager, root);
      if (ok && options->reproducerPath)
        ok = writeReproducer(driver, passManager, root);
      mlirPassManagerDestroy(passManager); /* prints --mlir-timing */
    }
    if (ok)
      ok = printRoot(driver, root);
    if (ok && driver->report)
      memoryReportRecordOutput(driver->report, root);
  }
  reproducerDestroy(&reproducer);
  if (!mlirOperationIsNull(root))
    mlirOperationDestroy(root);
  mlirContextDetachDiagnosticHandler(driver->context, filterID);
  memoptDiagnosticLogDetach(&log);
  if (options->noImplicitModule && !parsed)
    placeAtChunkStart(driver, &log);
  mlirContextDestroy(driver->context);
  driver->context = (MlirContext){NULL};
  memoptDiagnosticLogSort(&log);
  if (driver->report)
    memoryReportAddDiagnostics(driver->report, &log);
  MemoptStringBuffer report = memoptStringBufferCreate();
  if (driver->verifier)
    memoptDiagnosticVerifierCheck(driver->verifier, &log, &report);
  else
    memoptDiagnosticLogFormat(&log, driver->input, &report);
  fputs(memoptStringBufferGet(&report), stderr);
  memoptStringBufferDestroy(&report);
  memoptDiagnosticLogDestroy(&log);
  /* With --verify-diagnostics the verifier alone decides, once all is read. */
  return driver->verifier ? true : ok;
}

/* The pipeline as the command line gives it, for the memory report. */
static void describePipeline(const DriverOptions *options, MemoptStringBuffer *out) {
  if (options->passPipeline)
    memoptStringBufferAppendCString(out, options->passPipeline);
  for (size_t i = 0; i < options->passFlagCount; ++i) {
    const PassFlag *flag = &options->passFlags[i];
    memoptStringBufferAppendFormat(out, "%s--%.*s%s%s", out->length ? " " : "",
                                   (int)flag->nameLength, flag->name, *flag->options ? "=" : "",
                                   flag->options);
  }
}

/* Writes the files --memopt-report and --memopt-timeline ask for. */
static bool writeReports(const Driver *driver, MemoptStringBuffer *error) {
  const DriverOptions *options = &driver->options;
  return (!options->reportPath ||
          memoryReportWriteJson(driver->report, options->reportPath, error)) &&
         (!options->timelinePath ||
          memoryReportWriteTimeline(driver->report, options->timelinePath, error));
}

/* Reports a near miss with the split marker as mlir-opt does: a warning at
 * `place`, with its source line and a caret. */
static void warnNearMiss(const Driver *driver, const char *inputEnd, SplitPlace place) {
  const char *lineStart = place.at - (place.column - 1);
  const char *lineEnd = memchr(place.at, '\n', (size_t)(inputEnd - place.at));
  if (!lineEnd)
    lineEnd = inputEnd;
  fprintf(stderr, "%s:%u:%u: warning: near miss with file split marker\n%.*s\n%*s^\n",
          driver->sourceName, place.line, place.column, (int)(lineEnd - lineStart), lineStart,
          (int)(place.column - 1), "");
}

/* Runs every chunk of the input as a file of its own, after reporting the
 * near misses with the marker; outputs are joined by the output marker. */
static bool processSplit(Driver *driver, const char *input, size_t inputLength) {
  SplitInput split = splitInputCreate(input, inputLength, driver->options.splitMarker);
  for (size_t i = 0; i < split.nearMissCount; ++i)
    warnNearMiss(driver, input + inputLength, split.nearMisses[i]);
  bool ok = true;
  for (size_t i = 0; i < split.chunkCount; ++i) {
    if (i)
      memoptStringBufferAppendFormat(&driver->output, "%s\n", driver->options.outputSplitMarker);
    MemoptStringBuffer text = memoptStringBufferCreate();
    splitChunkAppendInPlace(split.chunks[i], &text);
    /* A chunk that starts the file has no start of its own: its whole-file
     * diagnostics stay at line 0, as mlir-opt's. */
    bool startsFile = split.chunks[i].start.at == input;
    driver->chunkLine = startsFile ? 0 : split.chunks[i].start.line;
    driver->chunkColumn = startsFile ? 0 : split.chunks[i].start.column;
    ok = processBuffer(driver, memoptStringBufferGet(&text), text.length) && ok;
    driver->chunkLine = driver->chunkColumn = 0;
    memoptStringBufferDestroy(&text);
  }
  splitInputDestroy(&split);
  return ok;
}

static int showDialects(Driver *driver) {
  MemoptStringBuffer out = memoptStringBufferCreate();
  memoptStringBufferAppendCString(&out, "Available Dialects: ");
  memoptListDialects(&out);
  memoptStringBufferAppendCString(&out, "\n");
  fputs(out.data, stdout);
  memoptStringBufferDestroy(&out);
  return 0;
}

static int listPasses(void) {
  printf("memopt passes:\n");
  for (size_t i = 0; i < memoptPassCount(); ++i)
    printf("  --%-40s - %s\n", memoptPassAt(i)->argument, memoptPassAt(i)->summary);
  for (int pipelines = 0; pipelines < 2; ++pipelines) {
    printf(pipelines ? "Upstream pass pipelines:\n" : "Upstream passes:\n");
    for (size_t i = 0; i < memoptUpstreamPassCount(); ++i)
      if (memoptUpstreamPassIsPipeline(i) == pipelines)
        printf("  --%-40s - %s\n", memoptUpstreamPassName(i), memoptUpstreamPassSummary(i));
  }
  return 0;
}

int main(int argc, char **argv) {
  Driver driver;
  memset(&driver, 0, sizeof driver);
  memoptRegisterAllPasses();
  MemoptStringBuffer error = memoptStringBufferCreate();
  DriverParseResult parsed = driverOptionsParse(argc, argv, &driver.options, &error);
  if (parsed != DriverParseOk) {
    printError("%s", error.data);
    if (parsed == DriverParseBadFlag)
      fprintf(stderr, "Run 'memopt-opt --help' for the list of options and passes.\n");
    memoptStringBufferDestroy(&error);
    driverOptionsDestroy(&driver.options);
    return 1;
  }
  int status = 0;
  if (driver.options.help) {
    driverOptionsHelp(&error);
    fputs(error.data, stdout);
    goto done;
  }
  if (driver.options.version) {
    printf("memopt-opt %s\n  MLIR %s (Debian packages)\n", MEMOPT_VERSION, MEMOPT_MLIR_VERSION);
    goto done;
  }
  if (driver.options.listPasses) {
    status = listPasses();
    goto done;
  }
  if (driver.options.showDialects) {
    status = showDialects(&driver);
    goto done;
  }

  mlirRegisterAllPasses();
  /* Reject a bad pipeline before reading any input, as mlir-opt does;
   * without the implicit module its anchor is the input's top-level op. */
  driver.context = createContext(&driver.options);
  if (mlirContextIsNull(driver.context)) {
    status = 1;
    goto done;
  }
  bool pipelineValid = true;
  if (!driver.options.noImplicitModule) {
    MlirPassManager check = createPassManager(
        &driver, mlirStringRefCreateFromCString("builtin.module"), NULL, false);
    pipelineValid = !mlirPassManagerIsNull(check);
    if (pipelineValid)
      mlirPassManagerDestroy(check);
  }
  mlirContextDestroy(driver.context);
  driver.context = (MlirContext){NULL};
  if (!pipelineValid) {
    status = 1;
    goto done;
  }

  MemoptStringBuffer input = memoptStringBufferCreate();
  if (!memoptFileRead(driver.options.inputPath, &input, &error)) {
    printError("%s", error.data);
    memoptStringBufferDestroy(&input);
    status = 1;
    goto done;
  }
  driver.sourceName = strcmp(driver.options.inputPath, "-") == 0 ? "<stdin>" : driver.options.inputPath;
  driver.output = memoptStringBufferCreate();
  if (driver.options.reportPath || driver.options.timelinePath) {
    MemoptStringBuffer pipeline = memoptStringBufferCreate();
    describePipeline(&driver.options, &pipeline);
    driver.report = memoryReportCreate(driver.sourceName, memoptStringBufferGet(&pipeline));
    memoptStringBufferDestroy(&pipeline);
  }
  const char *text = memoptStringBufferGet(&input);
  driver.input = mlirStringRefCreate(text, input.length);
  MemoptVerifyLevel level;
  MemoptStringBuffer verifierReport = memoptStringBufferCreate();
  if (driver.options.verifyDiagnostics &&
      memoptVerifyLevelParse(driver.options.verifyDiagnostics, &level)) {
    driver.verifier = memoptDiagnosticVerifierCreate(driver.input, driver.sourceName, level,
                                                     &verifierReport);
    fputs(memoptStringBufferGet(&verifierReport), stderr);
    memoptStringBufferClear(&verifierReport);
  }
  bool ok = driver.options.splitMarker ? processSplit(&driver, text, input.length)
                                       : processBuffer(&driver, text, input.length);
  if (driver.verifier) {
    /* The chunks' own results only tell whether the output could be written. */
    ok = memoptDiagnosticVerifierFinish(driver.verifier, &verifierReport) && ok;
    fputs(memoptStringBufferGet(&verifierReport), stderr);
  }
  memoptStringBufferDestroy(&verifierReport);
  memoptStringBufferDestroy(&input);
  /* A failed run writes no file (-o never leaves a partial one); on standard
   * output the chunks that succeeded still appear, as with mlir-opt. */
  bool toStdout = strcmp(driver.options.outputPath, "-") == 0;
  /* Reports come first: when one cannot be written, neither is the output. */
  if (ok && driver.report && !writeReports(&driver, &error)) {
    printError("%s", error.data);
    ok = false;
  }
  if ((ok || toStdout) &&
      !memoptFileWriteOutput(driver.options.outputPath, memoptStringBufferGet(&driver.output),
                             driver.output.length, &error)) {
    printError("%s", error.data);
    ok = false;
  }
  memoptStringBufferDestroy(&driver.output);
  status = ok ? 0 : 1;

done:
  memoryReportDestroy(driver.report);
  if (!mlirContextIsNull(driver.context))
    mlirContextDestroy(driver.context);
  memoptStringBufferDestroy(&error);
  driverOptionsDestroy(&driver.options);
  return status;
}

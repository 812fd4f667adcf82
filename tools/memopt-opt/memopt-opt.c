/* memopt-opt: the opt-style driver. Reads MLIR, runs a pipeline that mixes
 * memopt and upstream passes, prints the result; behaves like mlir-opt for
 * every flag the two share. */
#include "CommandLine.h"
#include "DiagnosticVerifier.h"
#include "MemoryReport.h"
#include "OutputCapture.h"

#include "IR/IR.h"
#include "InitAllPasses.h"
#include "Pass/Pass.h"

#include "mlir-c/RegisterEverything.h"

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
  MemoryReport *report; /* NULL unless --memopt-report or --memopt-timeline */
  MemoptDiagnosticVerifier *verifier; /* NULL unless --verify-diagnostics; spans all chunks */
} Driver;

static void printError(const char *format, const char *detail) {
  fprintf(stderr, "memopt-opt: error: ");
  fprintf(stderr, format, detail);
  fputc('\n', stderr);
}

/* Shows a pipeline error with the pipeline text and a caret under `offset`. */
static void printPipelineError(const char *where, const char *pipeline, size_t offset,
                               const char *message) {
  fprintf(stderr, "%s:1:%zu: error: %s\n%s\n%*s^\n", where, offset + 1, message, pipeline,
          (int)offset, "");
}

/* Builds the pass manager the command line asks for; NULL after reporting
 * the error when the pipeline is invalid. */
static MlirPassManager createPassManager(Driver *driver) {
  const DriverOptions *options = &driver->options;
  /* Anchored on the module, so passes anchored elsewhere get nested. */
  MlirPassManager passManager = mlirPassManagerCreateOnOperation(
      driver->context, mlirStringRefCreateFromCString("builtin.module"));
  MemoptStringBuffer error = memoptStringBufferCreate();
  bool ok = true;
  if (options->passPipeline) {
    size_t offset = 0;
    ok = mlirLogicalResultIsSuccess(
        memoptPipelineParse(passManager, options->passPipeline, &error, &offset));
    if (!ok)
      printPipelineError("<pass-pipeline>", options->passPipeline, offset, error.data);
  }
  for (size_t i = 0; ok && i < options->passFlagCount; ++i) {
    const PassFlag *flag = &options->passFlags[i];
    char *name = memoptStrndup(flag->name, flag->nameLength);
    ok = mlirLogicalResultIsSuccess(memoptPipelineAddPass(passManager, name, flag->options, &error));
    if (!ok)
      fprintf(stderr, "memopt-opt: error: in '--%s%s%s': %s\n", name, *flag->options ? "=" : "",
              flag->options, error.data);
    free(name);
  }
  memoptStringBufferDestroy(&error);
  if (!ok) {
    mlirPassManagerDestroy(passManager);
    return (MlirPassManager){NULL};
  }
  mlirPassManagerEnableVerifier(passManager, options->verifyEach);
  if (options->timing)
    mlirPassManagerEnableTiming(passManager);
  if (options->printIRBeforeAll || options->printIRAfterAll || options->printIRAfterFailure) {
    MlirOpPrintingFlags flags = mlirOpPrintingFlagsCreate();
    if (options->printOpGeneric)
      mlirOpPrintingFlagsPrintGenericOpForm(flags);
    if (options->printDebugInfo)
      mlirOpPrintingFlagsEnableDebugInfo(flags, true, false);
    mlirPassManagerEnableIRPrinting(
        passManager, options->printIRBeforeAll,
        /* As in mlir-opt, "after change" filters --mlir-print-ir-after-all, while
         * "after failure" prints on its own. */
        options->printIRAfterAll || options->printIRAfterFailure,
        options->printIRModuleScope, options->printIRAfterChange, options->printIRAfterFailure,
        flags, mlirStringRefCreate(NULL, 0));
    mlirOpPrintingFlagsDestroy(flags);
  }
  return passManager;
}

static void printModule(Driver *driver, MlirModule module) {
  MlirOpPrintingFlags flags = mlirOpPrintingFlagsCreate();
  if (driver->options.printOpGeneric)
    mlirOpPrintingFlagsPrintGenericOpForm(flags);
  if (driver->options.printDebugInfo)
    mlirOpPrintingFlagsEnableDebugInfo(flags, true, false);
  mlirOperationPrintWithFlags(mlirModuleGetOperation(module), flags, memoptAppendToBuffer,
                              &driver->output);
  memoptStringBufferAppendCString(&driver->output, "\n");
  mlirOpPrintingFlagsDestroy(flags);
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

/* Creates the context one buffer is parsed in; NULL after reporting. */
static MlirContext createContext(const DriverOptions *options) {
  MlirContext context = memoptContextCreate(options->allowUnregisteredDialect);
  if (mlirContextIsNull(context)) {
    printError("%s", "cannot load the memopt dialects");
    return context;
  }
  mlirContextEnableMultithreading(context, !options->disableThreading);
  return context;
}

/* Parses, transforms and prints one buffer (the input or one split chunk)
 * in a context of its own, as mlir-opt does: nothing a chunk's passes leave
 * in the context (a preloaded transform library, ...) reaches the next one.
 * `text` has the chunk's lines at the line numbers they have in the file;
 * its `length` bytes may hold NUL bytes, which the parser skips. */
static bool processBuffer(Driver *driver, const char *text, size_t length) {
  driver->context = createContext(&driver->options);
  if (mlirContextIsNull(driver->context))
    return false;
  MemoptDiagnosticLog log;
  memoptDiagnosticLogAttach(&log, driver->context, driver->sourceName);
  bool ok = false;
  MlirModule module =
      memoptParseModule(driver->context, mlirStringRefCreate(text, length), driver->sourceName);
  if (!mlirModuleIsNull(module)) {
    MlirOperation root = mlirModuleGetOperation(module);
    if (mlirLogicalResultIsSuccess(memoptVerifyOps(root))) {
      if (driver->report)
        memoryReportRecordInput(driver->report, root);
      MlirPassManager passManager = createPassManager(driver);
      /* The pipeline was checked before any input was read. */
      ok = !mlirPassManagerIsNull(passManager) &&
           runPasses(driver, passManager, root);
      if (!mlirPassManagerIsNull(passManager))
        mlirPassManagerDestroy(passManager); /* prints --mlir-timing */
      if (ok)
        printModule(driver, module);
      if (ok && driver->report)
        memoryReportRecordOutput(driver->report, root);
    }
    mlirModuleDestroy(module);
  }
  memoptDiagnosticLogDetach(&log);
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
 * `at`, with its source line and a caret. */
static void warnNearMiss(const Driver *driver, const char *input, const char *inputEnd,
                         const char *at) {
  size_t line = 1;
  const char *lineStart = input;
  for (const char *p = input; p < at; ++p)
    if (*p == '\n') {
      ++line;
      lineStart = p + 1;
    }
  const char *lineEnd = memchr(at, '\n', (size_t)(inputEnd - at));
  if (!lineEnd)
    lineEnd = inputEnd;
  fprintf(stderr, "%s:%zu:%zu: warning: near miss with file split marker\n%.*s\n%*s^\n",
          driver->sourceName, line, (size_t)(at - lineStart) + 1, (int)(lineEnd - lineStart),
          lineStart, (int)(at - lineStart), "");
}

/* Runs one chunk, [begin, end) of the input, with its lines and columns where
 * they are in the file: it is preceded by as many newlines as lines before
 * it and as many spaces as columns before it on its first line. */
static bool processChunk(Driver *driver, const char *input, const char *begin, const char *end) {
  MemoptStringBuffer text = memoptStringBufferCreate();
  const char *lineStart = input;
  for (const char *p = input; p < begin; ++p)
    if (*p == '\n') {
      memoptStringBufferAppend(&text, "\n", 1);
      lineStart = p + 1;
    }
  for (const char *p = lineStart; p < begin; ++p)
    memoptStringBufferAppend(&text, " ", 1);
  memoptStringBufferAppend(&text, begin, (size_t)(end - begin));
  bool ok = processBuffer(driver, memoptStringBufferGet(&text), text.length);
  memoptStringBufferDestroy(&text);
  return ok;
}

/* Returns the first occurrence of `needle` in [from, end), or NULL. */
static const char *findText(const char *from, const char *end, const char *needle,
                            size_t needleLength) {
  for (const char *p = from; (size_t)(end - p) >= needleLength; ++p) {
    p = memchr(p, needle[0], (size_t)(end - p) - needleLength + 1);
    if (!p)
      return NULL;
    if (memcmp(p, needle, needleLength) == 0)
      return p;
  }
  return NULL;
}

/* Splits the input where the marker occurs and runs every chunk, as mlir-opt
 * 22 does (splitAndProcessBuffer): the input is cut at every occurrence of
 * the marker less its last two characters; an occurrence followed by those
 * two characters (and not by '0') ends a chunk, even after other text on its
 * line; any other is a near miss, reported as a warning and left in the
 * chunk. An empty chunk is not run, and outputs are joined by the output
 * marker. */
static bool processSplit(Driver *driver, const char *input, size_t inputLength) {
  const char *marker = driver->options.splitMarker;
  size_t markerLength = strlen(marker);
  enum { CheckLength = 2 };
  size_t prefixLength = markerLength - CheckLength;
  const char *inputEnd = input + inputLength;
  /* The chunk being extended: [chunk, chunkEnd); empty at first. */
  const char *chunk = input, *chunkEnd = input;
  const char **chunks = NULL, **chunkEnds = NULL;
  size_t chunkCount = 0, chunkCapacity = 0, endCapacity = 0;
  for (const char *piece = input;;) {
    const char *found = findText(piece, inputEnd, marker, prefixLength);
    const char *pieceEnd = found ? found : inputEnd;
    size_t pieceLength = (size_t)(pieceEnd - piece);
    if (chunkEnd == chunk) {
      chunk = piece;
      chunkEnd = pieceEnd;
    } else if (pieceLength > CheckLength &&
               memcmp(piece, marker + prefixLength, CheckLength) == 0 &&
               piece[CheckLength] != '0') {
      chunks = memoptGrowArray(chunks, &chunkCapacity, chunkCount + 1, sizeof *chunks);
      chunkEnds = memoptGrowArray(chunkEnds, &endCapacity, chunkCount + 1, sizeof *chunkEnds);
      chunks[chunkCount] = chunk;
      chunkEnds[chunkCount++] = chunkEnd;
      chunk = piece + CheckLength;
      chunkEnd = pieceEnd;
    } else {
      warnNearMiss(driver, input, inputEnd, piece);
      chunkEnd = pieceEnd;
    }
    if (!found)
      break;
    piece = found + prefixLength;
  }
  if (chunkEnd != chunk) {
    chunks = memoptGrowArray(chunks, &chunkCapacity, chunkCount + 1, sizeof *chunks);
    chunkEnds = memoptGrowArray(chunkEnds, &endCapacity, chunkCount + 1, sizeof *chunkEnds);
    chunks[chunkCount] = chunk;
    chunkEnds[chunkCount++] = chunkEnd;
  }
  bool ok = true;
  for (size_t i = 0; i < chunkCount; ++i) {
    if (i)
      memoptStringBufferAppendFormat(&driver->output, "%s\n", driver->options.outputSplitMarker);
    ok = processChunk(driver, input, chunks[i], chunkEnds[i]) && ok;
  }
  free(chunks);
  free(chunkEnds);
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
  if (!driverOptionsParse(argc, argv, &driver.options, &error)) {
    printError("%s", error.data);
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
  /* Reject a bad pipeline before reading any input, as mlir-opt does. */
  driver.context = createContext(&driver.options);
  if (mlirContextIsNull(driver.context)) {
    status = 1;
    goto done;
  }
  MlirPassManager check = createPassManager(&driver);
  bool pipelineValid = !mlirPassManagerIsNull(check);
  if (pipelineValid)
    mlirPassManagerDestroy(check);
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

/* memopt-opt: the opt-style driver. Reads MLIR, runs a pipeline that mixes
 * memopt and upstream passes, prints the result; behaves like mlir-opt for
 * every flag the two share. */
#include "CommandLine.h"
#include "DiagnosticVerifier.h"
#include "MemoryReport.h"

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

/* Parses, transforms and prints one buffer (the input or one split chunk).
 * `text` has the chunk's lines at the line numbers they have in the file;
 * its `length` bytes may hold NUL bytes, which the parser skips. */
static bool processBuffer(Driver *driver, const char *text, size_t length) {
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
           mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(passManager, root));
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
  memoptDiagnosticLogSort(&log);
  if (driver->report)
    memoryReportAddDiagnostics(driver->report, &log);
  MemoptStringBuffer report = memoptStringBufferCreate();
  if (driver->verifier)
    memoptDiagnosticVerifierCheck(driver->verifier, &log, &report);
  else
    memoptDiagnosticLogFormat(&log, mlirStringRefCreate(text, length), &report);
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

/* Returns true when `line` (up to its newline) is exactly the split marker. */
static bool isMarkerLine(const char *line, size_t length, const char *marker) {
  while (length && (line[length - 1] == ' ' || line[length - 1] == '\r'))
    --length;
  return length == strlen(marker) && memcmp(line, marker, length) == 0;
}

/* Runs every chunk separated by the marker; each keeps its original line
 * numbers by starting with as many empty lines as precede it. */
static bool processSplit(Driver *driver, const char *input, size_t inputLength) {
  const char *marker = driver->options.splitMarker;
  const char *inputEnd = input + inputLength;
  bool ok = true;
  size_t chunkStartLine = 1;
  const char *chunk = input;
  size_t line = 1;
  for (const char *p = input;; ++line) {
    const char *newline = memchr(p, '\n', (size_t)(inputEnd - p));
    size_t length = newline ? (size_t)(newline - p) : (size_t)(inputEnd - p);
    bool atMarker = isMarkerLine(p, length, marker);
    if (atMarker || !newline) {
      const char *chunkEnd = atMarker ? p : p + length;
      MemoptStringBuffer text = memoptStringBufferCreate();
      for (size_t i = 1; i < chunkStartLine; ++i)
        memoptStringBufferAppend(&text, "\n", 1);
      memoptStringBufferAppend(&text, chunk, (size_t)(chunkEnd - chunk));
      if (chunk != input)
        memoptStringBufferAppendFormat(&driver->output, "%s\n", marker);
      ok = processBuffer(driver, memoptStringBufferGet(&text), text.length) && ok;
      memoptStringBufferDestroy(&text);
      if (!newline)
        break;
      chunk = newline + 1;
      chunkStartLine = line + 1;
    }
    p = newline + 1;
  }
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
  printf("Upstream passes:\n");
  for (size_t i = 0; i < memoptUpstreamPassCount(); ++i)
    printf("  --%-40s - %s\n", memoptUpstreamPassName(i), memoptUpstreamPassSummary(i));
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
  driver.context = memoptContextCreate(driver.options.allowUnregisteredDialect);
  if (mlirContextIsNull(driver.context)) {
    printError("%s", "cannot load the memopt dialects");
    status = 1;
    goto done;
  }
  mlirContextEnableMultithreading(driver.context, !driver.options.disableThreading);

  /* Reject a bad pipeline before reading any input, as mlir-opt does. */
  MlirPassManager check = createPassManager(&driver);
  if (mlirPassManagerIsNull(check)) {
    status = 1;
    goto done;
  }
  mlirPassManagerDestroy(check);

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
  MemoptVerifyLevel level;
  MemoptStringBuffer verifierReport = memoptStringBufferCreate();
  if (driver.options.verifyDiagnostics &&
      memoptVerifyLevelParse(driver.options.verifyDiagnostics, &level)) {
    driver.verifier = memoptDiagnosticVerifierCreate(mlirStringRefCreate(text, input.length),
                                                     driver.sourceName, level, &verifierReport);
    fputs(memoptStringBufferGet(&verifierReport), stderr);
    memoptStringBufferClear(&verifierReport);
  }
  bool ok = driver.options.splitMarker ? processSplit(&driver, text, input.length)
                                       : processBuffer(&driver, text, input.length);
  if (driver.verifier) {
    ok = memoptDiagnosticVerifierFinish(driver.verifier, &verifierReport);
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

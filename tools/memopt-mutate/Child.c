/* What a forked child does with one input: what memopt-opt does (read, parse,
 * check memopt's invariants, run the pipeline with the verifier after each
 * pass, print), then the checks memopt-opt's user relies on: a failure comes
 * with an error at a line of the input, and a success prints IR that upstream
 * MLIR (with memopt's IRDL dialects) parses and verifies. */
#include "Mutate.h"

#include "IR/IR.h"

#include <stdio.h>
#include <string.h>

const char *mutateStageName(MutateStage stage) {
  switch (stage) {
  case MUTATE_STAGE_READ:
    return "read";
  case MUTATE_STAGE_PARSE:
    return "parse";
  case MUTATE_STAGE_VERIFY:
    return "verify";
  case MUTATE_STAGE_PIPELINE:
    return "pipeline";
  case MUTATE_STAGE_PRINT:
    return "print";
  case MUTATE_STAGE_REPARSE:
    return "reparse";
  }
  return "?";
}

static void setDetail(MutateChildReport *report, const char *text) {
  snprintf(report->detail, sizeof report->detail, "%s", text);
}

/* Runs the passes of `pipeline` on `module`; false after setting the detail
 * when the pass manager cannot be built. */
static bool runPipeline(MlirContext context, MlirModule module, const MutatePipeline *pipeline,
                        MutateChildReport *report, bool *succeeded) {
  MlirPassManager passManager =
      mlirPassManagerCreateOnOperation(context, mlirStringRefCreateFromCString("builtin.module"));
  MemoptStringBuffer error = memoptStringBufferCreate();
  bool built = true;
  for (size_t i = 0; built && i < pipeline->stepCount; ++i)
    built = mlirLogicalResultIsSuccess(memoptPipelineAddPass(
        passManager, pipeline->steps[i].pass->argument, pipeline->steps[i].options, &error));
  if (built) {
    mlirPassManagerEnableVerifier(passManager, true);
    *succeeded = mlirLogicalResultIsSuccess(
        mlirPassManagerRunOnOp(passManager, mlirModuleGetOperation(module)));
  } else {
    setDetail(report, memoptStringBufferGet(&error));
  }
  mlirPassManagerDestroy(passManager);
  memoptStringBufferDestroy(&error);
  return built;
}

/* True when `entry` points into the input: at one of its `lines` lines, or
 * at line 0, the whole file (where MLIR, as mlir-opt, puts the module it
 * wraps around top-level ops). */
static bool pointsIntoInput(const MemoptDiagnostic *entry, const char *path, size_t lines) {
  return entry->file && strcmp(entry->file, path) == 0 && entry->line <= lines;
}

/* True when `source` holds `text` anywhere, NUL bytes included: a mutated
 * input may hold NUL bytes, which MLIR's lexer reads past. */
static bool sourceContains(MlirStringRef source, const char *text) {
  size_t length = strlen(text);
  for (size_t i = 0; i + length <= source.length; ++i)
    if (memcmp(source.data + i, text, length) == 0)
      return true;
  return false;
}

/* Classifies a failed run by its diagnostics: an error pointing into `path`
 * (which has `lines` lines) is the expected rejection. So is any error when
 * the input gives locations of its own (`loc(...)`): then the input, not
 * memopt, decides where its errors point, `loc(unknown)` included. */
static MutateChildStatus classifyFailure(const MemoptDiagnosticLog *log, const char *path,
                                         size_t lines, MlirStringRef source,
                                         MutateChildReport *report) {
  const MemoptDiagnostic *firstError = NULL;
  for (size_t i = 0; i < log->count; ++i) {
    const MemoptDiagnostic *entry = &log->entries[i];
    if (entry->severity != MlirDiagnosticError)
      continue;
    if (!firstError)
      firstError = entry;
    if (pointsIntoInput(entry, path, lines)) {
      firstError = entry;
      break;
    }
  }
  if (!firstError) {
    snprintf(report->detail, sizeof report->detail,
             "failed without an error diagnostic (%zu other diagnostics)", log->count);
    return MUTATE_SILENT_FAILURE;
  }
  MemoptStringBuffer formatted = memoptStringBufferCreate();
  memoptDiagnosticFormat(firstError, source, &formatted);
  setDetail(report, memoptStringBufferGet(&formatted));
  memoptStringBufferDestroy(&formatted);
  bool located = pointsIntoInput(firstError, path, lines) || sourceContains(source, "loc(");
  return located ? MUTATE_REJECTED : MUTATE_UNLOCATED_ERROR;
}

/* Parses `output` as upstream mlir-opt would; false with the reason in the report. */
static bool reparses(MlirContext upstreamContext, const char *output, MutateChildReport *report) {
  static const char name[] = "<memopt-opt output>";
  MemoptDiagnosticLog log;
  memoptDiagnosticLogAttach(&log, upstreamContext, name);
  MlirModule module =
      memoptParseModule(upstreamContext, mlirStringRefCreateFromCString(output), name);
  memoptDiagnosticLogDetach(&log);
  bool ok = !mlirModuleIsNull(module);
  if (ok) {
    mlirModuleDestroy(module);
  } else {
    for (size_t i = 0; i < log.count; ++i)
      if (log.entries[i].severity == MlirDiagnosticError) {
        snprintf(report->reparseError, sizeof report->reparseError, "%s", log.entries[i].message);
        break;
      }
    MemoptStringBuffer formatted = memoptStringBufferCreate();
    for (size_t i = 0; i < log.count && formatted.length < sizeof report->detail; ++i)
      memoptDiagnosticFormat(&log.entries[i], mlirStringRefCreateFromCString(output), &formatted);
    setDetail(report, log.count ? memoptStringBufferGet(&formatted)
                                : "the output does not parse (no diagnostic)");
    memoptStringBufferDestroy(&formatted);
  }
  memoptDiagnosticLogDestroy(&log);
  return ok;
}

MutateChildStatus mutateRunChild(MlirContext context, MlirContext upstreamContext,
                                 const char *path, const MutatePipeline *pipeline,
                                 MutateChildReport *report) {
  report->stage = MUTATE_STAGE_READ;
  MemoptStringBuffer input = memoptStringBufferCreate();
  MemoptStringBuffer error = memoptStringBufferCreate();
  if (!memoptFileRead(path, &input, &error)) {
    setDetail(report, memoptStringBufferGet(&error));
    memoptStringBufferDestroy(&input);
    memoptStringBufferDestroy(&error);
    return MUTATE_PIPELINE_INVALID;
  }
  memoptStringBufferDestroy(&error);
  const char *text = memoptStringBufferGet(&input);
  size_t lines = 1;
  for (size_t i = 0; i < input.length; ++i)
    lines += text[i] == '\n';

  MemoptDiagnosticLog log;
  memoptDiagnosticLogAttach(&log, context, path);
  report->stage = MUTATE_STAGE_PARSE;
  MlirModule module = memoptParseModule(context, mlirStringRefCreate(text, input.length), path);
  bool built = true, succeeded = false;
  MemoptStringBuffer output = memoptStringBufferCreate();
  if (!mlirModuleIsNull(module)) {
    report->stage = MUTATE_STAGE_VERIFY;
    if (mlirLogicalResultIsSuccess(memoptVerifyOps(mlirModuleGetOperation(module)))) {
      report->stage = MUTATE_STAGE_PIPELINE;
      built = runPipeline(context, module, pipeline, report, &succeeded);
      if (succeeded) {
        report->stage = MUTATE_STAGE_PRINT;
        mlirOperationPrint(mlirModuleGetOperation(module), memoptAppendToBuffer, &output);
        memoptStringBufferAppendCString(&output, "\n");
      }
    }
    mlirModuleDestroy(module);
  }
  memoptDiagnosticLogDetach(&log);

  MutateChildStatus status;
  if (!built)
    status = MUTATE_PIPELINE_INVALID;
  else if (!succeeded)
    status = classifyFailure(&log, path, lines, mlirStringRefCreate(text, input.length), report);
  else {
    report->stage = MUTATE_STAGE_REPARSE;
    status = reparses(upstreamContext, memoptStringBufferGet(&output), report)
                 ? MUTATE_ACCEPTED
                 : MUTATE_UNPARSABLE_OUTPUT;
  }
  memoptDiagnosticLogDestroy(&log);
  memoptStringBufferDestroy(&output);
  memoptStringBufferDestroy(&input);
  report->finished = 1;
  return status;
}

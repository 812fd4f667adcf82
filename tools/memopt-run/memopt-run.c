/* memopt-run: executes a model's entry function on deterministic inputs under
 * mlir-runner with memopt_rt loaded, and reports peak heap memory, run time
 * and output checksums; with --compare, for the model without and with a
 * pipeline, side by side (python-free-docs/harness.md).
 *
 * One "variant" is one model text (optionally transformed by memopt-opt),
 * wrapped, lowered and executed. Every step reports its failure as one
 * "memopt-run: error:" line (preceded by MLIR's diagnostics when there are
 * any) and the tool exits 1. */
#include "Harness.h"
#include "Place/Place.h"

#include "IR/IR.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/RegisterEverything.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


static void printError(const char *message) {
  fprintf(stderr, "memopt-run: error: %s\n", message);
}

/* Prints the diagnostics of `log`, with source snippets for those in `sourceName`. */
static void printDiagnostics(const MemoptDiagnosticLog *log, const char *sourceName,
                             MlirStringRef source) {
  MemoptStringBuffer out = memoptStringBufferCreate();
  for (size_t i = 0; i < log->count; ++i) {
    const MemoptDiagnostic *diagnostic = &log->entries[i];
    bool inSource = diagnostic->file && strcmp(diagnostic->file, sourceName) == 0;
    memoptDiagnosticFormat(diagnostic, inSource ? source : mlirStringRefCreate(NULL, 0), &out);
  }
  fputs(memoptStringBufferGet(&out), stderr);
  memoptStringBufferDestroy(&out);
}

/* Appends the last `maxLines` lines of `text` that `keep` accepts, each
 * indented by two spaces. */
static void appendLastLines(MemoptStringBuffer *out, const char *text, size_t maxLines,
                            bool (*keep)(const char *line, size_t length)) {
  size_t total = 0;
  for (const char *p = text; *p;) {
    const char *newline = strchr(p, '\n');
    size_t length = newline ? (size_t)(newline - p) : strlen(p);
    total += keep(p, length);
    p += length + (newline != NULL);
  }
  size_t skip = total > maxLines ? total - maxLines : 0;
  for (const char *p = text; *p;) {
    const char *newline = strchr(p, '\n');
    size_t length = newline ? (size_t)(newline - p) : strlen(p);
    if (keep(p, length) && skip-- == 0) {
      memoptStringBufferAppendCString(out, "\n  ");
      memoptStringBufferAppend(out, p, length);
      skip = 0;
    }
    p += length + (newline != NULL);
  }
}

/* The program's own output: everything but memopt_rt's report. */
static bool isProgramOutput(const char *line, size_t length) {
  return length > 0 && !memoptStartsWith(line, "memopt-rt: output ") &&
         !memoptStartsWith(line, "memopt-rt: run ") && !memoptStartsWith(line, "memopt-rt: values ");
}

static bool isNonEmpty(const char *line, size_t length) { return length > 0; }

/* Cuts LLVM's crash report ("PLEASE submit a bug report ... Stack dump: ...")
 * off a runner's standard error: the backtrace is of the JIT, not of the
 * model, and would bury the message that explains the failure. */
static void dropCrashReport(MemoptStringBuffer *text) {
  char *report = strstr(text->data ? text->data : "", "PLEASE submit a bug report");
  if (report) {
    *report = '\0';
    text->length = (size_t)(report - text->data);
  }
}

/* Runs memopt-opt with the variant's pipeline on `inputPath`; the transformed
 * model goes to `outputPath`. memopt-opt's own diagnostics are passed on. */
static bool applyPipeline(Harness *harness, const Variant *variant, const char *inputPath,
                          const char *outputPath, MemoptStringBuffer *error) {
  char *tool = NULL, *stdoutPath = NULL, *stderrPath = NULL;
  MemoptStringBuffer name = memoptStringBufferCreate();
  MemoptStringBuffer pipelineFlag = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&name, "%s/memopt-opt", harness->toolDir);
  tool = memoptStringBufferRelease(&name);
  memoptStringBufferAppendFormat(&name, "%s.memopt-opt.stdout", variant->label);
  stdoutPath = harnessWorkDirFile(&harness->workDir, name.data);
  memoptStringBufferClear(&name);
  memoptStringBufferAppendFormat(&name, "%s.memopt-opt.stderr", variant->label);
  stderrPath = harnessWorkDirFile(&harness->workDir, name.data);
  memoptStringBufferAppendFormat(&pipelineFlag, "--pass-pipeline=%s", variant->pipeline);
  char *argv[] = {tool, pipelineFlag.data, (char *)inputPath, "-o", (char *)outputPath, NULL};
  HarnessExit exit;
  bool ok = harnessRunProcess(argv, NULL, stdoutPath, stderrPath, harness->options.timeoutSeconds,
                              &exit, error);
  if (ok) {
    MemoptStringBuffer diagnostics = memoptStringBufferCreate(), ignored = memoptStringBufferCreate();
    if (memoptFileRead(stderrPath, &diagnostics, &ignored))
      fputs(memoptStringBufferGet(&diagnostics), stderr);
    memoptStringBufferDestroy(&diagnostics);
    memoptStringBufferDestroy(&ignored);
    if (!exit.exited || exit.code != 0) {
      memoptStringBufferAppendFormat(error, "the pipeline failed: memopt-opt ended with ");
      harnessExitDescribe(exit, error);
      ok = false;
    }
  }
  free(tool);
  free(stdoutPath);
  free(stderrPath);
  memoptStringBufferDestroy(&name);
  memoptStringBufferDestroy(&pipelineFlag);
  return ok;
}

/* Runs `argv` (mlir-runner, or the MPI launcher starting it) with memopt_rt's
 * environment: the run's memory limit, and mlir-runner's perf jitdump files
 * (written under $JITDUMPDIR/.debug/jit, else $TMPDIR or the home directory,
 * on every run) kept in the work directory. */
static bool runRunner(const Harness *harness, char *const argv[], const char *stdoutPath,
                      const char *stderrPath, HarnessExit *exit, MemoptStringBuffer *error) {
  MemoptStringBuffer jitdump = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&jitdump, "JITDUMPDIR=%s", harness->workDir.path);
  /* Always set, so that a limit in the caller's environment does not leak in. */
  MemoptStringBuffer limit = memoptStringBufferCreate();
  memoptStringBufferAppendCString(&limit, "MEMOPT_RT_LIMIT_BYTES=");
  if (harness->options.limitBytes > 0)
    memoptStringBufferAppendFormat(&limit, "%lld", harness->options.limitBytes);
  char *environment[] = {jitdump.data, limit.data, NULL};
  bool ok = harnessRunProcess(argv, environment, stdoutPath, stderrPath,
                              harness->options.timeoutSeconds, exit, error);
  memoptStringBufferDestroy(&jitdump);
  memoptStringBufferDestroy(&limit);
  return ok;
}

/* Runs the lowered program under mlir-runner and reads memopt_rt's report. */
static bool execute(Harness *harness, Variant *variant, MemoptStringBuffer *error) {
  const char *llvmPath = variant->llvmPath, *wrapperName = variant->wrapperName;
  MemoptStringBuffer name = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&name, "%s.stdout", variant->label);
  char *stdoutPath = harnessWorkDirFile(&harness->workDir, name.data);
  memoptStringBufferClear(&name);
  memoptStringBufferAppendFormat(&name, "%s.stderr", variant->label);
  char *stderrPath = harnessWorkDirFile(&harness->workDir, name.data);
  memoptStringBufferDestroy(&name);

  MemoptStringBuffer runnerUtils = memoptStringBufferCreate(), cRunnerUtils = memoptStringBufferCreate(),
                     runtime = memoptStringBufferCreate();
  memoptStringBufferAppendCString(&runnerUtils,
                                  "-shared-libs=" MEMOPT_LLVM_LIB_DIR "/libmlir_runner_utils.so");
  memoptStringBufferAppendCString(&cRunnerUtils,
                                  "-shared-libs=" MEMOPT_LLVM_LIB_DIR "/libmlir_c_runner_utils.so");
  memoptStringBufferAppendFormat(&runtime, "-shared-libs=%s/../lib/libmemopt_rt.so", harness->toolDir);
  char *argv[] = {MEMOPT_LLVM_BIN_DIR "/mlir-runner", (char *)llvmPath, "-e", (char *)wrapperName,
                  "-entry-point-result=void", "-O3", runnerUtils.data, cRunnerUtils.data,
                  runtime.data, NULL};
  HarnessExit exit;
  bool ok = runRunner(harness, argv, stdoutPath, stderrPath, &exit, error);
  MemoptStringBuffer output = memoptStringBufferCreate(), readError = memoptStringBufferCreate();
  if (ok && (!exit.exited || exit.code != 0)) {
    memoptStringBufferAppendCString(error, "mlir-runner failed with ");
    harnessExitDescribe(exit, error);
    if (memoptFileRead(stdoutPath, &output, &readError) && output.length) {
      memoptStringBufferAppendCString(error, "\nthe program's last output:");
      appendLastLines(error, output.data, 10, isProgramOutput);
    }
    memoptStringBufferClear(&output);
    if (memoptFileRead(stderrPath, &output, &readError)) {
      dropCrashReport(&output);
      if (output.length) {
        memoptStringBufferAppendCString(error, "\nmlir-runner's last messages:");
        appendLastLines(error, output.data, 20, isNonEmpty);
      }
    }
    ok = false;
  } else if (ok && !memoptFileRead(stdoutPath, &output, &readError)) {
    memoptStringBufferAppendCString(error, readError.data);
    ok = false;
  } else if (ok && !harnessMeasurementParse(memoptStringBufferGet(&output),
                                            (size_t)harness->options.runs, variant->resultCount,
                                            &variant->measurement, error)) {
    ok = false;
  }
  memoptStringBufferDestroy(&output);
  memoptStringBufferDestroy(&readError);
  memoptStringBufferDestroy(&runnerUtils);
  memoptStringBufferDestroy(&cRunnerUtils);
  memoptStringBufferDestroy(&runtime);
  free(stdoutPath);
  free(stderrPath);
  return ok;
}

/* Returns the path of the variant's intermediate file `suffix` (caller frees). */
static char *variantFile(const Harness *harness, const Variant *variant, const char *suffix) {
  MemoptStringBuffer name = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&name, "%s.%s", variant->label, suffix);
  char *path = harnessWorkDirFile(&harness->workDir, name.data);
  memoptStringBufferDestroy(&name);
  return path;
}

/* Finds `name` in the directories of $PATH, or takes `given` as it is;
 * returns the path (caller frees) or NULL with `error`. */
static char *findExecutable(const char *given, const char *name, MemoptStringBuffer *error) {
  if (given) {
    if (access(given, X_OK) == 0)
      return memoptStrndup(given, strlen(given));
    memoptStringBufferAppendFormat(error, "--mpirun=%s is not an executable file", given);
    return NULL;
  }
  const char *path = getenv("PATH");
  for (const char *p = path ? path : ""; *p;) {
    const char *colon = strchr(p, ':');
    size_t length = colon ? (size_t)(colon - p) : strlen(p);
    MemoptStringBuffer candidate = memoptStringBufferCreate();
    memoptStringBufferAppendFormat(&candidate, "%.*s/%s", (int)length, p, name);
    if (length && access(candidate.data, X_OK) == 0)
      return memoptStringBufferRelease(&candidate);
    memoptStringBufferDestroy(&candidate);
    p += length + (colon != NULL);
  }
  memoptStringBufferAppendFormat(error,
                                 "--ranks needs MPICH's launcher '%s', which is not on PATH "
                                 "(utils/install-deps.sh installs mpich; --mpirun=PATH names another)",
                                 name);
  return NULL;
}

/* MPICH's library: --mpi-library or the one CMake found; NULL with `error`
 * when there is none or it is not readable. */
static const char *findMpiLibrary(const char *given, MemoptStringBuffer *error) {
  const char *library = given ? given : MEMOPT_MPICH_LIBRARY;
  if (!*library) {
    memoptStringBufferAppendCString(error, "--ranks needs MPICH's libmpich.so, which was not found "
                                           "when memopt was built (utils/install-deps.sh installs "
                                           "libmpich-dev; --mpi-library=PATH names one)");
    return NULL;
  }
  if (access(library, R_OK) != 0) {
    memoptStringBufferAppendFormat(error, "MPICH's library '%s' cannot be read: %s", library,
                                   strerror(errno));
    return NULL;
  }
  return library;
}

/* Runs the lowered program on the variant's ranks with MPICH and reads each
 * rank's memopt_rt report from its own file. */
static bool executeRanks(Harness *harness, Variant *variant, const char *mpirun, const char *library,
                         MemoptStringBuffer *error) {
  char *prefix = variantFile(harness, variant, "rank");
  char *stdoutPath = variantFile(harness, variant, "mpirun.stdout");
  char *stderrPath = variantFile(harness, variant, "mpirun.stderr");
  MemoptStringBuffer count = memoptStringBufferCreate(), runnerUtils = memoptStringBufferCreate(),
                     cRunnerUtils = memoptStringBufferCreate(), runtime = memoptStringBufferCreate(),
                     mpich = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&count, "%lld", variant->ranks);
  memoptStringBufferAppendCString(&runnerUtils,
                                  "-shared-libs=" MEMOPT_LLVM_LIB_DIR "/libmlir_runner_utils.so");
  memoptStringBufferAppendCString(&cRunnerUtils,
                                  "-shared-libs=" MEMOPT_LLVM_LIB_DIR "/libmlir_c_runner_utils.so");
  memoptStringBufferAppendFormat(&runtime, "-shared-libs=%s/../lib/libmemopt_rt.so", harness->toolDir);
  memoptStringBufferAppendFormat(&mpich, "-shared-libs=%s", library);
  /* Each rank's output goes to its own files, named by the rank MPICH's
   * launcher gives it in PMI_RANK: no interleaving, and every report whole. */
  char *argv[] = {(char *)mpirun, "-np", count.data, "/bin/sh", "-c",
                  "exec \"$@\" >\"$0.$PMI_RANK.stdout\" 2>\"$0.$PMI_RANK.stderr\"", prefix,
                  MEMOPT_LLVM_BIN_DIR "/mlir-runner", variant->llvmPath, "-e", variant->wrapperName,
                  "-entry-point-result=void", "-O3", runnerUtils.data, cRunnerUtils.data, runtime.data,
                  mpich.data, NULL};
  HarnessExit exit;
  bool ok = runRunner(harness, argv, stdoutPath, stderrPath, &exit, error);
  variant->rankMeasurements = memoptAllocateZeroed((size_t)variant->ranks, sizeof *variant->rankMeasurements);
  MemoptStringBuffer output = memoptStringBufferCreate(), readError = memoptStringBufferCreate(),
                     path = memoptStringBufferCreate();
  if (ok && (!exit.exited || exit.code != 0)) {
    memoptStringBufferAppendFormat(error, "%s -np %lld failed with ", mpirun, variant->ranks);
    harnessExitDescribe(exit, error);
    if (memoptFileRead(stderrPath, &output, &readError) && output.length) {
      memoptStringBufferAppendCString(error, "\nthe launcher's last messages:");
      appendLastLines(error, output.data, 10, isNonEmpty);
    }
    for (long long r = 0; r < variant->ranks; ++r) {
      memoptStringBufferClear(&path);
      memoptStringBufferClear(&output);
      memoptStringBufferAppendFormat(&path, "%s.%lld.stderr", prefix, r);
      if (!memoptFileRead(path.data, &output, &readError))
        continue;
      dropCrashReport(&output);
      if (output.length) {
        memoptStringBufferAppendFormat(error, "\nrank %lld's last messages:", r);
        appendLastLines(error, output.data, 10, isNonEmpty);
      }
    }
    ok = false;
  }
  for (long long r = 0; ok && r < variant->ranks; ++r) {
    memoptStringBufferClear(&path);
    memoptStringBufferClear(&output);
    memoptStringBufferAppendFormat(&path, "%s.%lld.stdout", prefix, r);
    if (!memoptFileRead(path.data, &output, &readError)) {
      memoptStringBufferAppendFormat(error, "rank %lld left no report: %s", r, readError.data);
      ok = false;
    } else if (!harnessMeasurementParse(memoptStringBufferGet(&output), (size_t)harness->options.runs,
                                        variant->resultCount, &variant->rankMeasurements[r], error)) {
      memoptStringBufferAppendFormat(error, " (rank %lld)", r);
      ok = false;
    }
  }
  memoptStringBufferDestroy(&output);
  memoptStringBufferDestroy(&readError);
  memoptStringBufferDestroy(&path);
  memoptStringBufferDestroy(&count);
  memoptStringBufferDestroy(&runnerUtils);
  memoptStringBufferDestroy(&cRunnerUtils);
  memoptStringBufferDestroy(&runtime);
  memoptStringBufferDestroy(&mpich);
  free(prefix);
  free(stdoutPath);
  free(stderrPath);
  return ok;
}

/* Keeps what the report needs from the entry: result spellings and shapes. */
static void rememberEntry(Variant *variant, const HarnessEntry *entry) {
  variant->entryName = memoptStrndup(entry->name, strlen(entry->name));
  MemoptStringBuffer signature = memoptStringBufferCreate();
  for (size_t i = 0; i < entry->argumentCount; ++i)
    memoptStringBufferAppendFormat(&signature, "%s%s", i ? ", " : "(", entry->arguments[i].spelling);
  memoptStringBufferAppendCString(&signature, entry->argumentCount ? ") -> (" : "() -> (");
  for (size_t i = 0; i < entry->resultCount; ++i)
    memoptStringBufferAppendFormat(&signature, "%s%s", i ? ", " : "", entry->results[i].spelling);
  memoptStringBufferAppendCString(&signature, ")");
  variant->signature = memoptStringBufferRelease(&signature);
  variant->resultCount = entry->resultCount;
  variant->results = memoptAllocateZeroed(entry->resultCount + 1, sizeof *variant->results);
  for (size_t i = 0; i < entry->resultCount; ++i) {
    const HarnessValueType *from = &entry->results[i];
    HarnessValueType *to = &variant->results[i];
    to->isTensor = from->isTensor;
    to->element = from->element;
    to->spelling = memoptStrndup(from->spelling, strlen(from->spelling));
    to->elementSpelling = memoptStrndup(from->elementSpelling, strlen(from->elementSpelling));
  }
}

static void destroyVariant(Variant *variant) {
  for (size_t i = 0; i < variant->resultCount; ++i) {
    free(variant->results[i].spelling);
    free(variant->results[i].elementSpelling);
  }
  free(variant->results);
  free(variant->entryName);
  free(variant->signature);
  free(variant->llvmPath);
  free(variant->wrapperName);
  harnessMeasurementDestroy(&variant->measurement);
  for (long long r = 0; variant->rankMeasurements && r < variant->ranks; ++r)
    harnessMeasurementDestroy(&variant->rankMeasurements[r]);
  free(variant->rankMeasurements);
  for (size_t i = 0; i < variant->madeViewCount; ++i)
    free(variant->madeViews[i].localSizes);
  free(variant->madeViews);
  harnessShardPlanDestroy(&variant->plan);
}

/* Decides how the wrapper makes each argument of `entry` that has a
 * `memopt.view` (`variant->madeViews`): on one device, by its steps; on
 * ranks, by its steps when it and its source are whole on every rank, by
 * the local extract_slice harnessShardPlanViewSlice gives when that makes
 * the rank's slice of it from the rank's slice of the source, else
 * generated (a caller passes it as a buffer of its own); for the reference,
 * as the ranked variant made it. False with the reason in `error` when
 * steps to apply do not give the argument's type. */
static bool decideViews(Variant *variant, const HarnessEntry *entry, MemoptStringBuffer *error) {
  variant->madeViewCount = entry->argumentCount;
  variant->madeViews = memoptAllocateZeroed(entry->argumentCount + 1, sizeof *variant->madeViews);
  for (size_t i = 0; i < entry->argumentCount; ++i) {
    const HarnessArgumentView *view = &entry->views[i];
    HarnessMadeView *made = &variant->madeViews[i];
    made->made = view->source >= 0;
    if (variant->followViews)
      made->made = made->made && i < variant->followViewCount && variant->followViews[i].made;
    else if (made->made && variant->ranks &&
             (harnessShardPlanSplitsArgument(&variant->plan, i) ||
              harnessShardPlanSplitsArgument(&variant->plan, (size_t)view->source))) {
      made->localSizes = harnessShardPlanViewSlice(&variant->plan, entry, i);
      made->made = made->localSizes != NULL;
    }
    if (!made->made || made->localSizes)
      continue;
    if (!mlirTypeEqual(view->steps[view->stepCount - 1].type, entry->arguments[i].type)) {
      memoptEmitOpError(entry->function, "argument %zu: memopt.view makes another type than %s", i,
                        entry->arguments[i].spelling);
      memoptStringBufferAppendFormat(error,
                                     "argument %zu of @%s: memopt.view makes another type than %s",
                                     i, entry->name, entry->arguments[i].spelling);
      return false;
    }
  }
  return true;
}

/* Partitions the entry of `module` over the variant's ranks with upstream's
 * sharding-propagation and shard-partition, keeping in `variant->plan` the
 * slices of its arguments and results. */
static bool partition(Harness *harness, Variant *variant, MlirModule module, MemoptStringBuffer *error) {
  HarnessEntry entry;
  if (!harnessEntryFind(module, harness->options.entry, &entry, error))
    return false;
  /* A pipeline driver is not partitioned: each rank runs its stage whole. */
  bool pipeline = harnessPipelineStages(entry.function) > 0;
  bool ok = !pipeline || harnessPipelinePlanRead(module, &entry, variant->ranks, &variant->plan, error);
  harnessEntryDestroy(&entry);
  if (pipeline)
    return ok;
  if (!harnessRunPipeline(module, "builtin.module(func.func(sharding-propagation))", error))
    return false;
  if (!harnessEntryFind(module, harness->options.entry, &entry, error))
    return false;
  ok = true;
  for (size_t i = 0; ok && i < entry.argumentCount; ++i)
    for (intptr_t d = 0; ok && entry.arguments[i].isTensor && d < entry.arguments[i].rank; ++d)
      if (entry.arguments[i].shape[d] == mlirShapedTypeGetDynamicSize()) {
        memoptEmitOpError(entry.function, "argument %zu has type %s; --ranks needs static shapes", i,
                          entry.arguments[i].spelling);
        memoptStringBufferAppendFormat(error, "argument %zu of @%s has a dynamic shape", i, entry.name);
        ok = false;
      }
  ok = ok && harnessShardPlanRead(module, &entry, variant->ranks, &variant->plan, error);
  harnessEntryDestroy(&entry);
  if (!ok || !harnessRunPipeline(module, "builtin.module(func.func(shard-partition))", error))
    return false;
  /* Drop the second init shard-partition gives a split reduction on every
   * rank but the first when the program's init already is a fill of its
   * neutral element (place-fold-neutral-inits): else those ranks hold both. */
  MlirBlock body = mlirModuleGetBody(module);
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (memoptOperationIsA(op, "func.func"))
      memoptFoldNeutralInits(op);
  return true;
}

/* Parses, wraps and lowers the variant's model text into `llvmPath`. */
static bool prepare(Harness *harness, Variant *variant, const char *sourceName, MlirStringRef source,
                    const char *llvmPath, char **wrapperName, MemoptStringBuffer *error) {
  MemoptDiagnosticLog log;
  memoptDiagnosticLogAttach(&log, harness->context, sourceName);
  bool ok = false;
  MlirModule module = memoptParseModule(harness->context, source, sourceName);
  HarnessEntry entry;
  memset(&entry, 0, sizeof entry);
  if (mlirModuleIsNull(module)) {
    memoptStringBufferAppendFormat(error, "cannot parse '%s'", sourceName);
    goto done;
  }
  if (variant->stripShards && !harnessShardAnnotationsStrip(module, error))
    goto done;
  if (variant->ranks && !partition(harness, variant, module, error))
    goto done;
  if (!harnessEntryFind(module, harness->options.entry, &entry, error))
    goto done;
  if (variant->ranks && !harnessShardPlanCheckPartitioned(&variant->plan, &entry, error))
    goto done;
  if (variant->stripShards && harnessPipelineStages(entry.function) > 0 &&
      !harnessPipelineSequential(&entry, error))
    goto done;
  rememberEntry(variant, &entry);
  if (!decideViews(variant, &entry, error))
    goto done;
  /* On ranks, the outputs are compared element by element: print them. */
  HarnessWrapperSpec spec = {harness->options.runs,
                             harness->options.seed,
                             harness->options.dim,
                             harness->options.printOutputs || harness->options.ranks > 0,
                             variant->ranks ? &variant->plan : NULL,
                             variant->madeViews};
  *wrapperName = harnessWrapperInsert(module, &entry, &spec, error);
  if (!*wrapperName)
    goto done;
  MlirOperation root = mlirModuleGetOperation(module);
  if (harness->workDir.keep) {
    MemoptStringBuffer name = memoptStringBufferCreate();
    memoptStringBufferAppendFormat(&name, "%s.wrapped.mlir", variant->label);
    char *path = harnessWorkDirFile(&harness->workDir, name.data);
    ok = harnessWriteOperation(root, path, error);
    free(path);
    memoptStringBufferDestroy(&name);
    if (!ok)
      goto done;
    ok = false;
  }
  if (!mlirOperationVerify(root)) {
    memoptStringBufferAppendCString(error, "the model with memopt-run's wrapper does not verify");
    goto done;
  }
  if (!harnessLower(module, variant->ranks > 0, error))
    goto done;
  ok = harnessWriteOperation(root, llvmPath, error);
done:
  memoptDiagnosticLogDetach(&log);
  printDiagnostics(&log, sourceName, source);
  memoptDiagnosticLogDestroy(&log);
  if (entry.name)
    harnessEntryDestroy(&entry);
  if (!mlirModuleIsNull(module))
    mlirModuleDestroy(module);
  return ok;
}

/* Gives generated values to constants whose data was elided, when the model
 * has any: with --fill-elided the filled model replaces `*source`, is written
 * to `filledPath` (for memopt-opt and for diagnostics) and `*replaced` is
 * set; without, they are an error. */
static bool resolveElidedConstants(Harness *harness, const char *sourceName,
                                   MemoptStringBuffer *source, const char *filledPath,
                                   bool *replaced, MemoptStringBuffer *error) {
  *replaced = false;
  /* Parsing a large model twice is not free: only when the marker is there. */
  if (!strstr(memoptStringBufferGet(source), "dense_resource<__elided__>"))
    return true;
  MemoptDiagnosticLog log;
  memoptDiagnosticLogAttach(&log, harness->context, sourceName);
  MlirModule module = memoptParseModule(
      harness->context, mlirStringRefCreate(memoptStringBufferGet(source), source->length), sourceName);
  size_t filled = 0;
  bool ok = !mlirModuleIsNull(module);
  if (!ok)
    memoptStringBufferAppendFormat(error, "cannot parse '%s'", sourceName);
  else
    ok = harnessElidedConstantsResolve(module, harness->options.fillElided, harness->options.seed,
                                       &filled, error);
  memoptDiagnosticLogDetach(&log);
  printDiagnostics(&log, sourceName, mlirStringRefCreate(memoptStringBufferGet(source), source->length));
  memoptDiagnosticLogDestroy(&log);
  if (ok && filled) {
    ok = harnessWriteOperation(mlirModuleGetOperation(module), filledPath, error);
    memoptStringBufferClear(source);
    ok = ok && memoptFileRead(filledPath, source, error);
    *replaced = ok;
  }
  if (!mlirModuleIsNull(module))
    mlirModuleDestroy(module);
  return ok;
}

/* Takes one variant from its model file to a lowered module in
 * `variant->llvmPath`, ready to execute. */
static bool prepareVariant(Harness *harness, Variant *variant, MemoptStringBuffer *error) {
  MemoptStringBuffer source = memoptStringBufferCreate();
  char *filledPath = variantFile(harness, variant, "filled.mlir");
  char *transformedPath = variantFile(harness, variant, "transformed.mlir");
  variant->llvmPath = variantFile(harness, variant, "llvm.mlir");
  /* The file the current `source` comes from: the model, the model with its
   * elided constants filled, then the model after the pipeline. */
  const char *sourceName = variant->modelPath;
  bool filled = false;
  bool ok = memoptFileRead(variant->modelPath, &source, error) &&
            resolveElidedConstants(harness, sourceName, &source, filledPath, &filled, error);
  if (ok && filled)
    sourceName = filledPath;
  if (ok && variant->pipeline) {
    memoptStringBufferClear(&source);
    ok = applyPipeline(harness, variant, sourceName, transformedPath, error) &&
         memoptFileRead(transformedPath, &source, error);
    sourceName = transformedPath;
  }
  if (ok) {
    ok = prepare(harness, variant, sourceName,
                 mlirStringRefCreate(memoptStringBufferGet(&source), source.length), variant->llvmPath,
                 &variant->wrapperName, error);
    if (!ok && variant->pipeline && !harness->workDir.keep)
      memoptStringBufferAppendCString(error, " (the model as --pipeline left it; --keep=DIR "
                                             "keeps it for a look)");
  }
  memoptStringBufferDestroy(&source);
  free(filledPath);
  free(transformedPath);
  return ok;
}

/*===------------------------------------------------------------------===*
 * Report
 *===------------------------------------------------------------------===*/

/* --ranks: the single-device reference, then the partitioned program on MPI
 * ranks; returns the exit code. MPICH is looked for before anything runs. */
static int runRanks(Harness *harness) {
  const HarnessOptions *options = &harness->options;
  MemoptStringBuffer error = memoptStringBufferCreate();
  const char *modelPath = options->modelPath;
  Variant reference = {.label = "single", .modelPath = modelPath, .pipeline = options->pipeline,
                       .stripShards = true};
  Variant ranked = {.label = "ranks", .modelPath = modelPath, .pipeline = options->pipeline,
                    .ranks = options->ranks};
  int status = 1;
  char *mpirun = findExecutable(options->mpirun, "mpirun.mpich", &error);
  const char *library = mpirun ? findMpiLibrary(options->mpiLibrary, &error) : NULL;
  bool ok = library && prepareVariant(harness, &ranked, &error);
  /* A pipeline --pipeline placed has a reference independent of the
   * driver: the model before --pipeline, on the same inputs. */
  bool pipeline = ok && ranked.plan.pipelineStages > 0;
  if (pipeline && options->pipeline)
    reference.pipeline = NULL;
  reference.followViews = ranked.madeViews;
  reference.followViewCount = ranked.madeViewCount;
  ok = ok && prepareVariant(harness, &reference, &error);
  if (ok && pipeline && strcmp(reference.signature, ranked.signature) != 0) {
    memoptStringBufferAppendFormat(&error,
                                   "the pipeline driver @%s has type %s, the single-device "
                                   "reference @%s has %s: they cannot run on the same inputs",
                                   ranked.entryName, ranked.signature, reference.entryName,
                                   reference.signature);
    ok = false;
  }
  if (ok && execute(harness, &reference, &error) &&
      executeRanks(harness, &ranked, mpirun, library, &error))
    status = harnessPrintRanks(harness, &reference, &ranked) ? 0 : 1;
  if (error.length)
    printError(error.data);
  free(mpirun);
  destroyVariant(&reference);
  destroyVariant(&ranked);
  memoptStringBufferDestroy(&error);
  return status;
}

/*===------------------------------------------------------------------===*
 * Driver
 *===------------------------------------------------------------------===*/

/* Runs the variants the options ask for and reports; returns the exit code. */
static int runHarness(Harness *harness) {
  const HarnessOptions *options = &harness->options;
  MemoptStringBuffer error = memoptStringBufferCreate();
  Variant baseline = {.label = "baseline", .modelPath = options->modelPath};
  Variant candidate = {.label = "candidate",
                       .modelPath = options->againstPath ? options->againstPath : options->modelPath,
                       .pipeline = options->pipeline};
  int status = 1;
  if (!options->compare) {
    Variant *only = options->pipeline ? &candidate : &baseline;
    if (prepareVariant(harness, only, &error) && execute(harness, only, &error)) {
      harnessPrintSingle(harness, only);
      status = 0;
    }
  } else if (prepareVariant(harness, &baseline, &error) &&
             prepareVariant(harness, &candidate, &error)) {
    /* Checked before anything runs: a mismatch is known from the IR. */
    if (strcmp(baseline.signature, candidate.signature) != 0)
      memoptStringBufferAppendFormat(&error,
                                     "the candidate's entry @%s has type %s, the baseline's @%s has "
                                     "%s: they cannot run on the same inputs",
                                     candidate.entryName, candidate.signature, baseline.entryName,
                                     baseline.signature);
    else if (execute(harness, &baseline, &error) && execute(harness, &candidate, &error))
      status = harnessPrintComparison(harness, &baseline, &candidate) ? 0 : 1;
  }
  if (error.length)
    printError(error.data);
  destroyVariant(&baseline);
  destroyVariant(&candidate);
  memoptStringBufferDestroy(&error);
  return status;
}

int main(int argc, char **argv) {
  Harness harness;
  memset(&harness, 0, sizeof harness);
  MemoptStringBuffer error = memoptStringBufferCreate();
  int status = 1;
  if (!harnessOptionsParse(argc, argv, &harness.options, &error)) {
    printError(error.data);
    fprintf(stderr, "Run 'memopt-run --help' for the options.\n");
    goto done;
  }
  if (harness.options.help) {
    harnessOptionsHelp(&error);
    fputs(error.data, stdout);
    status = 0;
    goto done;
  }
  /* Stopped by a signal, memopt-run still removes its temporary folder. */
  harnessStopOnSignals();
  harness.toolDir = harnessExecutableDir(&error);
  if (!harness.toolDir || !harnessWorkDirCreate(harness.options.keepDir, &harness.workDir, &error)) {
    printError(error.data);
    goto done;
  }
  mlirRegisterAllPasses();
  harness.context = memoptContextCreate(false);
  if (mlirContextIsNull(harness.context)) {
    printError("cannot load the memopt dialects");
    goto done;
  }
  status = harness.options.ranks ? runRanks(&harness) : runHarness(&harness);
done:
  if (!mlirContextIsNull(harness.context))
    mlirContextDestroy(harness.context);
  if (harness.workDir.path)
    harnessWorkDirDestroy(&harness.workDir);
  free(harness.toolDir);
  memoptStringBufferDestroy(&error);
  harnessRaiseStopSignal();
  return status;
}

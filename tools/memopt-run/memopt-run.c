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

#include "IR/IR.h"

#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/RegisterEverything.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Everything one invocation works with. */
typedef struct Harness {
  HarnessOptions options;
  HarnessWorkDir workDir;
  char *toolDir; /* where memopt-run lives; memopt-opt is beside it, memopt_rt in ../lib */
  MlirContext context;
} Harness;

/* One model text taken through the whole harness. */
typedef struct Variant {
  const char *label;     /* "baseline" or "candidate": names its intermediate files */
  const char *modelPath;
  const char *pipeline;  /* NULL: the model as it is */
  char *entryName;
  char *signature;       /* the entry's function type, to check both variants share inputs */
  HarnessValueType *results; /* owned copies of spellings only (see rememberEntry) */
  size_t resultCount;
  char *llvmPath;            /* the lowered module */
  char *wrapperName;         /* the function mlir-runner starts */
  HarnessMeasurement measurement;
  /* --ranks: the reference drops the shard annotations; the ranked variant
   * is partitioned by `plan` and measured once per rank. */
  bool stripShards;
  long long ranks;
  HarnessShardPlan plan;
  HarnessMeasurement *rankMeasurements;
} Variant;

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
  /* mlir-runner writes perf jitdump files under $JITDUMPDIR/.debug/jit
   * (else $TMPDIR or the home directory) on every run: keep them with ours. */
  MemoptStringBuffer jitdump = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&jitdump, "JITDUMPDIR=%s", harness->workDir.path);
  /* Always set, so that a limit in the caller's environment does not leak in. */
  MemoptStringBuffer limit = memoptStringBufferCreate();
  memoptStringBufferAppendCString(&limit, "MEMOPT_RT_LIMIT_BYTES=");
  if (harness->options.limitBytes > 0)
    memoptStringBufferAppendFormat(&limit, "%lld", harness->options.limitBytes);
  char *environment[] = {jitdump.data, limit.data, NULL};
  HarnessExit exit;
  bool ok = harnessRunProcess(argv, environment, stdoutPath, stderrPath,
                              harness->options.timeoutSeconds, &exit, error);
  memoptStringBufferDestroy(&jitdump);
  memoptStringBufferDestroy(&limit);
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
  MemoptStringBuffer jitdump = memoptStringBufferCreate(), limit = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&jitdump, "JITDUMPDIR=%s", harness->workDir.path);
  memoptStringBufferAppendCString(&limit, "MEMOPT_RT_LIMIT_BYTES=");
  if (harness->options.limitBytes > 0)
    memoptStringBufferAppendFormat(&limit, "%lld", harness->options.limitBytes);
  char *environment[] = {jitdump.data, limit.data, NULL};
  HarnessExit exit;
  bool ok = harnessRunProcess(argv, environment, stdoutPath, stderrPath,
                              harness->options.timeoutSeconds, &exit, error);
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
  memoptStringBufferDestroy(&jitdump);
  memoptStringBufferDestroy(&limit);
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
  harnessShardPlanDestroy(&variant->plan);
}

/* Partitions the entry of `module` over the variant's ranks with upstream's
 * sharding-propagation and shard-partition, keeping in `variant->plan` the
 * slices of its arguments and results. */
static bool partition(Harness *harness, Variant *variant, MlirModule module, MemoptStringBuffer *error) {
  if (!harnessRunPipeline(module, "builtin.module(func.func(sharding-propagation))", error))
    return false;
  HarnessEntry entry;
  if (!harnessEntryFind(module, harness->options.entry, &entry, error))
    return false;
  bool ok = true;
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
  return ok && harnessRunPipeline(module, "builtin.module(func.func(shard-partition))", error);
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
  rememberEntry(variant, &entry);
  /* On ranks, the outputs are compared element by element: print them. */
  HarnessWrapperSpec spec = {harness->options.runs, harness->options.seed, harness->options.dim,
                             harness->options.printOutputs || harness->options.ranks > 0,
                             variant->ranks ? &variant->plan : NULL};
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

/* The result's type with its actual extents: tensor<8x4xf32> for tensor<?x4xf32>. */
static void appendActualType(MemoptStringBuffer *out, const HarnessValueType *result,
                             const HarnessOutput *output) {
  if (!result->isTensor) {
    memoptStringBufferAppendCString(out, result->spelling);
    return;
  }
  memoptStringBufferAppendFormat(out, "tensor<%s%s%s>", output->shape, *output->shape ? "x" : "",
                                 result->elementSpelling);
}

static void appendOutputFields(MemoptStringBuffer *out, const HarnessValueType *result,
                               const HarnessOutput *output) {
  appendActualType(out, result, output);
  memoptStringBufferAppendFormat(out, " hash=0x%016llx sum=%.17g abs_sum=%.17g nonfinite=%lld",
                                 (unsigned long long)output->hash, output->sum, output->absSum,
                                 (long long)output->nonfinite);
}

static void appendValues(MemoptStringBuffer *out, const HarnessOutput *output) {
  if (output->values)
    memoptStringBufferAppendFormat(out, "%s\n", output->values);
}

/* The time rows of a report: wall time first, then the thread's CPU time,
 * which other processes sharing the cores do not inflate. */
static const struct {
  const char *median, *minimum;
  HarnessClock clock;
} timeRows[] = {{"time_ms_median:", "time_ms_min:", HarnessWallClock},
                {"cpu_ms_median:", "cpu_ms_min:", HarnessCpuClock}};

static void printSingle(const Harness *harness, const Variant *variant) {
  const HarnessMeasurement *m = &variant->measurement;
  const HarnessRun *last = &m->runs[m->runCount - 1];
  MemoptStringBuffer out = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&out, "entry: %s\n", variant->entryName);
  memoptStringBufferAppendFormat(&out, "pipeline: %s\n", variant->pipeline ? variant->pipeline : "none");
  memoptStringBufferAppendFormat(&out, "runs: %zu\n", m->runCount);
  memoptStringBufferAppendFormat(&out, "inputs_bytes: %lld\n", (long long)m->runs[0].liveBeforeBytes);
  memoptStringBufferAppendFormat(&out, "peak_bytes: %lld\n", (long long)harnessPeakBytes(m));
  memoptStringBufferAppendFormat(&out, "allocations_per_run: %lld\n", (long long)last->allocations);
  if (harness->options.limitBytes > 0) {
    memoptStringBufferAppendFormat(&out, "evictions_per_run: %lld\n", (long long)last->evictions);
    memoptStringBufferAppendFormat(&out, "recomputed_ops_per_run: %lld\n",
                                   (long long)last->recomputedOperations);
  }
  for (size_t i = 0; i < sizeof timeRows / sizeof *timeRows; ++i) {
    memoptStringBufferAppendFormat(&out, "%s %.6f\n", timeRows[i].median,
                                   harnessMedianMilliseconds(m, timeRows[i].clock));
    memoptStringBufferAppendFormat(&out, "%s %.6f\n", timeRows[i].minimum,
                                   harnessMinimumMilliseconds(m, timeRows[i].clock));
  }
  for (size_t i = 0; i < m->outputCount; ++i) {
    memoptStringBufferAppendFormat(&out, "output %zu: ", i);
    appendOutputFields(&out, &variant->results[i], &m->outputs[i]);
    memoptStringBufferAppendCString(&out, "\n");
    appendValues(&out, &m->outputs[i]);
  }
  fputs(out.data, stdout);
  memoptStringBufferDestroy(&out);
}

static void appendRatio(MemoptStringBuffer *out, double baseline, double candidate) {
  if (baseline > 0)
    memoptStringBufferAppendFormat(out, "%.3f", candidate / baseline);
  else
    memoptStringBufferAppendCString(out, candidate == baseline ? "1.000" : "n/a");
}

static void appendIntegerRow(MemoptStringBuffer *out, const char *key, int64_t baseline,
                             int64_t candidate, bool ratio) {
  if (!ratio) {
    memoptStringBufferAppendFormat(out, "%-21s %-14lld %lld\n", key, (long long)baseline,
                                   (long long)candidate);
    return;
  }
  memoptStringBufferAppendFormat(out, "%-21s %-14lld %-14lld ", key, (long long)baseline,
                                 (long long)candidate);
  appendRatio(out, (double)baseline, (double)candidate);
  memoptStringBufferAppendCString(out, "\n");
}

static void appendTimeRow(MemoptStringBuffer *out, const char *key, double baseline,
                          double candidate) {
  memoptStringBufferAppendFormat(out, "%-21s %-14.6f %-14.6f ", key, baseline, candidate);
  appendRatio(out, baseline, candidate);
  memoptStringBufferAppendCString(out, "\n");
}

static const char *const verdictNames[] = {
    [HarnessBitIdentical] = "bit-identical",
    [HarnessWithinTolerance] = "within tolerance",
    [HarnessDifferent] = "DIFFERENT",
};

/* Prints both columns and the verdict; returns true when the outputs agree
 * within the tolerance. */
static bool printComparison(const Harness *harness, const Variant *baseline,
                            const Variant *candidate) {
  const HarnessMeasurement *b = &baseline->measurement, *c = &candidate->measurement;
  const HarnessRun *bLast = &b->runs[b->runCount - 1], *cLast = &c->runs[c->runCount - 1];
  MemoptStringBuffer out = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&out, "entry: %s\n", baseline->entryName);
  memoptStringBufferAppendFormat(&out, "baseline: %s\n", baseline->modelPath);
  memoptStringBufferAppendFormat(&out, "candidate: %s%s%s\n", candidate->modelPath,
                                 candidate->pipeline ? " with pipeline " : "",
                                 candidate->pipeline ? candidate->pipeline : "");
  memoptStringBufferAppendFormat(&out, "runs: %zu\n", b->runCount);
  memoptStringBufferAppendFormat(&out, "%-21s %-14s %-14s %s\n", "", "baseline", "candidate", "ratio");
  appendIntegerRow(&out, "inputs_bytes:", b->runs[0].liveBeforeBytes, c->runs[0].liveBeforeBytes, false);
  appendIntegerRow(&out, "peak_bytes:", harnessPeakBytes(b), harnessPeakBytes(c), true);
  appendIntegerRow(&out, "allocations_per_run:", bLast->allocations, cLast->allocations, true);
  if (harness->options.limitBytes > 0) {
    appendIntegerRow(&out, "evictions_per_run:", bLast->evictions, cLast->evictions, false);
    appendIntegerRow(&out, "recomputed_ops_per_run:", bLast->recomputedOperations,
                     cLast->recomputedOperations, false);
  }
  for (size_t i = 0; i < sizeof timeRows / sizeof *timeRows; ++i) {
    appendTimeRow(&out, timeRows[i].median, harnessMedianMilliseconds(b, timeRows[i].clock),
                  harnessMedianMilliseconds(c, timeRows[i].clock));
    appendTimeRow(&out, timeRows[i].minimum, harnessMinimumMilliseconds(b, timeRows[i].clock),
                  harnessMinimumMilliseconds(c, timeRows[i].clock));
  }

  HarnessVerdict worst = HarnessBitIdentical;
  for (size_t i = 0; i < b->outputCount; ++i) {
    memoptStringBufferAppendFormat(&out, "output %zu baseline:  ", i);
    appendOutputFields(&out, &baseline->results[i], &b->outputs[i]);
    memoptStringBufferAppendCString(&out, "\n");
    appendValues(&out, &b->outputs[i]);
    memoptStringBufferAppendFormat(&out, "output %zu candidate: ", i);
    appendOutputFields(&out, &candidate->results[i], &c->outputs[i]);
    memoptStringBufferAppendCString(&out, "\n");
    appendValues(&out, &c->outputs[i]);
    MemoptStringBuffer why = memoptStringBufferCreate();
    HarnessVerdict verdict =
        harnessOutputCompare(&b->outputs[i], &c->outputs[i], harness->options.tolerance, &why);
    memoptStringBufferAppendFormat(&out, "output %zu: %s%s%s%s\n", i, verdictNames[verdict],
                                   why.length ? " (" : "", memoptStringBufferGet(&why),
                                   why.length ? ")" : "");
    memoptStringBufferDestroy(&why);
    if (verdict > worst)
      worst = verdict;
  }
  memoptStringBufferAppendFormat(&out, "outputs: %s\n",
                                 b->outputCount ? verdictNames[worst] : "none (the entry returns nothing)");
  fputs(out.data, stdout);
  memoptStringBufferDestroy(&out);
  return worst != HarnessDifferent;
}

/* Prints each rank's measurements and the comparison of its slice of every
 * output with the reference; returns true when every slice agrees within
 * the tolerance. */
static bool printRanks(const Harness *harness, const Variant *unsharded, const Variant *ranked) {
  const HarnessShardPlan *plan = &ranked->plan;
  const HarnessMeasurement *single = &unsharded->measurement;
  MemoptStringBuffer out = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&out, "entry: %s\n", ranked->entryName);
  memoptStringBufferAppendFormat(&out, "ranks: %lld\n", ranked->ranks);
  memoptStringBufferAppendFormat(&out, "grid: @%s ", plan->gridName);
  for (intptr_t a = 0; a < plan->gridRank; ++a)
    memoptStringBufferAppendFormat(&out, "%s%lld", a ? "x" : "", (long long)plan->gridShape[a]);
  memoptStringBufferAppendFormat(&out, "\nruns: %zu\n", single->runCount);
  memoptStringBufferAppendFormat(&out,
                                 "single-device: inputs_bytes=%lld peak_bytes=%lld "
                                 "allocations_per_run=%lld time_ms_median=%.6f cpu_ms_median=%.6f\n",
                                 (long long)single->runs[0].liveBeforeBytes,
                                 (long long)harnessPeakBytes(single),
                                 (long long)single->runs[single->runCount - 1].allocations,
                                 harnessMedianMilliseconds(single, HarnessWallClock),
                                 harnessMedianMilliseconds(single, HarnessCpuClock));
  for (long long r = 0; r < ranked->ranks; ++r) {
    const HarnessMeasurement *m = &ranked->rankMeasurements[r];
    memoptStringBufferAppendFormat(&out,
                                   "rank %lld: inputs_bytes=%lld peak_bytes=%lld "
                                   "allocations_per_run=%lld time_ms_median=%.6f cpu_ms_median=%.6f\n",
                                   r, (long long)m->runs[0].liveBeforeBytes,
                                   (long long)harnessPeakBytes(m),
                                   (long long)m->runs[m->runCount - 1].allocations,
                                   harnessMedianMilliseconds(m, HarnessWallClock),
                                   harnessMedianMilliseconds(m, HarnessCpuClock));
  }
  bool agree = true;
  double worstOverall = 0;
  for (size_t i = 0; i < ranked->resultCount; ++i) {
    const HarnessShardedValue *value = &plan->results[i];
    const HarnessOutput *whole = &single->outputs[i];
    double *expected = memoptAllocateZeroed((size_t)whole->count + 1, sizeof *expected);
    bool parsed = whole->values && harnessValuesParse(whole->values, whole->count, expected);
    int64_t *offsets = memoptAllocateZeroed((size_t)value->rank + 1, sizeof *offsets);
    for (long long r = 0; r < ranked->ranks; ++r) {
      const HarnessOutput *part = &ranked->rankMeasurements[r].outputs[i];
      double *slice = memoptAllocateZeroed((size_t)part->count + 1, sizeof *slice);
      harnessShardOffsets(plan, value, r, offsets);
      memoptStringBufferAppendFormat(&out, "output %zu rank %lld: ", i, r);
      appendActualType(&out, &ranked->results[i], part);
      memoptStringBufferAppendCString(&out, " at [");
      for (intptr_t d = 0; d < value->rank; ++d)
        memoptStringBufferAppendFormat(&out, "%s%lld", d ? ", " : "", (long long)offsets[d]);
      memoptStringBufferAppendCString(&out, "] of ");
      appendActualType(&out, &unsharded->results[i], whole);
      if (!parsed || !part->values || !harnessValuesParse(part->values, part->count, slice)) {
        memoptStringBufferAppendCString(&out, ": DIFFERENT (the values cannot be read)\n");
        agree = false;
        free(slice);
        continue;
      }
      int64_t worstIndex = 0;
      double error = harnessSliceMaxRelativeError(expected, value->globalShape, slice,
                                                  value->localShape, offsets, value->rank,
                                                  &worstIndex);
      bool within = error <= harness->options.tolerance;
      memoptStringBufferAppendFormat(&out, ": max_rel_error=%.3g %s", error,
                                     error == 0 ? "equal" : within ? "within tolerance" : "DIFFERENT");
      if (!within)
        memoptStringBufferAppendFormat(&out, " (element %lld of the slice is %.9g)",
                                       (long long)worstIndex, slice[worstIndex]);
      memoptStringBufferAppendCString(&out, "\n");
      if (harness->options.printOutputs)
        appendValues(&out, part);
      agree = agree && within;
      if (error > worstOverall || error != error)
        worstOverall = error;
      free(slice);
    }
    free(expected);
    free(offsets);
  }
  if (ranked->resultCount)
    memoptStringBufferAppendFormat(&out, "outputs: %s (max_rel_error=%.3g, tolerance %g)\n",
                                   !agree ? "DIFFERENT" : worstOverall == 0 ? "equal" : "within tolerance",
                                   worstOverall, harness->options.tolerance);
  else
    memoptStringBufferAppendCString(&out, "outputs: none (the entry returns nothing)\n");
  fputs(out.data, stdout);
  memoptStringBufferDestroy(&out);
  return agree;
}

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
  if (library && prepareVariant(harness, &ranked, &error) &&
      prepareVariant(harness, &reference, &error) && execute(harness, &reference, &error) &&
      executeRanks(harness, &ranked, mpirun, library, &error))
    status = printRanks(harness, &reference, &ranked) ? 0 : 1;
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
      printSingle(harness, only);
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
      status = printComparison(harness, &baseline, &candidate) ? 0 : 1;
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

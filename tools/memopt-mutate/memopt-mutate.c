/* memopt-mutate: mutation fuzzing of memopt's passes (python-free-docs/fuzzing.md).
 *
 *   memopt-mutate --seeds=test --count=2000              2000 inputs, seed 1, one job
 *   memopt-mutate --seeds=test --seed=7 --first=1234 --count=1   replay input 1234 of seed 7
 *
 * One MLIR context is made once; each input runs in a forked child, so a
 * crash or a hang ends only that child. The parent times children out,
 * classifies how each ended, saves every finding and prints a summary. */
#include "Mutate.h"

#include "IR/IR.h"
#include "InitAllPasses.h"

#include "mlir-c/RegisterEverything.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct Options {
  const char **seedDirs;
  bool *seedDirOptional;
  size_t seedDirCount;
  uint64_t seed;
  unsigned long long first;
  unsigned long long count;
  long long jobs;
  double timeout;
  long long maxSeedBytes;
  long long savePerFinding;
  long long leakCheckEvery;
  const char *out;
  const char *pipelines; /* comma-separated shape names; NULL: all */
  const char *mlirOpt;   /* upstream mlir-opt, run on inputs that crash the parser */
  bool quiet;
} Options;

/* The ways an input can end. */
typedef enum Outcome {
  OUTCOME_ACCEPTED,
  OUTCOME_REJECTED,
  OUTCOME_UPSTREAM_PARSER_CRASH, /* upstream mlir-opt crashes on the input too */
  OUTCOME_UPSTREAM_PRINTER_DEFECT, /* upstream mlir-opt prints the input unparsable too */
  OUTCOME_CRASH,
  OUTCOME_SANITIZER,
  OUTCOME_HANG,
  OUTCOME_SILENT_FAILURE,
  OUTCOME_UNLOCATED_ERROR,
  OUTCOME_UNPARSABLE_OUTPUT,
  OUTCOME_COUNT
} Outcome;

static const char *const outcomeNames[OUTCOME_COUNT] = {
    "accepted",       "rejected",        "upstream-parser-crash", "upstream-printer-defect",
    "crash",          "sanitizer",       "hang",                  "silent-failure",
    "unlocated-error", "unparsable-output"};

/* One distinct finding: the same kind, pipeline, stage and signature. */
typedef struct Finding {
  Outcome outcome;
  size_t shape;
  char *signature; /* stage and what identifies it (sanitizer summary, signal) */
  size_t count;
  size_t saved;
  char *firstPath;
} Finding;

/* A child being run, in one of the job slots. */
typedef struct Slot {
  pid_t pid; /* 0 when free */
  unsigned long long index;
  size_t shape;
  const MutateSeed *seed;
  MutatePipeline pipeline;
  MemoptStringBuffer mutations;
  char *inputPath, *scratchPath, *stderrPath;
  char *upstreamOutputPath, *upstreamErrorPath; /* what upstream mlir-opt printed of the input */
  struct timespec deadline;
  bool killed;
} Slot;

typedef struct Campaign {
  Options options;
  MutateCorpus corpus;
  size_t *shapes; /* the pipeline shapes inputs go through, round-robin */
  size_t shapeCount;
  MlirContext context, upstreamContext;
  char *irdlPath; /* memopt's IRDL, for mlir-opt --irdl-file */
  MutateChildReport *reports; /* one per slot, shared with the children */
  Slot *slots;
  size_t counts[OUTCOME_COUNT];
  size_t (*shapeCounts)[3]; /* per shape: accepted, rejected, findings */
  Finding *findings;
  size_t findingCount, findingCapacity;
  char *upstreamCrashPath;   /* the first input that crashed upstream's parser too */
  char *upstreamPrinterPath; /* the first input upstream's printer made unparsable too */
} Campaign;

static void printUsage(FILE *stream) {
  fprintf(stream,
          "usage: memopt-mutate --seeds=DIR [--seeds-if-present=DIR] [--count=N] [--seed=S]\n"
          "                     [--first=I] [--jobs=N] [--timeout=SECONDS] [--max-seed-bytes=N]\n"
          "                     [--pipelines=NAME,...] [--out=DIR] [--save-per-finding=N]\n"
          "                     [--leak-check-every=N] [--mlir-opt=PATH]\n"
          "                     [--list-pipelines] [--quiet]\n"
          "  --seeds=DIR            the .mlir files under DIR are seeds (repeatable)\n"
          "  --seeds-if-present=DIR the same, skipped when DIR does not exist\n"
          "  --count=N              inputs to run (default 1000)\n"
          "  --seed=S               the campaign (default 1): same seed, same inputs\n"
          "  --first=I              index of the first input (default 0); --first=I --count=1\n"
          "                         replays input I\n"
          "  --jobs=N               children run at once (default 1)\n"
          "  --timeout=SECONDS      an input running longer is a hang (default 20)\n"
          "  --max-seed-bytes=N     seeds (or split chunks) larger than this are left out\n"
          "                         (default 65536)\n"
          "  --pipelines=LIST       only these pipelines (names as --list-pipelines prints)\n"
          "  --out=DIR              where findings are saved (default memopt-mutate-findings)\n"
          "  --save-per-finding=N   inputs saved per distinct finding (default 3)\n"
          "  --leak-check-every=N   let LeakSanitizer check every Nth child only (default 1;\n"
          "                         a check costs about 0.1 s)\n"
          "  --mlir-opt=PATH        upstream mlir-opt, to tell the parser crashes and printer\n"
          "                         defects it shares\n"
          "                         (default " MEMOPT_LLVM_BIN_DIR "/mlir-opt)\n"
          "  --list-pipelines       print the pipeline names and exit\n"
          "  --quiet                print only the summary\n"
          "An input that crashes upstream mlir-opt's parser as well, or whose unparsable\n"
          "output upstream mlir-opt also prints from the input unchanged, is counted apart\n"
          "and is not a finding. Exits 1 when an input crashes, hangs, trips a sanitizer, fails without a located\n"
          "error, or prints output upstream MLIR rejects.\n");
}

static bool parseCount(const char *arg, const char *name, long long low, long long high,
                       long long *out) {
  const char *text = arg + strlen(name) + 1;
  if (!memoptParseInt64InRange(text, low, high, out)) {
    fprintf(stderr, "memopt-mutate: error: %s needs a number from %lld to %lld, not '%s'\n", name,
            low, high, text);
    return false;
  }
  return true;
}

static void addSeedDir(Options *options, const char *dir, bool optional) {
  options->seedDirs = memoptReallocArray(options->seedDirs, options->seedDirCount + 1,
                                         sizeof *options->seedDirs);
  options->seedDirOptional = memoptReallocArray(options->seedDirOptional,
                                                options->seedDirCount + 1,
                                                sizeof *options->seedDirOptional);
  options->seedDirs[options->seedDirCount] = dir;
  options->seedDirOptional[options->seedDirCount++] = optional;
}

/* Returns 0 to go on, 1 on a bad argument, -1 after --help or --list-pipelines. */
static int parseOptions(int argc, char **argv, Options *options) {
  *options = (Options){.seed = 1, .count = 1000, .jobs = 1, .timeout = 20,
                       .maxSeedBytes = 65536, .savePerFinding = 3, .leakCheckEvery = 1,
                       .out = "memopt-mutate-findings",
                       .mlirOpt = MEMOPT_LLVM_BIN_DIR "/mlir-opt"};
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i];
    long long number = 0;
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      printUsage(stdout);
      return -1;
    } else if (strcmp(arg, "--list-pipelines") == 0) {
      for (size_t s = 0; s < mutatePipelineShapeCount(); ++s)
        printf("%s\n", mutatePipelineShapeName(s));
      return -1;
    } else if (strcmp(arg, "--quiet") == 0) {
      options->quiet = true;
    } else if (memoptStartsWith(arg, "--seeds=")) {
      addSeedDir(options, arg + strlen("--seeds="), false);
    } else if (memoptStartsWith(arg, "--seeds-if-present=")) {
      addSeedDir(options, arg + strlen("--seeds-if-present="), true);
    } else if (memoptStartsWith(arg, "--count=")) {
      if (!parseCount(arg, "--count", 1, 1000000000000LL, &number))
        return 1;
      options->count = (unsigned long long)number;
    } else if (memoptStartsWith(arg, "--first=")) {
      if (!parseCount(arg, "--first", 0, 1000000000000LL, &number))
        return 1;
      options->first = (unsigned long long)number;
    } else if (memoptStartsWith(arg, "--seed=")) {
      if (!parseCount(arg, "--seed", 0, (long long)(~0ull >> 1), &number))
        return 1;
      options->seed = (uint64_t)number;
    } else if (memoptStartsWith(arg, "--jobs=")) {
      if (!parseCount(arg, "--jobs", 1, 256, &options->jobs))
        return 1;
    } else if (memoptStartsWith(arg, "--timeout=")) {
      const char *text = arg + strlen("--timeout=");
      if (!memoptParseDouble(text, &options->timeout) || options->timeout <= 0) {
        fprintf(stderr, "memopt-mutate: error: --timeout needs a positive number of seconds, "
                        "not '%s'\n", text);
        return 1;
      }
    } else if (memoptStartsWith(arg, "--max-seed-bytes=")) {
      if (!parseCount(arg, "--max-seed-bytes", 1, 1LL << 40, &options->maxSeedBytes))
        return 1;
    } else if (memoptStartsWith(arg, "--save-per-finding=")) {
      if (!parseCount(arg, "--save-per-finding", 0, 1000000, &options->savePerFinding))
        return 1;
    } else if (memoptStartsWith(arg, "--leak-check-every=")) {
      if (!parseCount(arg, "--leak-check-every", 1, 1000000, &options->leakCheckEvery))
        return 1;
    } else if (memoptStartsWith(arg, "--pipelines=")) {
      options->pipelines = arg + strlen("--pipelines=");
    } else if (memoptStartsWith(arg, "--mlir-opt=")) {
      options->mlirOpt = arg + strlen("--mlir-opt=");
    } else if (memoptStartsWith(arg, "--out=")) {
      options->out = arg + strlen("--out=");
    } else {
      fprintf(stderr, "memopt-mutate: error: unknown argument '%s'\n", arg);
      printUsage(stderr);
      return 1;
    }
  }
  if (!options->seedDirCount) {
    fprintf(stderr, "memopt-mutate: error: no seeds: give --seeds=DIR\n");
    return 1;
  }
  return 0;
}

/* Fills the campaign's shapes from --pipelines; false on an unknown name. */
static bool selectShapes(Campaign *campaign) {
  size_t total = mutatePipelineShapeCount();
  campaign->shapes = memoptAllocateZeroed(total, sizeof *campaign->shapes);
  const char *list = campaign->options.pipelines;
  if (!list) {
    for (size_t s = 0; s < total; ++s)
      campaign->shapes[campaign->shapeCount++] = s;
    return true;
  }
  for (const char *p = list; *p;) {
    size_t length = strcspn(p, ",");
    size_t s = 0;
    while (s < total && !(strlen(mutatePipelineShapeName(s)) == length &&
                          memcmp(mutatePipelineShapeName(s), p, length) == 0))
      ++s;
    if (s == total) {
      fprintf(stderr, "memopt-mutate: error: no pipeline is named '%.*s' (see --list-pipelines)\n",
              (int)length, p);
      return false;
    }
    if (campaign->shapeCount < total)
      campaign->shapes[campaign->shapeCount++] = s;
    p += length + (p[length] == ',');
  }
  return campaign->shapeCount > 0;
}

static bool loadSeeds(Campaign *campaign) {
  const Options *options = &campaign->options;
  for (size_t i = 0; i < options->seedDirCount; ++i) {
    struct stat info;
    if (options->seedDirOptional[i] && stat(options->seedDirs[i], &info) != 0) {
      if (!options->quiet)
        printf("memopt-mutate: %s is absent: no seeds from it\n", options->seedDirs[i]);
      continue;
    }
    MemoptStringBuffer error = memoptStringBufferCreate();
    bool ok = mutateCorpusAddDirectory(&campaign->corpus, options->seedDirs[i],
                                       (size_t)options->maxSeedBytes, &error);
    if (!ok)
      fprintf(stderr, "memopt-mutate: error: %s\n", memoptStringBufferGet(&error));
    memoptStringBufferDestroy(&error);
    if (!ok)
      return false;
  }
  if (!campaign->corpus.count) {
    fprintf(stderr, "memopt-mutate: error: no .mlir seeds found\n");
    return false;
  }
  mutateCorpusSort(&campaign->corpus);
  return true;
}

static bool makeDirectory(const char *path) {
  if (mkdir(path, 0777) == 0 || errno == EEXIST)
    return true;
  fprintf(stderr, "memopt-mutate: error: cannot create '%s': %s\n", path, strerror(errno));
  return false;
}

static char *formatPath(const char *format, const char *directory, size_t number) {
  MemoptStringBuffer path = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&path, format, directory, number);
  return memoptStringBufferRelease(&path);
}

static struct timespec now(void) {
  struct timespec time;
  clock_gettime(CLOCK_MONOTONIC, &time);
  return time;
}

static double secondsBetween(struct timespec from, struct timespec to) {
  return (double)(to.tv_sec - from.tv_sec) + (double)(to.tv_nsec - from.tv_nsec) * 1e-9;
}

static void childMain(Campaign *campaign, Slot *slot, MutateChildReport *report,
                      const sigset_t *originalMask) {
  signal(SIGCHLD, SIG_DFL);
  sigprocmask(SIG_SETMASK, originalMask, NULL);
  int err = open(slot->stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0666);
  int null = open("/dev/null", O_WRONLY);
  if (err >= 0)
    dup2(err, STDERR_FILENO);
  if (null >= 0)
    dup2(null, STDOUT_FILENO);
  MutateChildStatus status = mutateRunChild(campaign->context, campaign->upstreamContext,
                                            slot->inputPath, &slot->pipeline, report);
  fflush(stdout);
  /* LeakSanitizer checks at exit, as it does for memopt-opt; _exit skips it. */
  if (slot->index % (unsigned long long)campaign->options.leakCheckEvery == 0)
    exit((int)status);
  _exit((int)status);
}

/* Makes input `index` in `slot` and starts its child; false on a fuzzer error. */
static bool startInput(Campaign *campaign, size_t slotIndex, unsigned long long index,
                       const sigset_t *originalMask) {
  Slot *slot = &campaign->slots[slotIndex];
  MutateChildReport *report = &campaign->reports[slotIndex];
  MutateRng rng = mutateRngForInput(campaign->options.seed, index);
  const MutateCorpus *corpus = &campaign->corpus;
  slot->index = index;
  slot->seed = &corpus->seeds[mutateRngBelow(&rng, corpus->count)];
  const MutateSeed *donor = &corpus->seeds[mutateRngBelow(&rng, corpus->count)];
  MemoptStringBuffer text = memoptStringBufferCreate();
  memoptStringBufferAppend(&text, slot->seed->text, slot->seed->length);
  memoptStringBufferAppend(&text, "", 0);
  memoptStringBufferClear(&slot->mutations);
  mutateApply(&text, donor, &rng, &slot->mutations);
  slot->shape = campaign->shapes[index % campaign->shapeCount];
  MemoptStringBuffer error = memoptStringBufferCreate();
  bool ok = mutatePipelineChoose(slot->shape, &rng, slot->scratchPath, &slot->pipeline, &error) &&
            memoptFileWriteOutput(slot->inputPath, memoptStringBufferGet(&text), text.length,
                                  &error);
  memoptStringBufferDestroy(&text);
  if (!ok) {
    fprintf(stderr, "memopt-mutate: error: input %llu: %s\n", index,
            memoptStringBufferGet(&error));
    memoptStringBufferDestroy(&error);
    return false;
  }
  memoptStringBufferDestroy(&error);
  memset(report, 0, sizeof *report);
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "memopt-mutate: error: fork: %s\n", strerror(errno));
    return false;
  }
  if (pid == 0)
    childMain(campaign, slot, report, originalMask);
  slot->pid = pid;
  slot->killed = false;
  struct timespec deadline = now();
  double whole = (double)(long long)campaign->options.timeout;
  deadline.tv_sec += (time_t)whole;
  deadline.tv_nsec += (long)((campaign->options.timeout - whole) * 1e9);
  if (deadline.tv_nsec >= 1000000000L) {
    deadline.tv_sec += 1;
    deadline.tv_nsec -= 1000000000L;
  }
  slot->deadline = deadline;
  return true;
}

/* Reads up to 64 KiB of what a child wrote to standard error. */
static char *readStderr(const char *path) {
  MemoptStringBuffer text = memoptStringBufferCreate();
  FILE *file = fopen(path, "rb");
  if (file) {
    char chunk[65536];
    size_t got = fread(chunk, 1, sizeof chunk, file);
    memoptStringBufferAppend(&text, chunk, got);
    fclose(file);
  }
  memoptStringBufferAppend(&text, "", 0);
  return memoptStringBufferRelease(&text);
}

/* The line of `text` that starts with `prefix` (up to its newline), or NULL. */
static char *lineStartingWith(const char *text, const char *prefix) {
  const char *line = strstr(text, prefix);
  if (!line)
    return NULL;
  return memoptStrndup(line, strcspn(line, "\n"));
}

/* A sanitizer's one-line summary of its report, or NULL when there is none. */
static char *sanitizerSummary(const char *stderrText) {
  char *summary = lineStartingWith(stderrText, "SUMMARY: ");
  if (summary)
    return summary;
  const char *markers[] = {"runtime error:", "ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
                           "ERROR: UndefinedBehaviorSanitizer"};
  for (size_t i = 0; i < sizeof markers / sizeof *markers; ++i) {
    const char *at = strstr(stderrText, markers[i]);
    if (at) {
      while (at > stderrText && at[-1] != '\n')
        --at;
      return memoptStrndup(at, strcspn(at, "\n"));
    }
  }
  return NULL;
}

static Finding *findingFor(Campaign *campaign, Outcome outcome, size_t shape,
                           const char *signature) {
  for (size_t i = 0; i < campaign->findingCount; ++i) {
    Finding *finding = &campaign->findings[i];
    if (finding->outcome == outcome && finding->shape == shape &&
        strcmp(finding->signature, signature) == 0)
      return finding;
  }
  campaign->findings = memoptGrowArray(campaign->findings, &campaign->findingCapacity,
                                       campaign->findingCount + 1, sizeof *campaign->findings);
  Finding *finding = &campaign->findings[campaign->findingCount++];
  *finding = (Finding){outcome, shape, memoptStrndup(signature, strlen(signature)), 0, 0, NULL};
  return finding;
}

/* Saves the input of a finding and what is known of it beside it. */
static void saveFinding(Campaign *campaign, const Slot *slot, Outcome outcome, Finding *finding,
                        const char *what, const char *detail, const char *stderrText) {
  const Options *options = &campaign->options;
  MemoptStringBuffer base = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&base, "%s/%s-%llu", options->out, outcomeNames[outcome],
                                 slot->index);
  MemoptStringBuffer path = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&path, "%s.mlir", base.data);
  MemoptStringBuffer input = memoptStringBufferCreate(), error = memoptStringBufferCreate();
  bool saved = memoptFileRead(slot->inputPath, &input, &error) &&
               memoptFileWriteOutput(path.data, input.data, input.length, &error);
  MemoptStringBuffer flags = memoptStringBufferCreate();
  mutatePipelineDescribe(&slot->pipeline, &flags);
  MemoptStringBuffer note = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(
      &note,
      "finding: %s\n"
      "pipeline: %s\n"
      "seed file: %s\n"
      "mutations:\n%s"
      "replay: memopt-opt %s --mlir-disable-threading %s\n"
      "regenerate: memopt-mutate --seed=%llu --first=%llu --count=1 --pipelines=%s "
      "--max-seed-bytes=%lld (and the same --seeds)\n"
      "detail: %s\n"
      "standard error:\n%s",
      what, mutatePipelineShapeName(slot->shape), slot->seed->name,
      memoptStringBufferGet(&slot->mutations), path.data, flags.data,
      (unsigned long long)options->seed, slot->index, mutatePipelineShapeName(slot->shape),
      options->maxSeedBytes, detail, stderrText);
  MemoptStringBuffer notePath = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&notePath, "%s.txt", base.data);
  saved = saved && memoptFileWriteOutput(notePath.data, note.data, note.length, &error);
  if (!saved)
    fprintf(stderr, "memopt-mutate: error: cannot save a finding: %s\n",
            memoptStringBufferGet(&error));
  else if (!finding->firstPath)
    finding->firstPath = memoptStrndup(path.data, path.length);
  if (!options->quiet)
    printf("FINDING input %llu (%s): %s\n  seed %s, saved %s\n  %s\n", slot->index,
           mutatePipelineShapeName(slot->shape), what, slot->seed->name,
           saved ? path.data : "(not saved)", detail);
  memoptStringBufferDestroy(&base);
  memoptStringBufferDestroy(&path);
  memoptStringBufferDestroy(&input);
  memoptStringBufferDestroy(&error);
  memoptStringBufferDestroy(&flags);
  memoptStringBufferDestroy(&note);
  memoptStringBufferDestroy(&notePath);
}

static const char *signalName(int signal) {
  switch (signal) {
  case SIGSEGV:
    return "SIGSEGV";
  case SIGABRT:
    return "SIGABRT";
  case SIGBUS:
    return "SIGBUS";
  case SIGFPE:
    return "SIGFPE";
  case SIGILL:
    return "SIGILL";
  case SIGKILL:
    return "SIGKILL";
  case SIGTRAP:
    return "SIGTRAP";
  default:
    return "a signal";
  }
}

/* Runs upstream mlir-opt, given memopt's IRDL, on the file at `input`,
 * writing its output to `output` and its standard error to `errors` (NULL:
 * discarded); returns its wait status, or -1 when it could not be started. */
static int runUpstream(const Campaign *campaign, const char *input, const char *output,
                       const char *errors) {
  MemoptStringBuffer irdl = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&irdl, "--irdl-file=%s", campaign->irdlPath);
  pid_t pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    int err = errors ? open(errors, O_WRONLY | O_CREAT | O_TRUNC, 0666) : null;
    if (null >= 0)
      dup2(null, STDOUT_FILENO);
    if (err >= 0)
      dup2(err, STDERR_FILENO);
    execl(campaign->options.mlirOpt, campaign->options.mlirOpt, irdl.data, input, "-o",
          output ? output : "-", (char *)NULL);
    _exit(127);
  }
  memoptStringBufferDestroy(&irdl);
  int status = 0;
  return pid > 0 && waitpid(pid, &status, 0) == pid ? status : -1;
}

/* Returns true when upstream mlir-opt dies of a signal on the file at `path`
 * (its parser shares the crash). */
static bool upstreamCrashes(const Campaign *campaign, const char *path) {
  int status = runUpstream(campaign, path, NULL, NULL);
  return status != -1 && WIFSIGNALED(status);
}

/* Returns true when upstream mlir-opt, given the input of `slot` unchanged,
 * prints IR that it then rejects with the error `message` as well: the
 * output is unparsable because of upstream's printer (a module-level
 * tosa.yield printed as `tosa.yield  :`), not because of memopt's passes. */
static bool upstreamPrintsUnparsable(const Campaign *campaign, const Slot *slot,
                                     const char *message) {
  if (!*message)
    return false;
  int status = runUpstream(campaign, slot->inputPath, slot->upstreamOutputPath, NULL);
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return false;
  status = runUpstream(campaign, slot->upstreamOutputPath, NULL, slot->upstreamErrorPath);
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) == 0)
    return false;
  char *errors = readStderr(slot->upstreamErrorPath);
  bool same = strstr(errors, message) != NULL;
  free(errors);
  return same;
}

/* Saves the input of `slot` as `*path` (OUTCOME-INDEX.mlir under --out)
 * unless one was saved already: kept for reporting upstream. */
static void saveUpstreamInput(const Campaign *campaign, const Slot *slot, Outcome outcome,
                              char **path) {
  if (*path)
    return;
  MemoptStringBuffer name = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&name, "%s/%s-%llu.mlir", campaign->options.out,
                                 outcomeNames[outcome], slot->index);
  *path = memoptStringBufferRelease(&name);
  MemoptStringBuffer input = memoptStringBufferCreate(), error = memoptStringBufferCreate();
  if (!memoptFileRead(slot->inputPath, &input, &error) ||
      !memoptFileWriteOutput(*path, input.data, input.length, &error))
    fprintf(stderr, "memopt-mutate: error: %s\n", memoptStringBufferGet(&error));
  memoptStringBufferDestroy(&input);
  memoptStringBufferDestroy(&error);
}

/* Classifies how the child of `slot` ended and records it. */
static void finishInput(Campaign *campaign, size_t slotIndex, int status) {
  Slot *slot = &campaign->slots[slotIndex];
  const MutateChildReport *report = &campaign->reports[slotIndex];
  char *stderrText = readStderr(slot->stderrPath);
  /* A child that crashes past its status does so while exiting (LeakSanitizer
   * runs then); the status of one that did not crash names the stage it reached. */
  bool exitedNormally = report->finished && !slot->killed && WIFEXITED(status);
  char *summary = sanitizerSummary(stderrText);
  const char *stage = report->finished && (!exitedNormally || summary)
                          ? "exit"
                          : mutateStageName((MutateStage)report->stage);
  MemoptStringBuffer what = memoptStringBufferCreate();
  MemoptStringBuffer signature = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&signature, "%s", stage);
  Outcome outcome;
  if (slot->killed) {
    outcome = OUTCOME_HANG;
    memoptStringBufferAppendFormat(&what, "hang: still running after %g s, in stage %s",
                                   campaign->options.timeout, stage);
  } else if (!exitedNormally && report->stage == MUTATE_STAGE_PARSE &&
             upstreamCrashes(campaign, slot->inputPath)) {
    /* Only upstream code runs while parsing; under ASan its crash is a report. */
    outcome = OUTCOME_UPSTREAM_PARSER_CRASH;
    memoptStringBufferAppendFormat(&what, "crash in upstream MLIR's parser (mlir-opt too): %s",
                                   summary ? summary : signalName(WTERMSIG(status)));
  } else if (summary) {
    outcome = OUTCOME_SANITIZER;
    memoptStringBufferAppendFormat(&what, "sanitizer report in stage %s: %s", stage, summary);
    memoptStringBufferAppendFormat(&signature, " %s", summary);
  } else if (WIFSIGNALED(status)) {
    outcome = OUTCOME_CRASH;
    memoptStringBufferAppendFormat(&what, "crash: %s in stage %s", signalName(WTERMSIG(status)),
                                   stage);
    memoptStringBufferAppendFormat(&signature, " %s", signalName(WTERMSIG(status)));
  } else if (!report->finished) {
    /* Exited from inside MLIR or a pass (LLVM's report_fatal_error, exit()). */
    char *first = memoptStrndup(stderrText, strcspn(stderrText, "\n"));
    outcome = OUTCOME_CRASH;
    memoptStringBufferAppendFormat(&what, "exit %d in stage %s: %s", WEXITSTATUS(status), stage,
                                   first);
    memoptStringBufferAppendFormat(&signature, " exit %d %s", WEXITSTATUS(status), first);
    free(first);
  } else {
    switch (WEXITSTATUS(status)) {
    case MUTATE_ACCEPTED:
      outcome = OUTCOME_ACCEPTED;
      break;
    case MUTATE_REJECTED:
      outcome = OUTCOME_REJECTED;
      break;
    case MUTATE_SILENT_FAILURE:
      outcome = OUTCOME_SILENT_FAILURE;
      break;
    case MUTATE_UNLOCATED_ERROR:
      outcome = OUTCOME_UNLOCATED_ERROR;
      break;
    case MUTATE_UNPARSABLE_OUTPUT:
      outcome = upstreamPrintsUnparsable(campaign, slot, report->reparseError)
                    ? OUTCOME_UPSTREAM_PRINTER_DEFECT
                    : OUTCOME_UNPARSABLE_OUTPUT;
      break;
    default:
      fprintf(stderr, "memopt-mutate: error: input %llu: the pipeline could not be run: %s\n",
              slot->index, report->detail);
      exit(2);
    }
    memoptStringBufferAppendFormat(&what, "%s in stage %s", outcomeNames[outcome], stage);
  }
  ++campaign->counts[outcome];
  /* Upstream's defects are counted with the rejections, not as findings;
   * one input of each kind is kept for reporting upstream. */
  size_t column = outcome == OUTCOME_ACCEPTED ? 0 : outcome < OUTCOME_CRASH ? 1 : 2;
  if (outcome == OUTCOME_UPSTREAM_PARSER_CRASH)
    saveUpstreamInput(campaign, slot, outcome, &campaign->upstreamCrashPath);
  if (outcome == OUTCOME_UPSTREAM_PRINTER_DEFECT)
    saveUpstreamInput(campaign, slot, outcome, &campaign->upstreamPrinterPath);
  ++campaign->shapeCounts[slot->shape][column];
  if (column == 2) {
    /* Before the pipeline runs, which pipeline it is does not matter. */
    bool beforePasses = report->stage < MUTATE_STAGE_PIPELINE;
    Finding *finding = findingFor(campaign, outcome, beforePasses ? SIZE_MAX : slot->shape,
                                  signature.data);
    ++finding->count;
    if (finding->saved < (size_t)campaign->options.savePerFinding) {
      ++finding->saved;
      saveFinding(campaign, slot, outcome, finding, what.data, report->detail, stderrText);
    }
  }
  memoptStringBufferDestroy(&what);
  memoptStringBufferDestroy(&signature);
  free(summary);
  free(stderrText);
  mutatePipelineDestroy(&slot->pipeline);
  slot->pid = 0;
}

static void onChild(int signal) {}

/* Runs every input; false on a fuzzer error. */
static bool runInputs(Campaign *campaign) {
  const Options *options = &campaign->options;
  size_t jobs = (size_t)options->jobs;
  sigset_t childSet, originalMask;
  sigemptyset(&childSet);
  sigaddset(&childSet, SIGCHLD);
  /* SIGCHLD stays blocked and is waited for with sigtimedwait; the handler
   * only keeps it from being discarded. */
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = onChild;
  sigaction(SIGCHLD, &action, NULL);
  sigprocmask(SIG_BLOCK, &childSet, &originalMask);
  unsigned long long next = options->first, end = options->first + options->count;
  size_t running = 0;
  bool ok = true;
  while (ok && (next < end || running)) {
    for (size_t s = 0; ok && s < jobs && next < end; ++s)
      if (!campaign->slots[s].pid) {
        ok = startInput(campaign, s, next++, &originalMask);
        running += ok;
      }
    int status;
    pid_t pid;
    bool reaped = false;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
      for (size_t s = 0; s < jobs; ++s)
        if (campaign->slots[s].pid == pid) {
          finishInput(campaign, s, status);
          --running;
          reaped = true;
        }
    if (reaped || !running)
      continue;
    /* Wait for a child to end, or until the earliest deadline. */
    struct timespec current = now(), earliest = {0, 0};
    bool any = false;
    for (size_t s = 0; s < jobs; ++s)
      if (campaign->slots[s].pid &&
          (!any || secondsBetween(campaign->slots[s].deadline, earliest) > 0)) {
        earliest = campaign->slots[s].deadline;
        any = true;
      }
    double wait = secondsBetween(current, earliest);
    if (wait > 0) {
      struct timespec timeout = {(time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9)};
      sigtimedwait(&childSet, NULL, &timeout);
    }
    current = now();
    for (size_t s = 0; s < jobs; ++s)
      if (campaign->slots[s].pid && !campaign->slots[s].killed &&
          secondsBetween(current, campaign->slots[s].deadline) <= 0) {
        kill(campaign->slots[s].pid, SIGKILL);
        campaign->slots[s].killed = true;
      }
  }
  sigprocmask(SIG_SETMASK, &originalMask, NULL);
  return ok;
}

static void printSummary(const Campaign *campaign, double seconds) {
  const Options *options = &campaign->options;
  size_t findings = 0;
  for (int o = OUTCOME_CRASH; o < OUTCOME_COUNT; ++o)
    findings += campaign->counts[o];
  size_t upstream = campaign->counts[OUTCOME_UPSTREAM_PARSER_CRASH];
  size_t upstreamPrinter = campaign->counts[OUTCOME_UPSTREAM_PRINTER_DEFECT];
  printf("memopt-mutate: %llu inputs (%llu to %llu, seed %llu) from %zu seeds (%zu over %lld "
         "bytes left out), %lld jobs, %.1f s, %.1f inputs/s\n",
         options->count, options->first, options->first + options->count - 1,
         (unsigned long long)options->seed, campaign->corpus.count,
         campaign->corpus.skippedLarge, options->maxSeedBytes, options->jobs, seconds,
         seconds > 0 ? (double)options->count / seconds : 0.0);
  printf("memopt-mutate: accepted %zu, rejected with a located error %zu, crashing upstream "
         "mlir-opt's parser too %zu, printed unparsable by upstream mlir-opt too %zu; findings "
         "%zu:",
         campaign->counts[OUTCOME_ACCEPTED], campaign->counts[OUTCOME_REJECTED], upstream,
         upstreamPrinter, findings);
  for (int o = OUTCOME_CRASH; o < OUTCOME_COUNT; ++o)
    printf("%s %s %zu", o == OUTCOME_CRASH ? "" : ",", outcomeNames[o], campaign->counts[o]);
  printf("\n");
  if (!options->quiet) {
    printf("memopt-mutate: by pipeline (accepted/rejected/findings):");
    for (size_t i = 0; i < campaign->shapeCount; ++i) {
      size_t s = campaign->shapes[i];
      printf(" %s %zu/%zu/%zu", mutatePipelineShapeName(s), campaign->shapeCounts[s][0],
             campaign->shapeCounts[s][1], campaign->shapeCounts[s][2]);
    }
    printf("\n");
  }
  for (size_t i = 0; i < campaign->findingCount; ++i) {
    const Finding *finding = &campaign->findings[i];
    printf("memopt-mutate: distinct finding: %s under %s, %zu inputs, stage %s\n      first "
           "saved: %s\n",
           outcomeNames[finding->outcome],
           finding->shape == SIZE_MAX ? "any pipeline" : mutatePipelineShapeName(finding->shape),
           finding->count, finding->signature,
           finding->firstPath ? finding->firstPath : "(none)");
  }
  if (campaign->upstreamCrashPath)
    printf("memopt-mutate: upstream parser crash (not memopt's), first saved: %s\n",
           campaign->upstreamCrashPath);
  if (campaign->upstreamPrinterPath)
    printf("memopt-mutate: upstream printer defect (not memopt's), first saved: %s\n",
           campaign->upstreamPrinterPath);
  printf("memopt-mutate: %s\n", findings ? "FAILED" : "no findings");
}

static void campaignDestroy(Campaign *campaign) {
  for (size_t s = 0; s < (size_t)campaign->options.jobs && campaign->slots; ++s) {
    Slot *slot = &campaign->slots[s];
    unlink(slot->inputPath);
    unlink(slot->stderrPath);
    unlink(slot->scratchPath);
    unlink(slot->upstreamOutputPath);
    unlink(slot->upstreamErrorPath);
    free(slot->inputPath);
    free(slot->scratchPath);
    free(slot->stderrPath);
    free(slot->upstreamOutputPath);
    free(slot->upstreamErrorPath);
    memoptStringBufferDestroy(&slot->mutations);
    mutatePipelineDestroy(&slot->pipeline);
  }
  free(campaign->slots);
  if (campaign->reports)
    munmap(campaign->reports, (size_t)campaign->options.jobs * sizeof *campaign->reports);
  for (size_t i = 0; i < campaign->findingCount; ++i) {
    free(campaign->findings[i].signature);
    free(campaign->findings[i].firstPath);
  }
  free(campaign->findings);
  free(campaign->upstreamCrashPath);
  free(campaign->upstreamPrinterPath);
  if (campaign->irdlPath)
    unlink(campaign->irdlPath);
  free(campaign->irdlPath);
  free(campaign->shapeCounts);
  free(campaign->shapes);
  mutateCorpusDestroy(&campaign->corpus);
  if (!mlirContextIsNull(campaign->context))
    mlirContextDestroy(campaign->context);
  if (!mlirContextIsNull(campaign->upstreamContext))
    mlirContextDestroy(campaign->upstreamContext);
  free(campaign->options.seedDirs);
  free(campaign->options.seedDirOptional);
}

/* Creates the contexts, the shared reports and the job slots. */
static bool campaignSetUp(Campaign *campaign) {
  const Options *options = &campaign->options;
  size_t jobs = (size_t)options->jobs;
  mlirRegisterAllPasses();
  campaign->context = memoptContextCreate(false);
  campaign->upstreamContext = memoptContextCreate(false);
  if (mlirContextIsNull(campaign->context) || mlirContextIsNull(campaign->upstreamContext)) {
    fprintf(stderr, "memopt-mutate: error: cannot load the memopt dialects\n");
    return false;
  }
  /* Loaded once here rather than in every child. */
  mlirContextLoadAllAvailableDialects(campaign->context);
  mlirContextLoadAllAvailableDialects(campaign->upstreamContext);
  MemoptStringBuffer work = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&work, "%s/work", options->out);
  bool ok = makeDirectory(options->out) && makeDirectory(work.data);
  campaign->irdlPath = formatPath("%s/memopt.irdl.mlir", work.data, 0);
  MemoptStringBuffer error = memoptStringBufferCreate();
  if (ok && !memoptFileWriteOutput(campaign->irdlPath, memoptDialectsIRDL(),
                                   strlen(memoptDialectsIRDL()), &error)) {
    fprintf(stderr, "memopt-mutate: error: %s\n", memoptStringBufferGet(&error));
    ok = false;
  }
  memoptStringBufferDestroy(&error);
  /* The children's reports: a file mapped shared (POSIX has no anonymous mapping). */
  char *reportsPath = formatPath("%s/reports-%zu", work.data, jobs);
  size_t bytes = jobs * sizeof *campaign->reports;
  int fd = ok ? open(reportsPath, O_RDWR | O_CREAT | O_TRUNC, 0600) : -1;
  void *mapped = fd >= 0 && ftruncate(fd, (off_t)bytes) == 0
                     ? mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                     : MAP_FAILED;
  if (ok && mapped == MAP_FAILED) {
    fprintf(stderr, "memopt-mutate: error: cannot map '%s': %s\n", reportsPath, strerror(errno));
    ok = false;
  }
  if (fd >= 0)
    close(fd);
  unlink(reportsPath);
  free(reportsPath);
  campaign->reports = mapped == MAP_FAILED ? NULL : mapped;
  campaign->slots = memoptAllocateZeroed(jobs, sizeof *campaign->slots);
  for (size_t s = 0; s < jobs; ++s) {
    Slot *slot = &campaign->slots[s];
    slot->inputPath = formatPath("%s/input-%zu.mlir", work.data, s);
    slot->scratchPath = formatPath("%s/scratch-%zu", work.data, s);
    slot->stderrPath = formatPath("%s/stderr-%zu.txt", work.data, s);
    slot->upstreamOutputPath = formatPath("%s/upstream-%zu.mlir", work.data, s);
    slot->upstreamErrorPath = formatPath("%s/upstream-stderr-%zu.txt", work.data, s);
    slot->mutations = memoptStringBufferCreate();
  }
  memoptStringBufferDestroy(&work);
  campaign->shapeCounts =
      memoptAllocateZeroed(mutatePipelineShapeCount(), sizeof *campaign->shapeCounts);
  return ok;
}

int main(int argc, char **argv) {
  Campaign campaign;
  memset(&campaign, 0, sizeof campaign);
  memoptRegisterAllPasses();
  int parsed = parseOptions(argc, argv, &campaign.options);
  if (parsed != 0) {
    free(campaign.options.seedDirs);
    free(campaign.options.seedDirOptional);
    return parsed < 0 ? 0 : 2;
  }
  int status = 2;
  if (selectShapes(&campaign) && loadSeeds(&campaign) && campaignSetUp(&campaign)) {
    struct timespec start = now();
    if (runInputs(&campaign)) {
      printSummary(&campaign, secondsBetween(start, now()));
      size_t findings = 0;
      for (int o = OUTCOME_CRASH; o < OUTCOME_COUNT; ++o)
        findings += campaign.counts[o];
      status = findings ? 1 : 0;
    }
  }
  campaignDestroy(&campaign);
  return status;
}

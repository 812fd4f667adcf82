/* memopt-mutate: mutation fuzzing of memopt's passes (python-free-docs/fuzzing.md).
 *
 *   memopt-mutate --seeds=test --count=2000              2000 inputs, seed 1, one job
 *   memopt-mutate --seeds=test --seed=7 --first=1234 --count=1   replay input 1234 of seed 7
 *
 * One MLIR context is made once; each input runs in a forked child, so a
 * crash or a hang ends only that child. The parent times children out,
 * classifies how each ended, saves every finding and prints a summary. */
#include "Campaign.h"

#include "IR/IR.h"
#include "InitAllPasses.h"

#include "mlir-c/RegisterEverything.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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
    struct timespec start = mutateNow();
    if (mutateRunInputs(&campaign)) {
      mutatePrintSummary(&campaign, mutateSecondsBetween(start, mutateNow()));
      size_t findings = 0;
      for (int o = OUTCOME_CRASH; o < OUTCOME_COUNT; ++o)
        findings += campaign.counts[o];
      status = findings ? 1 : 0;
    }
  }
  campaignDestroy(&campaign);
  return status;
}


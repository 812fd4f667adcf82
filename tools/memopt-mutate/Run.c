/* Running a campaign's inputs: one forked child per input, at most `jobs`
 * at once, each with a deadline; the parent reaps them and hands each end to
 * the classification (Classify.c). Then the summary. */
#include "Campaign.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

const char *mutateOutcomeName(Outcome outcome) {
  static const char *const names[OUTCOME_COUNT] = {
      "accepted",        "rejected",        "upstream-parser-crash", "upstream-printer-defect",
      "crash",           "sanitizer",       "hang",                  "silent-failure",
      "unlocated-error", "unparsable-output"};
  return names[outcome];
}

struct timespec mutateNow(void) {
  struct timespec time;
  clock_gettime(CLOCK_MONOTONIC, &time);
  return time;
}

double mutateSecondsBetween(struct timespec from, struct timespec to) {
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
  struct timespec deadline = mutateNow();
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
static void onChild(int signal) {}

/* Runs every input; false on a fuzzer error. */
bool mutateRunInputs(Campaign *campaign) {
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
          mutateFinishInput(campaign, s, status);
          --running;
          reaped = true;
        }
    if (reaped || !running)
      continue;
    /* Wait for a child to end, or until the earliest deadline. */
    struct timespec current = mutateNow(), earliest = {0, 0};
    bool any = false;
    for (size_t s = 0; s < jobs; ++s)
      if (campaign->slots[s].pid &&
          (!any || mutateSecondsBetween(campaign->slots[s].deadline, earliest) > 0)) {
        earliest = campaign->slots[s].deadline;
        any = true;
      }
    double wait = mutateSecondsBetween(current, earliest);
    if (wait > 0) {
      struct timespec timeout = {(time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9)};
      sigtimedwait(&childSet, NULL, &timeout);
    }
    current = mutateNow();
    for (size_t s = 0; s < jobs; ++s)
      if (campaign->slots[s].pid && !campaign->slots[s].killed &&
          mutateSecondsBetween(current, campaign->slots[s].deadline) <= 0) {
        kill(campaign->slots[s].pid, SIGKILL);
        campaign->slots[s].killed = true;
      }
  }
  sigprocmask(SIG_SETMASK, &originalMask, NULL);
  return ok;
}

void mutatePrintSummary(const Campaign *campaign, double seconds) {
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
    printf("%s %s %zu", o == OUTCOME_CRASH ? "" : ",", mutateOutcomeName(o), campaign->counts[o]);
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
           mutateOutcomeName(finding->outcome),
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


/* How an input ended, and what is kept of it: a crash, a sanitizer report,
 * a hang, a failure without a message or without a location, output upstream
 * cannot parse; an input upstream mlir-opt crashes on or prints unparsable
 * too is upstream's defect, not a finding. Findings are grouped by kind,
 * pipeline, stage and signature, and the first inputs of each are saved. */
#include "Campaign.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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
  memoptStringBufferAppendFormat(&base, "%s/%s-%llu", options->out, mutateOutcomeName(outcome),
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
                                 mutateOutcomeName(outcome), slot->index);
  *path = memoptStringBufferRelease(&name);
  MemoptStringBuffer input = memoptStringBufferCreate(), error = memoptStringBufferCreate();
  if (!memoptFileRead(slot->inputPath, &input, &error) ||
      !memoptFileWriteOutput(*path, input.data, input.length, &error))
    fprintf(stderr, "memopt-mutate: error: %s\n", memoptStringBufferGet(&error));
  memoptStringBufferDestroy(&input);
  memoptStringBufferDestroy(&error);
}

/* Classifies how the child of `slot` ended and records it. */
void mutateFinishInput(Campaign *campaign, size_t slotIndex, int status) {
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
    memoptStringBufferAppendFormat(&what, "%s in stage %s", mutateOutcomeName(outcome), stage);
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

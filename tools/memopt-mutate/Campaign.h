/* The state of one memopt-mutate campaign, shared by the driver
 * (memopt-mutate.c: options, set-up), the scheduler of child processes
 * (Run.c) and the classification of how each input ended (Classify.c).
 * Internal to tools/memopt-mutate. */
#ifndef MEMOPT_MUTATE_CAMPAIGN_H
#define MEMOPT_MUTATE_CAMPAIGN_H

#include "Mutate.h"

#include <stdio.h>
#include <sys/types.h>
#include <time.h>

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

/// Returns the name of an outcome as the summary and the finding folders spell it.
const char *mutateOutcomeName(Outcome outcome);

/// Returns the monotonic time now.
struct timespec mutateNow(void);

/// Returns the seconds from `from` to `to`.
double mutateSecondsBetween(struct timespec from, struct timespec to);

/// Classifies how the child of slot `slotIndex` ended (`status` from waitpid), counts it, saves a finding, and frees the slot (Classify.c).
void mutateFinishInput(Campaign *campaign, size_t slotIndex, int status);

/// Runs every input of the campaign in forked children, `jobs` at a time; false when one cannot be started (Run.c).
bool mutateRunInputs(Campaign *campaign);

/// Prints the counts by outcome and by pipeline, and the distinct findings (Run.c).
void mutatePrintSummary(const Campaign *campaign, double seconds);

#endif /* MEMOPT_MUTATE_CAMPAIGN_H */

/* memopt-mutate: a mutation fuzzer for memopt's passes
 * (python-free-docs/fuzzing.md).
 *
 * Seeds are MLIR files (the lit inputs, the real models); each input is a
 * seed with a few random mutations, run in a forked child through one memopt
 * pass pipeline with random options. The child's outcome is classified by the
 * parent: accepted (and the output parses upstream), rejected with a located
 * error, or a finding (crash, sanitizer report, hang, silent failure, ...).
 * Everything an input is made of derives from (--seed, its index), so one
 * input is replayed with --only=INDEX. */
#ifndef MEMOPT_MUTATE_MUTATE_H
#define MEMOPT_MUTATE_MUTATE_H

#include "Support/Support.h"
#include "Pass/Pass.h"

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*===------------------------------------------------------------------===*
 * Random numbers: one splitmix64 stream per input
 *===------------------------------------------------------------------===*/

typedef struct MutateRng {
  uint64_t state;
} MutateRng;

/// Returns the next 64 random bits of `rng` (splitmix64).
static inline uint64_t mutateRngNext(MutateRng *rng) {
  uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Returns a random number in [0, bound) (0 when `bound` is 0).
static inline size_t mutateRngBelow(MutateRng *rng, size_t bound) {
  return bound ? (size_t)(mutateRngNext(rng) % bound) : 0;
}

/// Returns the stream of input `index` of a campaign with seed `seed`.
static inline MutateRng mutateRngForInput(uint64_t seed, uint64_t index) {
  MutateRng rng = {seed * 0xD1B54A32D192ED03ull ^ (index + 1) * 0x9E3779B97F4A7C15ull};
  mutateRngNext(&rng);
  return rng;
}

/*===------------------------------------------------------------------===*
 * Seeds (Corpus.c)
 *===------------------------------------------------------------------===*/

/// One seed: a whole .mlir file, or one of its `// -----` chunks.
typedef struct MutateSeed {
  char *name; /* "path" or "path#chunk" (chunks numbered from 1), owned */
  char *text; /* owned, NUL-terminated */
  size_t length;
} MutateSeed;

/// The seeds of a campaign, in the order of their names.
typedef struct MutateCorpus {
  MutateSeed *seeds;
  size_t count;
  size_t capacity;
  size_t skippedLarge; /* chunks over the size limit, left out */
} MutateCorpus;

/// Adds every *.mlir file under `directory` (recursively), split at
/// `// -----` lines, leaving out chunks over `maxBytes`. False with the
/// reason in `error` when the directory cannot be read.
bool mutateCorpusAddDirectory(MutateCorpus *corpus, const char *directory, size_t maxBytes,
                              MemoptStringBuffer *error);

/// Sorts the seeds by name, so that a campaign does not depend on the order
/// directories list their files.
void mutateCorpusSort(MutateCorpus *corpus);

/// Frees the seeds.
void mutateCorpusDestroy(MutateCorpus *corpus);

/*===------------------------------------------------------------------===*
 * Mutations (Mutations.c)
 *===------------------------------------------------------------------===*/

/// Applies one to four random mutations to `text` (bytes that may come to
/// hold NUL), drawing from `rng`; `donor` provides lines to splice in.
/// Appends a one-line description of each mutation to `log`.
void mutateApply(MemoptStringBuffer *text, const MutateSeed *donor, MutateRng *rng,
                 MemoptStringBuffer *log);

/*===------------------------------------------------------------------===*
 * Pipelines (Pipelines.c)
 *===------------------------------------------------------------------===*/

enum { MUTATE_MAX_STEPS = 3 };

/// One pass of a pipeline with its options text ("a=1 b=x", owned).
typedef struct MutateStep {
  const MemoptPassInfo *pass;
  char *options;
} MutateStep;

/// The passes one input runs, in order.
typedef struct MutatePipeline {
  MutateStep steps[MUTATE_MAX_STEPS];
  size_t stepCount;
} MutatePipeline;

/// Returns the number of pipeline shapes inputs go through round-robin:
/// every memopt pass alone, then each producer with the pass lowering it.
size_t mutatePipelineShapeCount(void);

/// Returns the name of shape `shape` ("autochunk", "autochunk+chunk-to-scf").
const char *mutatePipelineShapeName(size_t shape);

/// Fills `pipeline` with the passes of `shape` and random options for each
/// (see Pipelines.c for how values are chosen); options that name a file to
/// write get `scratchPath`. False with the reason in `error` when a pass is
/// not registered or its chosen options do not parse (a bug of the fuzzer).
bool mutatePipelineChoose(size_t shape, MutateRng *rng, const char *scratchPath,
                          MutatePipeline *pipeline, MemoptStringBuffer *error);

/// Appends the memopt-opt flags that run `pipeline` ("'--a=x=1' --b").
void mutatePipelineDescribe(const MutatePipeline *pipeline, MemoptStringBuffer *out);

/// Frees the options of `pipeline`.
void mutatePipelineDestroy(MutatePipeline *pipeline);

/*===------------------------------------------------------------------===*
 * The child (Child.c)
 *===------------------------------------------------------------------===*/

/// How a child ended, as its exit status says. Codes 0 and 1 are what
/// memopt-opt would return; the others are findings the child detects itself.
typedef enum MutateChildStatus {
  MUTATE_ACCEPTED = 0,           /* the pipeline succeeded and its output parses upstream */
  MUTATE_REJECTED = 1,           /* failed with an error located in the input */
  MUTATE_SILENT_FAILURE = 70,    /* failed without any error diagnostic */
  MUTATE_UNLOCATED_ERROR = 71,   /* failed, but no error points at a line of the input */
  MUTATE_UNPARSABLE_OUTPUT = 72, /* succeeded with output upstream MLIR rejects */
  MUTATE_PIPELINE_INVALID = 74,  /* the pass manager could not be built (a fuzzer bug) */
} MutateChildStatus;

/// The stages of a child, recorded as it goes so that a crash names one.
typedef enum MutateStage {
  MUTATE_STAGE_READ,
  MUTATE_STAGE_PARSE,
  MUTATE_STAGE_VERIFY,
  MUTATE_STAGE_PIPELINE,
  MUTATE_STAGE_PRINT,
  MUTATE_STAGE_REPARSE,
} MutateStage;

/// Returns the name of a stage ("parse", "pipeline", ...).
const char *mutateStageName(MutateStage stage);

/// What a child leaves for the parent, in memory the two share.
typedef struct MutateChildReport {
  volatile int stage;    /* the MutateStage reached */
  volatile int finished; /* set once the child returns its status (then only exit runs) */
  char detail[1024];    /* the first diagnostic, or why the output does not parse */
  char reparseError[256]; /* the message of the first error re-parsing the output, unlocated */
} MutateChildReport;

/// Does what memopt-opt does with the file at `path` and `pipeline` in
/// `context` (threading off), then re-parses the printed output in
/// `upstreamContext` (upstream dialects and memopt's IRDL only). Returns the
/// exit status; fills `report` as it goes.
MutateChildStatus mutateRunChild(MlirContext context, MlirContext upstreamContext,
                                 const char *path, const MutatePipeline *pipeline,
                                 MutateChildReport *report);

#endif /* MEMOPT_MUTATE_MUTATE_H */

/* memopt-run internals: options, the entry function's signature, the
 * generated wrapper, lowering, subprocesses and the measurements read back
 * from memopt_rt. Every function returns its errors in a MemoptStringBuffer
 * (without a trailing newline) and prints nothing; memopt-run.c reports. */
#ifndef MEMOPT_TOOLS_MEMOPT_RUN_HARNESS_H
#define MEMOPT_TOOLS_MEMOPT_RUN_HARNESS_H

#include "Support/Support.h"

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*===------------------------------------------------------------------===*
 * Command line (Options.c)
 *===------------------------------------------------------------------===*/

typedef struct HarnessOptions {
  const char *modelPath;
  const char *entry;        /* NULL: the only public function */
  const char *pipeline;     /* NULL: no memopt-opt step */
  const char *againstPath;  /* --against: the candidate's model; NULL: modelPath */
  const char *keepDir;      /* NULL: temporary files are removed */
  long long runs;
  long long seed;
  long long dim;            /* size of every dynamic dimension; -1 when not given */
  long long limitBytes;     /* --limit-bytes: memopt_rt's eviction limit; 0 when not given */
  long long timeoutSeconds; /* --timeout: longest subprocess run; 0 for no limit */
  long long ranks;          /* --ranks: MPI processes; 0 when not given */
  const char *mpirun;       /* --mpirun: MPICH's launcher; NULL: mpirun.mpich on PATH */
  const char *mpiLibrary;   /* --mpi-library: MPICH's shared library; NULL: the one found at build time */
  double tolerance;         /* relative, on sum and abs_sum (with --ranks: on every element) */
  double absTolerance;      /* absolute, added to the relative tolerance */
  bool compare;
  bool fillElided;
  bool printOutputs;
  bool help;
} HarnessOptions;

/// Parses the command line into `options`; false with a message in `error`.
bool harnessOptionsParse(int argc, char **argv, HarnessOptions *options, MemoptStringBuffer *error);

/// Appends the --help text to `out`.
void harnessOptionsHelp(MemoptStringBuffer *out);

/*===------------------------------------------------------------------===*
 * The entry function (Entry.c)
 *===------------------------------------------------------------------===*/

/// Element types memopt-run can generate and checksum.
typedef enum HarnessElement {
  HarnessF64,
  HarnessF32,
  HarnessF16,
  HarnessBF16,
  HarnessI64,
  HarnessI32,
  HarnessI16,
  HarnessI8,
  HarnessI1,
  HarnessIndex, /* checksummed as i64 */
} HarnessElement;

/// One argument or result of the entry: a ranked tensor or a scalar.
typedef struct HarnessValueType {
  bool isTensor;
  HarnessElement element;
  intptr_t rank;
  int64_t *shape;          /* rank extents; dynamic ones are mlirShapedTypeGetDynamicSize() */
  MlirType type;
  char *spelling;          /* the type as MLIR prints it */
  char *elementSpelling;   /* the element type as MLIR prints it */
} HarnessValueType;

/// One step of a view: a collapse_shape, expand_shape or extract_slice of
/// tensors, its properties (a dictionary) and the type it makes.
typedef struct HarnessViewStep {
  MlirStringRef op; /* owned by the context */
  MlirAttribute properties;
  MlirType type;
} HarnessViewStep;

/// How an argument is made from another one, as place-to-shard marks a
/// hoisted view (`memopt.view`): `steps` applied in turn to argument
/// `source`; `source` is -1 for an argument that is no view.
typedef struct HarnessArgumentView {
  intptr_t source;
  HarnessViewStep *steps; /* owned by the entry */
  size_t stepCount;
} HarnessArgumentView;

typedef struct HarnessEntry {
  MlirOperation function;  /* the func.func, owned by its module */
  char *name;
  HarnessValueType *arguments;
  HarnessArgumentView *views; /* one per argument */
  size_t argumentCount;
  HarnessValueType *results;
  size_t resultCount;
} HarnessEntry;

/// Finds the entry in `module`: the function named `name`, or, when `name` is
/// NULL, the only public func.func with a body. Checks that every argument and
/// result has a supported type and that every `memopt.view` is well formed.
/// Fills `entry` (release with harnessEntryDestroy) or returns false with the
/// reason in `error`.
bool harnessEntryFind(MlirModule module, const char *name, HarnessEntry *entry,
                      MemoptStringBuffer *error);

/// Frees what `entry` owns (not the function).
void harnessEntryDestroy(HarnessEntry *entry);

/// Returns the MLIR spelling of a supported element ("f32", "index", ...).
const char *harnessElementName(HarnessElement element);

/// Returns true for f64, f32, f16 and bf16.
bool harnessElementIsFloat(HarnessElement element);

/*===------------------------------------------------------------------===*
 * The wrapper (Wrapper.c)
 *===------------------------------------------------------------------===*/

struct HarnessShardPlan;

/// How the wrapper drives the entry.
typedef struct HarnessWrapperSpec {
  long long runs;
  long long seed;
  long long dim;      /* -1: dynamic dimensions are an error */
  bool printOutputs;
  /* Not NULL: the entry is partitioned by this plan; the wrapper starts and
   * ends MPI, and each rank generates its slice of the global inputs (the
   * whole inputs for a pipeline driver, whose plan has no grid). */
  const struct HarnessShardPlan *shards;
  /* Per argument: generated, or made as its `memopt.view` of its source's
   * input, a view of that input's buffer. */
  const struct HarnessMadeView *madeViews;
} HarnessWrapperSpec;

/// How the wrapper makes an argument: generated (`made` false), or as its
/// `memopt.view` of its source's input: by the recorded steps (`localSizes`
/// NULL) or, on ranks, by the view's one extract_slice with `localSizes`
/// (from the rank's slice of the source to its slice of the view).
typedef struct HarnessMadeView {
  bool made;
  int64_t *localSizes;
} HarnessMadeView;

/// Adds to `module` a public function that creates the entry's inputs, times
/// `spec->runs` calls between memopt_rt's run markers and checksums every
/// result of the last call; marks the entry's arguments read-only and makes
/// every other function private so that only what the entry needs is
/// compiled. Returns the wrapper's name (caller frees) or NULL with `error`.
char *harnessWrapperInsert(MlirModule module, const HarnessEntry *entry,
                           const HarnessWrapperSpec *spec, MemoptStringBuffer *error);

/// Returns the deterministic value of element `linearIndex` of argument
/// `argument` under `seed`, as the wrapper computes it for float arguments.
double harnessFloatInputValue(long long seed, size_t argument, int64_t linearIndex);

/// Returns the deterministic value of element `linearIndex` of argument
/// `argument` under `seed`, as the wrapper computes it for integer arguments
/// (`modulus` 16, or 2 for i1).
long long harnessIntegerInputValue(long long seed, size_t argument, int64_t linearIndex,
                                   long long modulus);

/*===------------------------------------------------------------------===*
 * Constants without data (ElidedConstants.c)
 *===------------------------------------------------------------------===*/

/// Finds the constants of `module` whose data was elided
/// (dense_resource<__elided__>). Without `fill`, emits an error at each and
/// returns false with `error` when there is any. With `fill`, gives each the
/// generated values of the input formulas (argument number 1000 + k for the
/// k-th), sets `*filled` to their number, and returns false with `error` (and
/// an error at the constant) when an element type cannot be generated.
bool harnessElidedConstantsResolve(MlirModule module, bool fill, long long seed, size_t *filled,
                                   MemoptStringBuffer *error);

/*===------------------------------------------------------------------===*
 * Lowering (Lowering.c)
 *===------------------------------------------------------------------===*/

/// The textual pipeline from tensors to the LLVM dialect that memopt-run uses.
const char *harnessLoweringPipeline(void);

/// Lowers `module` in place to the LLVM dialect (the upstream passes must be
/// registered: mlirRegisterAllPasses); false with `error` (the caller collects
/// diagnostics through the context). With `mpi`, shard ops are lowered to the
/// mpi dialect for MPICH first, and the module is left as mlir-runner parses it.
bool harnessLower(MlirModule module, bool mpi, MemoptStringBuffer *error);

/// Runs the textual pass pipeline `pipeline` on `module`; false with `error`.
bool harnessRunPipeline(MlirModule module, const char *pipeline, MemoptStringBuffer *error);

/// Writes `op` in textual form to `path`; false with `error`.
bool harnessWriteOperation(MlirOperation op, const char *path, MemoptStringBuffer *error);

/*===------------------------------------------------------------------===*
 * Files and processes (Process.c)
 *===------------------------------------------------------------------===*/

/// A directory for intermediate files.
typedef struct HarnessWorkDir {
  char *path;
  bool keep; /* leave everything in place at the end */
} HarnessWorkDir;

/// Creates a fresh temporary directory, or uses (creating it if needed)
/// `keepDir` when it is not NULL; false with `error`.
bool harnessWorkDirCreate(const char *keepDir, HarnessWorkDir *dir, MemoptStringBuffer *error);

/// Returns the path of `name` in `dir` (caller frees).
char *harnessWorkDirFile(const HarnessWorkDir *dir, const char *name);

/// Removes the temporary directory and everything in it unless `dir->keep`,
/// then frees `dir`'s memory.
void harnessWorkDirDestroy(HarnessWorkDir *dir);

/// Returns the directory holding the running executable (caller frees), or
/// NULL with `error`.
char *harnessExecutableDir(MemoptStringBuffer *error);

/// How a finished subprocess ended.
typedef struct HarnessExit {
  bool exited;   /* false: killed by a signal */
  int code;      /* exit code, or the signal number */
} HarnessExit;

/// Runs `argv` (argv[0] is a path) in this process's environment plus
/// `extraEnvironment` ("NAME=value" entries, NULL-terminated; NULL for none),
/// standard input from /dev/null, standard output and standard error
/// redirected to the given files, and waits for it; false with `error` only
/// when it could not be started.
/// A run that takes over `timeoutSeconds` (0: no limit), or during which
/// memopt-run is asked to stop (harnessStopOnSignals), is killed and fails
/// with `error`.
bool harnessRunProcess(char *const argv[], char *const extraEnvironment[], const char *stdoutPath,
                       const char *stderrPath, long long timeoutSeconds, HarnessExit *exit,
                       MemoptStringBuffer *error);

/// Makes SIGINT, SIGTERM and SIGHUP stop memopt-run at its next step (a
/// running subprocess is killed), so that it can remove its files first.
void harnessStopOnSignals(void);

/// Returns the signal that asked memopt-run to stop, or 0.
int harnessStopSignal(void);

/// Ends memopt-run by the signal that asked it to stop, as if uncaught.
void harnessRaiseStopSignal(void);

/// Appends a description of `exit` ("exit code 2", "signal 11 (Segmentation fault)").
void harnessExitDescribe(HarnessExit exit, MemoptStringBuffer *out);

/*===------------------------------------------------------------------===*
 * Measurements (Measurement.c)
 *===------------------------------------------------------------------===*/

typedef struct HarnessRun {
  int64_t timeNanoseconds;
  int64_t cpuNanoseconds;
  int64_t peakBytes;
  int64_t liveBeforeBytes;
  int64_t liveAfterBytes;
  int64_t allocations;
  int64_t evictions;        /* 0 when the report has no such field */
  int64_t recomputedOperations; /* 0 when the report has no such field */
} HarnessRun;

typedef struct HarnessOutput {
  char *element;   /* as memopt_rt names it: "f32", "i64", ... */
  char *shape;     /* "4x4"; "" for rank 0 */
  int64_t count;
  uint64_t hash;
  double sum;
  double absSum;
  int64_t nonfinite;
  char *values;    /* with --print-outputs, else NULL */
} HarnessOutput;

/// What one execution of the wrapper reported.
typedef struct HarnessMeasurement {
  HarnessRun *runs;
  size_t runCount;
  HarnessOutput *outputs;
  size_t outputCount;
} HarnessMeasurement;

/// Reads memopt_rt's report from the program's standard output; checks that
/// it holds `runs` runs and outputs 0..`outputs`-1 in order. Other lines are
/// ignored. False with `error` when the report is malformed or incomplete.
bool harnessMeasurementParse(const char *text, size_t runs, size_t outputs,
                             HarnessMeasurement *measurement, MemoptStringBuffer *error);

/// Frees what `measurement` owns.
void harnessMeasurementDestroy(HarnessMeasurement *measurement);

/// Which time of a run: wall clock, or the CPU time of the thread that ran it
/// (unaffected by other processes taking turns on the same cores).
typedef enum HarnessClock { HarnessWallClock, HarnessCpuClock } HarnessClock;

/// Returns the median run time on `clock` in milliseconds (mean of the middle two for an even count).
double harnessMedianMilliseconds(const HarnessMeasurement *measurement, HarnessClock clock);

/// Returns the fastest run time on `clock` in milliseconds.
double harnessMinimumMilliseconds(const HarnessMeasurement *measurement, HarnessClock clock);

/// Returns the highest peak over the runs.
int64_t harnessPeakBytes(const HarnessMeasurement *measurement);

/// How two outputs relate.
typedef enum HarnessVerdict {
  HarnessBitIdentical,
  HarnessWithinTolerance,
  HarnessDifferent,
} HarnessVerdict;

/// Compares two outputs: bit-identical when shapes, element types and hashes
/// agree; within tolerance when shapes and non-finite counts agree and sum
/// and abs_sum differ by at most `absTolerance` plus `tolerance` times the
/// larger abs_sum. Appends the reason for any verdict but bit-identical to
/// `why`.
HarnessVerdict harnessOutputCompare(const HarnessOutput *a, const HarnessOutput *b,
                                    double tolerance, double absTolerance,
                                    MemoptStringBuffer *why);

/*===------------------------------------------------------------------===*
 * Running on MPI ranks (Ranks.c)
 *===------------------------------------------------------------------===*/

/// How one argument or result of the entry is split over the grid.
typedef struct HarnessShardedValue {
  intptr_t rank;        /* of the tensor; 0 for a scalar */
  int64_t *globalShape; /* rank extents */
  int64_t *localShape;  /* rank extents: one rank's slice */
  int64_t *splitAxes;   /* rank rows of gridRank grid axes each, -1 padded */
} HarnessShardedValue;

/// The grid the entry runs on and the slices of its arguments and results.
typedef struct HarnessShardPlan {
  char *gridName;
  intptr_t gridRank;
  int64_t *gridShape;
  int64_t devices;
  HarnessShardedValue *arguments;
  size_t argumentCount;
  HarnessShardedValue *results;
  size_t resultCount;
  int64_t predictedBytes; /* the entry's place.memory_bytes_per_device; -1 when it has none */
  /* A pipeline driver (harnessPipelinePlanRead): its stage count (0: the
   * entry is not one; `gridName` is then NULL and nothing is split), and per
   * rank the stage function it calls, that function's
   * place.memory_bytes_per_device (-1: none) and the bytes of the entry's
   * arguments its case reads. */
  int64_t pipelineStages;
  char **stageNames;
  int64_t *stagePredictedBytes;
  int64_t *stageInputBytes;
} HarnessShardPlan;

/// Reads the plan from `entry` after sharding-propagation: the one grid its
/// shard ops use (with exactly `ranks` devices) and the shardings of its
/// arguments and results (static, evenly divisible), and the memory per
/// device place-search predicted for it, when place-to-shard left it on the
/// entry (an integer place.memory_bytes_per_device). Emits the reason at the
/// offending op and returns false with `error`. Release with harnessShardPlanDestroy.
bool harnessShardPlanRead(MlirModule module, const HarnessEntry *entry, long long ranks,
                          HarnessShardPlan *plan, MemoptStringBuffer *error);

/// Checks that the partitioned `entry` has the slice types the plan expects.
bool harnessShardPlanCheckPartitioned(const HarnessShardPlan *plan, const HarnessEntry *entry,
                                      MemoptStringBuffer *error);

/// Frees what `plan` owns.
void harnessShardPlanDestroy(HarnessShardPlan *plan);

/// The sizes of the extract_slice that makes each rank's slice of argument
/// `argument`'s `memopt.view` from its slice of the view's source, when the
/// view is one extract_slice with unit strides that takes whole every
/// dimension the plan splits the source along and keeps it, split the same
/// way; NULL (nothing made on ranks) otherwise. The caller frees them.
int64_t *harnessShardPlanViewSlice(const HarnessShardPlan *plan, const HarnessEntry *entry,
                                   size_t argument);

/// Returns true when `plan` splits dimension `d` of `value` over a grid axis (each rank holds a slice of it).
bool harnessShardPlanSplitsDimension(const HarnessShardPlan *plan,
                                     const HarnessShardedValue *value, intptr_t d);

/// Returns true when `plan` splits some dimension of argument `argument` (false without a grid).
bool harnessShardPlanSplitsArgument(const HarnessShardPlan *plan, size_t argument);

/// Writes to `offsets` (value->rank entries) where rank `rank`'s slice of `value` starts.
void harnessShardOffsets(const HarnessShardPlan *plan, const HarnessShardedValue *value,
                         int64_t rank, int64_t *offsets);

/// Removes every shard.shard, shard.sharding and shard.grid op of `module`:
/// the single-device program. False (with an error at the op) when the module
/// holds another shard op.
bool harnessShardAnnotationsStrip(MlirModule module, MemoptStringBuffer *error);

/// Reads `count` numbers from memopt_rt's printed values; false when there
/// are fewer or more.
bool harnessValuesParse(const char *text, int64_t count, double *values);

/// Returns the largest difference between `slice` (localShape, at `offsets`
/// of the global tensor) and the same elements of `reference` (globalShape),
/// relative to the largest magnitude of `reference` (absolute when that is 0),
/// which goes to `scale`; the worst element's local index goes to
/// `worstIndex`. Infinite when non-finite values differ.
double harnessSliceMaxRelativeError(const double *reference, const int64_t *globalShape,
                                    const double *slice, const int64_t *localShape,
                                    const int64_t *offsets, intptr_t rank, int64_t *worstIndex,
                                    double *scale);

/*===------------------------------------------------------------------===*
 * A pipeline driver on MPI ranks (Pipeline.c)
 *===------------------------------------------------------------------===*/

/// Returns the number of stages `function` drives (its place.pipeline_stages), 0 when it is no pipeline driver.
int64_t harnessPipelineStages(MlirOperation function);

/// Reads the plan of a pipeline driver `entry`: one rank per stage (false with the error at the entry when `ranks` differs), every argument and result whole on every rank, and per rank its stage, that stage's prediction and the bytes of the arguments it reads. Release with harnessShardPlanDestroy.
bool harnessPipelinePlanRead(MlirModule module, const HarnessEntry *entry, long long ranks,
                             HarnessShardPlan *plan, MemoptStringBuffer *error);

/// Rewrites the pipeline driver `entry` into the program one process runs: its cases in rank order, each received tensor replaced by the one sent with its tag, no mpi op left; false with `error` when the driver is not as place-to-shard emits it.
bool harnessPipelineSequential(const HarnessEntry *entry, MemoptStringBuffer *error);

/*===------------------------------------------------------------------===*
 * One invocation and its variants
 *===------------------------------------------------------------------===*/

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
  bool stripShards;      /* and a pipeline driver's stages run in sequence */
  long long ranks;
  HarnessShardPlan plan;
  HarnessMeasurement *rankMeasurements;
  /* Per argument of the entry: made as its `memopt.view` (see
   * HarnessWrapperSpec); the reference follows the ranked variant's
   * `madeViews` (`followViews`, NULL otherwise) so that both run on the same
   * inputs. */
  HarnessMadeView *madeViews;
  size_t madeViewCount;
  const HarnessMadeView *followViews;
  size_t followViewCount;
} Variant;

/// Prints one variant's report on standard output.
void harnessPrintSingle(const Harness *harness, const Variant *variant);

/// Prints the --compare report of two variants; returns false when their
/// outputs differ beyond the tolerance.
bool harnessPrintComparison(const Harness *harness, const Variant *baseline, const Variant *candidate);

/// Prints the --ranks report: every rank's slice of every output against the
/// single-device run, and every rank's peak; returns false when an output
/// differs beyond the tolerance.
bool harnessPrintRanks(const Harness *harness, const Variant *unsharded, const Variant *ranked);

#endif /* MEMOPT_TOOLS_MEMOPT_RUN_HARNESS_H */

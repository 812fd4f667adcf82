/* memopt-run's command line: `--name=value` or `--name value`, strict
 * numbers, a suggestion for misspelled flags. */
#include "Harness.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef enum OptionKind { FlagOption, StringOption, IntegerOption, NumberOption } OptionKind;

typedef struct OptionInfo {
  const char *name;
  OptionKind kind;
  const char *valueName;
  const char *help;
} OptionInfo;

static const OptionInfo optionTable[] = {
    {"entry", StringOption, "NAME", "function to run (default: the only public function with a body)"},
    {"pipeline", StringOption, "PIPELINE",
     "run `memopt-opt --pass-pipeline=PIPELINE` on the model first"},
    {"runs", IntegerOption, "N", "number of timed calls (default 3)"},
    {"seed", IntegerOption, "S", "seed of the generated inputs (default 0)"},
    {"dim", IntegerOption, "N", "size of every dynamic dimension of the inputs"},
    {"limit-bytes", IntegerOption, "N",
     "memopt_rt evicts evictable buffers to keep a call under N bytes (MEMOPT_RT_LIMIT_BYTES)"},
    {"compare", FlagOption, NULL,
     "run the model without and with --pipeline (or --against) and compare"},
    {"against", StringOption, "FILE", "with --compare: the candidate is FILE instead of the model"},
    {"tolerance", NumberOption, "REL",
     "relative tolerance on sum and abs_sum for --compare (default 1e-5; 0: bit-identical only)"},
    {"abs-tolerance", NumberOption, "ABS",
     "absolute tolerance added to the relative one (default 0): outputs that are zero in exact "
     "arithmetic are rounding noise in both runs"},
    {"fill-elided", FlagOption, NULL,
     "give constants whose data was elided (dense_resource<__elided__>) generated values"},
    {"keep", StringOption, "DIR", "write the intermediate files to DIR and keep them"},
    {"timeout", IntegerOption, "SECONDS",
     "stop a lowering or a program run that takes longer (default: no limit)"},
    {"print-outputs", FlagOption, NULL, "print the values of every result"},
    {"ranks", IntegerOption, "N",
     "partition the model's shard ops over N MPI ranks (or run a pipeline driver, one stage "
     "per rank), run it with MPICH and compare every rank's results with the single-device run"},
    {"mpirun", StringOption, "PATH", "with --ranks: MPICH's launcher (default: mpirun.mpich on PATH)"},
    {"mpi-library", StringOption, "PATH",
     "with --ranks: MPICH's shared library (default: the libmpich.so found at build time)"},
    {"help", FlagOption, NULL, "show this help"},
};

enum { OptionCount = sizeof optionTable / sizeof *optionTable };

void harnessOptionsHelp(MemoptStringBuffer *out) {
  memoptStringBufferAppendCString(
      out, "usage: memopt-run MODEL.mlir [options]\n\n"
           "Runs the model's entry function on deterministic inputs under mlir-runner and\n"
           "prints its peak heap memory, its run time and checksums of its results.\n\n"
           "options:\n");
  for (size_t i = 0; i < OptionCount; ++i) {
    const OptionInfo *option = &optionTable[i];
    MemoptStringBuffer flag = memoptStringBufferCreate();
    memoptStringBufferAppendFormat(&flag, "--%s%s%s", option->name, option->valueName ? "=" : "",
                                   option->valueName ? option->valueName : "");
    memoptStringBufferAppendFormat(out, "  %-22s %s\n", flag.data, option->help);
    memoptStringBufferDestroy(&flag);
  }
  memoptStringBufferAppendCString(out, "\nThe fields printed are described in "
                                       "python-free-docs/harness.md.\n");
}

static const OptionInfo *lookupOption(const char *name, size_t length) {
  for (size_t i = 0; i < OptionCount; ++i)
    if (strlen(optionTable[i].name) == length && memcmp(optionTable[i].name, name, length) == 0)
      return &optionTable[i];
  return NULL;
}

static void unknownOption(const char *argument, const char *name, size_t length,
                          MemoptStringBuffer *error) {
  char *given = memoptStrndup(name, length);
  const char *best = NULL;
  size_t bestDistance = 3; /* suggest only close names */
  for (size_t i = 0; i < OptionCount; ++i) {
    size_t distance = memoptEditDistance(given, optionTable[i].name);
    if (distance < bestDistance) {
      bestDistance = distance;
      best = optionTable[i].name;
    }
  }
  memoptStringBufferAppendFormat(error, "unknown option '%s'", argument);
  if (best)
    memoptStringBufferAppendFormat(error, "; did you mean '--%s'?", best);
  free(given);
}

static bool setValue(HarnessOptions *options, const OptionInfo *option, const char *value,
                     MemoptStringBuffer *error) {
  const char *name = option->name;
  if (option->kind == IntegerOption) {
    long long number;
    long long minimum = strcmp(name, "seed") == 0 ? 0 : 1;
    if (!memoptParseInt64InRange(value, minimum, LLONG_MAX, &number)) {
      memoptStringBufferAppendFormat(error, "'--%s' needs an integer >= %lld, not '%s'", name,
                                     minimum, value);
      return false;
    }
    if (strcmp(name, "runs") == 0)
      options->runs = number;
    else if (strcmp(name, "seed") == 0)
      options->seed = number;
    else if (strcmp(name, "limit-bytes") == 0)
      options->limitBytes = number;
    else if (strcmp(name, "timeout") == 0)
      options->timeoutSeconds = number;
    else if (strcmp(name, "ranks") == 0)
      options->ranks = number;
    else
      options->dim = number;
    return true;
  }
  if (option->kind == NumberOption) {
    double *number = strcmp(name, "tolerance") == 0 ? &options->tolerance
                                                    : &options->absTolerance;
    if (!memoptParseDouble(value, number) || *number < 0) {
      memoptStringBufferAppendFormat(error, "'--%s' needs a number >= 0, not '%s'", name, value);
      return false;
    }
    return true;
  }
  if (!*value) {
    memoptStringBufferAppendFormat(error, "'--%s' needs a non-empty value", name);
    return false;
  }
  if (strcmp(name, "entry") == 0)
    options->entry = value;
  else if (strcmp(name, "pipeline") == 0)
    options->pipeline = value;
  else if (strcmp(name, "against") == 0)
    options->againstPath = value;
  else if (strcmp(name, "mpirun") == 0)
    options->mpirun = value;
  else if (strcmp(name, "mpi-library") == 0)
    options->mpiLibrary = value;
  else
    options->keepDir = value;
  return true;
}

static void setFlag(HarnessOptions *options, const OptionInfo *option) {
  if (strcmp(option->name, "compare") == 0)
    options->compare = true;
  else if (strcmp(option->name, "fill-elided") == 0)
    options->fillElided = true;
  else if (strcmp(option->name, "print-outputs") == 0)
    options->printOutputs = true;
  else
    options->help = true;
}

bool harnessOptionsParse(int argc, char **argv, HarnessOptions *options, MemoptStringBuffer *error) {
  memset(options, 0, sizeof *options);
  options->runs = 3;
  options->dim = -1;
  options->tolerance = 1e-5;
  for (int i = 1; i < argc; ++i) {
    const char *argument = argv[i];
    if (argument[0] != '-' || strcmp(argument, "-") == 0) {
      if (options->modelPath) {
        memoptStringBufferAppendFormat(error, "more than one model given ('%s' and '%s')",
                                       options->modelPath, argument);
        return false;
      }
      options->modelPath = argument;
      continue;
    }
    if (strcmp(argument, "-h") == 0) {
      options->help = true;
      continue;
    }
    const char *name = argument + (argument[1] == '-' ? 2 : 1);
    const char *equals = strchr(name, '=');
    size_t nameLength = equals ? (size_t)(equals - name) : strlen(name);
    const OptionInfo *option = lookupOption(name, nameLength);
    if (!option) {
      unknownOption(argument, name, nameLength, error);
      return false;
    }
    if (option->kind == FlagOption) {
      if (equals) {
        memoptStringBufferAppendFormat(error, "'--%s' takes no value", option->name);
        return false;
      }
      setFlag(options, option);
      continue;
    }
    const char *value = equals ? equals + 1 : (i + 1 < argc ? argv[++i] : NULL);
    if (!value) {
      memoptStringBufferAppendFormat(error, "'--%s' needs a value", option->name);
      return false;
    }
    if (!setValue(options, option, value, error))
      return false;
  }
  if (options->help)
    return true;
  if (!options->modelPath) {
    memoptStringBufferAppendCString(error, "no model given");
    return false;
  }
  if (options->compare && !options->pipeline && !options->againstPath) {
    memoptStringBufferAppendCString(error, "'--compare' needs '--pipeline' or '--against'");
    return false;
  }
  if (options->ranks && options->compare) {
    memoptStringBufferAppendCString(error, "'--ranks' compares with the single-device run itself; "
                                           "it does not combine with '--compare'");
    return false;
  }
  if ((options->mpirun || options->mpiLibrary) && !options->ranks) {
    memoptStringBufferAppendFormat(error, "'--%s' is only meaningful with '--ranks'",
                                   options->mpirun ? "mpirun" : "mpi-library");
    return false;
  }
  if (options->againstPath && !options->compare) {
    memoptStringBufferAppendCString(error, "'--against' is only meaningful with '--compare'");
    return false;
  }
  return true;
}

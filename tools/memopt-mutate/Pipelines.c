/* The pipelines inputs run through, and the random options of their passes.
 *
 * Every memopt pass runs alone, and each pass that creates memopt ops also
 * runs with the pass that lowers them, so that the lowering sees what its
 * producer makes of a mutated input. Options are drawn from the pass's own
 * table (MemoptPassOptionInfo): each is set with probability 1/2 to a value of
 * its kind within its bounds. */
#include "Mutate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Producers followed by the pass that lowers what they create. */
static const char *const chains[][MUTATE_MAX_STEPS] = {
    {"autochunk", "chunk-to-scf", NULL},
    {"spm-fold-norm-scale", "spm-pin-fuse", "spm-to-memref"},
    {"remat-dynamic", "remat-to-runtime", NULL},
    {"place-search", "place-to-shard", NULL},
    {"memory-schedule", "inplace-elementwise", "autochunk"},
};

enum { CHAIN_COUNT = sizeof chains / sizeof *chains };

/* String options are names of presets or shapes, not free text: the values
 * to try for each, by option name (valid ones: the fuzzer varies the input,
 * not the command line). */
static const struct {
  const char *option;
  const char *values[4];
} stringValues[] = {
    {"target", {"spm-512k", "spm-2m", "spm-8m", NULL}},
    {"baseline", {"1,1,1", "2,4,8", NULL, NULL}},
};

size_t mutatePipelineShapeCount(void) { return memoptPassCount() + CHAIN_COUNT; }

const char *mutatePipelineShapeName(size_t shape) {
  static char names[CHAIN_COUNT][128];
  if (shape < memoptPassCount())
    return memoptPassAt(shape)->argument;
  size_t chain = shape - memoptPassCount();
  if (!names[chain][0]) {
    size_t used = 0;
    for (size_t i = 0; i < MUTATE_MAX_STEPS && chains[chain][i]; ++i)
      used += (size_t)snprintf(names[chain] + used, sizeof names[chain] - used, "%s%s",
                               i ? "+" : "", chains[chain][i]);
  }
  return names[chain];
}

/* A random value of a numeric option, within [minimum, maximum]: mostly
 * near the default (a quarter of it to four times it), sometimes a bound. */
static double chooseNumber(const MemoptPassOptionInfo *option, double defaultValue,
                           MutateRng *rng) {
  double low = option->minimum, high = option->maximum;
  switch (mutateRngBelow(rng, 8)) {
  case 0:
    return low;
  case 1:
    return high;
  case 2:
    return low + (double)mutateRngBelow(rng, 4);
  default: {
    double center = defaultValue != 0 ? fabs(defaultValue) : 16;
    /* Log-uniform in [center/4, center*4]. */
    double factor = pow(2.0, ((double)mutateRngBelow(rng, 4001) - 2000.0) / 1000.0);
    return center * factor;
  }
  }
}

/* True for a solver's time budget (`ilp-time-limit`, `time-limit`): a hard
 * ILP runs as long as it is allowed, and defaults of 10 or 20 s would turn
 * the per-input timeout into a judge of the budget, not of the pass. */
static bool isTimeBudget(const MemoptPassOptionInfo *option) {
  static const char suffix[] = "time-limit";
  size_t length = strlen(option->name);
  return length >= sizeof suffix - 1 &&
         strcmp(option->name + length - (sizeof suffix - 1), suffix) == 0;
}

static void appendOption(const MemoptPassOptionInfo *option, MutateRng *rng,
                         const char *scratchPath, MemoptStringBuffer *out) {
  size_t start = out->length;
  memoptStringBufferAppendFormat(out, "%s%s=", out->length ? " " : "", option->name);
  double defaultValue = 0;
  if (isTimeBudget(option)) {
    /* Always given, from 0.05 to 1 second. */
    memoptStringBufferAppendFormat(out, "%.3f", 0.05 + 0.95 * (double)mutateRngBelow(rng, 1001) / 1000.0);
    return;
  }
  switch (option->kind) {
  case MemoptOptionBool:
    memoptStringBufferAppendCString(out, mutateRngBelow(rng, 2) ? "true" : "false");
    return;
  case MemoptOptionChoice: {
    size_t words = 1;
    for (const char *p = option->choices; *p; ++p)
      words += *p == '|';
    const char *word = option->choices;
    for (size_t pick = mutateRngBelow(rng, words); pick; --pick)
      word = strchr(word, '|') + 1;
    memoptStringBufferAppend(out, word, strcspn(word, "|"));
    return;
  }
  case MemoptOptionString:
    for (size_t i = 0; i < sizeof stringValues / sizeof *stringValues; ++i)
      if (strcmp(stringValues[i].option, option->name) == 0) {
        size_t values = 0;
        while (values < 4 && stringValues[i].values[values])
          ++values;
        memoptStringBufferAppendFormat(out, "\"%s\"",
                                       stringValues[i].values[mutateRngBelow(rng, values)]);
        return;
      }
    /* A string option of no known kind keeps its default. */
    out->length = start;
    out->data[start] = '\0';
    return;
  case MemoptOptionOutputFile:
    /* Reports go to the scratch file, or nowhere. */
    memoptStringBufferAppendFormat(out, "\"%s\"", mutateRngBelow(rng, 2) ? scratchPath : "");
    return;
  case MemoptOptionInteger:
  case MemoptOptionBytes: {
    long long parsed = 0;
    if (memoptParseInt64(option->defaultValue, &parsed))
      defaultValue = (double)parsed;
    double value = chooseNumber(option, defaultValue, rng);
    value = fmin(fmax(round(value), option->minimum), option->maximum);
    /* Within a long long whatever the bounds. */
    memoptStringBufferAppendFormat(out, "%lld", (long long)fmin(fmax(value, -9e18), 9e18));
    return;
  }
  case MemoptOptionFloat: {
    memoptParseDouble(option->defaultValue, &defaultValue);
    double value = fmin(fmax(chooseNumber(option, defaultValue, rng), option->minimum),
                        option->maximum);
    memoptStringBufferAppendFormat(out, "%.17g", value);
    return;
  }
  }
}

bool mutatePipelineChoose(size_t shape, MutateRng *rng, const char *scratchPath,
                          MutatePipeline *pipeline, MemoptStringBuffer *error) {
  *pipeline = (MutatePipeline){0};
  const char *names[MUTATE_MAX_STEPS] = {NULL, NULL, NULL};
  if (shape < memoptPassCount())
    names[0] = memoptPassAt(shape)->argument;
  else
    memcpy(names, chains[shape - memoptPassCount()], sizeof names);
  for (size_t i = 0; i < MUTATE_MAX_STEPS && names[i]; ++i) {
    MutateStep *step = &pipeline->steps[pipeline->stepCount++];
    step->pass = memoptPassLookup(names[i], strlen(names[i]));
    if (!step->pass) {
      memoptStringBufferAppendFormat(error, "no memopt pass is named '%s'", names[i]);
      return false;
    }
    /* Each drawn option is kept only if the pass still accepts its options:
     * bounds alone do not say everything (spm-pin-fuse refuses spm-bytes=0),
     * and the command line is not what is fuzzed. */
    MemoptStringBuffer options = memoptStringBufferCreate(), rejected = memoptStringBufferCreate();
    for (size_t o = 0; o < step->pass->optionCount; ++o) {
      if (!isTimeBudget(&step->pass->options[o]) && !mutateRngBelow(rng, 2))
        continue;
      size_t before = options.length;
      appendOption(&step->pass->options[o], rng, scratchPath, &options);
      size_t offset = 0;
      MemoptPassOptions *parsed =
          memoptPassOptionsParse(step->pass, memoptStringBufferGet(&options), &rejected, &offset);
      if (parsed) {
        memoptPassOptionsDestroy(parsed);
      } else if (options.data) {
        options.length = before;
        options.data[before] = '\0';
      }
      memoptStringBufferClear(&rejected);
    }
    memoptStringBufferDestroy(&rejected);
    step->options = memoptStringBufferRelease(&options);
    if (!step->options)
      step->options = memoptStrndup("", 0);
    size_t offset = 0;
    MemoptPassOptions *parsed = memoptPassOptionsParse(step->pass, step->options, error, &offset);
    if (!parsed) {
      memoptStringBufferAppendFormat(error, " (options '%s' chosen for %s)", step->options,
                                     names[i]);
      return false;
    }
    memoptPassOptionsDestroy(parsed);
  }
  return true;
}

void mutatePipelineDescribe(const MutatePipeline *pipeline, MemoptStringBuffer *out) {
  for (size_t i = 0; i < pipeline->stepCount; ++i) {
    const MutateStep *step = &pipeline->steps[i];
    if (*step->options)
      memoptStringBufferAppendFormat(out, "%s'--%s=%s'", i ? " " : "", step->pass->argument,
                                     step->options);
    else
      memoptStringBufferAppendFormat(out, "%s--%s", i ? " " : "", step->pass->argument);
  }
}

void mutatePipelineDestroy(MutatePipeline *pipeline) {
  for (size_t i = 0; i < pipeline->stepCount; ++i)
    free(pipeline->steps[i].options);
  *pipeline = (MutatePipeline){0};
}

/* Command-line parsing. One table describes every option; a model lists the
 * options it uses (with defaults) in the model table, so an option given to a
 * model that ignores it is an error rather than silently dropped. */
#include "Options.h"

#include <stddef.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

typedef enum OptionKind { OPTION_SIZE, OPTION_FLAG, OPTION_DTYPE, OPTION_NORM } OptionKind;

typedef struct OptionInfo {
  const char *name;
  OptionKind kind;
  size_t offset;
  bool everyModel; /* accepted by all models (not listed in model option strings) */
  const char *help;
} OptionInfo;

#define FIELD(name) offsetof(ZooOptions, name)

static const OptionInfo kOptions[] = {
    {"batch", OPTION_SIZE, FIELD(batch), false, "batch size (dynamic with --dynamic)"},
    {"seq", OPTION_SIZE, FIELD(seq), false, "sequence length (dynamic with --dynamic)"},
    {"hidden", OPTION_SIZE, FIELD(hidden), false,
     "model width: hidden size; MSA channels c_m (evoformer); base channels (unet); "
     "channels (unet-attention)"},
    {"heads", OPTION_SIZE, FIELD(heads), false, "attention heads"},
    {"kv-heads", OPTION_SIZE, FIELD(kvHeads), false,
     "key/value heads, grouped-query attention (auto: = heads)"},
    {"layers", OPTION_SIZE, FIELD(layers), false,
     "transformer layers; evoformer blocks; residual blocks per unet level"},
    {"intermediate", OPTION_SIZE, FIELD(intermediate), false,
     "feed-forward width (auto: 4*hidden; llama: 8/3*hidden rounded up)"},
    {"vocab", OPTION_SIZE, FIELD(vocab), false, "vocabulary size"},
    {"positions", OPTION_SIZE, FIELD(positions), false,
     "learned position embeddings (GPT-2 n_ctx); --seq must not exceed it"},
    {"resolution", OPTION_SIZE, FIELD(resolution), false, "input image height and width"},
    {"channels", OPTION_SIZE, FIELD(channels), false, "input image channels"},
    {"classes", OPTION_SIZE, FIELD(classes), false, "classifier outputs"},
    {"groups", OPTION_SIZE, FIELD(groups), false, "GroupNorm groups"},
    {"msa", OPTION_SIZE, FIELD(msa), false, "MSA sequences N_seq (dynamic with --dynamic)"},
    {"residues", OPTION_SIZE, FIELD(residues), false, "residues N_res (dynamic with --dynamic)"},
    {"pair-channels", OPTION_SIZE, FIELD(pairChannels), false, "pair channels c_z"},
    {"pair-heads", OPTION_SIZE, FIELD(pairHeads), false, "triangle attention heads"},
    {"outer-channels", OPTION_SIZE, FIELD(outerChannels), false, "outer product mean channels"},
    {"blocks", OPTION_SIZE, FIELD(blocks), false,
     "keep only the first N blocks of a CNN, then its head (auto: all)"},
    {"levels", OPTION_SIZE, FIELD(levels), false,
     "unet resolution levels (channel multipliers 1, 2, 2, ...)"},
    {"norm", OPTION_NORM, FIELD(norm), false, "batch | instance | none"},
    {"causal", OPTION_FLAG, FIELD(causal), false, "mask attention to earlier positions"},
    {"dtype", OPTION_DTYPE, FIELD(dtype), true,
     "f32 | f16 | bf16 (f64 too, for numerical checks); default f32"},
    {"dynamic", OPTION_FLAG, FIELD(dynamic), true,
     "batch and sequence dims become `?` (see each model)"},
    {"train", OPTION_FLAG, FIELD(train), true,
     "emit @train_step: forward, loss, backward; returns the loss and every weight gradient"},
    {"with-main", OPTION_FLAG, FIELD(withMain), true,
     "append @main: deterministic arguments, call, print results (for mlir-runner)"},
};

enum { kOptionCount = sizeof kOptions / sizeof kOptions[0] };

static const OptionInfo *findOption(const char *name, size_t length, int *index) {
  for (int i = 0; i < kOptionCount; ++i)
    if (strlen(kOptions[i].name) == length && strncmp(kOptions[i].name, name, length) == 0) {
      *index = i;
      return &kOptions[i];
    }
  return NULL;
}

static void suggestOption(const char *name, MemoptStringBuffer *error) {
  const char *best = NULL;
  size_t bestDistance = 3; /* farther than this is no suggestion */
  const char *names[kOptionCount + 3];
  int count = 0;
  for (int i = 0; i < kOptionCount; ++i)
    names[count++] = kOptions[i].name;
  names[count++] = "help";
  names[count++] = "list";
  for (int i = 0; i < count; ++i) {
    size_t distance = memoptEditDistance(name, names[i]);
    if (distance < bestDistance) {
      bestDistance = distance;
      best = names[i];
    }
  }
  if (best)
    memoptStringBufferAppendFormat(error, "; did you mean '--%s'?", best);
}

static bool setValue(ZooOptions *options, const OptionInfo *option, const char *value,
                     MemoptStringBuffer *error) {
  char *field = (char *)options + option->offset;
  switch (option->kind) {
  case OPTION_FLAG:
    if (value) {
      memoptStringBufferAppendFormat(error, "option --%s takes no value", option->name);
      return false;
    }
    *(bool *)field = true;
    return true;
  case OPTION_SIZE: {
    long long number;
    if (!value || !memoptParseInt64(value, &number)) {
      memoptStringBufferAppendFormat(error, "option --%s needs an integer value (--%s=N)%s%s%s",
                                     option->name, option->name, value ? ", got '" : "",
                                     value ? value : "", value ? "'" : "");
      return false;
    }
    if (number <= 0) {
      memoptStringBufferAppendFormat(error, "option --%s must be positive, got %lld", option->name,
                                     number);
      return false;
    }
    if (number > ZOO_MAX_OPTION_VALUE) {
      memoptStringBufferAppendFormat(error, "option --%s=%lld is too large (at most 2^40)",
                                     option->name, number);
      return false;
    }
    *(long long *)field = number;
    return true;
  }
  case OPTION_DTYPE: {
    static const struct {
      const char *name;
      ZooElementType type;
    } kTypes[] = {{"f32", ZOO_F32}, {"f16", ZOO_F16}, {"bf16", ZOO_BF16}, {"f64", ZOO_F64}};
    for (size_t i = 0; value && i < sizeof kTypes / sizeof kTypes[0]; ++i)
      if (strcmp(value, kTypes[i].name) == 0) {
        *(ZooElementType *)field = kTypes[i].type;
        return true;
      }
    memoptStringBufferAppendFormat(error, "option --dtype must be f32, f16 or bf16 (or f64), got '%s'",
                                   value ? value : "");
    return false;
  }
  case OPTION_NORM: {
    static const char *const kNames[] = {"batch", "instance", "none"};
    for (int i = 0; value && i < 3; ++i)
      if (strcmp(value, kNames[i]) == 0) {
        *(ZooNormKind *)field = (ZooNormKind)i;
        return true;
      }
    memoptStringBufferAppendFormat(error, "option --norm must be batch, instance or none, got '%s'",
                                   value ? value : "");
    return false;
  }
  }
  return false;
}

bool zooParseCommandLine(int argc, char **argv, ZooOptions *options, ZooCommand *command,
                         MemoptStringBuffer *error) {
  memset(options, 0, sizeof *options);
  options->dtype = ZOO_F32;
  options->output = "-";
  *command = ZOO_COMMAND_GENERATE;
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i];
    if (strcmp(arg, "-o") == 0) {
      if (i + 1 >= argc) {
        memoptStringBufferAppendCString(error, "option -o needs a file name");
        return false;
      }
      options->output = argv[++i];
      continue;
    }
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      *command = ZOO_COMMAND_HELP;
      continue;
    }
    if (strcmp(arg, "--list") == 0) {
      *command = ZOO_COMMAND_LIST;
      continue;
    }
    if (memoptStartsWith(arg, "--")) {
      const char *name = arg + 2;
      const char *equals = strchr(name, '=');
      size_t length = equals ? (size_t)(equals - name) : strlen(name);
      int index;
      const OptionInfo *option = findOption(name, length, &index);
      if (!option) {
        char *bare = memoptStrndup(name, length);
        memoptStringBufferAppendFormat(error, "unknown option '--%s'", bare);
        suggestOption(bare, error);
        free(bare);
        return false;
      }
      if (!setValue(options, option, equals ? equals + 1 : NULL, error))
        return false;
      options->explicitly |= 1ull << index;
      continue;
    }
    if (arg[0] == '-' && arg[1] != '\0') {
      memoptStringBufferAppendFormat(error, "unknown option '%s'", arg);
      return false;
    }
    if (options->model) {
      memoptStringBufferAppendFormat(error, "unexpected argument '%s' (model '%s' already given)",
                                     arg, options->model);
      return false;
    }
    options->model = arg;
  }
  if (*command == ZOO_COMMAND_GENERATE && !options->model) {
    memoptStringBufferAppendCString(error, "no model given; `memopt-zoo --list` names them");
    return false;
  }
  return true;
}

/* Calls `visit` for each "name[=default]" token of a model's option string. */
static bool forEachModelOption(const char *modelOptions,
                               bool (*visit)(const char *name, size_t length, const char *value,
                                             size_t valueLength, void *context),
                               void *context) {
  const char *cursor = modelOptions;
  while (*cursor) {
    while (*cursor == ' ')
      ++cursor;
    if (!*cursor)
      break;
    const char *end = cursor;
    while (*end && *end != ' ')
      ++end;
    const char *equals = memchr(cursor, '=', (size_t)(end - cursor));
    size_t nameLength = equals ? (size_t)(equals - cursor) : (size_t)(end - cursor);
    const char *value = equals ? equals + 1 : NULL;
    size_t valueLength = equals ? (size_t)(end - value) : 0;
    if (!visit(cursor, nameLength, value, valueLength, context))
      return false;
    cursor = end;
  }
  return true;
}

typedef struct ApplyContext {
  ZooOptions *options;
  unsigned long long used;
  MemoptStringBuffer *error;
} ApplyContext;

static bool applyDefault(const char *name, size_t length, const char *value, size_t valueLength,
                         void *context) {
  ApplyContext *apply = context;
  int index;
  const OptionInfo *option = findOption(name, length, &index);
  if (!option) {
    memoptStringBufferAppendFormat(apply->error, "internal: model option '%.*s' unknown",
                                   (int)length, name);
    return false;
  }
  apply->used |= 1ull << index;
  if (apply->options->explicitly & (1ull << index))
    return true;
  char *text = value ? memoptStrndup(value, valueLength) : NULL;
  bool ok = true;
  if (option->kind == OPTION_SIZE && text && strcmp(text, "auto") == 0)
    *(long long *)((char *)apply->options + option->offset) = 0; /* derived by configure */
  else if (option->kind != OPTION_FLAG)
    ok = setValue(apply->options, option, text, apply->error);
  free(text);
  return ok;
}

bool zooApplyModelOptions(ZooOptions *options, const char *modelOptions, MemoptStringBuffer *error) {
  ApplyContext apply = {options, 0, error};
  if (!forEachModelOption(modelOptions, applyDefault, &apply))
    return false;
  for (int i = 0; i < kOptionCount; ++i) {
    bool given = options->explicitly & (1ull << i);
    if (given && !kOptions[i].everyModel && !(apply.used & (1ull << i))) {
      memoptStringBufferAppendFormat(error, "option --%s does not apply to model '%s' (it uses: %s)",
                                     kOptions[i].name, options->model, modelOptions);
      return false;
    }
  }
  return true;
}

void zooAppendUsage(MemoptStringBuffer *out) {
  memoptStringBufferAppendCString(
      out, "usage: memopt-zoo MODEL [--OPTION=VALUE ...] [-o FILE]\n"
           "       memopt-zoo --list | --help\n\n"
           "Writes a deep-learning model as upstream MLIR (linalg on tensors): the public\n"
           "entry function @forward (or @train_step with --train) with the weights as\n"
           "arguments. Layouts: NHWC images, HWCF filters, [in, out] linear weights.\n\n"
           "options:\n"
           "  -o FILE              write to FILE atomically (default: standard output)\n"
           "  --list               name every model with a one-line summary\n"
           "  --help               this text\n");
  for (int i = 0; i < kOptionCount; ++i) {
    char left[64];
    const char *value = kOptions[i].kind == OPTION_FLAG    ? ""
                        : kOptions[i].kind == OPTION_SIZE ? "=N"
                        : kOptions[i].kind == OPTION_DTYPE ? "=TYPE"
                                                           : "=KIND";
    snprintf(left, sizeof left, "--%s%s", kOptions[i].name, value);
    memoptStringBufferAppendFormat(out, "  %-20s %s\n", left, kOptions[i].help);
  }
}

typedef struct SummaryContext {
  const ZooOptions *options;
  MemoptStringBuffer *out;
} SummaryContext;

static bool appendOne(const char *name, size_t length, const char *value, size_t valueLength,
                      void *context) {
  (void)value;
  (void)valueLength;
  SummaryContext *summary = context;
  int index;
  const OptionInfo *option = findOption(name, length, &index);
  if (!option)
    return true;
  const char *field = (const char *)summary->options + option->offset;
  switch (option->kind) {
  case OPTION_SIZE:
    memoptStringBufferAppendFormat(summary->out, " --%s=%lld", option->name, *(const long long *)field);
    break;
  case OPTION_FLAG:
    if (*(const bool *)field)
      memoptStringBufferAppendFormat(summary->out, " --%s", option->name);
    break;
  case OPTION_NORM: {
    static const char *const kNames[] = {"batch", "instance", "none"};
    memoptStringBufferAppendFormat(summary->out, " --norm=%s", kNames[*(const ZooNormKind *)field]);
    break;
  }
  case OPTION_DTYPE:
    break;
  }
  return true;
}

void zooAppendOptionSummary(const ZooOptions *options, const char *modelOptions,
                            MemoptStringBuffer *out) {
  SummaryContext summary = {options, out};
  forEachModelOption(modelOptions, appendOne, &summary);
  memoptStringBufferAppendFormat(out, " --dtype=%s", zooElementTypeName(options->dtype));
  if (options->dynamic)
    memoptStringBufferAppendCString(out, " --dynamic");
  if (options->train)
    memoptStringBufferAppendCString(out, " --train");
  if (options->withMain)
    memoptStringBufferAppendCString(out, " --with-main");
}

/* Typed pass options parsed from MLIR's textual form: `a=1 b="x y" c={...}`. */
#include "Pass/Pass.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct OptionValue {
  bool set; /* given by the user rather than defaulted */
  char *text; /* canonical text, owned */
  long long integer;
  double real;
  bool flag;
} OptionValue;

struct MemoptPassOptions {
  const MemoptPassInfo *pass;
  OptionValue *values; /* one per pass->options entry */
};

static const MemoptPassOptionInfo *findOption(const MemoptPassInfo *pass, const char *name,
                                              size_t length, size_t *index) {
  for (size_t i = 0; i < pass->optionCount; ++i)
    if (strlen(pass->options[i].name) == length &&
        memcmp(pass->options[i].name, name, length) == 0) {
      *index = i;
      return &pass->options[i];
    }
  return NULL;
}

static bool choiceContains(const char *choices, const char *word) {
  size_t length = strlen(word);
  for (const char *p = choices; *p;) {
    const char *end = strchr(p, '|');
    size_t wordLength = end ? (size_t)(end - p) : strlen(p);
    if (wordLength == length && memcmp(p, word, length) == 0)
      return true;
    if (!end)
      break;
    p = end + 1;
  }
  return false;
}

/* Parses a byte count with an optional binary (KiB) or decimal (KB) suffix. */
static bool parseBytes(const char *text, long long *out) {
  static const struct {
    const char *suffix;
    double scale;
  } units[] = {{"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0},
               {"TiB", 1099511627776.0}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9},
               {"TB", 1e12}, {"B", 1.0}};
  size_t length = strlen(text);
  for (size_t i = 0; i < sizeof units / sizeof *units; ++i) {
    size_t suffixLength = strlen(units[i].suffix);
    if (length > suffixLength && strcmp(text + length - suffixLength, units[i].suffix) == 0) {
      char *number = memoptStrndup(text, length - suffixLength);
      double value;
      bool ok = memoptParseDouble(number, &value);
      free(number);
      value *= units[i].scale;
      if (!ok || value != floor(value) || fabs(value) > 9.0e18)
        return false;
      *out = (long long)value;
      return true;
    }
  }
  return memoptParseInt64(text, out);
}

/* Returns true when the folder a file at `path` would be created in exists,
 * so that a pass cannot fail at its end for an output file named wrong. */
static bool folderExists(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash)
    return true;
  char *folder = memoptStrndup(path, slash == path ? 1 : (size_t)(slash - path));
  struct stat status;
  bool exists = stat(folder, &status) == 0 && S_ISDIR(status.st_mode);
  free(folder);
  return exists;
}

/* Converts `text` to a value of option `info`; false with a message on error. */
static bool convert(const MemoptPassOptionInfo *info, const char *text, OptionValue *value,
                    MemoptStringBuffer *error) {
  double numeric = 0;
  switch (info->kind) {
  case MemoptOptionInteger:
    if (!memoptParseInt64(text, &value->integer)) {
      memoptStringBufferAppendFormat(error, "option '%s' expects an integer, got '%s'",
                                     info->name, text);
      return false;
    }
    numeric = (double)value->integer;
    break;
  case MemoptOptionBytes:
    if (!parseBytes(text, &value->integer)) {
      memoptStringBufferAppendFormat(
          error, "option '%s' expects a byte count such as 4096, 512KiB or 2MiB, got '%s'",
          info->name, text);
      return false;
    }
    numeric = (double)value->integer;
    break;
  case MemoptOptionFloat:
    if (!memoptParseDouble(text, &value->real)) {
      memoptStringBufferAppendFormat(error, "option '%s' expects a number, got '%s'", info->name,
                                     text);
      return false;
    }
    numeric = value->real;
    break;
  case MemoptOptionBool:
    if (strcmp(text, "true") == 0 || strcmp(text, "1") == 0)
      value->flag = true;
    else if (strcmp(text, "false") == 0 || strcmp(text, "0") == 0)
      value->flag = false;
    else {
      memoptStringBufferAppendFormat(error, "option '%s' expects true or false, got '%s'",
                                     info->name, text);
      return false;
    }
    break;
  case MemoptOptionChoice:
    if (!choiceContains(info->choices, text)) {
      memoptStringBufferAppendFormat(error, "option '%s' must be one of %s, got '%s'", info->name,
                                     info->choices, text);
      return false;
    }
    break;
  case MemoptOptionString:
    break;
  case MemoptOptionOutputFile:
    if (*text && !folderExists(text)) {
      memoptStringBufferAppendFormat(error, "option '%s': cannot write '%s': its folder does not exist",
                                     info->name, text);
      return false;
    }
    break;
  }
  bool numericKind = info->kind == MemoptOptionInteger || info->kind == MemoptOptionBytes ||
                     info->kind == MemoptOptionFloat;
  if (numericKind && (numeric < info->minimum || numeric > info->maximum)) {
    memoptStringBufferAppendFormat(error, "option '%s' must be in [%g, %g], got '%s'", info->name,
                                   info->minimum, info->maximum, text);
    return false;
  }
  /* Keep the canonical spelling so printed pipelines are stable. */
  MemoptStringBuffer canonical = memoptStringBufferCreate();
  if (info->kind == MemoptOptionInteger || info->kind == MemoptOptionBytes)
    memoptStringBufferAppendFormat(&canonical, "%lld", value->integer);
  else if (info->kind == MemoptOptionFloat)
    memoptStringBufferAppendFormat(&canonical, "%.17g", value->real);
  else if (info->kind == MemoptOptionBool)
    memoptStringBufferAppendCString(&canonical, value->flag ? "true" : "false");
  else
    memoptStringBufferAppendCString(&canonical, text);
  free(value->text);
  value->text = memoptStringBufferRelease(&canonical);
  return true;
}

/* Finds the end of a value starting at `p`: quoted, braced or bare. */
static const char *valueEnd(const char *p, MemoptStringBuffer *error) {
  if (*p == '"' || *p == '\'') {
    const char *close = strchr(p + 1, *p);
    if (!close)
      memoptStringBufferAppendCString(error, "unterminated quoted option value");
    return close ? close + 1 : NULL;
  }
  if (*p == '{') {
    int depth = 0;
    for (const char *q = p; *q; ++q) {
      if (*q == '{')
        ++depth;
      else if (*q == '}' && --depth == 0)
        return q + 1;
    }
    memoptStringBufferAppendCString(error, "unbalanced '{' in option value");
    return NULL;
  }
  while (*p && !isspace((unsigned char)*p))
    ++p;
  return p;
}

/* Strips one level of quotes or braces around a value. */
static char *unwrapValue(const char *begin, const char *end) {
  if (end - begin >= 2 && ((*begin == '"' && end[-1] == '"') ||
                           (*begin == '\'' && end[-1] == '\'') ||
                           (*begin == '{' && end[-1] == '}')))
    return memoptStrndup(begin + 1, (size_t)(end - begin - 2));
  return memoptStrndup(begin, (size_t)(end - begin));
}

static MemoptPassOptions *createDefaults(const MemoptPassInfo *pass) {
  MemoptPassOptions *options = memoptAllocateZeroed(1, sizeof *options);
  OptionValue *values = memoptAllocateZeroed(pass->optionCount, sizeof *values);
  options->pass = pass;
  options->values = values;
  return options;
}

MemoptPassOptions *memoptPassOptionsParse(const MemoptPassInfo *pass, const char *text,
                                          MemoptStringBuffer *error, size_t *errorOffset) {
  MemoptPassOptions *options = createDefaults(pass);
  for (size_t i = 0; i < pass->optionCount; ++i)
    if (!convert(&pass->options[i], pass->options[i].defaultValue, &options->values[i], error)) {
      /* A bad default is a bug in the pass table, reported like user input. */
      *errorOffset = 0;
      memoptPassOptionsDestroy(options);
      return NULL;
    }
  const char *p = text;
  for (;;) {
    while (isspace((unsigned char)*p))
      ++p;
    if (!*p)
      break;
    const char *nameBegin = p;
    while (*p && *p != '=' && !isspace((unsigned char)*p))
      ++p;
    size_t nameLength = (size_t)(p - nameBegin);
    *errorOffset = (size_t)(nameBegin - text);
    size_t index;
    const MemoptPassOptionInfo *info = findOption(pass, nameBegin, nameLength, &index);
    if (!info) {
      memoptStringBufferAppendFormat(error, "unknown option '%.*s' for pass '%s'",
                                     (int)nameLength, nameBegin, pass->argument);
      const char *closest = NULL;
      size_t best = (size_t)-1;
      char *name = memoptStrndup(nameBegin, nameLength);
      for (size_t i = 0; i < pass->optionCount; ++i) {
        size_t distance = memoptEditDistance(name, pass->options[i].name);
        if (distance < best) {
          best = distance;
          closest = pass->options[i].name;
        }
      }
      free(name);
      if (closest && best <= (strlen(closest) + 2) / 3)
        memoptStringBufferAppendFormat(error, "; did you mean '%s'?", closest);
      else if (pass->optionCount == 0)
        memoptStringBufferAppendCString(error, "; it takes no options");
      memoptPassOptionsDestroy(options);
      return NULL;
    }
    if (options->values[index].set) {
      memoptStringBufferAppendFormat(error, "option '%s' of pass '%s' given twice", info->name,
                                     pass->argument);
      memoptPassOptionsDestroy(options);
      return NULL;
    }
    char *value;
    if (*p == '=') {
      const char *valueBegin = ++p;
      const char *end = valueEnd(valueBegin, error);
      if (!end) {
        memoptPassOptionsDestroy(options);
        return NULL;
      }
      value = unwrapValue(valueBegin, end);
      p = end;
    } else if (info->kind == MemoptOptionBool) {
      value = memoptStrndup("true", 4);
    } else {
      memoptStringBufferAppendFormat(error, "option '%s' needs a value: %s=...", info->name,
                                     info->name);
      memoptPassOptionsDestroy(options);
      return NULL;
    }
    bool ok = convert(info, value, &options->values[index], error);
    free(value);
    if (!ok) {
      memoptPassOptionsDestroy(options);
      return NULL;
    }
    options->values[index].set = true;
  }
  if (pass->checkOptions && !pass->checkOptions(options, error)) {
    *errorOffset = 0;
    memoptPassOptionsDestroy(options);
    return NULL;
  }
  return options;
}

MemoptPassOptions *memoptPassOptionsClone(const MemoptPassOptions *options) {
  MemoptPassOptions *copy = createDefaults(options->pass);
  for (size_t i = 0; i < options->pass->optionCount; ++i) {
    copy->values[i] = options->values[i];
    copy->values[i].text = memoptStrndup(options->values[i].text, strlen(options->values[i].text));
  }
  return copy;
}

void memoptPassOptionsDestroy(MemoptPassOptions *options) {
  if (!options)
    return;
  for (size_t i = 0; i < options->pass->optionCount; ++i)
    free(options->values[i].text);
  free(options->values);
  free(options);
}

/* Looking up an option the pass does not declare is a programming error. */
static const OptionValue *valueOf(const MemoptPassOptions *options, const char *name) {
  size_t index;
  if (!findOption(options->pass, name, strlen(name), &index))
    abort();
  return &options->values[index];
}

bool memoptPassOptionsIsSet(const MemoptPassOptions *options, const char *name) {
  return valueOf(options, name)->set;
}

long long memoptPassOptionsGetInteger(const MemoptPassOptions *options, const char *name) {
  return valueOf(options, name)->integer;
}

double memoptPassOptionsGetFloat(const MemoptPassOptions *options, const char *name) {
  return valueOf(options, name)->real;
}

bool memoptPassOptionsGetBool(const MemoptPassOptions *options, const char *name) {
  return valueOf(options, name)->flag;
}

const char *memoptPassOptionsGetString(const MemoptPassOptions *options, const char *name) {
  return valueOf(options, name)->text;
}

void memoptPassOptionsPrint(const MemoptPassOptions *options, MemoptStringBuffer *out) {
  for (size_t i = 0; i < options->pass->optionCount; ++i) {
    const char *text = options->values[i].text;
    bool needsQuotes = strpbrk(text, " \t{}") != NULL || *text == '\0';
    memoptStringBufferAppendFormat(out, "%s%s=%s%s%s", i ? " " : "", options->pass->options[i].name,
                                   needsQuotes ? "'" : "", text, needsQuotes ? "'" : "");
  }
}

/* memopt-zoo: writes realistic deep-learning models as upstream MLIR text.
 * Errors are one line `memopt-zoo: error: ...` on stderr with exit code 1, and
 * no output file is written (the output is built in memory, then written
 * atomically). */
#include "Models.h"

#include <stdio.h>
#include <string.h>

static int fail(const char *message) {
  fprintf(stderr, "memopt-zoo: error: %s\n", message);
  return 1;
}

static void listModels(MemoptStringBuffer *out) {
  int count;
  const ZooModelInfo *models = zooModelTable(&count);
  for (int i = 0; i < count; ++i)
    memoptStringBufferAppendFormat(out, "%-16s %s\n", models[i].name, models[i].summary);
}

static void appendHelp(MemoptStringBuffer *out) {
  zooAppendUsage(out);
  memoptStringBufferAppendCString(out, "\nmodels (options they use, with defaults):\n");
  int count;
  const ZooModelInfo *models = zooModelTable(&count);
  for (int i = 0; i < count; ++i)
    memoptStringBufferAppendFormat(out, "  %-16s %s\n", models[i].name, models[i].options);
  memoptStringBufferAppendCString(out, "\nSee python-free-docs/zoo.md for what each model contains.\n");
}

/* The command line as one string, for the provenance comment. */
static void joinArguments(int argc, char **argv, MemoptStringBuffer *out) {
  memoptStringBufferAppendCString(out, "memopt-zoo");
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "-o") == 0) {
      ++i; /* the output path says nothing about the model */
      continue;
    }
    memoptStringBufferAppendFormat(out, " %s", argv[i]);
  }
}

int main(int argc, char **argv) {
  ZooOptions options;
  ZooCommand command;
  MemoptStringBuffer error = memoptStringBufferCreate();
  MemoptStringBuffer text = memoptStringBufferCreate();
  int status = 0;
  if (!zooParseCommandLine(argc, argv, &options, &command, &error)) {
    status = fail(memoptStringBufferGet(&error));
    goto done;
  }
  if (command != ZOO_COMMAND_GENERATE) {
    if (command == ZOO_COMMAND_LIST)
      listModels(&text);
    else
      appendHelp(&text);
    fputs(memoptStringBufferGet(&text), stdout);
    goto done;
  }
  const ZooModelInfo *model = zooFindModel(options.model);
  if (!model) {
    memoptStringBufferAppendFormat(&error, "unknown model '%s'; did you mean '%s'? (`memopt-zoo --list` names them all)",
                                   options.model, zooClosestModelName(options.model));
    status = fail(memoptStringBufferGet(&error));
    goto done;
  }
  if (!zooApplyModelOptions(&options, model->options, &error) || !model->configure(&options, &error)) {
    status = fail(memoptStringBufferGet(&error));
    goto done;
  }
  if (options.layers > ZOO_MAX_LAYERS) {
    memoptStringBufferAppendFormat(&error, "option --layers=%lld is too large (at most %d)",
                                   options.layers, ZOO_MAX_LAYERS);
    status = fail(memoptStringBufferGet(&error));
    goto done;
  }
  MemoptStringBuffer commandLine = memoptStringBufferCreate();
  joinArguments(argc, argv, &commandLine);
  bool generated = zooGenerate(&options, model, memoptStringBufferGet(&commandLine), &text, &error);
  memoptStringBufferDestroy(&commandLine);
  if (!generated ||
      !memoptFileWriteOutput(options.output, memoptStringBufferGet(&text), text.length, &error))
    status = fail(memoptStringBufferGet(&error));
done:
  memoptStringBufferDestroy(&error);
  memoptStringBufferDestroy(&text);
  return status;
}

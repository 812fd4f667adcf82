/* memopt-fuzz: prints seeded random linalg-on-tensors programs for
 * differential testing (python-free-docs/difftest.md).
 *
 *   memopt-fuzz --seed=7                       one program, @main
 *   memopt-fuzz --seed=7 --drop=2,5            the same with nodes 2 and 5 dropped
 *   memopt-fuzz --seed=100 --count=50          50 programs, `// -----` between them */
#include "Program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Options {
  FuzzOptions fuzz;
  long long count;
  const char *drop;
  const char *output;
} Options;

static void printUsage(FILE *stream) {
  fprintf(stream,
          "usage: memopt-fuzz [--seed=N] [--nodes=N] [--dynamic] [--max-dim=N] [--count=N]\n"
          "                   [--drop=I,J,...] [-o FILE]\n"
          "  --seed=N     the program (default 0); with --count, the first of N seeds\n"
          "  --nodes=N    ops in the DAG (default: 3 to 12, chosen by the seed)\n"
          "  --dynamic    dim 0 of the inputs, and what follows it, is dynamic ('?'); all\n"
          "               dynamic dims have the size in the header's dim= (memopt-run --dim)\n"
          "  --max-dim=N  largest static extent (default 16)\n"
          "  --count=N    print N programs (seeds N..N+count-1) separated by '// -----'\n"
          "  --drop=LIST  leave out these nodes (0-based); their results become arguments\n"
          "  -o FILE      write FILE instead of standard output (a regular file atomically)\n");
}

/* Parses `--name=N` into `out` within [low, high]; false (with a message) otherwise. */
static bool parseNumber(const char *arg, const char *name, long long low, long long high,
                        long long *out) {
  const char *text = arg + strlen(name) + 1;
  if (!memoptParseInt64InRange(text, low, high, out)) {
    fprintf(stderr, "memopt-fuzz: error: %s needs a number from %lld to %lld, not '%s'\n", name,
            low, high, text);
    return false;
  }
  return true;
}

static bool parseOptions(int argc, char **argv, Options *options, bool *helpOnly) {
  *options = (Options){.fuzz = {.maxDim = 16}, .count = 1, .output = "-"};
  *helpOnly = false;
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i];
    long long number = 0;
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      *helpOnly = true;
      return true;
    } else if (strcmp(arg, "--dynamic") == 0) {
      options->fuzz.dynamicDims = true;
    } else if (memoptStartsWith(arg, "--seed=")) {
      if (!parseNumber(arg, "--seed", 0, (long long)(~0ull >> 1), &number))
        return false;
      options->fuzz.seed = (uint64_t)number;
    } else if (memoptStartsWith(arg, "--nodes=")) {
      if (!parseNumber(arg, "--nodes", 1, 200, &number))
        return false;
      options->fuzz.nodeCount = (int)number;
    } else if (memoptStartsWith(arg, "--max-dim=")) {
      if (!parseNumber(arg, "--max-dim", 2, 4096, &number))
        return false;
      options->fuzz.maxDim = (int)number;
    } else if (memoptStartsWith(arg, "--count=")) {
      if (!parseNumber(arg, "--count", 1, 1000000, &options->count))
        return false;
    } else if (memoptStartsWith(arg, "--drop=")) {
      options->drop = arg + strlen("--drop=");
    } else if (strcmp(arg, "-o") == 0 && i + 1 < argc) {
      options->output = argv[++i];
    } else {
      fprintf(stderr, "memopt-fuzz: error: unknown argument '%s'\n", arg);
      printUsage(stderr);
      return false;
    }
  }
  if (options->drop && options->count != 1) {
    fprintf(stderr, "memopt-fuzz: error: --drop applies to one program, not --count=%lld\n",
            options->count);
    return false;
  }
  return true;
}

/* Turns "2,5" into flags over the program's nodes; false on a bad list. */
static bool parseDrops(const char *list, size_t nodeCount, bool *dropped) {
  const char *cursor = list;
  while (*cursor) {
    char *end = NULL;
    long long node = strtoll(cursor, &end, 10);
    if (end == cursor || node < 0 || (size_t)node >= nodeCount || (*end && *end != ',')) {
      fprintf(stderr, "memopt-fuzz: error: --drop=%s: nodes are numbers from 0 to %zu\n", list,
              nodeCount - 1);
      return false;
    }
    dropped[node] = true;
    cursor = *end ? end + 1 : end;
  }
  return true;
}

int main(int argc, char **argv) {
  Options options;
  bool helpOnly;
  if (!parseOptions(argc, argv, &options, &helpOnly))
    return 1;
  if (helpOnly) {
    printUsage(stdout);
    return 0;
  }
  MemoptStringBuffer out = memoptStringBufferCreate();
  bool ok = true;
  for (long long k = 0; ok && k < options.count; ++k) {
    FuzzOptions fuzz = options.fuzz;
    fuzz.seed += (uint64_t)k;
    FuzzProgram program = fuzzProgramGenerate(&fuzz);
    bool *dropped = NULL;
    if (options.drop) {
      dropped = memoptAllocateZeroed(program.nodeCount, sizeof(bool));
      ok = parseDrops(options.drop, program.nodeCount, dropped);
    }
    if (k > 0)
      memoptStringBufferAppendCString(&out, "// -----\n");
    if (ok)
      fuzzProgramPrint(&program, dropped, &out);
    free(dropped);
    fuzzProgramDestroy(&program);
  }
  MemoptStringBuffer error = memoptStringBufferCreate();
  if (ok && !memoptFileWriteOutput(options.output, memoptStringBufferGet(&out), out.length, &error)) {
    fprintf(stderr, "memopt-fuzz: error: %s\n", memoptStringBufferGet(&error));
    ok = false;
  }
  memoptStringBufferDestroy(&out);
  memoptStringBufferDestroy(&error);
  return ok ? 0 : 1;
}

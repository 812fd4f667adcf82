/* memopt-zoo command-line options: parsing, per-model defaults and checks. */
#ifndef MEMOPT_ZOO_OPTIONS_H
#define MEMOPT_ZOO_OPTIONS_H

#include "Layers.h"

#include "Support/Support.h"

#include <stdbool.h>

/* Largest value any size option accepts; the 2^48-byte tensor limit is
 * checked separately on every tensor a model creates. */
#define ZOO_MAX_OPTION_VALUE (1LL << 40)
#define ZOO_MAX_LAYERS 1000

typedef struct ZooOptions {
  const char *model;
  long long batch, seq, hidden, heads, kvHeads, layers, intermediate, vocab, positions;
  long long resolution, channels, classes, groups, msa, residues, pairChannels, pairHeads;
  long long outerChannels, blocks, levels;
  ZooElementType dtype;
  ZooNormKind norm;
  bool dynamic, train, withMain, causal;
  const char *output;          /* "-" for standard output */
  unsigned long long explicitly; /* bit i: option-table entry i was given */
} ZooOptions;

typedef enum ZooCommand { ZOO_COMMAND_GENERATE, ZOO_COMMAND_LIST, ZOO_COMMAND_HELP } ZooCommand;

/// Parses argv into `options` (model still unresolved); false with `error` on bad input.
bool zooParseCommandLine(int argc, char **argv, ZooOptions *options, ZooCommand *command,
                         MemoptStringBuffer *error);

/// Applies the defaults of `modelOptions` ("batch=1 seq=512 causal ...") to the
/// options not given, and rejects given options that the model does not use.
bool zooApplyModelOptions(ZooOptions *options, const char *modelOptions, MemoptStringBuffer *error);

/// Appends the usage text, including every option's description.
void zooAppendUsage(MemoptStringBuffer *out);

/// Appends "--name=value" for the options that affect the generated model.
void zooAppendOptionSummary(const ZooOptions *options, const char *modelOptions,
                            MemoptStringBuffer *out);

#endif /* MEMOPT_ZOO_OPTIONS_H */

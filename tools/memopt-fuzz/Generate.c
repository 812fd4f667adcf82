/* memopt-fuzz: choosing a random program from a seed (see Program.h).
 * Every decision is drawn from one splitmix64 stream, so a seed names a
 * program on every machine. */
#include "Program.h"

#include <stdlib.h>
#include <string.h>

/* Number of unary, binary and reduction variants Print.c knows. */
enum { UNARY_VARIANTS = 5, BINARY_VARIANTS = 4, REDUCE_VARIANTS = 2 };

typedef struct Rng {
  uint64_t state;
} Rng;

static uint64_t rngNext(Rng *rng) {
  uint64_t z = (rng->state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* A uniform integer in [low, high]. */
static int rngRange(Rng *rng, int low, int high) {
  return low + (int)(rngNext(rng) % (uint64_t)(high - low + 1));
}

/* True with probability 1/n. */
static bool rngOneIn(Rng *rng, int n) { return rngRange(rng, 1, n) == 1; }

/* An extent: mostly between 2 and maxDim, sometimes 1 (a degenerate dim). */
static int64_t randomExtent(Rng *rng, int maxDim) {
  return rngOneIn(rng, 10) ? 1 : rngRange(rng, 2, maxDim);
}

static int addValue(FuzzProgram *program, FuzzValue value) {
  program->values = memoptReallocArray(program->values, program->valueCount + 1, sizeof(FuzzValue));
  program->values[program->valueCount] = value;
  return (int)program->valueCount++;
}

static int addArgument(FuzzProgram *program, int rank, const int64_t *dims, const bool *dynamic) {
  FuzzValue value = {.rank = rank, .producer = -1};
  for (int d = 0; d < rank; ++d) {
    value.dims[d] = dims[d];
    value.dynamic[d] = dynamic ? dynamic[d] : false;
  }
  return addValue(program, value);
}

static bool sameType(const FuzzValue *a, const FuzzValue *b) {
  if (a->rank != b->rank)
    return false;
  for (int d = 0; d < a->rank; ++d)
    if (a->dims[d] != b->dims[d] || a->dynamic[d] != b->dynamic[d])
      return false;
  return true;
}

static bool fullyStatic(const FuzzValue *value) {
  for (int d = 0; d < value->rank; ++d)
    if (value->dynamic[d])
      return false;
  return true;
}

/* What an operand must look like. */
typedef struct Want {
  int minRank, maxRank;
  const FuzzValue *sameAs; /* same type as this value (NULL: any) */
  int excluded;            /* a value index not to pick, or -1 */
  int dim0Extent;          /* dims[0] must be this (-1: any)... */
  bool dim0Dynamic;        /* ...and this dynamic */
  bool needStatic;
} Want;

static bool wanted(const FuzzValue *value, int index, const Want *want) {
  if (value->rank < want->minRank || value->rank > want->maxRank || index == want->excluded)
    return false;
  if (want->sameAs && !sameType(value, want->sameAs))
    return false;
  if (want->dim0Extent >= 0 &&
      (value->dims[0] != want->dim0Extent || value->dynamic[0] != want->dim0Dynamic))
    return false;
  return !want->needStatic || fullyStatic(value);
}

/* Picks a value that fits `want`: half the time the most recent one, else
 * any; -1 when none fits. */
static int pickValue(Rng *rng, const FuzzProgram *program, const Want *want) {
  int count = 0, latest = -1;
  for (size_t i = 0; i < program->valueCount; ++i)
    if (wanted(&program->values[i], (int)i, want)) {
      ++count;
      latest = (int)i;
    }
  if (count == 0)
    return -1;
  if (rngOneIn(rng, 2))
    return latest;
  int choice = rngRange(rng, 0, count - 1);
  for (size_t i = 0; i < program->valueCount; ++i)
    if (wanted(&program->values[i], (int)i, want) && choice-- == 0)
      return (int)i;
  return latest;
}

static Want anyValue(int minRank, int maxRank) {
  return (Want){minRank, maxRank, NULL, -1, -1, false, false};
}

/* Adds the node's result value and the node. */
static void addNode(FuzzProgram *program, FuzzNode node, FuzzValue result) {
  result.producer = (int)program->nodeCount;
  node.result = addValue(program, result);
  program->nodes = memoptReallocArray(program->nodes, program->nodeCount + 1, sizeof(FuzzNode));
  program->nodes[program->nodeCount++] = node;
}

/* Picks the value `want` describes as the node's first operand and returns it
 * in `*input`; false when no value fits. */
static bool pickInput(Rng *rng, const FuzzProgram *program, const Want *want, FuzzNode *node,
                      FuzzValue *input) {
  int a = pickValue(rng, program, want);
  if (a < 0)
    return false;
  node->operands[0] = a;
  *input = program->values[a];
  return true;
}

/* Two times in three, picks a value that fits `want`; -1 otherwise, or when none fits,
 * for the caller to add a fresh argument instead. */
static int maybeReuse(Rng *rng, const FuzzProgram *program, const Want *want) {
  return rngOneIn(rng, 3) ? -1 : pickValue(rng, program, want);
}

/* Each add* function fills in `node` and `result` for its kind; false when the
 * program has no operand it can use. */

static bool addMatmul(Rng *rng, FuzzProgram *program, int maxDim, FuzzNode *node,
                      FuzzValue *result) {
  Want wantA = anyValue(2, 2);
  FuzzValue lhs;
  if (!pickInput(rng, program, &wantA, node, &lhs))
    return false;
  Want wantB = anyValue(2, 2);
  wantB.dim0Extent = (int)lhs.dims[1];
  wantB.dim0Dynamic = lhs.dynamic[1];
  int b = maybeReuse(rng, program, &wantB);
  if (b < 0) {
    int64_t dims[2] = {lhs.dims[1], randomExtent(rng, maxDim)};
    bool dynamic[2] = {lhs.dynamic[1], false};
    b = addArgument(program, 2, dims, dynamic);
  }
  FuzzValue rhs = program->values[b];
  *result = (FuzzValue){.rank = 2, .dims = {lhs.dims[0], rhs.dims[1]},
                        .dynamic = {lhs.dynamic[0], rhs.dynamic[1]}};
  node->operands[1] = b;
  return true;
}

/* FUZZ_BINARY: a random elementwise op with a value (or fresh argument) of the same type;
 * FUZZ_RESIDUAL: the newest value plus the earliest other one of its type. */
static bool addBinary(Rng *rng, FuzzProgram *program, FuzzNode *node, FuzzValue *result) {
  int a = (int)program->valueCount - 1;
  if (node->kind == FUZZ_BINARY) {
    Want want = anyValue(1, FUZZ_MAX_RANK);
    a = pickValue(rng, program, &want);
  }
  FuzzValue lhs = program->values[a];
  int b = -1;
  if (node->kind == FUZZ_RESIDUAL) {
    /* A long skip connection: the earliest other value of the same type. */
    for (size_t i = 0; i < program->valueCount && b < 0; ++i)
      if ((int)i != a && sameType(&program->values[i], &lhs))
        b = (int)i;
    if (b < 0)
      return false;
  } else {
    Want want = anyValue(1, FUZZ_MAX_RANK);
    want.sameAs = &lhs;
    want.excluded = a;
    b = maybeReuse(rng, program, &want);
    if (b < 0)
      b = addArgument(program, lhs.rank, lhs.dims, lhs.dynamic);
  }
  node->operands[0] = a;
  node->operands[1] = b;
  node->variant = node->kind == FUZZ_RESIDUAL ? 0 : rngRange(rng, 0, BINARY_VARIANTS - 1);
  *result = lhs;
  return true;
}

static bool addBroadcast(Rng *rng, FuzzProgram *program, FuzzNode *node, FuzzValue *result) {
  Want wantA = anyValue(2, 2);
  FuzzValue lhs;
  if (!pickInput(rng, program, &wantA, node, &lhs))
    return false;
  node->dim = rngRange(rng, 0, 1);
  Want wantB = anyValue(1, 1);
  wantB.dim0Extent = (int)lhs.dims[node->dim];
  wantB.dim0Dynamic = lhs.dynamic[node->dim];
  int b = maybeReuse(rng, program, &wantB);
  if (b < 0)
    b = addArgument(program, 1, &lhs.dims[node->dim], &lhs.dynamic[node->dim]);
  node->operands[1] = b;
  node->variant = rngRange(rng, 0, BINARY_VARIANTS - 1);
  *result = lhs;
  return true;
}

static bool addReduce(Rng *rng, FuzzProgram *program, FuzzNode *node, FuzzValue *result) {
  Want want = anyValue(2, FUZZ_MAX_RANK);
  FuzzValue input;
  if (!pickInput(rng, program, &want, node, &input))
    return false;
  node->dim = rngRange(rng, 0, input.rank - 1);
  node->variant = rngRange(rng, 0, REDUCE_VARIANTS - 1);
  result->rank = input.rank - 1;
  for (int d = 0, r = 0; d < input.rank; ++d)
    if (d != node->dim) {
      result->dims[r] = input.dims[d];
      result->dynamic[r++] = input.dynamic[d];
    }
  return true;
}

/* A random permutation other than the identity. */
static bool addTranspose(Rng *rng, FuzzProgram *program, FuzzNode *node, FuzzValue *result) {
  Want want = anyValue(2, FUZZ_MAX_RANK);
  FuzzValue input;
  if (!pickInput(rng, program, &want, node, &input))
    return false;
  bool identity = true;
  while (identity) {
    for (int d = 0; d < input.rank; ++d)
      node->permutation[d] = d;
    for (int d = input.rank - 1; d > 0; --d) {
      int other = rngRange(rng, 0, d);
      int swap = node->permutation[d];
      node->permutation[d] = node->permutation[other];
      node->permutation[other] = swap;
    }
    for (int d = 0; d < input.rank; ++d)
      identity = identity && node->permutation[d] == d;
  }
  result->rank = input.rank;
  for (int d = 0; d < input.rank; ++d) {
    result->dims[d] = input.dims[node->permutation[d]];
    result->dynamic[d] = input.dynamic[node->permutation[d]];
  }
  return true;
}

/* Merges two adjacent static dims. */
static bool addCollapse(Rng *rng, FuzzProgram *program, FuzzNode *node, FuzzValue *result) {
  Want want = anyValue(2, FUZZ_MAX_RANK);
  FuzzValue input;
  if (!pickInput(rng, program, &want, node, &input))
    return false;
  int start = rngRange(rng, 0, input.rank - 2);
  if (input.dynamic[start] || input.dynamic[start + 1])
    return false;
  node->dim = start;
  result->rank = input.rank - 1;
  for (int r = 0; r < result->rank; ++r) {
    int d = r <= start ? r : r + 1;
    result->dims[r] = input.dims[d];
    result->dynamic[r] = input.dynamic[d];
  }
  result->dims[start] = input.dims[start] * input.dims[start + 1];
  return true;
}

/* Splits a static dim into [dim / factor, factor]. */
static bool addExpand(Rng *rng, FuzzProgram *program, FuzzNode *node, FuzzValue *result) {
  Want want = anyValue(1, FUZZ_MAX_RANK - 1);
  FuzzValue input;
  if (!pickInput(rng, program, &want, node, &input))
    return false;
  int split = rngRange(rng, 0, input.rank - 1);
  int factor = rngRange(rng, 2, 4);
  if (input.dynamic[split] || input.dims[split] % factor != 0)
    return false;
  node->dim = split;
  node->factor = factor;
  result->rank = input.rank + 1;
  for (int r = 0; r < result->rank; ++r) {
    int d = r <= split ? r : r - 1;
    result->dims[r] = input.dims[d];
    result->dynamic[r] = input.dynamic[d];
  }
  result->dims[split] = input.dims[split] / factor;
  result->dims[split + 1] = factor;
  result->dynamic[split + 1] = false;
  return true;
}

/* A static [H, W] image convolved with a fresh [KH, KW, 1, F] filter argument. */
static bool addConv(Rng *rng, FuzzProgram *program, FuzzNode *node, FuzzValue *result) {
  Want want = anyValue(2, 2);
  want.needStatic = true;
  FuzzValue image;
  if (!pickInput(rng, program, &want, node, &image))
    return false;
  int64_t filter[4] = {rngRange(rng, 1, image.dims[0] < 3 ? (int)image.dims[0] : 3),
                       rngRange(rng, 1, image.dims[1] < 3 ? (int)image.dims[1] : 3), 1,
                       rngRange(rng, 1, 4)};
  node->operands[1] = addArgument(program, 4, filter, NULL);
  *result = (FuzzValue){.rank = 3,
                        .dims = {image.dims[0] - filter[0] + 1, image.dims[1] - filter[1] + 1,
                                 filter[3]}};
  return true;
}

/* Tries to add a node of `kind`; false when the program has no operand it can use. */
static bool tryAddNode(Rng *rng, FuzzProgram *program, FuzzNodeKind kind, int maxDim) {
  FuzzNode node = {.kind = kind, .operands = {-1, -1}, .result = -1};
  FuzzValue result = {0};
  Want anyRank = anyValue(1, FUZZ_MAX_RANK), matrix = anyValue(2, 2);
  bool added = false;
  switch (kind) {
  case FUZZ_MATMUL: added = addMatmul(rng, program, maxDim, &node, &result); break;
  case FUZZ_UNARY:
    added = pickInput(rng, program, &anyRank, &node, &result);
    node.variant = rngRange(rng, 0, UNARY_VARIANTS - 1);
    break;
  case FUZZ_BINARY:
  case FUZZ_RESIDUAL: added = addBinary(rng, program, &node, &result); break;
  case FUZZ_BROADCAST: added = addBroadcast(rng, program, &node, &result); break;
  case FUZZ_REDUCE: added = addReduce(rng, program, &node, &result); break;
  case FUZZ_TRANSPOSE: added = addTranspose(rng, program, &node, &result); break;
  case FUZZ_COLLAPSE: added = addCollapse(rng, program, &node, &result); break;
  case FUZZ_EXPAND: added = addExpand(rng, program, &node, &result); break;
  case FUZZ_SOFTMAX: added = pickInput(rng, program, &matrix, &node, &result); break;
  case FUZZ_CONV: added = addConv(rng, program, &node, &result); break;
  case FUZZ_NODE_KIND_COUNT: break;
  }
  if (added)
    addNode(program, node, result);
  return added;
}

/* How often each kind is tried, out of their sum. */
static const int kKindWeights[FUZZ_NODE_KIND_COUNT] = {
    [FUZZ_MATMUL] = 3,    [FUZZ_UNARY] = 3,    [FUZZ_BINARY] = 2,   [FUZZ_BROADCAST] = 2,
    [FUZZ_REDUCE] = 2,    [FUZZ_TRANSPOSE] = 2, [FUZZ_COLLAPSE] = 1, [FUZZ_EXPAND] = 1,
    [FUZZ_SOFTMAX] = 2,   [FUZZ_CONV] = 1,     [FUZZ_RESIDUAL] = 2,
};

static FuzzNodeKind randomKind(Rng *rng) {
  int total = 0;
  for (int k = 0; k < FUZZ_NODE_KIND_COUNT; ++k)
    total += kKindWeights[k];
  int choice = rngRange(rng, 0, total - 1);
  for (int k = 0; k < FUZZ_NODE_KIND_COUNT; ++k) {
    if (choice < kKindWeights[k])
      return (FuzzNodeKind)k;
    choice -= kKindWeights[k];
  }
  return FUZZ_UNARY;
}

FuzzProgram fuzzProgramGenerate(const FuzzOptions *options) {
  Rng rng = {options->seed};
  FuzzProgram program = {.seed = options->seed, .dynamicDims = options->dynamicDims};
  int maxDim = options->maxDim > 1 ? options->maxDim : 2;
  program.dynamicSize = rngRange(&rng, 2, maxDim);
  int nodeCount = options->nodeCount > 0 ? options->nodeCount : rngRange(&rng, 3, 12);
  int inputs = rngRange(&rng, 1, 2);
  for (int i = 0; i < inputs; ++i) {
    int rank = rngOneIn(&rng, 4) ? 3 : 2;
    int64_t dims[FUZZ_MAX_RANK];
    bool dynamic[FUZZ_MAX_RANK] = {false};
    for (int d = 0; d < rank; ++d)
      dims[d] = randomExtent(&rng, maxDim);
    /* The first input always carries the dynamic dim, so `@main` can ask it
     * for the run-time size. */
    if (options->dynamicDims && (i == 0 || rngOneIn(&rng, 2))) {
      dims[0] = program.dynamicSize;
      dynamic[0] = true;
    }
    addArgument(&program, rank, dims, dynamic);
  }
  for (int n = 0; n < nodeCount; ++n) {
    bool added = false;
    for (int attempt = 0; attempt < 32 && !added; ++attempt)
      added = tryAddNode(&rng, &program, randomKind(&rng), maxDim);
    if (!added)
      tryAddNode(&rng, &program, FUZZ_UNARY, maxDim);
  }
  return program;
}

void fuzzProgramDestroy(FuzzProgram *program) {
  free(program->values);
  free(program->nodes);
  memset(program, 0, sizeof *program);
}

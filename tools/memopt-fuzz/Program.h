/* memopt-fuzz: random linalg-on-tensors programs for differential testing.
 *
 * A program is a DAG of nodes (matmul, elementwise, reduction, transpose,
 * reshape, softmax, convolution, residual add) over f32 tensors, decided
 * entirely by a seed. It is first generated as data (nodes pointing at the
 * values they read), then printed; printing can drop nodes, turning each
 * dropped node's result into a function argument of the same type, so the
 * rest of the program stays exactly the same. That is how a failing program
 * is reduced. */
#ifndef MEMOPT_FUZZ_PROGRAM_H
#define MEMOPT_FUZZ_PROGRAM_H

#include "Support/Support.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { FUZZ_MAX_RANK = 4, FUZZ_MAX_OPERANDS = 2 };

typedef enum FuzzNodeKind {
  FUZZ_MATMUL,
  FUZZ_UNARY,
  FUZZ_BINARY,
  FUZZ_BROADCAST,
  FUZZ_REDUCE,
  FUZZ_TRANSPOSE,
  FUZZ_COLLAPSE,
  FUZZ_EXPAND,
  FUZZ_SOFTMAX,
  FUZZ_CONV,
  FUZZ_RESIDUAL,
  FUZZ_NODE_KIND_COUNT
} FuzzNodeKind;

/* A tensor value: a function argument or a node's result. Dynamic dims all
 * have the same size at run time (memopt-run's --dim), `dynamicSize`. */
typedef struct FuzzValue {
  int rank;
  int64_t dims[FUZZ_MAX_RANK];
  bool dynamic[FUZZ_MAX_RANK];
  int producer; /* node index, or -1 for an argument */
} FuzzValue;

typedef struct FuzzNode {
  FuzzNodeKind kind;
  int operands[FUZZ_MAX_OPERANDS]; /* value indices; -1 when unused */
  int result;                      /* value index */
  int variant;    /* which unary/binary/reduction op (an index into the printer's table) */
  int dim;        /* reduced dim, broadcast dim, first merged dim, or split dim */
  int factor;     /* expand: the split dim becomes [dims/factor, factor] */
  int permutation[FUZZ_MAX_RANK];
} FuzzNode;

typedef struct FuzzProgram {
  uint64_t seed;
  bool dynamicDims;
  int64_t dynamicSize;
  FuzzValue *values;
  size_t valueCount;
  FuzzNode *nodes;
  size_t nodeCount;
} FuzzProgram;

typedef struct FuzzOptions {
  uint64_t seed;
  int nodeCount;    /* 0: chosen by the seed, 3 to 12 */
  bool dynamicDims; /* dim 0 of the first arguments, and what flows from it, is `?` */
  int maxDim;       /* largest static extent */
} FuzzOptions;

/// Generates the program `options` describe; the caller frees it with fuzzProgramDestroy.
FuzzProgram fuzzProgramGenerate(const FuzzOptions *options);

/// Frees the program's arrays.
void fuzzProgramDestroy(FuzzProgram *program);

/// Appends the program as MLIR text (a `// memopt-fuzz` header line, then
/// `func.func @main`), leaving out the nodes with `dropped[i]` true (NULL:
/// none): their results become arguments of `@main`.
void fuzzProgramPrint(const FuzzProgram *program, const bool *dropped, MemoptStringBuffer *out);

#endif

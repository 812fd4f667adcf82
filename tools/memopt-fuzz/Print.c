/* memopt-fuzz: printing a program as linalg on tensors (see Program.h). */
#include "Program.h"

#include <stdio.h>
#include <stdlib.h>

/* The scalar bodies of the elementwise and reduction variants. `%in` is the
 * (first) input element, `%in_1` the second, `%out` the accumulator. */
static const char *const kUnaryBodies[] = {
    "math.tanh %in : f32",
    "arith.maximumf %in, %zero : f32",
    "arith.mulf %in, %half : f32",
    "arith.negf %in : f32",
    "math.absf %in : f32",
};
static const char *const kBinaryOps[] = {"arith.addf", "arith.mulf", "arith.subf",
                                         "arith.maximumf"};
/* Reductions: the combining op and the constant the accumulator starts at. */
static const char *const kReduceOps[] = {"arith.addf", "arith.maximumf"};
static const char *const kReduceInits[] = {"%zero", "%lowest"};

static void appendType(MemoptStringBuffer *out, const FuzzValue *value) {
  memoptStringBufferAppendCString(out, "tensor<");
  for (int d = 0; d < value->rank; ++d) {
    if (value->dynamic[d])
      memoptStringBufferAppendCString(out, "?x");
    else
      memoptStringBufferAppendFormat(out, "%lldx", (long long)value->dims[d]);
  }
  memoptStringBufferAppendCString(out, "f32>");
}

/* `affine_map<(d0, d1) -> (d0, d1)>` over `rank` loops, with the results
 * `results[0..count)`. */
static void appendMap(MemoptStringBuffer *out, int rank, const int *results, int count) {
  memoptStringBufferAppendCString(out, "affine_map<(");
  for (int d = 0; d < rank; ++d)
    memoptStringBufferAppendFormat(out, "%sd%d", d ? ", " : "", d);
  memoptStringBufferAppendCString(out, ") -> (");
  for (int r = 0; r < count; ++r)
    memoptStringBufferAppendFormat(out, "%sd%d", r ? ", " : "", results[r]);
  memoptStringBufferAppendCString(out, ")>");
}

static void appendIterators(MemoptStringBuffer *out, int rank, int reducedDim) {
  memoptStringBufferAppendCString(out, "iterator_types = [");
  for (int d = 0; d < rank; ++d)
    memoptStringBufferAppendFormat(out, "%s\"%s\"", d ? ", " : "",
                                   d == reducedDim ? "reduction" : "parallel");
  memoptStringBufferAppendCString(out, "]");
}

/* The printed name of a value: `%argN` for arguments (and results of dropped
 * nodes), `%vN` for node results. */
typedef struct Names {
  int *argumentNumber; /* per value: its argument position; -1: a node result; -2: left out */
} Names;

static bool isArgument(const FuzzProgram *program, const bool *dropped, int value) {
  int producer = program->values[value].producer;
  return producer < 0 || (dropped && dropped[producer]);
}

static void appendName(MemoptStringBuffer *out, const Names *names, int value) {
  if (names->argumentNumber[value] >= 0)
    memoptStringBufferAppendFormat(out, "%%arg%d", names->argumentNumber[value]);
  else
    memoptStringBufferAppendFormat(out, "%%v%d", value);
}

/* `%vN_empty = tensor.empty(...) : T`, every dynamic dim given by `%dyn`. */
static void appendEmpty(MemoptStringBuffer *out, int result, const char *suffix,
                        const FuzzValue *type) {
  memoptStringBufferAppendFormat(out, "  %%v%d_%s = tensor.empty(", result, suffix);
  bool first = true;
  for (int d = 0; d < type->rank; ++d)
    if (type->dynamic[d]) {
      memoptStringBufferAppendFormat(out, "%s%%dyn", first ? "" : ", ");
      first = false;
    }
  memoptStringBufferAppendCString(out, ") : ");
  appendType(out, type);
  memoptStringBufferAppendCString(out, "\n");
}

/* `%vN_<suffix> = linalg.fill ins(%<constant>) outs(tensor.empty)`. */
static void appendFilled(MemoptStringBuffer *out, int result, const char *suffix,
                         const char *constant, const FuzzValue *type) {
  appendEmpty(out, result, suffix, type);
  memoptStringBufferAppendFormat(out, "  %%v%d_%s_init = linalg.fill ins(%s : f32) outs(%%v%d_%s : ",
                                 result, suffix, constant, result, suffix);
  appendType(out, type);
  memoptStringBufferAppendCString(out, ") -> ");
  appendType(out, type);
  memoptStringBufferAppendCString(out, "\n");
}

/* One input of a linalg.generic: its name (already printed), type and map. */
typedef struct GenericInput {
  const char *name;
  const FuzzValue *type;
  int mapResults[FUZZ_MAX_RANK];
  int mapCount;
} GenericInput;

/* A linalg.generic named `name` over `rank` loops (`reducedDim` the
 * reduction loop, or -1) whose body computes `%r` with `bodyOp` (the text
 * after `%r = `). */
static void appendGeneric(MemoptStringBuffer *out, const char *name, int rank, int reducedDim,
                          const GenericInput *inputs, int inputCount, const char *init,
                          const FuzzValue *initType, const int *initMap, int initMapCount,
                          const char *bodyOp) {
  memoptStringBufferAppendFormat(out, "  %s = linalg.generic {indexing_maps = [", name);
  for (int i = 0; i < inputCount; ++i) {
    appendMap(out, rank, inputs[i].mapResults, inputs[i].mapCount);
    memoptStringBufferAppendCString(out, ", ");
  }
  appendMap(out, rank, initMap, initMapCount);
  memoptStringBufferAppendCString(out, "], ");
  appendIterators(out, rank, reducedDim);
  memoptStringBufferAppendCString(out, "}\n      ins(");
  for (int i = 0; i < inputCount; ++i)
    memoptStringBufferAppendFormat(out, "%s%s", i ? ", " : "", inputs[i].name);
  memoptStringBufferAppendCString(out, " : ");
  for (int i = 0; i < inputCount; ++i) {
    if (i)
      memoptStringBufferAppendCString(out, ", ");
    appendType(out, inputs[i].type);
  }
  memoptStringBufferAppendFormat(out, ") outs(%s : ", init);
  appendType(out, initType);
  memoptStringBufferAppendCString(out, ") {\n  ^bb0(%in: f32, ");
  if (inputCount == 2)
    memoptStringBufferAppendCString(out, "%in_1: f32, ");
  memoptStringBufferAppendFormat(out, "%%out: f32):\n    %%r = %s\n    linalg.yield %%r : f32\n  } -> ",
                                 bodyOp);
  appendType(out, initType);
  memoptStringBufferAppendCString(out, "\n");
}

/* An input read with the identity map of its own rank. */
static GenericInput identityInput(const char *name, const FuzzValue *type) {
  GenericInput input = {name, type, {0}, type->rank};
  for (int d = 0; d < type->rank; ++d)
    input.mapResults[d] = d;
  return input;
}

/* `[[0], [1, 2]]`: the reassociation where `dim` of the smaller shape is
 * dims `dim` and `dim + 1` of the larger one, of rank `largerRank`. */
static void appendReassociation(MemoptStringBuffer *out, int largerRank, int dim) {
  memoptStringBufferAppendCString(out, "[");
  for (int d = 0; d < largerRank; ++d) {
    if (d == dim + 1)
      continue;
    memoptStringBufferAppendFormat(out, "%s[%d", d ? ", " : "", d);
    if (d == dim)
      memoptStringBufferAppendFormat(out, ", %d", d + 1);
    memoptStringBufferAppendCString(out, "]");
  }
  memoptStringBufferAppendCString(out, "]");
}

/* Appends "<from> into <to>\n", the tail of a reshape. */
static void appendInto(MemoptStringBuffer *out, const FuzzValue *from, const FuzzValue *to) {
  appendType(out, from);
  memoptStringBufferAppendCString(out, " into ");
  appendType(out, to);
  memoptStringBufferAppendCString(out, "\n");
}

/* What a node's printer reads: the node, its result and operands (b NULL
 * when it has one) and their SSA names. */
typedef struct NodeText {
  const FuzzNode *node;
  const FuzzValue *result, *a, *b;
  const char *nameA, *nameB;
  char resultName[32];
  char init[40]; /* `%vN_empty` */
} NodeText;

static const int kIdentity[FUZZ_MAX_RANK] = {0, 1, 2, 3};

static void printMatmul(const NodeText *t, MemoptStringBuffer *out) {
  appendFilled(out, t->node->result, "acc", "%zero", t->result);
  memoptStringBufferAppendFormat(out, "  %s = linalg.matmul ins(%s, %s : ", t->resultName,
                                 t->nameA, t->nameB);
  appendType(out, t->a);
  memoptStringBufferAppendCString(out, ", ");
  appendType(out, t->b);
  memoptStringBufferAppendFormat(out, ") outs(%%v%d_acc_init : ", t->node->result);
  appendType(out, t->result);
  memoptStringBufferAppendCString(out, ") -> ");
  appendType(out, t->result);
  memoptStringBufferAppendCString(out, "\n");
}

/* Unary, binary, residual and broadcast nodes: one elementwise linalg.generic. */
static void printElementwise(const NodeText *t, MemoptStringBuffer *out) {
  const FuzzNode *node = t->node;
  appendEmpty(out, node->result, "empty", t->result);
  if (node->kind == FUZZ_UNARY) {
    GenericInput input = identityInput(t->nameA, t->a);
    appendGeneric(out, t->resultName, t->a->rank, -1, &input, 1, t->init, t->result, kIdentity,
                  t->result->rank, kUnaryBodies[node->variant]);
    return;
  }
  GenericInput inputs[2] = {identityInput(t->nameA, t->a), identityInput(t->nameB, t->b)};
  if (node->kind == FUZZ_BROADCAST)
    inputs[1] = (GenericInput){t->nameB, t->b, {node->dim}, 1};
  MemoptStringBuffer body = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&body, "%s %%in, %%in_1 : f32", kBinaryOps[node->variant]);
  appendGeneric(out, t->resultName, t->a->rank, -1, inputs, 2, t->init, t->result, kIdentity,
                t->result->rank, memoptStringBufferGet(&body));
  memoptStringBufferDestroy(&body);
}

static void printReduce(const NodeText *t, MemoptStringBuffer *out) {
  const FuzzNode *node = t->node;
  appendFilled(out, node->result, "acc", kReduceInits[node->variant], t->result);
  GenericInput input = identityInput(t->nameA, t->a);
  int kept[FUZZ_MAX_RANK], count = 0;
  for (int d = 0; d < t->a->rank; ++d)
    if (d != node->dim)
      kept[count++] = d;
  char init[40];
  snprintf(init, sizeof init, "%%v%d_acc_init", node->result);
  MemoptStringBuffer body = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&body, "%s %%in, %%out : f32", kReduceOps[node->variant]);
  appendGeneric(out, t->resultName, t->a->rank, node->dim, &input, 1, init, t->result, kept, count,
                memoptStringBufferGet(&body));
  memoptStringBufferDestroy(&body);
}

static void printTranspose(const NodeText *t, MemoptStringBuffer *out) {
  appendEmpty(out, t->node->result, "empty", t->result);
  memoptStringBufferAppendFormat(out, "  %s = linalg.transpose ins(%s : ", t->resultName, t->nameA);
  appendType(out, t->a);
  memoptStringBufferAppendFormat(out, ") outs(%s : ", t->init);
  appendType(out, t->result);
  memoptStringBufferAppendCString(out, ") permutation = [");
  for (int d = 0; d < t->a->rank; ++d)
    memoptStringBufferAppendFormat(out, "%s%d", d ? ", " : "", t->node->permutation[d]);
  memoptStringBufferAppendCString(out, "]\n");
}

/* tensor.collapse_shape or tensor.expand_shape of two adjacent dims. */
static void printReshape(const NodeText *t, MemoptStringBuffer *out) {
  bool collapse = t->node->kind == FUZZ_COLLAPSE;
  memoptStringBufferAppendFormat(out, "  %s = tensor.%s %s ", t->resultName,
                                 collapse ? "collapse_shape" : "expand_shape", t->nameA);
  appendReassociation(out, collapse ? t->a->rank : t->result->rank, t->node->dim);
  if (collapse) {
    memoptStringBufferAppendCString(out, " : ");
  } else {
    memoptStringBufferAppendCString(out, " output_shape [");
    for (int d = 0; d < t->result->rank; ++d) {
      if (t->result->dynamic[d])
        memoptStringBufferAppendFormat(out, "%s%%dyn", d ? ", " : "");
      else
        memoptStringBufferAppendFormat(out, "%s%lld", d ? ", " : "",
                                       (long long)t->result->dims[d]);
    }
    memoptStringBufferAppendCString(out, "] : ");
  }
  appendInto(out, t->a, t->result);
}

/* max over the row, exp(x - max), sum over the row, divide. */
static void printSoftmax(const NodeText *t, MemoptStringBuffer *out) {
  int n = t->node->result;
  const FuzzValue *a = t->a, *result = t->result;
  FuzzValue rows = {.rank = 1, .dims = {a->dims[0]}, .dynamic = {a->dynamic[0]}};
  char maxName[40], expName[40], sumName[40], init[40];
  snprintf(maxName, sizeof maxName, "%%v%d_max", n);
  snprintf(expName, sizeof expName, "%%v%d_exp", n);
  snprintf(sumName, sizeof sumName, "%%v%d_sum", n);
  int row[1] = {0};
  GenericInput input = identityInput(t->nameA, a);
  appendFilled(out, n, "max0", "%lowest", &rows);
  snprintf(init, sizeof init, "%%v%d_max0_init", n);
  appendGeneric(out, maxName, 2, 1, &input, 1, init, &rows, row, 1,
                "arith.maximumf %in, %out : f32");
  appendEmpty(out, n, "empty", result);
  GenericInput shifted[2] = {input, {maxName, &rows, {0}, 1}};
  appendGeneric(out, expName, 2, -1, shifted, 2, t->init, result, kIdentity, 2,
                "arith.subf %in, %in_1 : f32");
  /* exp in its own generic keeps the bodies to one op each. */
  GenericInput shiftedValue = identityInput(expName, result);
  char expValues[40];
  snprintf(expValues, sizeof expValues, "%%v%d_expv", n);
  appendEmpty(out, n, "empty2", result);
  snprintf(init, sizeof init, "%%v%d_empty2", n);
  appendGeneric(out, expValues, 2, -1, &shiftedValue, 1, init, result, kIdentity, 2,
                "math.exp %in : f32");
  appendFilled(out, n, "sum0", "%zero", &rows);
  GenericInput exps = identityInput(expValues, result);
  snprintf(init, sizeof init, "%%v%d_sum0_init", n);
  appendGeneric(out, sumName, 2, 1, &exps, 1, init, &rows, row, 1, "arith.addf %in, %out : f32");
  appendEmpty(out, n, "empty3", result);
  GenericInput quotient[2] = {exps, {sumName, &rows, {0}, 1}};
  snprintf(init, sizeof init, "%%v%d_empty3", n);
  appendGeneric(out, t->resultName, 2, -1, quotient, 2, init, result, kIdentity, 2,
                "arith.divf %in, %in_1 : f32");
}

/* The [H, W] image as [1, H, W, 1], conv_2d_nhwc_hwcf, then back to [H', W', F]. */
static void printConv(const NodeText *t, MemoptStringBuffer *out) {
  int n = t->node->result;
  const FuzzValue *a = t->a, *result = t->result;
  FuzzValue image = {.rank = 4, .dims = {1, a->dims[0], a->dims[1], 1}};
  FuzzValue convolved = {.rank = 4, .dims = {1, result->dims[0], result->dims[1], result->dims[2]}};
  memoptStringBufferAppendFormat(out, "  %%v%d_image = tensor.expand_shape %s [[0, 1], [2, 3]] "
                                      "output_shape [1, %lld, %lld, 1] : ",
                                 n, t->nameA, (long long)a->dims[0], (long long)a->dims[1]);
  appendInto(out, a, &image);
  appendFilled(out, n, "acc", "%zero", &convolved);
  memoptStringBufferAppendFormat(out,
                                 "  %%v%d_conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : "
                                 "tensor<2xi64>, strides = dense<1> : tensor<2xi64>}\n      "
                                 "ins(%%v%d_image, %s : ",
                                 n, n, t->nameB);
  appendType(out, &image);
  memoptStringBufferAppendCString(out, ", ");
  appendType(out, t->b);
  memoptStringBufferAppendFormat(out, ") outs(%%v%d_acc_init : ", n);
  appendType(out, &convolved);
  memoptStringBufferAppendCString(out, ") -> ");
  appendType(out, &convolved);
  memoptStringBufferAppendFormat(out, "\n  %s = tensor.collapse_shape %%v%d_conv [[0, 1], [2], [3]] : ",
                                 t->resultName, n);
  appendInto(out, &convolved, result);
}

static void printNode(const FuzzProgram *program, const FuzzNode *node, const Names *names,
                      MemoptStringBuffer *out) {
  MemoptStringBuffer nameA = memoptStringBufferCreate(), nameB = memoptStringBufferCreate();
  const FuzzValue *b = node->operands[1] >= 0 ? &program->values[node->operands[1]] : NULL;
  appendName(&nameA, names, node->operands[0]);
  if (b)
    appendName(&nameB, names, node->operands[1]);
  NodeText t = {.node = node,
                .result = &program->values[node->result],
                .a = &program->values[node->operands[0]],
                .b = b,
                .nameA = memoptStringBufferGet(&nameA),
                .nameB = memoptStringBufferGet(&nameB)};
  snprintf(t.resultName, sizeof t.resultName, "%%v%d", node->result);
  snprintf(t.init, sizeof t.init, "%%v%d_empty", node->result);
  switch (node->kind) {
  case FUZZ_MATMUL: printMatmul(&t, out); break;
  case FUZZ_UNARY:
  case FUZZ_BINARY:
  case FUZZ_RESIDUAL:
  case FUZZ_BROADCAST: printElementwise(&t, out); break;
  case FUZZ_REDUCE: printReduce(&t, out); break;
  case FUZZ_TRANSPOSE: printTranspose(&t, out); break;
  case FUZZ_COLLAPSE:
  case FUZZ_EXPAND: printReshape(&t, out); break;
  case FUZZ_SOFTMAX: printSoftmax(&t, out); break;
  case FUZZ_CONV: printConv(&t, out); break;
  case FUZZ_NODE_KIND_COUNT: break;
  }
  memoptStringBufferDestroy(&nameA);
  memoptStringBufferDestroy(&nameB);
}

void fuzzProgramPrint(const FuzzProgram *program, const bool *dropped, MemoptStringBuffer *out) {
  size_t valueCount = program->valueCount;
  Names names = {memoptAllocateZeroed(valueCount, sizeof(int))};
  bool *used = memoptAllocateZeroed(valueCount, sizeof(bool));
  for (size_t n = 0; n < program->nodeCount; ++n)
    for (int k = 0; k < FUZZ_MAX_OPERANDS && !(dropped && dropped[n]); ++k)
      if (program->nodes[n].operands[k] >= 0)
        used[program->nodes[n].operands[k]] = true;
  /* Arguments are numbered in order; once nodes are dropped, those nothing
   * reads any more are left out (-2), except the first, which `%dyn` reads. */
  int arguments = 0;
  for (size_t v = 0; v < valueCount; ++v) {
    bool absent = dropped && !used[v] && v != 0;
    names.argumentNumber[v] =
        !isArgument(program, dropped, (int)v) ? -1 : absent ? -2 : arguments++;
  }

  memoptStringBufferAppendFormat(out, "// memopt-fuzz seed=%llu nodes=%zu dynamic=%d dim=%lld",
                                 (unsigned long long)program->seed, program->nodeCount,
                                 program->dynamicDims ? 1 : 0, (long long)program->dynamicSize);
  if (dropped) {
    memoptStringBufferAppendCString(out, " drop=");
    bool first = true;
    for (size_t n = 0; n < program->nodeCount; ++n)
      if (dropped[n]) {
        memoptStringBufferAppendFormat(out, "%s%zu", first ? "" : ",", n);
        first = false;
      }
  }
  memoptStringBufferAppendCString(out, "\nfunc.func @main(");
  for (size_t v = 0; v < valueCount; ++v) {
    if (names.argumentNumber[v] < 0)
      continue;
    memoptStringBufferAppendFormat(out, "%s%%arg%d: ", names.argumentNumber[v] ? ", " : "",
                                   names.argumentNumber[v]);
    appendType(out, &program->values[v]);
  }
  /* The results: every node result nothing reads (the sinks of the DAG). */
  MemoptStringBuffer results = memoptStringBufferCreate();
  MemoptStringBuffer resultTypes = memoptStringBufferCreate();
  for (size_t v = 0; v < valueCount; ++v) {
    if (isArgument(program, dropped, (int)v) || used[v])
      continue;
    memoptStringBufferAppendCString(&results, results.length ? ", " : "");
    appendName(&results, &names, (int)v);
    memoptStringBufferAppendCString(&resultTypes, resultTypes.length ? ", " : "");
    appendType(&resultTypes, &program->values[v]);
  }
  if (results.length == 0) {
    appendName(&results, &names, 0);
    appendType(&resultTypes, &program->values[0]);
  }
  memoptStringBufferAppendFormat(out, ") -> (%s) {\n", memoptStringBufferGet(&resultTypes));
  memoptStringBufferAppendCString(out, "  %zero = arith.constant 0.0 : f32\n"
                                       "  %half = arith.constant 0.5 : f32\n"
                                       "  %lowest = arith.constant -3.40282347e+38 : f32\n");
  if (program->dynamicDims) {
    memoptStringBufferAppendCString(out, "  %c0 = arith.constant 0 : index\n  %dyn = tensor.dim %arg0, %c0 : ");
    appendType(out, &program->values[0]);
    memoptStringBufferAppendCString(out, "\n");
  }
  for (size_t n = 0; n < program->nodeCount; ++n)
    if (!(dropped && dropped[n]))
      printNode(program, &program->nodes[n], &names, out);
  memoptStringBufferAppendFormat(out, "  return %s : %s\n}\n", memoptStringBufferGet(&results),
                                 memoptStringBufferGet(&resultTypes));
  memoptStringBufferDestroy(&results);
  memoptStringBufferDestroy(&resultTypes);
  free(names.argumentNumber);
  free(used);
}

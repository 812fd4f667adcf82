/* The forward half of the differentiable primitives: emit the ops, and record
 * a tape node when a gradient will be needed. Composite primitives (softmax,
 * normalization, cross-entropy) are single nodes with hand-written backward
 * rules, as in every training framework, rather than chains of tiny nodes. */
#include "Tape.h"

#include <stdlib.h>
#include <string.h>

/* Makes room for value `id` in the tape's per-value tables. */
static void noteValue(ZooTape *tape, int id) {
  size_t oldCapacity = tape->valueCapacity;
  tape->requiresGrad =
      memoptGrowArray(tape->requiresGrad, &tape->valueCapacity, (size_t)id + 1, sizeof(bool));
  memset(tape->requiresGrad + oldCapacity, 0, (tape->valueCapacity - oldCapacity) * sizeof(bool));
}

static void markRequiresGrad(ZooTape *tape, int id) {
  noteValue(tape, id);
  tape->requiresGrad[id] = true;
}

/* The emitter's observer callback: a parameter argument requires a gradient. */
static void valueCreated(void *context, int id, bool isParameter) {
  if (isParameter)
    markRequiresGrad(context, id);
  else
    noteValue(context, id);
}

ZooTape *zooTapeCreate(ZooEmitter *e) {
  ZooTape *tape = memoptAllocateZeroed(1, sizeof *tape);
  tape->emitter = e;
  tape->recording = true;
  zooEmitterObserve(e, (ZooValueObserver){valueCreated, tape});
  return tape;
}

void zooTapeDestroy(ZooTape *tape) {
  if (zooTapeOf(tape->emitter) == tape)
    zooEmitterObserve(tape->emitter, (ZooValueObserver){NULL, NULL});
  free(tape->nodes);
  free(tape->requiresGrad);
  free(tape);
}

ZooTape *zooTapeOf(const ZooEmitter *e) {
  return e->observer.valueCreated == valueCreated ? e->observer.context : NULL;
}

bool zooTapeRequiresGrad(const ZooTape *tape, int id) {
  return id >= 0 && (size_t)id < tape->valueCapacity && tape->requiresGrad[id];
}

/* Records a node when some input needs a gradient; returns it (valid until
 * the next record) so the caller can fill in the kind-specific fields. */
static ZooNode *record(ZooEmitter *e, ZooNodeKind kind, int inputCount, const ZooValue *inputs,
                       ZooValue output) {
  ZooTape *tape = zooTapeOf(e);
  if (!tape || !tape->recording)
    return NULL;
  bool needed = false;
  for (int i = 0; i < inputCount; ++i)
    needed = needed || zooTapeRequiresGrad(tape, inputs[i].id);
  if (!needed)
    return NULL;
  tape->nodes = memoptGrowArray(tape->nodes, &tape->nodeCapacity, (size_t)tape->nodeCount + 1,
                                sizeof(ZooNode));
  ZooNode *node = &tape->nodes[tape->nodeCount++];
  memset(node, 0, sizeof *node);
  node->kind = kind;
  node->inputCount = inputCount;
  for (int i = 0; i < inputCount; ++i)
    node->inputs[i] = inputs[i];
  node->output = output;
  node->saved[0] = node->saved[1] = zooNoValue();
  markRequiresGrad(tape, output.id);
  return node;
}

ZooValue zooContraction(ZooEmitter *e, ZooContractionKind kind, ZooValue a, bool transposeA,
                        ZooValue b, bool transposeB) {
  static const char *const hints[] = {"mm", "bmm", "mm", "mm"};
  ZooValue result = zooEmitContraction(e, hints[kind], kind, a, transposeA, b, transposeB);
  ZooValue inputs[2] = {a, b};
  ZooNode *node = record(e, ZOO_NODE_CONTRACTION, 2, inputs, result);
  if (node) {
    node->variant = kind;
    node->dims[0] = transposeA;
    node->dims[1] = transposeB;
  }
  return result;
}

ZooValue zooMatmul(ZooEmitter *e, ZooValue a, ZooValue b) {
  return zooContraction(e, ZOO_MATMUL, a, false, b, false);
}

ZooValue zooBatchMatmul(ZooEmitter *e, ZooValue a, ZooValue b) {
  return zooContraction(e, ZOO_BATCH_MATMUL, a, false, b, false);
}

ZooValue zooTranspose(ZooEmitter *e, ZooValue x, const int *perm) {
  ZooValue result = zooEmitTranspose(e, "tr", x, perm);
  ZooNode *node = record(e, ZOO_NODE_TRANSPOSE, 1, &x, result);
  if (node) {
    node->dimCount = x.rank;
    memcpy(node->dims, perm, sizeof(int) * (size_t)x.rank);
  }
  return result;
}

ZooValue zooReshape(ZooEmitter *e, ZooValue x, int rank, const ZooSize *dims) {
  ZooValue result = zooEmitReshape(e, "rs", x, rank, dims);
  if (result.id != x.id)
    record(e, ZOO_NODE_RESHAPE, 1, &x, result);
  return result;
}

ZooValue zooBinary(ZooEmitter *e, ZooBinaryKind kind, ZooValue a, ZooValue b, const int *bDims) {
  static const char *const hints[] = {"add", "sub", "mul"};
  ZooValue result = zooEmitBinary(e, hints[kind], kind, a, b, bDims);
  ZooValue inputs[2] = {a, b};
  ZooNode *node = record(e, ZOO_NODE_BINARY, 2, inputs, result);
  if (node) {
    node->variant = kind;
    node->dimCount = b.rank;
    for (int i = 0; i < b.rank; ++i)
      node->dims[i] = bDims ? bDims[i] : a.rank - b.rank + i;
  }
  return result;
}

ZooValue zooAdd(ZooEmitter *e, ZooValue a, ZooValue b) {
  return zooBinary(e, ZOO_BINARY_ADD, a, b, NULL);
}

ZooValue zooMul(ZooEmitter *e, ZooValue a, ZooValue b) {
  return zooBinary(e, ZOO_BINARY_MUL, a, b, NULL);
}

ZooValue zooPointwise(ZooEmitter *e, ZooPointwiseKind kind, ZooValue x) {
  ZooValue init = zooEmitEmpty(e, "empty", x.type, x.rank, x.dims);
  ZooGeneric g;
  zooGenericBegin(&g, e, zooPointwiseName(kind), zooParallel(e, x.rank));
  const char *in = zooGenericInput(&g, x, zooMapOf(e, x.rank, NULL));
  zooGenericOutput(&g, init, zooMapOf(e, x.rank, NULL));
  const char *value = zooScalarPointwise(&g, kind, in, x.type);
  ZooValue result;
  zooGenericEnd(&g, &value, &result);
  ZooNode *node = record(e, ZOO_NODE_POINTWISE, 1, &x, result);
  if (node)
    node->variant = kind;
  return result;
}

ZooValue zooScaleBy(ZooEmitter *e, ZooValue x, const char *scalar) {
  ZooValue result = zooEmitScale(e, "scaled", x, scalar);
  ZooNode *node = record(e, ZOO_NODE_SCALE, 1, &x, result);
  if (node)
    node->scalar = scalar;
  return result;
}

ZooValue zooScale(ZooEmitter *e, ZooValue x, double factor) {
  return zooScaleBy(e, x, zooConstant(e, x.type, factor));
}

ZooValue zooReduceSum(ZooEmitter *e, ZooValue x, unsigned axes) {
  ZooValue result = zooEmitReduce(e, "sum", ZOO_REDUCE_SUM, x, axes);
  ZooNode *node = record(e, ZOO_NODE_REDUCE_SUM, 1, &x, result);
  if (node)
    node->axes = axes;
  return result;
}

ZooValue zooMean(ZooEmitter *e, ZooValue x, unsigned axes) {
  ZooSize count = zooSizeOfAxes(x, axes);
  return zooScaleBy(e, zooReduceSum(e, x, axes), zooReciprocalOfSize(e, count, x.type));
}

ZooValue zooBroadcast(ZooEmitter *e, ZooValue x, int rank, const ZooSize *dims, const int *dimMap) {
  ZooValue result = zooEmitBroadcast(e, "bcast", x, rank, dims, dimMap);
  ZooNode *node = record(e, ZOO_NODE_BROADCAST, 1, &x, result);
  if (node) {
    node->dimCount = x.rank;
    memcpy(node->dims, dimMap, sizeof(int) * (size_t)x.rank);
  }
  return result;
}

ZooValue zooSoftmax(ZooEmitter *e, ZooValue x) {
  int last = x.rank - 1;
  const char *t = zooElementName(x);
  const char *identity = zooMapOf(e, x.rank, NULL);
  const char *rowMap = zooMapOf(e, last, NULL);
  ZooValue max = zooEmitReduce(e, "rowmax", ZOO_REDUCE_MAX, x, 1u << last);

  ZooGeneric g;
  zooGenericBegin(&g, e, "exp", zooParallel(e, x.rank));
  const char *in = zooGenericInput(&g, x, identity);
  const char *rowMax = zooGenericInput(&g, max, rowMap);
  zooGenericOutput(&g, zooEmitEmpty(e, "empty", x.type, x.rank, x.dims), identity);
  const char *shifted = zooGenericOp(&g, "arith.subf %s, %s : %s", in, rowMax, t);
  const char *exp = zooGenericOp(&g, "math.exp %s : %s", shifted, t);
  ZooValue exps;
  zooGenericEnd(&g, &exp, &exps);

  ZooValue sum = zooEmitReduce(e, "rowsum", ZOO_REDUCE_SUM, exps, 1u << last);
  zooGenericBegin(&g, e, "softmax", zooParallel(e, x.rank));
  const char *numerator = zooGenericInput(&g, exps, identity);
  const char *denominator = zooGenericInput(&g, sum, rowMap);
  zooGenericOutput(&g, zooEmitEmpty(e, "empty", x.type, x.rank, x.dims), identity);
  const char *quotient = zooGenericOp(&g, "arith.divf %s, %s : %s", numerator, denominator, t);
  ZooValue result;
  zooGenericEnd(&g, &quotient, &result);
  record(e, ZOO_NODE_SOFTMAX, 1, &x, result);
  return result;
}

ZooValue zooEmitMaskFuture(ZooEmitter *e, const char *hint, ZooValue x, const char *fill) {
  const char *identity = zooMapOf(e, x.rank, NULL);
  ZooGeneric g;
  zooGenericBegin(&g, e, hint, zooParallel(e, x.rank));
  const char *in = zooGenericInput(&g, x, identity);
  zooGenericOutput(&g, zooEmitEmpty(e, "empty", x.type, x.rank, x.dims), identity);
  const char *query = zooGenericIndex(&g, x.rank - 2);
  const char *key = zooGenericIndex(&g, x.rank - 1);
  const char *future = zooGenericOp(&g, "arith.cmpi ugt, %s, %s : index", key, query);
  const char *value = zooGenericOp(&g, "arith.select %s, %s, %s : %s", future, fill, in,
                                   zooElementName(x));
  ZooValue result;
  zooGenericEnd(&g, &value, &result);
  return result;
}

ZooValue zooCausalMask(ZooEmitter *e, ZooValue x) {
  ZooValue result = zooEmitMaskFuture(e, "masked", x, zooNegativeInfinity(e, x.type));
  record(e, ZOO_NODE_CAUSAL_MASK, 1, &x, result);
  return result;
}

ZooValue zooNormalize(ZooEmitter *e, ZooValue x, const ZooNormSpec *spec, ZooValue gamma,
                      ZooValue beta) {
  const char *t = zooElementName(x);
  const char *identity = zooMapOf(e, x.rank, NULL);
  int kept[ZOO_MAX_RANK];
  int keptCount = zooKeptDims(x.rank, spec->axes, kept);
  const char *statsMap = zooMapOf(e, keptCount, kept);
  const char *inverseCount = zooReciprocalOfSize(e, zooSizeOfAxes(x, spec->axes), x.type);
  const char *epsilon = zooConstant(e, x.type, spec->epsilon);

  ZooValue mean = zooNoValue();
  if (spec->centered)
    mean = zooEmitScale(e, "mean", zooEmitReduce(e, "sum", ZOO_REDUCE_SUM, x, spec->axes),
                        inverseCount);

  /* Sum of squared deviations (or of squares, for RMSNorm). */
  ZooSize statsDims[ZOO_MAX_RANK];
  for (int i = 0; i < keptCount; ++i)
    statsDims[i] = x.dims[kept[i]];
  ZooValue init = zooEmitFull(e, "zero", x.type, keptCount, statsDims, 0.0);
  char iterators[ZOO_MAX_RANK + 1];
  for (int i = 0; i < x.rank; ++i)
    iterators[i] = ((spec->axes >> i) & 1u) ? 'r' : 'p';
  iterators[x.rank] = '\0';
  ZooGeneric g;
  zooGenericBegin(&g, e, "sqsum", iterators);
  const char *in = zooGenericInput(&g, x, identity);
  const char *meanIn = spec->centered ? zooGenericInput(&g, mean, statsMap) : NULL;
  const char *acc = zooGenericOutput(&g, init, statsMap);
  const char *deviation = meanIn ? zooGenericOp(&g, "arith.subf %s, %s : %s", in, meanIn, t) : in;
  const char *square = zooGenericOp(&g, "arith.mulf %s, %s : %s", deviation, deviation, t);
  const char *sum = zooGenericOp(&g, "arith.addf %s, %s : %s", square, acc, t);
  ZooValue squares;
  zooGenericEnd(&g, &sum, &squares);

  zooGenericBegin(&g, e, "rstd", zooParallel(e, keptCount));
  in = zooGenericInput(&g, squares, zooMapOf(e, keptCount, NULL));
  zooGenericOutput(&g, zooEmitEmpty(e, "empty", x.type, keptCount, statsDims),
                   zooMapOf(e, keptCount, NULL));
  const char *variance = zooGenericOp(&g, "arith.mulf %s, %s : %s", in, inverseCount, t);
  const char *shifted = zooGenericOp(&g, "arith.addf %s, %s : %s", variance, epsilon, t);
  /* 1 / sqrt rather than math.rsqrt: convert-math-to-libm turns an f64 rsqrt
   * into a call to a libm function that does not exist. */
  const char *standardDeviation = zooGenericOp(&g, "math.sqrt %s : %s", shifted, t);
  const char *rstdValue = zooGenericOp(&g, "arith.divf %s, %s : %s", zooConstant(e, x.type, 1.0), standardDeviation, t);
  ZooValue rstd;
  zooGenericEnd(&g, &rstdValue, &rstd);

  const char *affineMap = zooMapOf(e, spec->affineRank, spec->affineDims);
  zooGenericBegin(&g, e, "norm", zooParallel(e, x.rank));
  in = zooGenericInput(&g, x, identity);
  meanIn = spec->centered ? zooGenericInput(&g, mean, statsMap) : NULL;
  const char *rstdIn = zooGenericInput(&g, rstd, statsMap);
  const char *gammaIn = zooHasValue(gamma) ? zooGenericInput(&g, gamma, affineMap) : NULL;
  const char *betaIn = zooHasValue(beta) ? zooGenericInput(&g, beta, affineMap) : NULL;
  zooGenericOutput(&g, zooEmitEmpty(e, "empty", x.type, x.rank, x.dims), identity);
  deviation = meanIn ? zooGenericOp(&g, "arith.subf %s, %s : %s", in, meanIn, t) : in;
  const char *value = zooGenericOp(&g, "arith.mulf %s, %s : %s", deviation, rstdIn, t);
  if (gammaIn)
    value = zooGenericOp(&g, "arith.mulf %s, %s : %s", value, gammaIn, t);
  if (betaIn)
    value = zooGenericOp(&g, "arith.addf %s, %s : %s", value, betaIn, t);
  ZooValue result;
  zooGenericEnd(&g, &value, &result);

  ZooValue inputs[3] = {x, zooNoValue(), zooNoValue()};
  int inputCount = 1;
  if (zooHasValue(gamma))
    inputs[inputCount++] = gamma;
  if (zooHasValue(beta))
    inputs[inputCount++] = beta;
  ZooNode *node = record(e, ZOO_NODE_NORMALIZE, inputCount, inputs, result);
  if (node) {
    node->norm = *spec;
    node->saved[0] = mean;
    node->saved[1] = rstd;
    /* Which inputs are gamma and beta is recorded in `variant`: bit 0 gamma, bit 1 beta. */
    node->variant = (zooHasValue(gamma) ? 1 : 0) | (zooHasValue(beta) ? 2 : 0);
  }
  return result;
}

ZooValue zooPad(ZooEmitter *e, ZooValue x, const long long *low, const long long *high,
                ZooPadValue value) {
  const char *padding = value == ZOO_PAD_ZERO ? zooConstant(e, x.type, 0.0)
                                              : zooNegativeInfinity(e, x.type);
  ZooValue result = zooEmitPad(e, "pad", x, low, high, padding);
  ZooNode *node = record(e, ZOO_NODE_PAD, 1, &x, result);
  if (node)
    memcpy(node->offsets, low, sizeof(long long) * (size_t)x.rank);
  return result;
}

ZooValue zooSlice(ZooEmitter *e, ZooValue x, const long long *offsets, const ZooSize *sizes) {
  ZooValue result = zooEmitSlice(e, "slice", x, offsets, sizes);
  ZooNode *node = record(e, ZOO_NODE_SLICE, 1, &x, result);
  if (node)
    memcpy(node->offsets, offsets, sizeof(long long) * (size_t)x.rank);
  return result;
}

ZooValue zooConcat(ZooEmitter *e, int dim, ZooValue a, ZooValue b) {
  ZooValue result = zooEmitConcat(e, "cat", dim, a, b);
  ZooValue inputs[2] = {a, b};
  ZooNode *node = record(e, ZOO_NODE_CONCAT, 2, inputs, result);
  if (node)
    node->dims[0] = dim;
  return result;
}

/* Records the convolution `result` = x (*) w of kind `kind`; returns `result`. */
static ZooValue recordConvolution(ZooEmitter *e, ZooNodeKind kind, ZooValue result, ZooValue x,
                                  ZooValue w, int stride) {
  ZooValue inputs[2] = {x, w};
  ZooNode *node = record(e, kind, 2, inputs, result);
  if (node)
    node->stride = stride;
  return result;
}

ZooValue zooConv2d(ZooEmitter *e, ZooValue x, ZooValue w, int stride) {
  return recordConvolution(e, ZOO_NODE_CONV2D, zooEmitConv2d(e, "conv", x, w, stride), x, w,
                           stride);
}

ZooValue zooDepthwiseConv2d(ZooEmitter *e, ZooValue x, ZooValue w, int stride) {
  return recordConvolution(e, ZOO_NODE_DEPTHWISE_CONV2D,
                           zooEmitDepthwiseConv2d(e, "dwconv", x, w, stride), x, w, stride);
}

ZooValue zooMaxPool(ZooEmitter *e, ZooValue x, int window, int stride) {
  ZooValue result = zooEmitMaxPool(e, "pool", x, window, stride);
  ZooNode *node = record(e, ZOO_NODE_MAX_POOL, 1, &x, result);
  if (node) {
    node->window = window;
    node->stride = stride;
  }
  return result;
}

ZooValue zooEmbedding(ZooEmitter *e, ZooValue table, ZooValue ids) {
  ZooSize dims[ZOO_MAX_RANK];
  for (int i = 0; i < ids.rank; ++i)
    dims[i] = ids.dims[i];
  dims[ids.rank] = table.dims[1];
  int rank = ids.rank + 1;
  ZooGeneric g;
  zooGenericBegin(&g, e, "embed", zooParallel(e, rank));
  const char *id = zooGenericInput(&g, ids, zooMapOf(e, ids.rank, NULL));
  zooGenericOutput(&g, zooEmitEmpty(e, "empty", table.type, rank, dims), zooMapOf(e, rank, NULL));
  const char *row = zooGenericOp(&g, "arith.index_cast %s : i64 to index", id);
  const char *column = zooGenericIndex(&g, ids.rank);
  const char *value = zooGenericOp(&g, "tensor.extract %s[%s, %s] : %s", zooName(e, table), row,
                                   column, zooType(e, table));
  ZooValue result;
  zooGenericEnd(&g, &value, &result);
  ZooValue inputs[2] = {table, ids};
  record(e, ZOO_NODE_EMBEDDING, 2, inputs, result);
  return result;
}

ZooValue zooCrossEntropy(ZooEmitter *e, ZooValue logits, ZooValue labels) {
  /* Rank-generic (classes in the last dim), so that [batch, seq, vocab] logits
   * need no reshape: with --dynamic that reshape's gradient would be an
   * expand_shape with two dynamic sizes in one group. */
  const char *t = zooElementName(logits);
  int rank = logits.rank, last = rank - 1;
  const char *full = zooMapOf(e, rank, NULL);
  const char *rowMap = zooMapOf(e, last, NULL);
  ZooValue max = zooEmitReduce(e, "rowmax", ZOO_REDUCE_MAX, logits, 1u << last);
  ZooSize rows = zooSizeOfAxes(logits, (1u << last) - 1); /* every dim but the last */
  char reduceLast[ZOO_MAX_RANK + 1], reduceAll[ZOO_MAX_RANK + 1];
  for (int i = 0; i < rank; ++i) {
    reduceLast[i] = i == last ? 'r' : 'p';
    reduceAll[i] = 'r';
  }
  reduceLast[rank] = reduceAll[rank] = '\0';

  /* logsumexp = max + log(sum(exp(x - max))) */
  ZooGeneric g;
  zooGenericBegin(&g, e, "sumexp", reduceLast);
  const char *in = zooGenericInput(&g, logits, full);
  const char *rowMax = zooGenericInput(&g, max, rowMap);
  const char *acc = zooGenericOutput(&g, zooEmitFull(e, "zero", logits.type, last, logits.dims, 0.0), rowMap);
  const char *shifted = zooGenericOp(&g, "arith.subf %s, %s : %s", in, rowMax, t);
  const char *exp = zooGenericOp(&g, "math.exp %s : %s", shifted, t);
  const char *sum = zooGenericOp(&g, "arith.addf %s, %s : %s", exp, acc, t);
  ZooValue sums;
  zooGenericEnd(&g, &sum, &sums);

  zooGenericBegin(&g, e, "logsumexp", zooParallel(e, last));
  in = zooGenericInput(&g, sums, rowMap);
  rowMax = zooGenericInput(&g, max, rowMap);
  zooGenericOutput(&g, zooEmitEmpty(e, "empty", logits.type, last, logits.dims), rowMap);
  const char *log = zooGenericOp(&g, "math.log %s : %s", in, t);
  const char *lseValue = zooGenericOp(&g, "arith.addf %s, %s : %s", log, rowMax, t);
  ZooValue lse;
  zooGenericEnd(&g, &lseValue, &lse);

  /* loss = mean over rows of (logsumexp - logits[row, label]) */
  ZooValue scalarInit = zooEmitFull(e, "zero", logits.type, 0, NULL, 0.0);
  zooGenericBegin(&g, e, "nll", reduceAll);
  in = zooGenericInput(&g, logits, full);
  const char *label = zooGenericInput(&g, labels, rowMap);
  const char *lseIn = zooGenericInput(&g, lse, rowMap);
  acc = zooGenericOutput(&g, scalarInit, "");
  const char *column = zooGenericIndex(&g, last);
  const char *labelIndex = zooGenericOp(&g, "arith.index_cast %s : i64 to index", label);
  const char *isLabel = zooGenericOp(&g, "arith.cmpi eq, %s, %s : index", column, labelIndex);
  const char *loss = zooGenericOp(&g, "arith.subf %s, %s : %s", lseIn, in, t);
  const char *picked = zooGenericOp(&g, "arith.select %s, %s, %s : %s", isLabel, loss,
                                    zooConstant(e, logits.type, 0.0), t);
  const char *total = zooGenericOp(&g, "arith.addf %s, %s : %s", picked, acc, t);
  ZooValue summed;
  zooGenericEnd(&g, &total, &summed);
  ZooValue result = zooEmitScale(e, "loss", summed, zooReciprocalOfSize(e, rows, logits.type));
  ZooValue inputs[2] = {logits, labels};
  ZooNode *node = record(e, ZOO_NODE_CROSS_ENTROPY, 2, inputs, result);
  if (node)
    node->saved[0] = lse;
  return result;
}

ZooValue zooMeanSquaredError(ZooEmitter *e, ZooValue y, ZooValue target) {
  const char *t = zooElementName(y);
  char iterators[ZOO_MAX_RANK + 1];
  ZooSize count = zooSizeOfAxes(y, (1u << y.rank) - 1);
  for (int i = 0; i < y.rank; ++i)
    iterators[i] = 'r';
  iterators[y.rank] = '\0';
  ZooGeneric g;
  zooGenericBegin(&g, e, "sqerr", iterators);
  const char *a = zooGenericInput(&g, y, zooMapOf(e, y.rank, NULL));
  const char *b = zooGenericInput(&g, target, zooMapOf(e, y.rank, NULL));
  const char *acc = zooGenericOutput(&g, zooEmitFull(e, "zero", y.type, 0, NULL, 0.0), "");
  const char *difference = zooGenericOp(&g, "arith.subf %s, %s : %s", a, b, t);
  const char *square = zooGenericOp(&g, "arith.mulf %s, %s : %s", difference, difference, t);
  const char *sum = zooGenericOp(&g, "arith.addf %s, %s : %s", square, acc, t);
  ZooValue summed;
  zooGenericEnd(&g, &sum, &summed);
  ZooValue result = zooEmitScale(e, "loss", summed, zooReciprocalOfSize(e, count, y.type));
  ZooValue inputs[2] = {y, target};
  record(e, ZOO_NODE_MEAN_SQUARED_ERROR, 2, inputs, result);
  return result;
}

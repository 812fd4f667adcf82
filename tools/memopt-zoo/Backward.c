/* Reverse mode: walks the tape backwards and writes each node's backward ops,
 * accumulating input gradients. Only the gradients that lead to a parameter
 * are computed (e.g. never d loss / d image), as a framework would. */
#include "Tape.h"

#include <stdlib.h>
#include <string.h>

typedef struct Backward {
  ZooEmitter *e;
  ZooTape *tape;
  ZooValue *grads; /* indexed by value id */
  int gradCount;
} Backward;

static bool wants(const Backward *b, ZooValue value) {
  return zooTapeRequiresGrad(b->tape, value.id);
}

static void accumulate(Backward *b, ZooValue target, ZooValue grad) {
  if (!wants(b, target))
    return;
  if (target.id >= b->gradCount) {
    zooFail(b->e, "internal: gradient for a value created during backward");
    return;
  }
  if (!zooHasValue(b->grads[target.id]))
    b->grads[target.id] = grad;
  else
    b->grads[target.id] =
        zooEmitBinary(b->e, "gacc", ZOO_BINARY_ADD, b->grads[target.id], grad, NULL);
}

/* Sums `grad` (shaped like the op output) down to an operand that was
 * broadcast along the output dims not in `dims`. */
static ZooValue unbroadcast(Backward *b, const char *hint, ZooValue grad, int count, const int *dims) {
  if (count == grad.rank)
    return grad;
  return zooEmitProductReduce(b->e, hint, grad, zooNoValue(), count, dims);
}

/* C = op(A) op(B), op a transpose where flagged. With A' = op(A), B' = op(B):
 * dA' = dC B'^T and dB' = A'^T dC, each written as one contraction that reads
 * its operands transposed where needed (never a linalg.transpose copy). */
static void contractionBackward(Backward *b, const ZooNode *node, ZooValue dc) {
  ZooEmitter *e = b->e;
  ZooContractionKind kind = (ZooContractionKind)node->variant;
  ZooValue lhs = node->inputs[0], rhs = node->inputs[1];
  bool tA = node->dims[0], tB = node->dims[1];
  if (kind == ZOO_BATCH_REDUCE_MATMUL || (kind == ZOO_BATCH_MATMUL_SHARED_RHS && tA)) {
    zooFail(e, "internal: no backward rule for this contraction");
    return;
  }
  if (wants(b, lhs)) {
    ZooValue dA;
    if (!tA) /* dA = dC op(B)^T */
      dA = zooEmitContraction(e, "dmm", kind, dc, false, rhs, !tB);
    else /* dA = (dC op(B)^T)^T = op(B) dC^T */
      dA = zooEmitContraction(e, "dmm", kind, rhs, tB, dc, true);
    accumulate(b, lhs, dA);
  }
  if (wants(b, rhs)) {
    /* A shared rhs collects the gradient of every batch: a batch-reduce contraction. */
    ZooContractionKind rhsKind = kind == ZOO_BATCH_MATMUL_SHARED_RHS ? ZOO_BATCH_REDUCE_MATMUL : kind;
    ZooValue dB;
    if (!tB) /* dB = op(A)^T dC */
      dB = zooEmitContraction(e, "dmm", rhsKind, lhs, !tA, dc, false);
    else /* dB = (op(A)^T dC)^T = dC^T op(A) */
      dB = zooEmitContraction(e, "dmm", rhsKind, dc, true, lhs, tA);
    accumulate(b, rhs, dB);
  }
}

static void binaryBackward(Backward *b, const ZooNode *node, ZooValue dy) {
  ZooEmitter *e = b->e;
  ZooValue lhs = node->inputs[0], rhs = node->inputs[1];
  switch ((ZooBinaryKind)node->variant) {
  case ZOO_BINARY_ADD:
  case ZOO_BINARY_SUB:
    accumulate(b, lhs, dy);
    if (wants(b, rhs)) {
      ZooValue reduced = unbroadcast(b, "dbias", dy, node->dimCount, node->dims);
      if (node->variant == ZOO_BINARY_SUB)
        reduced = zooEmitScale(e, "dneg", reduced, zooConstant(e, dy.type, -1.0));
      accumulate(b, rhs, reduced);
    }
    break;
  case ZOO_BINARY_MUL:
    if (wants(b, lhs))
      accumulate(b, lhs, zooEmitBinary(e, "dmul", ZOO_BINARY_MUL, dy, rhs, node->dims));
    if (wants(b, rhs))
      accumulate(b, rhs, zooEmitProductReduce(e, "dmul", dy, lhs, node->dimCount, node->dims));
    break;
  }
}

static void pointwiseBackward(Backward *b, const ZooNode *node, ZooValue dy) {
  ZooEmitter *e = b->e;
  ZooValue x = node->inputs[0];
  const char *identity = zooMapOf(e, x.rank, NULL);
  ZooGeneric g;
  zooGenericBegin(&g, e, "dact", zooParallel(e, x.rank));
  const char *grad = zooGenericInput(&g, dy, identity);
  const char *in = zooGenericInput(&g, x, identity);
  zooGenericOutput(&g, zooEmitEmpty(e, "empty", x.type, x.rank, x.dims), identity);
  const char *slope = zooScalarPointwiseDerivative(&g, (ZooPointwiseKind)node->variant, in, x.type);
  const char *value = zooGenericOp(&g, "arith.mulf %s, %s : %s", grad, slope, zooElementName(x));
  ZooValue dx;
  zooGenericEnd(&g, &value, &dx);
  accumulate(b, x, dx);
}

static void softmaxBackward(Backward *b, const ZooNode *node, ZooValue dy) {
  /* dx = p * (dy - sum_j dy_j p_j) */
  ZooEmitter *e = b->e;
  ZooValue p = node->output;
  int last = p.rank - 1;
  int rows[ZOO_MAX_RANK];
  for (int i = 0; i < last; ++i)
    rows[i] = i;
  ZooValue dot = zooEmitProductReduce(e, "dsoftmax_dot", dy, p, last, rows);
  const char *identity = zooMapOf(e, p.rank, NULL);
  const char *t = zooElementName(p);
  ZooGeneric g;
  zooGenericBegin(&g, e, "dsoftmax", zooParallel(e, p.rank));
  const char *grad = zooGenericInput(&g, dy, identity);
  const char *prob = zooGenericInput(&g, p, identity);
  const char *rowDot = zooGenericInput(&g, dot, zooMapOf(e, last, rows));
  zooGenericOutput(&g, zooEmitEmpty(e, "empty", p.type, p.rank, p.dims), identity);
  const char *centered = zooGenericOp(&g, "arith.subf %s, %s : %s", grad, rowDot, t);
  const char *value = zooGenericOp(&g, "arith.mulf %s, %s : %s", prob, centered, t);
  ZooValue dx;
  zooGenericEnd(&g, &value, &dx);
  accumulate(b, node->inputs[0], dx);
}

static void causalMaskBackward(Backward *b, const ZooNode *node, ZooValue dy) {
  /* Masked (future) scores got no gradient: the same mask with zeros. */
  ZooValue dx = zooEmitMaskFuture(b->e, "dmasked", dy, zooConstant(b->e, dy.type, 0.0));
  accumulate(b, node->inputs[0], dx);
}

static void normalizeBackward(Backward *b, const ZooNode *node, ZooValue dy) {
  ZooEmitter *e = b->e;
  const ZooNormSpec *spec = &node->norm;
  ZooValue x = node->inputs[0];
  int next = 1;
  ZooValue gamma = (node->variant & 1) ? node->inputs[next++] : zooNoValue();
  ZooValue beta = (node->variant & 2) ? node->inputs[next++] : zooNoValue();
  ZooValue mean = node->saved[0], rstd = node->saved[1];
  const char *t = zooElementName(x);
  const char *identity = zooMapOf(e, x.rank, NULL);
  int kept[ZOO_MAX_RANK];
  int keptCount = zooKeptDims(x.rank, spec->axes, kept);
  const char *statsMap = zooMapOf(e, keptCount, kept);
  const char *affineMap = zooMapOf(e, spec->affineRank, spec->affineDims);
  const char *inverseCount = zooReciprocalOfSize(e, zooSizeOfAxes(x, spec->axes), x.type);

  /* xhat is recomputed from the saved statistics, as frameworks do. */
  ZooGeneric g;
  zooGenericBegin(&g, e, "xhat", zooParallel(e, x.rank));
  const char *in = zooGenericInput(&g, x, identity);
  const char *meanIn = spec->centered ? zooGenericInput(&g, mean, statsMap) : NULL;
  const char *rstdIn = zooGenericInput(&g, rstd, statsMap);
  zooGenericOutput(&g, zooEmitEmpty(e, "empty", x.type, x.rank, x.dims), identity);
  const char *deviation = meanIn ? zooGenericOp(&g, "arith.subf %s, %s : %s", in, meanIn, t) : in;
  const char *value = zooGenericOp(&g, "arith.mulf %s, %s : %s", deviation, rstdIn, t);
  ZooValue xhat;
  zooGenericEnd(&g, &value, &xhat);

  if (zooHasValue(gamma) && wants(b, gamma))
    accumulate(b, gamma, zooEmitProductReduce(e, "dgamma", dy, xhat, spec->affineRank, spec->affineDims));
  if (zooHasValue(beta) && wants(b, beta))
    accumulate(b, beta, zooEmitProductReduce(e, "dbeta", dy, zooNoValue(), spec->affineRank, spec->affineDims));
  if (!wants(b, x))
    return;

  ZooValue scaled = dy;
  if (zooHasValue(gamma)) {
    zooGenericBegin(&g, e, "dxhat", zooParallel(e, x.rank));
    const char *grad = zooGenericInput(&g, dy, identity);
    const char *gammaIn = zooGenericInput(&g, gamma, affineMap);
    zooGenericOutput(&g, zooEmitEmpty(e, "empty", x.type, x.rank, x.dims), identity);
    value = zooGenericOp(&g, "arith.mulf %s, %s : %s", grad, gammaIn, t);
    zooGenericEnd(&g, &value, &scaled);
  }
  ZooValue projection = zooEmitProductReduce(e, "dnorm_dot", scaled, xhat, keptCount, kept);
  ZooValue total = spec->centered
                       ? zooEmitProductReduce(e, "dnorm_sum", scaled, zooNoValue(), keptCount, kept)
                       : zooNoValue();

  /* dx = rstd * (g - mean(g) - xhat * mean(g * xhat)) */
  zooGenericBegin(&g, e, "dnorm", zooParallel(e, x.rank));
  const char *grad = zooGenericInput(&g, scaled, identity);
  const char *hat = zooGenericInput(&g, xhat, identity);
  rstdIn = zooGenericInput(&g, rstd, statsMap);
  const char *projectionIn = zooGenericInput(&g, projection, statsMap);
  const char *totalIn = spec->centered ? zooGenericInput(&g, total, statsMap) : NULL;
  zooGenericOutput(&g, zooEmitEmpty(e, "empty", x.type, x.rank, x.dims), identity);
  const char *projectionMean = zooGenericOp(&g, "arith.mulf %s, %s : %s", projectionIn, inverseCount, t);
  const char *along = zooGenericOp(&g, "arith.mulf %s, %s : %s", hat, projectionMean, t);
  value = zooGenericOp(&g, "arith.subf %s, %s : %s", grad, along, t);
  if (totalIn) {
    const char *totalMean = zooGenericOp(&g, "arith.mulf %s, %s : %s", totalIn, inverseCount, t);
    value = zooGenericOp(&g, "arith.subf %s, %s : %s", value, totalMean, t);
  }
  value = zooGenericOp(&g, "arith.mulf %s, %s : %s", value, rstdIn, t);
  ZooValue dx;
  zooGenericEnd(&g, &value, &dx);
  accumulate(b, x, dx);
}

/* The affine expression of input position `window + output * stride`. */
static const char *windowedIndex(ZooEmitter *e, int outputDim, int windowDim, int stride) {
  if (stride == 1)
    return zooFormat(e, "d%d + d%d", outputDim, windowDim);
  return zooFormat(e, "d%d * %d + d%d", outputDim, stride, windowDim);
}

/* Zero-interleaves dy by the stride and pads it by window-1 (plus the rows the
 * forward stride skipped), so that a stride-1 convolution with the flipped
 * filter yields the gradient of the padded input. */
static ZooValue dilateForTransposedConv(Backward *b, ZooValue dy, ZooValue xPadded, int window,
                                        int stride) {
  if (window == 1 && stride == 1)
    return dy;
  ZooSize dims[4] = {dy.dims[0], zooSizeStatic(0), zooSizeStatic(0), dy.dims[3]};
  for (int axis = 1; axis <= 2; ++axis) {
    long long remainder = (xPadded.dims[axis].factor - window) % stride;
    dims[axis] = zooSizeStatic((dy.dims[axis].factor - 1) * stride + 1 + 2 * (window - 1) + remainder);
  }
  ZooValue zeros = zooEmitFull(b->e, "zero", dy.type, 4, dims, 0.0);
  long long offsets[4] = {0, window - 1, window - 1, 0};
  long long strides[4] = {1, stride, stride, 1};
  return zooEmitInsertSlice(b->e, "dilated", dy, zeros, offsets, strides);
}

static void convBackward(Backward *b, const ZooNode *node, ZooValue dy, bool depthwise) {
  ZooEmitter *e = b->e;
  ZooValue x = node->inputs[0], w = node->inputs[1];
  int window = (int)w.dims[0].factor, stride = node->stride;
  const char *t = zooElementName(x);
  if (wants(b, w)) {
    /* dW[kh,kw,c(,f)] = sum_{n,oh,ow} x[n, oh*s+kh, ow*s+kw, c] * dy[n,oh,ow,(f|c)] */
    ZooGeneric g;
    ZooValue init = zooEmitFull(e, "zero", w.type, w.rank, w.dims, 0.0);
    const char *xMap, *dyMap, *wMap;
    if (depthwise) {
      zooGenericBegin(&g, e, "dfilter", "ppprrr");
      xMap = zooFormat(e, "d3, %s, %s, d2", windowedIndex(e, 4, 0, stride), windowedIndex(e, 5, 1, stride));
      dyMap = "d3, d4, d5, d2";
      wMap = "d0, d1, d2";
    } else {
      zooGenericBegin(&g, e, "dfilter", "pppprrr");
      xMap = zooFormat(e, "d4, %s, %s, d2", windowedIndex(e, 5, 0, stride), windowedIndex(e, 6, 1, stride));
      dyMap = "d4, d5, d6, d3";
      wMap = "d0, d1, d2, d3";
    }
    const char *in = zooGenericInput(&g, x, xMap);
    const char *grad = zooGenericInput(&g, dy, dyMap);
    const char *acc = zooGenericOutput(&g, init, wMap);
    const char *product = zooGenericOp(&g, "arith.mulf %s, %s : %s", in, grad, t);
    const char *sum = zooGenericOp(&g, "arith.addf %s, %s : %s", product, acc, t);
    ZooValue dw;
    zooGenericEnd(&g, &sum, &dw);
    accumulate(b, w, dw);
  }
  if (wants(b, x)) {
    ZooValue dilated = dilateForTransposedConv(b, dy, x, window, stride);
    /* The filter rotated by 180 degrees (and, for a full conv, with c and f swapped). */
    const char *flip0 = window == 1 ? "d0" : zooFormat(e, "%d - d0", window - 1);
    const char *flip1 = window == 1 ? "d1" : zooFormat(e, "%d - d1", window - 1);
    ZooSize flippedDims[4] = {w.dims[0], w.dims[1], depthwise ? w.dims[2] : w.dims[3], w.dims[2]};
    ZooGeneric g;
    zooGenericBegin(&g, e, "flipped", zooParallel(e, w.rank));
    const char *in = zooGenericInput(&g, w, depthwise ? zooFormat(e, "%s, %s, d2", flip0, flip1)
                                                    : zooFormat(e, "%s, %s, d3, d2", flip0, flip1));
    zooGenericOutput(&g, zooEmitEmpty(e, "empty", w.type, w.rank, flippedDims), zooMapOf(e, w.rank, NULL));
    ZooValue flipped;
    zooGenericEnd(&g, &in, &flipped);
    ZooValue dx = depthwise ? zooEmitDepthwiseConv2d(e, "dconv", dilated, flipped, 1)
                            : zooEmitConv2d(e, "dconv", dilated, flipped, 1);
    accumulate(b, x, dx);
  }
}

/* Ends a gather-style gradient generic `g` (x's shape, accumulator `acc`): adds
 * `grad` where `take` holds, and accumulates the result into x's gradient. */
static void endMaskedSum(Backward *b, ZooGeneric *g, const char *take, const char *grad,
                         const char *acc, ZooValue x) {
  const char *t = zooElementName(x);
  const char *contribution = zooGenericOp(g, "arith.select %s, %s, %s : %s", take, grad,
                                          zooConstant(b->e, x.type, 0.0), t);
  const char *sum = zooGenericOp(g, "arith.addf %s, %s : %s", contribution, acc, t);
  ZooValue dx;
  zooGenericEnd(g, &sum, &dx);
  accumulate(b, x, dx);
}

static void maxPoolBackward(Backward *b, const ZooNode *node, ZooValue dy) {
  /* Gather form: each input position collects dy from every window that
   * contains it and whose maximum it equals. Ties all receive the gradient. */
  ZooEmitter *e = b->e;
  ZooValue x = node->inputs[0], y = node->output;
  int window = node->window, stride = node->stride;
  const char *t = zooElementName(x);
  ZooSize windowDims[2] = {zooSizeStatic(window), zooSizeStatic(window)};
  ZooValue shape = zooEmitEmpty(e, "window", x.type, 2, windowDims);
  ZooValue init = zooEmitFull(e, "zero", x.type, 4, x.dims, 0.0);
  const char *strideValue = zooIndexConstant(e, stride);
  const char *zero = zooIndexConstant(e, 0);
  ZooGeneric g;
  zooGenericBegin(&g, e, "dpool", "pppprr");
  const char *in = zooGenericInput(&g, x, "d0, d1, d2, d3");
  zooGenericInput(&g, shape, "d4, d5");
  const char *acc = zooGenericOutput(&g, init, "d0, d1, d2, d3");
  const char *outputIndex[2], *valid[2];
  for (int axis = 0; axis < 2; ++axis) {
    const char *position = zooGenericIndex(&g, 1 + axis);
    const char *offset = zooGenericIndex(&g, 4 + axis);
    const char *start = zooGenericOp(&g, "arith.subi %s, %s : index", position, offset);
    const char *quotient = zooGenericOp(&g, "arith.divsi %s, %s : index", start, strideValue);
    const char *remainder = zooGenericOp(&g, "arith.remsi %s, %s : index", start, strideValue);
    const char *nonNegative = zooGenericOp(&g, "arith.cmpi sge, %s, %s : index", start, zero);
    const char *aligned = zooGenericOp(&g, "arith.cmpi eq, %s, %s : index", remainder, zero);
    const char *inRange = zooGenericOp(&g, "arith.cmpi slt, %s, %s : index", quotient,
                                       zooIndexConstant(e, y.dims[1 + axis].factor));
    const char *both = zooGenericOp(&g, "arith.andi %s, %s : i1", nonNegative, aligned);
    valid[axis] = zooGenericOp(&g, "arith.andi %s, %s : i1", both, inRange);
    outputIndex[axis] = zooGenericOp(&g, "arith.select %s, %s, %s : index", valid[axis], quotient, zero);
  }
  const char *batch = zooGenericIndex(&g, 0);
  const char *channel = zooGenericIndex(&g, 3);
  const char *maximum = zooGenericOp(&g, "tensor.extract %s[%s, %s, %s, %s] : %s", zooName(e, y), batch,
                                     outputIndex[0], outputIndex[1], channel, zooType(e, y));
  const char *grad = zooGenericOp(&g, "tensor.extract %s[%s, %s, %s, %s] : %s", zooName(e, dy), batch,
                                  outputIndex[0], outputIndex[1], channel, zooType(e, dy));
  const char *isMax = zooGenericOp(&g, "arith.cmpf oeq, %s, %s : %s", in, maximum, t);
  const char *inside = zooGenericOp(&g, "arith.andi %s, %s : i1", valid[0], valid[1]);
  const char *take = zooGenericOp(&g, "arith.andi %s, %s : i1", inside, isMax);
  endMaskedSum(b, &g, take, grad, acc, x);
}

static void embeddingBackward(Backward *b, const ZooNode *node, ZooValue dy) {
  /* dTable[v, h] = sum over positions p with ids[p] == v of dy[p, h] */
  ZooEmitter *e = b->e;
  ZooValue table = node->inputs[0], ids = node->inputs[1];
  if (!wants(b, table))
    return;
  char iterators[ZOO_MAX_RANK + 3] = "pp";
  int positionDims[ZOO_MAX_RANK + 1];
  for (int i = 0; i < ids.rank; ++i) {
    iterators[2 + i] = 'r';
    positionDims[i] = 2 + i;
  }
  iterators[2 + ids.rank] = '\0';
  positionDims[ids.rank] = 1;
  ZooGeneric g;
  zooGenericBegin(&g, e, "dtable", iterators);
  const char *id = zooGenericInput(&g, ids, zooMapOf(e, ids.rank, positionDims));
  const char *grad = zooGenericInput(&g, dy, zooMapOf(e, ids.rank + 1, positionDims));
  const char *acc = zooGenericOutput(&g, zooEmitFull(e, "zero", table.type, 2, table.dims, 0.0), "d0, d1");
  const char *row = zooGenericIndex(&g, 0);
  const char *idIndex = zooGenericOp(&g, "arith.index_cast %s : i64 to index", id);
  const char *match = zooGenericOp(&g, "arith.cmpi eq, %s, %s : index", row, idIndex);
  endMaskedSum(b, &g, match, grad, acc, table);
}

static void crossEntropyBackward(Backward *b, const ZooNode *node, ZooValue dloss) {
  /* dlogits = (softmax(logits) - onehot(labels)) * dloss / rows */
  ZooEmitter *e = b->e;
  ZooValue logits = node->inputs[0], labels = node->inputs[1], lse = node->saved[0];
  const char *t = zooElementName(logits);
  int rank = logits.rank, last = rank - 1;
  ZooSize rows = zooSizeOfAxes(logits, (1u << last) - 1); /* every dim but the last */
  const char *inverseRows = zooReciprocalOfSize(e, rows, logits.type);
  const char *full = zooMapOf(e, rank, NULL);
  const char *rowMap = zooMapOf(e, last, NULL);
  ZooGeneric g;
  zooGenericBegin(&g, e, "dlogits", zooParallel(e, rank));
  const char *in = zooGenericInput(&g, logits, full);
  const char *label = zooGenericInput(&g, labels, rowMap);
  const char *lseIn = zooGenericInput(&g, lse, rowMap);
  const char *upstream = zooGenericInput(&g, dloss, "");
  zooGenericOutput(&g, zooEmitEmpty(e, "empty", logits.type, rank, logits.dims), full);
  const char *shifted = zooGenericOp(&g, "arith.subf %s, %s : %s", in, lseIn, t);
  const char *probability = zooGenericOp(&g, "math.exp %s : %s", shifted, t);
  const char *column = zooGenericIndex(&g, last);
  const char *labelIndex = zooGenericOp(&g, "arith.index_cast %s : i64 to index", label);
  const char *isLabel = zooGenericOp(&g, "arith.cmpi eq, %s, %s : index", column, labelIndex);
  const char *target = zooGenericOp(&g, "arith.select %s, %s, %s : %s", isLabel,
                                    zooConstant(e, logits.type, 1.0), zooConstant(e, logits.type, 0.0), t);
  const char *difference = zooGenericOp(&g, "arith.subf %s, %s : %s", probability, target, t);
  const char *perRow = zooGenericOp(&g, "arith.mulf %s, %s : %s", difference, inverseRows, t);
  const char *value = zooGenericOp(&g, "arith.mulf %s, %s : %s", perRow, upstream, t);
  ZooValue dlogits;
  zooGenericEnd(&g, &value, &dlogits);
  accumulate(b, logits, dlogits);
}

static void meanSquaredErrorBackward(Backward *b, const ZooNode *node, ZooValue dloss) {
  /* dy = 2 (y - target) / count * dloss; dtarget = -dy */
  ZooEmitter *e = b->e;
  ZooValue y = node->inputs[0], target = node->inputs[1];
  const char *t = zooElementName(y);
  ZooSize count = zooSizeOfAxes(y, (1u << y.rank) - 1);
  const char *inverseCount = zooReciprocalOfSize(e, count, y.type);
  const char *identity = zooMapOf(e, y.rank, NULL);
  ZooGeneric g;
  zooGenericBegin(&g, e, "dpred", zooParallel(e, y.rank));
  const char *a = zooGenericInput(&g, y, identity);
  const char *c = zooGenericInput(&g, target, identity);
  const char *upstream = zooGenericInput(&g, dloss, "");
  zooGenericOutput(&g, zooEmitEmpty(e, "empty", y.type, y.rank, y.dims), identity);
  const char *difference = zooGenericOp(&g, "arith.subf %s, %s : %s", a, c, t);
  const char *twice = zooGenericOp(&g, "arith.mulf %s, %s : %s", difference, zooConstant(e, y.type, 2.0), t);
  const char *mean = zooGenericOp(&g, "arith.mulf %s, %s : %s", twice, inverseCount, t);
  const char *value = zooGenericOp(&g, "arith.mulf %s, %s : %s", mean, upstream, t);
  ZooValue dy;
  zooGenericEnd(&g, &value, &dy);
  accumulate(b, y, dy);
  if (wants(b, target))
    accumulate(b, target, zooEmitScale(e, "dneg", dy, zooConstant(e, y.type, -1.0)));
}

static void nodeBackward(Backward *b, const ZooNode *node, ZooValue dy) {
  ZooEmitter *e = b->e;
  ZooValue x = node->inputs[0];
  switch (node->kind) {
  case ZOO_NODE_CONTRACTION: contractionBackward(b, node, dy); break;
  case ZOO_NODE_TRANSPOSE: {
    int inverse[ZOO_MAX_RANK];
    for (int i = 0; i < node->dimCount; ++i)
      inverse[node->dims[i]] = i;
    accumulate(b, x, zooEmitTranspose(e, "dtr", dy, inverse));
    break;
  }
  case ZOO_NODE_RESHAPE: accumulate(b, x, zooEmitReshape(e, "drs", dy, x.rank, x.dims)); break;
  case ZOO_NODE_BINARY: binaryBackward(b, node, dy); break;
  case ZOO_NODE_POINTWISE: pointwiseBackward(b, node, dy); break;
  case ZOO_NODE_SCALE: accumulate(b, x, zooEmitScale(e, "dscaled", dy, node->scalar)); break;
  case ZOO_NODE_REDUCE_SUM: {
    int kept[ZOO_MAX_RANK];
    zooKeptDims(x.rank, node->axes, kept);
    accumulate(b, x, zooEmitBroadcast(e, "dsum", dy, x.rank, x.dims, kept));
    break;
  }
  case ZOO_NODE_BROADCAST:
    accumulate(b, x, unbroadcast(b, "dbcast", dy, node->dimCount, node->dims));
    break;
  case ZOO_NODE_SOFTMAX: softmaxBackward(b, node, dy); break;
  case ZOO_NODE_CAUSAL_MASK: causalMaskBackward(b, node, dy); break;
  case ZOO_NODE_NORMALIZE: normalizeBackward(b, node, dy); break;
  case ZOO_NODE_PAD: accumulate(b, x, zooEmitSlice(e, "dpad", dy, node->offsets, x.dims)); break;
  case ZOO_NODE_SLICE: {
    long long ones[ZOO_MAX_RANK];
    for (int i = 0; i < x.rank; ++i)
      ones[i] = 1;
    ZooValue zeros = zooEmitFull(e, "zero", x.type, x.rank, x.dims, 0.0);
    accumulate(b, x, zooEmitInsertSlice(e, "dslice", dy, zeros, node->offsets, ones));
    break;
  }
  case ZOO_NODE_CONCAT: {
    int dim = node->dims[0];
    long long offsets[ZOO_MAX_RANK] = {0};
    ZooValue first = node->inputs[0], second = node->inputs[1];
    if (wants(b, first))
      accumulate(b, first, zooEmitSlice(e, "dcat", dy, offsets, first.dims));
    offsets[dim] = first.dims[dim].factor;
    if (wants(b, second))
      accumulate(b, second, zooEmitSlice(e, "dcat", dy, offsets, second.dims));
    break;
  }
  case ZOO_NODE_CONV2D: convBackward(b, node, dy, false); break;
  case ZOO_NODE_DEPTHWISE_CONV2D: convBackward(b, node, dy, true); break;
  case ZOO_NODE_MAX_POOL: maxPoolBackward(b, node, dy); break;
  case ZOO_NODE_EMBEDDING: embeddingBackward(b, node, dy); break;
  case ZOO_NODE_CROSS_ENTROPY: crossEntropyBackward(b, node, dy); break;
  case ZOO_NODE_MEAN_SQUARED_ERROR: meanSquaredErrorBackward(b, node, dy); break;
  }
}

void zooBackward(ZooEmitter *e, ZooValue loss, int count, const ZooValue *params, ZooValue *grads) {
  ZooTape *tape = zooTapeOf(e);
  if (!tape) {
    zooFail(e, "internal: backward without a tape");
    return;
  }
  tape->recording = false;
  Backward b = {e, tape, NULL, e->nameCount};
  b.grads = memoptAllocateZeroed((size_t)b.gradCount, sizeof(ZooValue));
  for (int i = 0; i < b.gradCount; ++i)
    b.grads[i] = zooNoValue();
  zooLine(e, "// ---- backward ----");
  if (wants(&b, loss))
    b.grads[loss.id] = zooEmitFull(e, "dloss", loss.type, 0, NULL, 1.0);
  for (int i = tape->nodeCount - 1; i >= 0; --i) {
    const ZooNode *node = &tape->nodes[i];
    ZooValue dy = b.grads[node->output.id];
    if (zooHasValue(dy))
      nodeBackward(&b, node, dy);
  }
  for (int i = 0; i < count; ++i) {
    ZooValue grad = params[i].id < b.gradCount ? b.grads[params[i].id] : zooNoValue();
    grads[i] = zooHasValue(grad)
                   ? grad
                   : zooEmitFull(e, "zero_grad", params[i].type, params[i].rank, params[i].dims, 0.0);
  }
  free(b.grads);
}

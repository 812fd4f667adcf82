/* Raw op emitters: each writes one upstream op (plus the tensor.empty /
 * linalg.fill that initializes its result) and returns the result value. They
 * check the shapes they are given, since a mismatch here is a generator bug
 * that upstream would only report far away from its cause. */
#include "Emitter.h"

#include <stdio.h>
#include <string.h>

static bool sameSize(ZooEmitter *e, ZooSize a, ZooSize b, const char *what) {
  if (zooSizeEqual(a, b))
    return true;
  zooFail(e, "internal: %s: mismatched extents (%lld vs %lld)", what, a.factor, b.factor);
  return false;
}

static const char *dynamicSizeList(ZooEmitter *e, int rank, const ZooSize *dims) {
  MemoptStringBuffer text = memoptStringBufferCreate();
  bool first = true;
  for (int i = 0; i < rank; ++i) {
    if (zooSizeIsStatic(dims[i]))
      continue;
    memoptStringBufferAppendFormat(&text, "%s%s", first ? "" : ", ", zooSizeValue(e, dims[i]));
    first = false;
  }
  return zooTakeString(e, &text);
}

/* "[4, %batch.size, 8]": a mixed static/dynamic size list. */
static const char *mixedSizeList(ZooEmitter *e, int rank, const ZooSize *dims) {
  MemoptStringBuffer text = memoptStringBufferCreate();
  memoptStringBufferAppendCString(&text, "[");
  for (int i = 0; i < rank; ++i) {
    if (zooSizeIsStatic(dims[i]))
      memoptStringBufferAppendFormat(&text, "%s%lld", i ? ", " : "", dims[i].factor);
    else
      memoptStringBufferAppendFormat(&text, "%s%s", i ? ", " : "", zooSizeValue(e, dims[i]));
  }
  memoptStringBufferAppendCString(&text, "]");
  return zooTakeString(e, &text);
}

static const char *integerList(ZooEmitter *e, int count, const long long *values) {
  MemoptStringBuffer text = memoptStringBufferCreate();
  memoptStringBufferAppendCString(&text, "[");
  for (int i = 0; i < count; ++i)
    memoptStringBufferAppendFormat(&text, "%s%lld", i ? ", " : "", values[i]);
  memoptStringBufferAppendCString(&text, "]");
  return zooTakeString(e, &text);
}

ZooValue zooEmitEmpty(ZooEmitter *e, const char *hint, ZooElementType type, int rank,
                      const ZooSize *dims) {
  const char *sizes = dynamicSizeList(e, rank, dims);
  ZooValue result = zooNewValue(e, hint, type, rank, dims);
  zooLine(e, "%s = tensor.empty(%s) : %s", zooName(e, result), sizes, zooType(e, result));
  return result;
}

ZooValue zooEmitFullLike(ZooEmitter *e, const char *hint, ZooValue like, const char *scalar) {
  ZooValue empty = zooEmitEmpty(e, "empty", like.type, like.rank, like.dims);
  ZooValue result = zooNewValueLike(e, hint, like.type, like);
  zooLine(e, "%s = linalg.fill ins(%s : %s) outs(%s : %s) -> %s", zooName(e, result), scalar,
          zooElementName(like), zooName(e, empty), zooType(e, empty), zooType(e, result));
  return result;
}

ZooValue zooEmitFull(ZooEmitter *e, const char *hint, ZooElementType type, int rank,
                     const ZooSize *dims, double value) {
  ZooValue like = zooNoValue();
  like.type = type;
  like.rank = rank;
  for (int i = 0; i < rank; ++i)
    like.dims[i] = dims[i];
  return zooEmitFullLike(e, hint, like, zooConstant(e, type, value));
}

ZooValue zooEmitZeros(ZooEmitter *e, ZooElementType type, int rank, const ZooSize *dims) {
  return zooEmitFull(e, "zero", type, rank, dims, 0.0);
}

ZooValue zooEmitTranspose(ZooEmitter *e, const char *hint, ZooValue x, const int *perm) {
  ZooSize dims[ZOO_MAX_RANK] = {{0}};
  long long permutation[ZOO_MAX_RANK];
  for (int i = 0; i < x.rank; ++i) {
    dims[i] = x.dims[perm[i]];
    permutation[i] = perm[i];
  }
  ZooValue init = zooEmitEmpty(e, "empty", x.type, x.rank, dims);
  ZooValue result = zooNewValueLike(e, hint, x.type, init);
  zooLine(e, "%s = linalg.transpose ins(%s : %s) outs(%s : %s) permutation = %s",
          zooName(e, result), zooName(e, x), zooType(e, x), zooName(e, init), zooType(e, init),
          integerList(e, x.rank, permutation));
  return result;
}

/* Groups the dims of the finer shape under the dims of the coarser one;
 * groupEnd[i] is one past the last fine dim of coarse dim i. */
static bool inferReassociation(int coarseRank, const ZooSize *coarse, int fineRank,
                               const ZooSize *fine, int *groupEnd) {
  int j = 0;
  for (int i = 0; i < coarseRank; ++i) {
    ZooSize product = zooSizeStatic(1);
    do {
      if (j >= fineRank)
        return false;
      product = zooSizeMul(product, fine[j++]);
    } while (!zooSizeEqual(product, coarse[i]));
    groupEnd[i] = j;
  }
  /* Trailing unit dims of the finer shape join the last group. */
  for (; j < fineRank; ++j)
    if (!zooSizeEqual(fine[j], zooSizeStatic(1)))
      return false;
  if (coarseRank > 0)
    groupEnd[coarseRank - 1] = fineRank;
  return true;
}

static const char *reassociationText(ZooEmitter *e, int coarseRank, const int *groupEnd) {
  MemoptStringBuffer text = memoptStringBufferCreate();
  memoptStringBufferAppendCString(&text, "[");
  int start = 0;
  for (int i = 0; i < coarseRank; ++i) {
    memoptStringBufferAppendCString(&text, i ? ", [" : "[");
    for (int j = start; j < groupEnd[i]; ++j)
      memoptStringBufferAppendFormat(&text, "%s%d", j > start ? ", " : "", j);
    memoptStringBufferAppendCString(&text, "]");
    start = groupEnd[i];
  }
  memoptStringBufferAppendCString(&text, "]");
  return zooTakeString(e, &text);
}

ZooValue zooEmitReshape(ZooEmitter *e, const char *hint, ZooValue x, int rank,
                        const ZooSize *dims) {
  int groupEnd[ZOO_MAX_RANK];
  if (rank == x.rank) {
    for (int i = 0; i < rank; ++i)
      sameSize(e, x.dims[i], dims[i], "reshape of equal rank");
    return x;
  }
  bool expand = rank > x.rank;
  bool ok = expand ? inferReassociation(x.rank, x.dims, rank, dims, groupEnd)
                   : inferReassociation(rank, dims, x.rank, x.dims, groupEnd);
  if (!ok) {
    zooFail(e, "internal: reshape from rank %d to rank %d is neither a pure expansion nor a "
               "pure collapse",
            x.rank, rank);
    return x;
  }
  if (expand) {
    /* MLIR 22's expand-strided-metadata crashes on an expand_shape group with
     * more than one dynamic size (llvm/llvm-project#186830): never emit one. */
    int start = 0;
    for (int i = 0; i < x.rank; ++i) {
      int dynamicCount = 0;
      for (int j = start; j < groupEnd[i]; ++j)
        dynamicCount += !zooSizeIsStatic(dims[j]);
      if (dynamicCount > 1)
        zooFail(e, "internal: expand_shape with two dynamic sizes in one group");
      start = groupEnd[i];
    }
  }
  const char *groups = reassociationText(e, expand ? x.rank : rank, groupEnd);
  const char *outputShape = expand ? mixedSizeList(e, rank, dims) : NULL;
  ZooValue result = zooNewValue(e, hint, x.type, rank, dims);
  if (expand)
    zooLine(e, "%s = tensor.expand_shape %s %s output_shape %s : %s into %s", zooName(e, result),
            zooName(e, x), groups, outputShape, zooType(e, x), zooType(e, result));
  else
    zooLine(e, "%s = tensor.collapse_shape %s %s : %s into %s", zooName(e, result), zooName(e, x),
            groups, zooType(e, x), zooType(e, result));
  return result;
}

ZooValue zooEmitPad(ZooEmitter *e, const char *hint, ZooValue x, const long long *low,
                    const long long *high, const char *padding) {
  ZooSize dims[ZOO_MAX_RANK] = {{0}};
  for (int i = 0; i < x.rank; ++i) {
    dims[i] = x.dims[i];
    if (low[i] || high[i]) {
      if (!zooSizeIsStatic(x.dims[i]))
        zooFail(e, "internal: padding a dynamic dimension");
      dims[i] = zooSizeStatic(x.dims[i].factor + low[i] + high[i]);
    }
  }
  ZooValue result = zooNewValue(e, hint, x.type, x.rank, dims);
  zooLine(e, "%s = tensor.pad %s low%s high%s {", zooName(e, result), zooName(e, x),
          integerList(e, x.rank, low), integerList(e, x.rank, high));
  MemoptStringBuffer arguments = memoptStringBufferCreate();
  for (int i = 0; i < x.rank; ++i)
    memoptStringBufferAppendFormat(&arguments, "%s%%i%d: index", i ? ", " : "", i);
  zooLine(e, "^bb0(%s):", memoptStringBufferGet(&arguments));
  memoptStringBufferDestroy(&arguments);
  zooLine(e, "  tensor.yield %s : %s", padding, zooElementName(x));
  zooLine(e, "} : %s to %s", zooType(e, x), zooType(e, result));
  return result;
}

ZooValue zooEmitSlice(ZooEmitter *e, const char *hint, ZooValue x, const long long *offsets,
                      const ZooSize *sizes) {
  long long ones[ZOO_MAX_RANK];
  for (int i = 0; i < x.rank; ++i)
    ones[i] = 1;
  const char *sizeList = mixedSizeList(e, x.rank, sizes);
  ZooValue result = zooNewValue(e, hint, x.type, x.rank, sizes);
  zooLine(e, "%s = tensor.extract_slice %s%s %s %s : %s to %s", zooName(e, result), zooName(e, x),
          integerList(e, x.rank, offsets), sizeList, integerList(e, x.rank, ones), zooType(e, x),
          zooType(e, result));
  return result;
}

ZooValue zooEmitInsertSlice(ZooEmitter *e, const char *hint, ZooValue source, ZooValue dest,
                            const long long *offsets, const long long *strides) {
  const char *sizeList = mixedSizeList(e, source.rank, source.dims);
  ZooValue result = zooNewValueLike(e, hint, dest.type, dest);
  zooLine(e, "%s = tensor.insert_slice %s into %s%s %s %s : %s into %s", zooName(e, result),
          zooName(e, source), zooName(e, dest), integerList(e, dest.rank, offsets), sizeList,
          integerList(e, dest.rank, strides), zooType(e, source), zooType(e, dest));
  return result;
}

ZooValue zooEmitConcat(ZooEmitter *e, const char *hint, int dim, ZooValue a, ZooValue b) {
  ZooSize dims[ZOO_MAX_RANK] = {{0}};
  for (int i = 0; i < a.rank; ++i) {
    dims[i] = a.dims[i];
    if (i != dim)
      sameSize(e, a.dims[i], b.dims[i], "concat");
  }
  if (!zooSizeIsStatic(a.dims[dim]) || !zooSizeIsStatic(b.dims[dim]))
    zooFail(e, "internal: concat along a dynamic dimension");
  dims[dim] = zooSizeStatic(a.dims[dim].factor + b.dims[dim].factor);
  ZooValue result = zooNewValue(e, hint, a.type, a.rank, dims);
  zooLine(e, "%s = tensor.concat dim(%d) %s, %s : (%s, %s) -> %s", zooName(e, result), dim,
          zooName(e, a), zooName(e, b), zooType(e, a), zooType(e, b), zooType(e, result));
  return result;
}

static void trailingDims(int outRank, int inRank, int *dims) {
  for (int i = 0; i < inRank; ++i)
    dims[i] = outRank - inRank + i;
}

ZooValue zooEmitBinary(ZooEmitter *e, const char *hint, ZooBinaryKind kind, ZooValue a, ZooValue b,
                       const int *bDims) {
  int dims[ZOO_MAX_RANK];
  if (bDims)
    memcpy(dims, bDims, sizeof(int) * (size_t)b.rank);
  else
    trailingDims(a.rank, b.rank, dims);
  for (int i = 0; i < b.rank; ++i)
    sameSize(e, b.dims[i], a.dims[dims[i]], "elementwise broadcast");
  static const char *const opNames[] = {"arith.addf", "arith.subf", "arith.mulf"};
  ZooValue init = zooEmitEmpty(e, "empty", a.type, a.rank, a.dims);
  ZooGeneric g;
  zooGenericBegin(&g, e, hint, zooParallel(e, a.rank));
  const char *lhs = zooGenericInput(&g, a, zooMapOf(e, a.rank, NULL));
  const char *rhs = zooGenericInput(&g, b, zooMapOf(e, b.rank, dims));
  zooGenericOutput(&g, init, zooMapOf(e, a.rank, NULL));
  const char *value = zooGenericOp(&g, "%s %s, %s : %s", opNames[kind], lhs, rhs, zooElementName(a));
  ZooValue result;
  zooGenericEnd(&g, &value, &result);
  return result;
}

ZooValue zooEmitReduce(ZooEmitter *e, const char *hint, ZooReduceKind kind, ZooValue x,
                       unsigned axes) {
  ZooSize dims[ZOO_MAX_RANK] = {{0}};
  int kept[ZOO_MAX_RANK];
  int keptCount = 0;
  char iterators[ZOO_MAX_RANK + 1];
  for (int i = 0; i < x.rank; ++i) {
    bool reduced = (axes >> i) & 1u;
    iterators[i] = reduced ? 'r' : 'p';
    if (!reduced) {
      kept[keptCount] = i;
      dims[keptCount++] = x.dims[i];
    }
  }
  iterators[x.rank] = '\0';
  const char *initial = kind == ZOO_REDUCE_MAX ? zooNegativeInfinity(e, x.type)
                                               : zooConstant(e, x.type, 0.0);
  ZooValue like = zooNoValue();
  like.type = x.type;
  like.rank = keptCount;
  memcpy(like.dims, dims, sizeof(ZooSize) * (size_t)keptCount);
  ZooValue init = zooEmitFullLike(e, kind == ZOO_REDUCE_MAX ? "ninf" : "zero", like, initial);
  ZooGeneric g;
  zooGenericBegin(&g, e, hint, iterators);
  const char *in = zooGenericInput(&g, x, zooMapOf(e, x.rank, NULL));
  const char *acc = zooGenericOutput(&g, init, zooMapOf(e, keptCount, kept));
  const char *value = zooGenericOp(&g, "%s %s, %s : %s",
                                   kind == ZOO_REDUCE_MAX ? "arith.maximumf" : "arith.addf", in,
                                   acc, zooElementName(x));
  ZooValue result;
  zooGenericEnd(&g, &value, &result);
  return result;
}

ZooValue zooEmitProductReduce(ZooEmitter *e, const char *hint, ZooValue x, ZooValue y,
                              int keepCount, const int *keepDims) {
  /* Nothing reduced: a plain product, as a framework's autodiff emits it,
   * not a sum into zeros (which no buffer could be reused for). */
  bool reduces = keepCount != x.rank;
  for (int i = 0; i < keepCount && !reduces; ++i)
    reduces = keepDims[i] != i;
  if (!reduces && zooHasValue(y))
    return zooEmitBinary(e, hint, ZOO_BINARY_MUL, x, y, NULL);
  char iterators[ZOO_MAX_RANK + 1];
  ZooSize dims[ZOO_MAX_RANK] = {{0}};
  for (int i = 0; i < x.rank; ++i)
    iterators[i] = 'r';
  iterators[x.rank] = '\0';
  for (int i = 0; i < keepCount; ++i) {
    iterators[keepDims[i]] = 'p';
    dims[i] = x.dims[keepDims[i]];
  }
  if (zooHasValue(y))
    for (int i = 0; i < x.rank; ++i)
      sameSize(e, x.dims[i], y.dims[i], "product reduction");
  ZooValue init = zooEmitZeros(e, x.type, keepCount, dims);
  ZooGeneric g;
  zooGenericBegin(&g, e, hint, iterators);
  const char *a = zooGenericInput(&g, x, zooMapOf(e, x.rank, NULL));
  const char *b = zooHasValue(y) ? zooGenericInput(&g, y, zooMapOf(e, y.rank, NULL)) : NULL;
  const char *acc = zooGenericOutput(&g, init, zooMapOf(e, keepCount, keepDims));
  const char *term = b ? zooGenericOp(&g, "arith.mulf %s, %s : %s", a, b, zooElementName(x)) : a;
  const char *value = zooGenericOp(&g, "arith.addf %s, %s : %s", term, acc, zooElementName(x));
  ZooValue result;
  zooGenericEnd(&g, &value, &result);
  return result;
}

ZooValue zooEmitBroadcast(ZooEmitter *e, const char *hint, ZooValue x, int rank,
                          const ZooSize *dims, const int *dimMap) {
  for (int i = 0; i < x.rank; ++i)
    sameSize(e, x.dims[i], dims[dimMap[i]], "broadcast");
  ZooValue init = zooEmitEmpty(e, "empty", x.type, rank, dims);
  ZooGeneric g;
  zooGenericBegin(&g, e, hint, zooParallel(e, rank));
  const char *in = zooGenericInput(&g, x, zooMapOf(e, x.rank, dimMap));
  zooGenericOutput(&g, init, zooMapOf(e, rank, NULL));
  ZooValue result;
  zooGenericEnd(&g, &in, &result);
  return result;
}

ZooValue zooEmitScale(ZooEmitter *e, const char *hint, ZooValue x, const char *scalar) {
  ZooValue init = zooEmitEmpty(e, "empty", x.type, x.rank, x.dims);
  ZooGeneric g;
  zooGenericBegin(&g, e, hint, zooParallel(e, x.rank));
  const char *in = zooGenericInput(&g, x, zooMapOf(e, x.rank, NULL));
  zooGenericOutput(&g, init, zooMapOf(e, x.rank, NULL));
  const char *value = zooGenericOp(&g, "arith.mulf %s, %s : %s", in, scalar, zooElementName(x));
  ZooValue result;
  zooGenericEnd(&g, &value, &result);
  return result;
}

static ZooValue windowed(ZooEmitter *e, const char *hint, const char *opName, ZooValue x,
                         ZooValue w, int window, long long channels, int stride,
                         const char *initial) {
  if (!zooSizeIsStatic(x.dims[1]) || !zooSizeIsStatic(x.dims[2]))
    zooFail(e, "internal: dynamic spatial dimensions");
  ZooSize dims[4] = {x.dims[0], zooSizeStatic(zooWindowOutputExtent(x.dims[1].factor, window, stride)),
                     zooSizeStatic(zooWindowOutputExtent(x.dims[2].factor, window, stride)),
                     zooSizeStatic(channels)};
  if (dims[1].factor < 1 || dims[2].factor < 1)
    zooFail(e, "internal: window larger than its input");
  ZooValue like = zooNoValue();
  like.type = x.type;
  like.rank = 4;
  memcpy(like.dims, dims, sizeof dims);
  ZooValue init = zooEmitFullLike(e, "init", like, initial);
  ZooValue result = zooNewValueLike(e, hint, x.type, init);
  zooLine(e,
          "%s = %s {dilations = dense<1> : tensor<2xi64>, strides = dense<%d> : tensor<2xi64>} "
          "ins(%s, %s : %s, %s) outs(%s : %s) -> %s",
          zooName(e, result), opName, stride, zooName(e, x), zooName(e, w), zooType(e, x),
          zooType(e, w), zooName(e, init), zooType(e, init), zooType(e, result));
  return result;
}

ZooValue zooEmitConv2d(ZooEmitter *e, const char *hint, ZooValue x, ZooValue w, int stride) {
  if (x.rank != 4 || w.rank != 4)
    zooFail(e, "internal: conv_2d_nhwc_hwcf needs rank-4 operands");
  sameSize(e, x.dims[3], w.dims[2], "conv input channels");
  sameSize(e, w.dims[0], w.dims[1], "square conv window");
  return windowed(e, hint, "linalg.conv_2d_nhwc_hwcf", x, w, (int)w.dims[0].factor,
                  w.dims[3].factor, stride, zooConstant(e, x.type, 0.0));
}

ZooValue zooEmitDepthwiseConv2d(ZooEmitter *e, const char *hint, ZooValue x, ZooValue w,
                                int stride) {
  if (x.rank != 4 || w.rank != 3)
    zooFail(e, "internal: depthwise_conv_2d_nhwc_hwc needs rank-4 input and rank-3 filter");
  sameSize(e, x.dims[3], w.dims[2], "depthwise channels");
  return windowed(e, hint, "linalg.depthwise_conv_2d_nhwc_hwc", x, w, (int)w.dims[0].factor,
                  w.dims[2].factor, stride, zooConstant(e, x.type, 0.0));
}

ZooValue zooEmitMaxPool(ZooEmitter *e, const char *hint, ZooValue x, int window, int stride) {
  ZooSize windowDims[2] = {zooSizeStatic(window), zooSizeStatic(window)};
  ZooValue shape = zooEmitEmpty(e, "window", x.type, 2, windowDims);
  return windowed(e, hint, "linalg.pooling_nhwc_max", x, shape, window, x.dims[3].factor, stride,
                  zooNegativeInfinity(e, x.type));
}

ZooValue zooEmitConvert(ZooEmitter *e, const char *hint, ZooValue x, ZooElementType type) {
  ZooValue init = zooEmitEmpty(e, "empty", type, x.rank, x.dims);
  ZooGeneric g;
  zooGenericBegin(&g, e, hint, zooParallel(e, x.rank));
  const char *in = zooGenericInput(&g, x, zooMapOf(e, x.rank, NULL));
  zooGenericOutput(&g, init, zooMapOf(e, x.rank, NULL));
  const char *value = in;
  const char *from = zooElementName(x), *to = zooElementTypeName(type);
  if (x.type == ZOO_I64 && type != ZOO_I64)
    value = zooGenericOp(&g, "arith.sitofp %s : %s to %s", in, from, to);
  else if (x.type != type && zooElementTypeBytes(x.type) < zooElementTypeBytes(type))
    value = zooGenericOp(&g, "arith.extf %s : %s to %s", in, from, to);
  else if (x.type != type && zooElementTypeBytes(x.type) > zooElementTypeBytes(type))
    value = zooGenericOp(&g, "arith.truncf %s : %s to %s", in, from, to);
  else if (x.type != type) /* f16 <-> bf16: through f32 */
    value = zooGenericOp(&g, "arith.truncf %s : f32 to %s",
                         zooGenericOp(&g, "arith.extf %s : %s to f32", in, from), to);
  ZooValue result;
  zooGenericEnd(&g, &value, &result);
  return result;
}

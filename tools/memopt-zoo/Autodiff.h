/* memopt-zoo differentiable primitives and reverse-mode differentiation.
 *
 * Every model is written with these primitives. Each one emits its forward
 * ops (through the raw zooEmit* ops) and, while a tape is attached to the
 * emitter and some input requires a gradient, records a node. zooBackward then
 * walks the tape in reverse and writes the backward ops out one by one; they
 * read the forward values they need (inputs, outputs and the few statistics
 * a node saves, e.g. a norm's mean and rstd), which is what gives a training
 * step real saved activations for rematerialization to work on.
 *
 * Layout conventions: images are NHWC, convolution filters HWCF (depthwise
 * HWC), linear weights [in, out]. */
#ifndef MEMOPT_ZOO_AUTODIFF_H
#define MEMOPT_ZOO_AUTODIFF_H

#include "Emitter.h"
#include "Pointwise.h"

typedef struct ZooTape ZooTape;

/// Returns a new, empty tape observing `e`: from now on the primitives emitted through `e`
/// are recorded (those some parameter argument flows into) until zooBackward.
ZooTape *zooTapeCreate(ZooEmitter *e);

/// Stops the tape observing its emitter and frees it.
void zooTapeDestroy(ZooTape *tape);

/*===------------------------------------------------------------------===*
 * Differentiable primitives
 *===------------------------------------------------------------------===*/

/// A matmul-family named op (see ZooContractionKind), operands optionally
/// transposed through the op's indexing maps.
ZooValue zooContraction(ZooEmitter *e, ZooContractionKind kind, ZooValue a, bool transposeA,
                        ZooValue b, bool transposeB);

/// [M,K] x [K,N] -> [M,N] (linalg.matmul).
ZooValue zooMatmul(ZooEmitter *e, ZooValue a, ZooValue b);

/// [B,M,K] x [B,K,N] -> [B,M,N] (linalg.batch_matmul).
ZooValue zooBatchMatmul(ZooEmitter *e, ZooValue a, ZooValue b);

/// Result dim i is input dim perm[i] (linalg.transpose).
ZooValue zooTranspose(ZooEmitter *e, ZooValue x, const int *perm);

/// Expands or collapses to `dims` (tensor.expand_shape / collapse_shape).
ZooValue zooReshape(ZooEmitter *e, ZooValue x, int rank, const ZooSize *dims);

/// a (op) b with b broadcast: b's dim i is output dim bDims[i] (NULL: trailing dims).
ZooValue zooBinary(ZooEmitter *e, ZooBinaryKind kind, ZooValue a, ZooValue b, const int *bDims);

/// a + b, b aligned with a's trailing dims.
ZooValue zooAdd(ZooEmitter *e, ZooValue a, ZooValue b);

/// a * b, b aligned with a's trailing dims.
ZooValue zooMul(ZooEmitter *e, ZooValue a, ZooValue b);

/// An activation function applied elementwise.
ZooValue zooPointwise(ZooEmitter *e, ZooPointwiseKind kind, ZooValue x);

/// x * factor.
ZooValue zooScale(ZooEmitter *e, ZooValue x, double factor);

/// x * scalar, `scalar` the SSA name of a function-level scalar.
ZooValue zooScaleBy(ZooEmitter *e, ZooValue x, const char *scalar);

/// Sum over the dims in `axes` (bit i = dim i); those dims disappear.
ZooValue zooReduceSum(ZooEmitter *e, ZooValue x, unsigned axes);

/// Mean over the dims in `axes`.
ZooValue zooMean(ZooEmitter *e, ZooValue x, unsigned axes);

/// Broadcast to `rank`/`dims`; x's dim i becomes output dim dimMap[i].
ZooValue zooBroadcast(ZooEmitter *e, ZooValue x, int rank, const ZooSize *dims, const int *dimMap);

/// Numerically stable softmax over the last dim: max, subtract+exp, sum, divide.
ZooValue zooSoftmax(ZooEmitter *e, ZooValue x);

/// Sets [..., i, j] to -inf where j > i (causal attention scores).
ZooValue zooCausalMask(ZooEmitter *e, ZooValue x);

/// Emits (without recording) x with the scores of future keys (key > query,
/// the last two dimensions) replaced by `fill`; shared by the mask and its gradient.
ZooValue zooEmitMaskFuture(ZooEmitter *e, const char *hint, ZooValue x, const char *fill);

typedef struct ZooNormSpec {
  unsigned axes;  /* dims normalized over */
  bool centered;  /* subtract the mean (LayerNorm/BatchNorm/GroupNorm) or not (RMSNorm) */
  double epsilon;
  int affineRank; /* gamma/beta are indexed by output dims affineDims[0..affineRank) */
  int affineDims[ZOO_MAX_RANK];
} ZooNormSpec;

/// (x - mean) * rsqrt(var + eps) * gamma + beta over spec->axes; beta may be absent.
ZooValue zooNormalize(ZooEmitter *e, ZooValue x, const ZooNormSpec *spec, ZooValue gamma,
                      ZooValue beta);

typedef enum ZooPadValue { ZOO_PAD_ZERO, ZOO_PAD_NEGATIVE_INFINITY } ZooPadValue;

/// tensor.pad with `low`/`high` per dim.
ZooValue zooPad(ZooEmitter *e, ZooValue x, const long long *low, const long long *high,
                ZooPadValue value);

/// tensor.extract_slice at `offsets` of extent `sizes`.
ZooValue zooSlice(ZooEmitter *e, ZooValue x, const long long *offsets, const ZooSize *sizes);

/// tensor.concat along `dim`.
ZooValue zooConcat(ZooEmitter *e, int dim, ZooValue a, ZooValue b);

/// NHWC x HWCF convolution of an already padded input.
ZooValue zooConv2d(ZooEmitter *e, ZooValue x, ZooValue w, int stride);

/// NHWC x HWC depthwise convolution of an already padded input.
ZooValue zooDepthwiseConv2d(ZooEmitter *e, ZooValue x, ZooValue w, int stride);

/// Max pooling of an already (-inf) padded NHWC input.
ZooValue zooMaxPool(ZooEmitter *e, ZooValue x, int window, int stride);

/// Rows of `table` [V,H] picked by the i64 `ids` [...] -> [..., H].
ZooValue zooEmbedding(ZooEmitter *e, ZooValue table, ZooValue ids);

/// Mean cross-entropy of `logits` [..., C] against i64 `labels` [...]; a rank-0 tensor.
ZooValue zooCrossEntropy(ZooEmitter *e, ZooValue logits, ZooValue labels);

/// Mean of (y - target)^2 over all elements; a rank-0 tensor.
ZooValue zooMeanSquaredError(ZooEmitter *e, ZooValue y, ZooValue target);

/*===------------------------------------------------------------------===*
 * Reverse mode
 *===------------------------------------------------------------------===*/

/// Emits the backward pass of the recorded tape from the rank-0 `loss` and
/// stores d loss / d params[i] in grads[i] (zeros for a parameter the loss
/// does not depend on). Recording stops for good.
void zooBackward(ZooEmitter *e, ZooValue loss, int count, const ZooValue *params, ZooValue *grads);

#endif /* MEMOPT_ZOO_AUTODIFF_H */

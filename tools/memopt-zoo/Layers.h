/* memopt-zoo neural-network building blocks, written with the differentiable
 * primitives of Autodiff.h: parameters, linear layers, norms, attention,
 * convolutions. Every block takes the name prefix of its parameters, which
 * become function arguments `%<prefix>_<what>` (weights are arguments, never
 * constants). */
#ifndef MEMOPT_ZOO_LAYERS_H
#define MEMOPT_ZOO_LAYERS_H

#include "Autodiff.h"

/*===------------------------------------------------------------------===*
 * Arguments
 *===------------------------------------------------------------------===*/

/// A fill of offset + scale * sin(...) for @main.
ZooFill zooFillWave(double scale, double offset);

/// The fill of a weight with `fanIn` inputs: amplitude 1/sqrt(fanIn).
ZooFill zooFillWeight(long long fanIn);

/// The fill of a norm gain: values in [0.9, 1.1].
ZooFill zooFillGain(void);

/// The fill of a bias: small values around 0.
ZooFill zooFillBias(void);

/// The fill of integer ids in [0, modulus).
ZooFill zooFillInteger(long long modulus);

/// Declares a trainable parameter of the model's float type with static `dims`.
ZooValue zooParameter(ZooEmitter *e, const char *name, int rank, const long long *dims, ZooFill fill);

/// Declares a non-trainable argument (an input, a label, running statistics).
ZooValue zooInput(ZooEmitter *e, const char *name, ZooElementType type, int rank,
                  const ZooSize *dims, ZooFill fill);

/// Returns a static size, or the new dynamic symbol `name` when `dynamic` is set.
ZooSize zooModelSize(ZooEmitter *e, bool dynamic, const char *name, long long nominal);

/*===------------------------------------------------------------------===*
 * Dense blocks
 *===------------------------------------------------------------------===*/

/// x[..., K] @ w[K, N] (w[N, K] read transposed when transposeW): the leading
/// dims are flattened for linalg.matmul, except
/// when that would merge two dynamic dims (the gradient would need an
/// expand_shape that MLIR 22 cannot lower, llvm/llvm-project#186830): then
/// linalg.batch_matmul with w broadcast through its indexing map.
ZooValue zooProject(ZooEmitter *e, ZooValue x, ZooValue w, bool transposeW);

/// x[..., in] @ W[in, out] (+ b) with new parameters `<name>_w`, `<name>_b`.
ZooValue zooLinear(ZooEmitter *e, const char *name, ZooValue x, long long outFeatures, bool bias);

/// LayerNorm over the last dim with gain and bias.
ZooValue zooLayerNorm(ZooEmitter *e, const char *name, ZooValue x, double epsilon);

/// RMSNorm over the last dim with a gain only (LLaMA).
ZooValue zooRmsNorm(ZooEmitter *e, const char *name, ZooValue x, double epsilon);

/// [B, S, heads*d] -> [B, heads, S, d].
ZooValue zooSplitHeads(ZooEmitter *e, ZooValue x, long long heads);

/// [B, heads, S, d] -> [B, S, heads*d].
ZooValue zooMergeHeads(ZooEmitter *e, ZooValue x);

typedef struct ZooAttentionOptions {
  bool causal;
  ZooValue bias;   /* added to the [B, heads, Sq, Sk] scores, or no value */
  int biasDims[4]; /* the score dims of bias's dims */
} ZooAttentionOptions;

/// Scaled dot-product attention of q [B,h,Sq,d], k and v [B,h,Sk,d] -> [B,h,Sq,d]:
/// batch_matmul(q, k^T) / sqrt(d) (+ bias) (causal mask), softmax, batch_matmul(p, v);
/// k^T is read through the batch_matmul's indexing map, not copied.
ZooValue zooAttention(ZooEmitter *e, ZooValue q, ZooValue k, ZooValue v,
                      const ZooAttentionOptions *options);

/*===------------------------------------------------------------------===*
 * Convolutional blocks (NHWC)
 *===------------------------------------------------------------------===*/

typedef enum ZooNormKind { ZOO_NORM_BATCH, ZOO_NORM_INSTANCE, ZOO_NORM_NONE } ZooNormKind;

/// A k x k convolution with symmetric zero padding k/2 (filter HWCF, optional bias).
ZooValue zooConvolution(ZooEmitter *e, const char *name, ZooValue x, long long outChannels,
                        int window, int stride, bool bias);

/// A k x k depthwise convolution with symmetric zero padding k/2 (filter HWC).
ZooValue zooDepthwiseConvolution(ZooEmitter *e, const char *name, ZooValue x, int window, int stride);

/// Batch norm (batch statistics when training, running statistics otherwise),
/// instance norm, or a per-channel bias for ZOO_NORM_NONE.
ZooValue zooChannelNorm(ZooEmitter *e, const char *name, ZooValue x, ZooNormKind kind, bool training);

/// GroupNorm over NHWC with `groups` groups, per-channel gain and bias.
ZooValue zooGroupNorm(ZooEmitter *e, const char *name, ZooValue x, long long groups);

/// Mean over H and W: [N,H,W,C] -> [N,C].
ZooValue zooGlobalAveragePool(ZooEmitter *e, ZooValue x);

#endif /* MEMOPT_ZOO_LAYERS_H */

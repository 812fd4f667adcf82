/* memopt-zoo scalar activation functions and their derivatives, written as
 * ops inside a linalg.generic body. */
#ifndef MEMOPT_ZOO_POINTWISE_H
#define MEMOPT_ZOO_POINTWISE_H

#include "Emitter.h"

typedef enum ZooPointwiseKind {
  ZOO_GELU_TANH, /* GPT-2's gelu_new: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
  ZOO_GELU_ERF,  /* BERT's exact GELU: 0.5 x (1 + erf(x / sqrt 2)) */
  ZOO_SILU,      /* x * sigmoid(x), a.k.a. swish */
  ZOO_RELU,
  ZOO_RELU6, /* min(max(x, 0), 6) */
  ZOO_SIGMOID,
} ZooPointwiseKind;

/// Returns a short name of the function, used as an SSA name hint.
const char *zooPointwiseName(ZooPointwiseKind kind);

/// Emits f(x) for the body value `x` of element type `type`; returns the result.
const char *zooScalarPointwise(ZooGeneric *g, ZooPointwiseKind kind, const char *x,
                               ZooElementType type);

/// Emits f'(x) for the body value `x`; returns the result.
const char *zooScalarPointwiseDerivative(ZooGeneric *g, ZooPointwiseKind kind, const char *x,
                                         ZooElementType type);

#endif /* MEMOPT_ZOO_POINTWISE_H */

/* memopt-zoo tape internals, shared by the forward primitives (Tape.c) and
 * the backward rules (Backward.c). Not part of the emitter's public API. */
#ifndef MEMOPT_ZOO_TAPE_H
#define MEMOPT_ZOO_TAPE_H

#include "Autodiff.h"

#define ZOO_MAX_NODE_INPUTS 3

typedef enum ZooNodeKind {
  ZOO_NODE_CONTRACTION,
  ZOO_NODE_TRANSPOSE,
  ZOO_NODE_RESHAPE,
  ZOO_NODE_BINARY,
  ZOO_NODE_POINTWISE,
  ZOO_NODE_SCALE,
  ZOO_NODE_REDUCE_SUM,
  ZOO_NODE_BROADCAST,
  ZOO_NODE_SOFTMAX,
  ZOO_NODE_CAUSAL_MASK,
  ZOO_NODE_NORMALIZE,
  ZOO_NODE_PAD,
  ZOO_NODE_SLICE,
  ZOO_NODE_CONCAT,
  ZOO_NODE_CONV2D,
  ZOO_NODE_DEPTHWISE_CONV2D,
  ZOO_NODE_MAX_POOL,
  ZOO_NODE_EMBEDDING,
  ZOO_NODE_CROSS_ENTROPY,
  ZOO_NODE_MEAN_SQUARED_ERROR,
} ZooNodeKind;

typedef struct ZooNode {
  ZooNodeKind kind;
  int inputCount;
  ZooValue inputs[ZOO_MAX_NODE_INPUTS];
  ZooValue output;
  ZooValue saved[2]; /* statistics kept for backward: norm mean/rstd, logsumexp */
  int variant;       /* ZooContractionKind, ZooBinaryKind or ZooPointwiseKind */
  int dimCount;      /* perm (transpose), bDims (binary), dimMap (broadcast); */
                     /* for a contraction dims[0], dims[1] say lhs, rhs transposed */
  int dims[ZOO_MAX_RANK];
  unsigned axes;                     /* reduce / normalize */
  long long offsets[ZOO_MAX_RANK];   /* pad low / slice offsets */
  int stride, window;                /* conv / pool */
  const char *scalar;                /* scale factor (SSA name) */
  ZooNormSpec norm;
} ZooNode;

struct ZooTape {
  ZooEmitter *emitter; /* the emitter observed */
  ZooNode *nodes;
  int nodeCount;
  size_t nodeCapacity;
  bool *requiresGrad; /* indexed by value id */
  size_t valueCapacity;
  bool recording;
};

/// Returns the tape observing `e`, or NULL when none does.
ZooTape *zooTapeOf(const ZooEmitter *e);

/// Returns true when value `id` requires a gradient.
bool zooTapeRequiresGrad(const ZooTape *tape, int id);

#endif /* MEMOPT_ZOO_TAPE_H */

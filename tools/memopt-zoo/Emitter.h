/* memopt-zoo emitter: writes MLIR text for one function at a time.
 *
 * A ZooValue is an SSA tensor value with a known element type and shape; a
 * shape dimension is a ZooSize, i.e. a static extent or a monomial over the
 * dynamic symbols of the function (batch, sequence, ...), so that --dynamic
 * models can compute the `?` sizes they need for tensor.empty and
 * tensor.expand_shape. Raw ops (the zooEmit* functions) only write text; the
 * differentiable layer in Autodiff.h builds on them.
 *
 * Ownership: the emitter owns every name and type string it returns; they live
 * until zooEmitterDestroy. Generator bugs (shape mismatches) and user-level
 * size errors are recorded in the emitter (first one wins) and reported by the
 * caller through zooEmitterFailed; emission continues harmlessly meanwhile. */
#ifndef MEMOPT_ZOO_EMITTER_H
#define MEMOPT_ZOO_EMITTER_H

#include "Support/Support.h"

#include <stdbool.h>

#define ZOO_MAX_RANK 8
#define ZOO_MAX_SYMBOLS 4
#define ZOO_MAX_GENERIC_OPERANDS 8

/*===------------------------------------------------------------------===*
 * Element types and symbolic sizes
 *===------------------------------------------------------------------===*/

typedef enum ZooElementType { ZOO_F32, ZOO_F16, ZOO_BF16, ZOO_F64, ZOO_I64 } ZooElementType;

/// Returns the MLIR spelling of an element type ("f32", "i64", ...).
const char *zooElementTypeName(ZooElementType type);

/// Returns the size in bytes of one element.
int zooElementTypeBytes(ZooElementType type);

/* A dimension extent: factor * prod(symbol_i ^ powers[i]). A size with all
 * powers zero is static. factor == LLONG_MAX marks an overflowed product. */
typedef struct ZooSize {
  long long factor;
  unsigned char powers[ZOO_MAX_SYMBOLS];
} ZooSize;

/// Returns the static size `extent`.
ZooSize zooSizeStatic(long long extent);

/// Returns the size that is exactly dynamic symbol `symbol`.
ZooSize zooSizeSymbol(int symbol);

/// Returns true when the size has no dynamic symbol.
bool zooSizeIsStatic(ZooSize size);

/// Returns a * b (saturating the factor at LLONG_MAX on overflow).
ZooSize zooSizeMul(ZooSize a, ZooSize b);

/// Returns true when both sizes are the same monomial.
bool zooSizeEqual(ZooSize a, ZooSize b);

/// Returns the size with each symbol replaced by its nominal value, or
/// LLONG_MAX when the product overflows.
long long zooSizeNominal(ZooSize size, const long long *symbolValues);

/*===------------------------------------------------------------------===*
 * Values and the emitter
 *===------------------------------------------------------------------===*/

typedef struct ZooValue {
  int id; /* index into the emitter's name table; -1 for "no value" */
  ZooElementType type;
  int rank;
  ZooSize dims[ZOO_MAX_RANK];
} ZooValue;

/// Returns the "no value" marker.
ZooValue zooNoValue(void);

/// Returns true unless `value` is the "no value" marker.
bool zooHasValue(ZooValue value);

/// Returns the product of the extents of `value` along the dims in `axes` (bit i = dim i).
ZooSize zooSizeOfAxes(ZooValue value, unsigned axes);

/// Writes to `kept` the dims of a rank-`rank` tensor that are not in `axes`; returns their number.
int zooKeptDims(int rank, unsigned axes, int *kept);

/* How @main fills an entry argument (see MainWrapper.c). */
typedef enum ZooFillKind {
  ZOO_FILL_WAVE,    /* offset + scale * sin(0.37 * i + seed), i the linear index */
  ZOO_FILL_INTEGER, /* (7 * i + 3 + k) mod modulus, for token ids and labels */
} ZooFillKind;

typedef struct ZooFill {
  ZooFillKind kind;
  double scale, offset;
  long long modulus;
} ZooFill;

typedef struct ZooArgument {
  ZooValue value;
  bool isParameter; /* trainable weight: --train returns its gradient */
  ZooFill fill;
} ZooArgument;

typedef struct ZooSymbol {
  char *name;        /* SSA name of the index value, e.g. "%batch.size" */
  int argumentIndex; /* the argument whose dimension defines it; -1 until bound */
  int argumentDim;
  long long nominal; /* the size assumed for memory checks and by @main */
} ZooSymbol;

typedef struct ZooSizeCacheEntry {
  ZooSize size;
  char *name;
} ZooSizeCacheEntry;

typedef struct ZooConstantCacheEntry {
  char *key;  /* "<type> <literal>" */
  char *name;
} ZooConstantCacheEntry;

/* Told of every value the emitter creates, so that a layer built on the
 * emitter (the tape of Autodiff.h) can keep per-value state while the emitter
 * knows nothing of it. */
typedef struct ZooValueObserver {
  void (*valueCreated)(void *context, int id, bool isParameter); /* NULL: no observer */
  void *context; /* handed back to valueCreated; not owned by the emitter */
} ZooValueObserver;

typedef struct ZooEmitter {
  MemoptStringBuffer body; /* the current function's body */
  char **names;            /* SSA name of every value id */
  int nameCount;
  size_t nameCapacity;
  char **strings; /* scratch strings owned until destroy */
  int stringCount;
  size_t stringCapacity;
  unsigned nextSuffix;

  ZooArgument *arguments; /* the current function's arguments, in order */
  int argumentCount;
  size_t argumentCapacity;
  ZooSymbol symbols[ZOO_MAX_SYMBOLS];
  int symbolCount;
  ZooSizeCacheEntry *sizeCache;
  int sizeCacheCount;
  size_t sizeCacheCapacity;
  ZooConstantCacheEntry *constantCache;
  int constantCacheCount;
  size_t constantCacheCapacity;

  ZooElementType floatType; /* the model's --dtype */
  long long maxTensorBytes; /* tensors above this are a user error */
  ZooValueObserver observer; /* told of each new value (see zooEmitterObserve) */

  bool failed;
  MemoptStringBuffer error;
} ZooEmitter;

/// Initializes an emitter for models of float type `floatType`.
void zooEmitterInit(ZooEmitter *e, ZooElementType floatType);

/// Frees everything the emitter owns (not its observer's context).
void zooEmitterDestroy(ZooEmitter *e);

/// Makes `observer` the one told of every value created from now on (replacing any other).
void zooEmitterObserve(ZooEmitter *e, ZooValueObserver observer);

/// Records an error (printf-style) unless one is recorded already.
void zooFail(ZooEmitter *e, const char *format, ...) __attribute__((format(printf, 2, 3)));

/// Returns true once an error has been recorded.
bool zooEmitterFailed(const ZooEmitter *e);

/// Returns a scratch copy of printf-formatted text, owned by the emitter.
const char *zooFormat(ZooEmitter *e, const char *format, ...) __attribute__((format(printf, 2, 3)));

/// Hands the contents of `text` to the emitter (leaving `text` empty) and returns them.
const char *zooTakeString(ZooEmitter *e, MemoptStringBuffer *text);

/// Returns the SSA name ("%q_12") of a value.
const char *zooName(const ZooEmitter *e, ZooValue value);

/// Returns the tensor type of a value, e.g. "tensor<?x8x64xf32>".
const char *zooType(ZooEmitter *e, ZooValue value);

/// Returns the element type name of a value ("f32").
const char *zooElementName(ZooValue value);

/// Returns a value of the given type and shape with a fresh name `%<hint>_<n>`,
/// checking that the tensor fits in the addressable-memory limit.
ZooValue zooNewValue(ZooEmitter *e, const char *hint, ZooElementType type, int rank,
                     const ZooSize *dims);

/// Returns a fresh value shaped like `like` with element type `type`.
ZooValue zooNewValueLike(ZooEmitter *e, const char *hint, ZooElementType type, ZooValue like);

/// Appends one line of function body text (indented, newline added).
void zooLine(ZooEmitter *e, const char *format, ...) __attribute__((format(printf, 2, 3)));

/*===------------------------------------------------------------------===*
 * Functions
 *===------------------------------------------------------------------===*/

/// Starts a new function body: clears arguments, symbols and caches.
void zooFunctionBegin(ZooEmitter *e);

/// Declares the next function argument `%<name>` (made unique) and returns it.
ZooValue zooArgument(ZooEmitter *e, const char *name, ZooElementType type, int rank,
                     const ZooSize *dims, bool isParameter, ZooFill fill);

/// Declares dynamic symbol `%<name>.size` of nominal size `nominal` and returns its
/// index; the first argument with the bare symbol as a dimension defines it.
int zooDeclareSymbol(ZooEmitter *e, const char *name, long long nominal);

/// Appends "func.func @name(args) -> (results) attributes {...} { body return }"
/// to `module`; `attributes` is the text inside the braces or NULL.
void zooFunctionEnd(ZooEmitter *e, MemoptStringBuffer *module, const char *name,
                    const char *attributes, const ZooValue *results, int resultCount);

/// Returns the SSA name of an index value equal to `size`, emitting
/// tensor.dim / arith.muli the first time a size is needed in this function.
const char *zooSizeValue(ZooEmitter *e, ZooSize size);

/// Returns the SSA name of a scalar constant of `type` (cached per function).
const char *zooConstant(ZooEmitter *e, ZooElementType type, double value);

/// Returns the SSA name of the scalar -infinity of a float type.
const char *zooNegativeInfinity(ZooEmitter *e, ZooElementType type);

/// Returns the SSA name of the index constant `value`.
const char *zooIndexConstant(ZooEmitter *e, long long value);

/// Returns the SSA name of the float scalar equal to `size` (runtime for dynamic sizes).
const char *zooSizeAsFloat(ZooEmitter *e, ZooSize size, ZooElementType type);

/// Returns the SSA name of the float scalar 1 / `size`.
const char *zooReciprocalOfSize(ZooEmitter *e, ZooSize size, ZooElementType type);

/// Formats `value` as an MLIR float literal (always with a '.' or exponent form MLIR accepts).
void zooFormatFloat(char *out, size_t capacity, double value);

/*===------------------------------------------------------------------===*
 * linalg.generic builder
 *===------------------------------------------------------------------===*/

typedef struct ZooGeneric {
  ZooEmitter *e;
  const char *hint;
  int loopRank;
  char iterators[ZOO_MAX_RANK * 2 + 1]; /* 'p' parallel, 'r' reduction per loop */
  ZooValue operands[ZOO_MAX_GENERIC_OPERANDS];
  const char *maps[ZOO_MAX_GENERIC_OPERANDS];
  int inputCount, outputCount;
  MemoptStringBuffer region;
  int nextTemp;
} ZooGeneric;

/// Starts a linalg.generic whose loops are described by `iterators` ("ppr").
void zooGenericBegin(ZooGeneric *g, ZooEmitter *e, const char *hint, const char *iterators);

/// Adds an input with indexing-map results `map` (e.g. "d0, d2"); returns its block argument.
const char *zooGenericInput(ZooGeneric *g, ZooValue value, const char *map);

/// Adds an output (init) with indexing-map results `map`; returns its block argument.
const char *zooGenericOutput(ZooGeneric *g, ZooValue init, const char *map);

/// Emits "%tN = <op text>" in the body and returns "%tN".
const char *zooGenericOp(ZooGeneric *g, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/// Returns the body value `linalg.index dim`.
const char *zooGenericIndex(ZooGeneric *g, int dim);

/// Yields one value per output, writes the op and returns its results in `results`.
void zooGenericEnd(ZooGeneric *g, const char *const *yielded, ZooValue *results);

/// Returns the map results "d0, d1, ..., d{rank-1}" listing `dims` (NULL: identity).
const char *zooMapOf(ZooEmitter *e, int count, const int *dims);

/// Returns an iterator string of `rank` parallel loops.
const char *zooParallel(ZooEmitter *e, int rank);

/*===------------------------------------------------------------------===*
 * Raw ops (text only; no gradient recording)
 *===------------------------------------------------------------------===*/

typedef enum ZooBinaryKind { ZOO_BINARY_ADD, ZOO_BINARY_SUB, ZOO_BINARY_MUL } ZooBinaryKind;
typedef enum ZooReduceKind { ZOO_REDUCE_SUM, ZOO_REDUCE_MAX } ZooReduceKind;

/// Emits tensor.empty of the given type and shape.
ZooValue zooEmitEmpty(ZooEmitter *e, const char *hint, ZooElementType type, int rank,
                      const ZooSize *dims);

/// Emits tensor.empty + linalg.fill with the constant `value`.
ZooValue zooEmitFull(ZooEmitter *e, const char *hint, ZooElementType type, int rank,
                     const ZooSize *dims, double value);

/// Emits tensor.empty + linalg.fill with zero.
ZooValue zooEmitZeros(ZooEmitter *e, ZooElementType type, int rank, const ZooSize *dims);

/// Emits a tensor shaped like `like` filled with `scalar` (an SSA name).
ZooValue zooEmitFullLike(ZooEmitter *e, const char *hint, ZooValue like, const char *scalar);

typedef enum ZooContractionKind {
  ZOO_MATMUL,                  /* [M,K] x [K,N] -> [M,N] (linalg.matmul) */
  ZOO_BATCH_MATMUL,            /* [B,M,K] x [B,K,N] -> [B,M,N] (linalg.batch_matmul) */
  ZOO_BATCH_MATMUL_SHARED_RHS, /* [B,M,K] x [K,N] -> [B,M,N], rhs broadcast by its map */
  ZOO_BATCH_REDUCE_MATMUL,     /* sum over B of [B,M,K] x [B,K,N] -> [M,N] */
} ZooContractionKind;

/// Emits a matmul-family named op; a transposed operand is read through the
/// op's indexing_maps (no linalg.transpose copy), e.g. a is [K,M] when transposeA.
ZooValue zooEmitContraction(ZooEmitter *e, const char *hint, ZooContractionKind kind, ZooValue a,
                            bool transposeA, ZooValue b, bool transposeB);

/// Emits linalg.transpose with result dim i = input dim perm[i].
ZooValue zooEmitTranspose(ZooEmitter *e, const char *hint, ZooValue x, const int *perm);

/// Emits tensor.expand_shape or tensor.collapse_shape (reassociation inferred).
ZooValue zooEmitReshape(ZooEmitter *e, const char *hint, ZooValue x, int rank, const ZooSize *dims);

/// Emits tensor.pad with `low`/`high` per dim and the scalar `padding` (an SSA name).
ZooValue zooEmitPad(ZooEmitter *e, const char *hint, ZooValue x, const long long *low,
                    const long long *high, const char *padding);

/// Emits tensor.extract_slice with static offsets, the given sizes and unit strides.
ZooValue zooEmitSlice(ZooEmitter *e, const char *hint, ZooValue x, const long long *offsets,
                      const ZooSize *sizes);

/// Emits tensor.insert_slice of `source` into `dest` at `offsets` with `strides`.
ZooValue zooEmitInsertSlice(ZooEmitter *e, const char *hint, ZooValue source, ZooValue dest,
                            const long long *offsets, const long long *strides);

/// Emits tensor.concat of `a` and `b` along `dim`.
ZooValue zooEmitConcat(ZooEmitter *e, const char *hint, int dim, ZooValue a, ZooValue b);

/// Emits an elementwise a (op) b where b's dims are output dims `bDims` (NULL: trailing).
ZooValue zooEmitBinary(ZooEmitter *e, const char *hint, ZooBinaryKind kind, ZooValue a, ZooValue b,
                       const int *bDims);

/// Emits the reduction of `x` over the dims set in `axes` (bit i = dim i).
ZooValue zooEmitReduce(ZooEmitter *e, const char *hint, ZooReduceKind kind, ZooValue x,
                       unsigned axes);

/// Emits sum over the dims not in `keepDims` of x * y (y NULL-able: plain sum), where
/// x and y share a shape; the result keeps dims `keepDims` (ascending).
ZooValue zooEmitProductReduce(ZooEmitter *e, const char *hint, ZooValue x, ZooValue y,
                              int keepCount, const int *keepDims);

/// Emits the broadcast of `x` to `rank`/`dims`, x's dim i becoming output dim dimMap[i].
ZooValue zooEmitBroadcast(ZooEmitter *e, const char *hint, ZooValue x, int rank,
                          const ZooSize *dims, const int *dimMap);

/// Emits x * scalar for the scalar SSA value `scalar`.
ZooValue zooEmitScale(ZooEmitter *e, const char *hint, ZooValue x, const char *scalar);

/// Emits linalg.conv_2d_nhwc_hwcf of an already padded input.
ZooValue zooEmitConv2d(ZooEmitter *e, const char *hint, ZooValue x, ZooValue w, int stride);

/// Emits linalg.depthwise_conv_2d_nhwc_hwc of an already padded input.
ZooValue zooEmitDepthwiseConv2d(ZooEmitter *e, const char *hint, ZooValue x, ZooValue w, int stride);

/// Emits linalg.pooling_nhwc_max of an already padded input.
ZooValue zooEmitMaxPool(ZooEmitter *e, const char *hint, ZooValue x, int window, int stride);

/// Emits the elementwise conversion of `x` to element type `type` (a copy when equal).
ZooValue zooEmitConvert(ZooEmitter *e, const char *hint, ZooValue x, ZooElementType type);

/// Returns the output extent of a window of `window` with `stride` over `extent`.
long long zooWindowOutputExtent(long long extent, int window, int stride);

#endif /* MEMOPT_ZOO_EMITTER_H */

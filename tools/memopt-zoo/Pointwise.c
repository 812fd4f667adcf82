/* Activation functions as scalar body ops. Derivatives are written in terms
 * of the saved input x (not the output), so that every activation saves the
 * same thing for the backward pass. */
#include "Pointwise.h"

#include <math.h>

/* Spelled out: M_PI is not in C11 (and _POSIX_C_SOURCE does not bring it). */
static const double kPi = 3.14159265358979323846;
static const double kSqrtHalf = 0.70710678118654752440;

const char *zooPointwiseName(ZooPointwiseKind kind) {
  switch (kind) {
  case ZOO_GELU_TANH: return "gelu";
  case ZOO_GELU_ERF: return "gelu";
  case ZOO_SILU: return "silu";
  case ZOO_RELU: return "relu";
  case ZOO_RELU6: return "relu6";
  case ZOO_SIGMOID: return "sigmoid";
  }
  return "pointwise";
}

static const char *constant(ZooGeneric *g, ZooElementType type, double value) {
  return zooConstant(g->e, type, value);
}

static const char *sigmoid(ZooGeneric *g, const char *x, const char *t, ZooElementType type) {
  const char *negated = zooGenericOp(g, "arith.negf %s : %s", x, t);
  const char *exp = zooGenericOp(g, "math.exp %s : %s", negated, t);
  const char *denominator = zooGenericOp(g, "arith.addf %s, %s : %s", exp, constant(g, type, 1.0), t);
  return zooGenericOp(g, "arith.divf %s, %s : %s", constant(g, type, 1.0), denominator, t);
}

/* tanh(sqrt(2/pi) * (x + 0.044715 x^3)) */
static const char *geluTanhInner(ZooGeneric *g, const char *x, const char *t, ZooElementType type) {
  const char *square = zooGenericOp(g, "arith.mulf %s, %s : %s", x, x, t);
  const char *cube = zooGenericOp(g, "arith.mulf %s, %s : %s", square, x, t);
  const char *scaledCube = zooGenericOp(g, "arith.mulf %s, %s : %s", cube, constant(g, type, 0.044715), t);
  const char *sum = zooGenericOp(g, "arith.addf %s, %s : %s", x, scaledCube, t);
  const char *argument =
      zooGenericOp(g, "arith.mulf %s, %s : %s", sum, constant(g, type, sqrt(2.0 / kPi)), t);
  return zooGenericOp(g, "math.tanh %s : %s", argument, t);
}

static const char *erfOfScaled(ZooGeneric *g, const char *x, const char *t, ZooElementType type) {
  const char *scaled = zooGenericOp(g, "arith.mulf %s, %s : %s", x, constant(g, type, kSqrtHalf), t);
  return zooGenericOp(g, "math.erf %s : %s", scaled, t);
}

const char *zooScalarPointwise(ZooGeneric *g, ZooPointwiseKind kind, const char *x,
                               ZooElementType type) {
  const char *t = zooElementTypeName(type);
  switch (kind) {
  case ZOO_GELU_TANH:
  case ZOO_GELU_ERF: {
    const char *inner = kind == ZOO_GELU_TANH ? geluTanhInner(g, x, t, type) : erfOfScaled(g, x, t, type);
    const char *onePlus = zooGenericOp(g, "arith.addf %s, %s : %s", inner, constant(g, type, 1.0), t);
    const char *half = zooGenericOp(g, "arith.mulf %s, %s : %s", x, constant(g, type, 0.5), t);
    return zooGenericOp(g, "arith.mulf %s, %s : %s", half, onePlus, t);
  }
  case ZOO_SILU:
    return zooGenericOp(g, "arith.mulf %s, %s : %s", x, sigmoid(g, x, t, type), t);
  case ZOO_RELU:
    return zooGenericOp(g, "arith.maximumf %s, %s : %s", x, constant(g, type, 0.0), t);
  case ZOO_RELU6: {
    const char *low = zooGenericOp(g, "arith.maximumf %s, %s : %s", x, constant(g, type, 0.0), t);
    return zooGenericOp(g, "arith.minimumf %s, %s : %s", low, constant(g, type, 6.0), t);
  }
  case ZOO_SIGMOID:
    return sigmoid(g, x, t, type);
  }
  return x;
}

const char *zooScalarPointwiseDerivative(ZooGeneric *g, ZooPointwiseKind kind, const char *x,
                                         ZooElementType type) {
  const char *t = zooElementTypeName(type);
  const char *one = constant(g, type, 1.0);
  const char *zero = constant(g, type, 0.0);
  switch (kind) {
  case ZOO_GELU_TANH: {
    /* 0.5 (1 + th) + 0.5 x (1 - th^2) sqrt(2/pi) (1 + 3 * 0.044715 x^2) */
    const char *th = geluTanhInner(g, x, t, type);
    const char *onePlus = zooGenericOp(g, "arith.addf %s, %s : %s", th, one, t);
    const char *left = zooGenericOp(g, "arith.mulf %s, %s : %s", onePlus, constant(g, type, 0.5), t);
    const char *thSquare = zooGenericOp(g, "arith.mulf %s, %s : %s", th, th, t);
    const char *sech2 = zooGenericOp(g, "arith.subf %s, %s : %s", one, thSquare, t);
    const char *square = zooGenericOp(g, "arith.mulf %s, %s : %s", x, x, t);
    const char *scaledSquare =
        zooGenericOp(g, "arith.mulf %s, %s : %s", square, constant(g, type, 3.0 * 0.044715), t);
    const char *slope = zooGenericOp(g, "arith.addf %s, %s : %s", scaledSquare, one, t);
    const char *slopeScaled =
        zooGenericOp(g, "arith.mulf %s, %s : %s", slope, constant(g, type, 0.5 * sqrt(2.0 / kPi)), t);
    const char *product = zooGenericOp(g, "arith.mulf %s, %s : %s", sech2, slopeScaled, t);
    const char *right = zooGenericOp(g, "arith.mulf %s, %s : %s", product, x, t);
    return zooGenericOp(g, "arith.addf %s, %s : %s", left, right, t);
  }
  case ZOO_GELU_ERF: {
    /* 0.5 (1 + erf(x / sqrt 2)) + x exp(-x^2 / 2) / sqrt(2 pi) */
    const char *erf = erfOfScaled(g, x, t, type);
    const char *onePlus = zooGenericOp(g, "arith.addf %s, %s : %s", erf, one, t);
    const char *left = zooGenericOp(g, "arith.mulf %s, %s : %s", onePlus, constant(g, type, 0.5), t);
    const char *square = zooGenericOp(g, "arith.mulf %s, %s : %s", x, x, t);
    const char *exponent = zooGenericOp(g, "arith.mulf %s, %s : %s", square, constant(g, type, -0.5), t);
    const char *density = zooGenericOp(g, "math.exp %s : %s", exponent, t);
    const char *scaled =
        zooGenericOp(g, "arith.mulf %s, %s : %s", density, constant(g, type, 1.0 / sqrt(2.0 * kPi)), t);
    const char *right = zooGenericOp(g, "arith.mulf %s, %s : %s", scaled, x, t);
    return zooGenericOp(g, "arith.addf %s, %s : %s", left, right, t);
  }
  case ZOO_SILU: {
    /* s (1 + x (1 - s)) */
    const char *s = sigmoid(g, x, t, type);
    const char *complement = zooGenericOp(g, "arith.subf %s, %s : %s", one, s, t);
    const char *product = zooGenericOp(g, "arith.mulf %s, %s : %s", x, complement, t);
    const char *onePlus = zooGenericOp(g, "arith.addf %s, %s : %s", product, one, t);
    return zooGenericOp(g, "arith.mulf %s, %s : %s", s, onePlus, t);
  }
  case ZOO_RELU: {
    const char *positive = zooGenericOp(g, "arith.cmpf ogt, %s, %s : %s", x, zero, t);
    return zooGenericOp(g, "arith.select %s, %s, %s : %s", positive, one, zero, t);
  }
  case ZOO_RELU6: {
    const char *positive = zooGenericOp(g, "arith.cmpf ogt, %s, %s : %s", x, zero, t);
    const char *belowSix = zooGenericOp(g, "arith.cmpf olt, %s, %s : %s", x, constant(g, type, 6.0), t);
    const char *inside = zooGenericOp(g, "arith.andi %s, %s : i1", positive, belowSix);
    return zooGenericOp(g, "arith.select %s, %s, %s : %s", inside, one, zero, t);
  }
  case ZOO_SIGMOID: {
    const char *s = sigmoid(g, x, t, type);
    const char *complement = zooGenericOp(g, "arith.subf %s, %s : %s", one, s, t);
    return zooGenericOp(g, "arith.mulf %s, %s : %s", s, complement, t);
  }
  }
  return one;
}

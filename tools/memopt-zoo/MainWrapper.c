/* @main for mlir-runner. All values in @main are static: dynamic entry
 * arguments are built at their nominal sizes and tensor.cast to `?`, results
 * are cast back before printing.
 *
 * The fill values are bounded and deterministic (sin of the linear index), so
 * every run prints the same numbers; a per-argument seed keeps different
 * weights from being equal. */
#include "MainWrapper.h"

#include <stdlib.h>
#include <string.h>

static ZooValue staticVersion(const ZooValue *value, const long long *symbolValues) {
  ZooValue result = *value;
  for (int i = 0; i < value->rank; ++i)
    result.dims[i] = zooSizeStatic(zooSizeNominal(value->dims[i], symbolValues));
  return result;
}

static bool isDynamic(const ZooValue *value) {
  for (int i = 0; i < value->rank; ++i)
    if (!zooSizeIsStatic(value->dims[i]))
      return true;
  return false;
}

/* The linear (row-major) index of the current element, as an i64 body value. */
static const char *linearIndex(ZooGeneric *g, const ZooValue *shape) {
  ZooEmitter *e = g->e;
  const char *index = NULL;
  for (int i = 0; i < shape->rank; ++i) {
    const char *position = zooGenericIndex(g, i);
    if (!index) {
      index = position;
      continue;
    }
    const char *scaled = zooGenericOp(g, "arith.muli %s, %s : index", index,
                                      zooIndexConstant(e, shape->dims[i].factor));
    index = zooGenericOp(g, "arith.addi %s, %s : index", scaled, position);
  }
  if (!index)
    index = zooIndexConstant(e, 0);
  return zooGenericOp(g, "arith.index_cast %s : index to i64", index);
}

static ZooValue fillArgument(ZooEmitter *e, const ZooArgument *argument, int position,
                             const long long *symbolValues) {
  ZooValue shape = staticVersion(&argument->value, symbolValues);
  ZooGeneric g;
  zooGenericBegin(&g, e, "arg", zooParallel(e, shape.rank));
  zooGenericOutput(&g, zooEmitEmpty(e, "empty", shape.type, shape.rank, shape.dims),
                   zooMapOf(e, shape.rank, NULL));
  const char *index = linearIndex(&g, &shape);
  const char *value;
  if (argument->fill.kind == ZOO_FILL_INTEGER) {
    const char *scaled = zooGenericOp(&g, "arith.muli %s, %s : i64", index, zooConstant(e, ZOO_I64, 7));
    const char *shifted = zooGenericOp(&g, "arith.addi %s, %s : i64", scaled,
                                       zooConstant(e, ZOO_I64, 3 + position));
    value = zooGenericOp(&g, "arith.remsi %s, %s : i64", shifted,
                         zooConstant(e, ZOO_I64, (double)argument->fill.modulus));
  } else {
    /* Computed in f32 (f64 for f64 models), then rounded to the argument type. */
    ZooElementType compute = shape.type == ZOO_F64 ? ZOO_F64 : ZOO_F32;
    const char *t = zooElementTypeName(compute);
    const char *asFloat = zooGenericOp(&g, "arith.sitofp %s : i64 to %s", index, t);
    const char *phase = zooGenericOp(&g, "arith.mulf %s, %s : %s", asFloat, zooConstant(e, compute, 0.37), t);
    const char *seeded = zooGenericOp(&g, "arith.addf %s, %s : %s", phase,
                                      zooConstant(e, compute, 0.1 + 0.7 * position), t);
    const char *wave = zooGenericOp(&g, "math.sin %s : %s", seeded, t);
    const char *scaled = zooGenericOp(&g, "arith.mulf %s, %s : %s", wave,
                                      zooConstant(e, compute, argument->fill.scale), t);
    value = zooGenericOp(&g, "arith.addf %s, %s : %s", scaled,
                         zooConstant(e, compute, argument->fill.offset), t);
    if (shape.type != compute)
      value = zooGenericOp(&g, "arith.truncf %s : f32 to %s", value, zooElementName(shape));
  }
  ZooValue filled;
  zooGenericEnd(&g, &value, &filled);
  return filled;
}

static ZooValue castTo(ZooEmitter *e, ZooValue value, const ZooValue *type) {
  ZooValue result = zooNewValueLike(e, "cast", type->type, *type);
  zooLine(e, "%s = tensor.cast %s : %s to %s", zooName(e, result), zooName(e, value),
          zooType(e, value), zooType(e, result));
  return result;
}

/* Calls the entry with `arguments` (entry-typed) and returns its results, static. */
static void callEntry(ZooEmitter *e, const ZooEntrySignature *entry, const ZooValue *arguments,
                      ZooValue *results) {
  MemoptStringBuffer text = memoptStringBufferCreate();
  const char *base = zooFormat(e, "%%result.%u", e->nextSuffix++);
  if (entry->resultCount > 1)
    memoptStringBufferAppendFormat(&text, "%s:%d = ", base, entry->resultCount);
  else
    memoptStringBufferAppendFormat(&text, "%s = ", base);
  memoptStringBufferAppendFormat(&text, "func.call @%s(", entry->name);
  for (int i = 0; i < entry->argumentCount; ++i)
    memoptStringBufferAppendFormat(&text, "%s%s", i ? ", " : "", zooName(e, arguments[i]));
  memoptStringBufferAppendCString(&text, ") : (");
  for (int i = 0; i < entry->argumentCount; ++i)
    memoptStringBufferAppendFormat(&text, "%s%s", i ? ", " : "", zooType(e, arguments[i]));
  memoptStringBufferAppendCString(&text, ") -> (");
  for (int i = 0; i < entry->resultCount; ++i)
    memoptStringBufferAppendFormat(&text, "%s%s", i ? ", " : "", zooType(e, entry->results[i]));
  memoptStringBufferAppendCString(&text, ")");
  zooLine(e, "%s", memoptStringBufferGet(&text));
  memoptStringBufferDestroy(&text);
  for (int i = 0; i < entry->resultCount; ++i) {
    /* A value id renamed to the call's result `%result.N#i`, with the entry's type. */
    ZooValue raw = zooNewValueLike(e, "unused", entry->results[i].type, entry->results[i]);
    free(e->names[raw.id]);
    const char *name = entry->resultCount > 1 ? zooFormat(e, "%s#%d", base, i) : base;
    e->names[raw.id] = memoptStrndup(name, strlen(name));
    ZooValue fixed = staticVersion(&entry->results[i], entry->symbolValues);
    results[i] = isDynamic(&raw) ? castTo(e, raw, &fixed) : raw;
  }
}

static void print(ZooEmitter *e, ZooValue value) {
  ZooValue printable = value.type == ZOO_F32 ? value : zooEmitConvert(e, "printable", value, ZOO_F32);
  const char *memrefType = zooFormat(e, "memref%s", zooType(e, printable) + strlen("tensor"));
  const char *buffer = zooFormat(e, "%%buffer.%u", e->nextSuffix++);
  const char *unranked = zooFormat(e, "%%unranked.%u", e->nextSuffix++);
  zooLine(e, "%s = bufferization.to_buffer %s : %s to %s", buffer, zooName(e, printable),
          zooType(e, printable), memrefType);
  zooLine(e, "%s = memref.cast %s : %s to memref<*xf32>", unranked, buffer, memrefType);
  zooLine(e, "func.call @printMemrefF32(%s) : (memref<*xf32>) -> ()", unranked);
}

/* params + sign * eps * grads, elementwise; eps is a rank-0 tensor. */
static ZooValue step(ZooEmitter *e, ZooValue param, ZooValue grad, ZooValue eps, double sign) {
  const char *t = zooElementName(param);
  const char *identity = zooMapOf(e, param.rank, NULL);
  ZooGeneric g;
  zooGenericBegin(&g, e, "stepped", zooParallel(e, param.rank));
  const char *p = zooGenericInput(&g, param, identity);
  const char *d = zooGenericInput(&g, grad, identity);
  const char *s = zooGenericInput(&g, eps, "");
  zooGenericOutput(&g, zooEmitEmpty(e, "empty", param.type, param.rank, param.dims), identity);
  const char *scaled = zooGenericOp(&g, "arith.mulf %s, %s : %s", d, s, t);
  const char *value = zooGenericOp(&g, sign > 0 ? "arith.addf %s, %s : %s" : "arith.subf %s, %s : %s",
                                   p, scaled, t);
  ZooValue result;
  zooGenericEnd(&g, &value, &result);
  return result;
}

/* A rank-0 generic computing f(a, b) with the given body op format. */
static ZooValue scalarOp(ZooEmitter *e, const char *hint, ZooValue a, ZooValue b,
                         const char *(*body)(ZooGeneric *, const char *, const char *, ZooValue)) {
  ZooGeneric g;
  zooGenericBegin(&g, e, hint, "");
  const char *x = zooGenericInput(&g, a, "");
  const char *y = zooGenericInput(&g, b, "");
  zooGenericOutput(&g, zooEmitEmpty(e, "empty", a.type, 0, NULL), "");
  const char *value = body(&g, x, y, a);
  ZooValue result;
  zooGenericEnd(&g, &value, &result);
  return result;
}

/* The relative step: big enough to see above rounding, small enough for the
 * central difference to be accurate. */
static double relativeStep(ZooElementType type) {
  switch (type) {
  case ZOO_F64: return 1e-6;
  case ZOO_F32: return 1e-3;
  default: return 1e-1;
  }
}

/* eps = step * max(1, |loss|) / |g|^2 */
static const char *epsilonBody(ZooGeneric *g, const char *loss, const char *squares, ZooValue like) {
  ZooEmitter *e = g->e;
  const char *t = zooElementName(like);
  const char *magnitude = zooGenericOp(g, "math.absf %s : %s", loss, t);
  const char *bounded = zooGenericOp(g, "arith.maximumf %s, %s : %s", magnitude, zooConstant(e, like.type, 1.0), t);
  const char *scaled = zooGenericOp(g, "arith.mulf %s, %s : %s", bounded,
                                    zooConstant(e, like.type, relativeStep(like.type)), t);
  return zooGenericOp(g, "arith.divf %s, %s : %s", scaled, squares, t);
}

static const char *subtractBody(ZooGeneric *g, const char *a, const char *b, ZooValue like) {
  return zooGenericOp(g, "arith.subf %s, %s : %s", a, b, zooElementName(like));
}

static const char *divideBody(ZooGeneric *g, const char *a, const char *b, ZooValue like) {
  return zooGenericOp(g, "arith.divf %s, %s : %s", a, b, zooElementName(like));
}

static const char *twiceProductBody(ZooGeneric *g, const char *a, const char *b, ZooValue like) {
  const char *t = zooElementName(like);
  const char *product = zooGenericOp(g, "arith.mulf %s, %s : %s", a, b, t);
  return zooGenericOp(g, "arith.mulf %s, %s : %s", product, zooConstant(g->e, like.type, 2.0), t);
}

static void gradientCheck(ZooEmitter *e, const ZooEntrySignature *entry, const ZooValue *filled,
                          const ZooValue *results) {
  int n = entry->argumentCount;
  ZooValue loss = results[0];
  ZooValue squares = zooNoValue();
  int gradient = 1;
  for (int i = 0; i < n; ++i) {
    if (!entry->arguments[i].isParameter)
      continue;
    ZooValue g = results[gradient++];
    ZooValue term = zooEmitProductReduce(e, "gradsq", g, g, 0, NULL);
    squares = zooHasValue(squares) ? zooEmitBinary(e, "gradsq", ZOO_BINARY_ADD, squares, term, NULL) : term;
  }
  if (!zooHasValue(squares)) {
    zooFail(e, "internal: a training step without parameters");
    return;
  }
  ZooValue eps = scalarOp(e, "eps", loss, squares, epsilonBody);
  ZooValue *plus = memoptAllocateZeroed((size_t)n, sizeof(ZooValue));
  ZooValue *minus = memoptAllocateZeroed((size_t)n, sizeof(ZooValue));
  ZooValue *outcome = memoptAllocateZeroed((size_t)entry->resultCount, sizeof(ZooValue));
  gradient = 1;
  for (int i = 0; i < n; ++i) {
    plus[i] = minus[i] = filled[i];
    if (entry->arguments[i].isParameter) {
      ZooValue g = results[gradient++];
      plus[i] = step(e, filled[i], g, eps, +1.0);
      minus[i] = step(e, filled[i], g, eps, -1.0);
    }
  }
  callEntry(e, entry, plus, outcome);
  ZooValue lossPlus = outcome[0];
  callEntry(e, entry, minus, outcome);
  ZooValue lossMinus = outcome[0];
  ZooValue difference = scalarOp(e, "dloss", lossPlus, lossMinus, subtractBody);
  ZooValue predicted = scalarOp(e, "predicted", eps, squares, twiceProductBody);
  ZooValue ratio = scalarOp(e, "ratio", difference, predicted, divideBody);
  print(e, loss);
  print(e, ratio);
  free(plus);
  free(minus);
  free(outcome);
}

void zooEmitMain(ZooEmitter *e, MemoptStringBuffer *module, const ZooEntrySignature *entry) {
  zooFunctionBegin(e);
  int n = entry->argumentCount;
  ZooValue *filled = memoptAllocateZeroed((size_t)n, sizeof(ZooValue));
  ZooValue *passed = memoptAllocateZeroed((size_t)n, sizeof(ZooValue));
  ZooValue *results = memoptAllocateZeroed((size_t)entry->resultCount, sizeof(ZooValue));
  for (int i = 0; i < n; ++i) {
    filled[i] = fillArgument(e, &entry->arguments[i], i, entry->symbolValues);
    passed[i] = isDynamic(&entry->arguments[i].value)
                    ? castTo(e, filled[i], &entry->arguments[i].value)
                    : filled[i];
  }
  callEntry(e, entry, passed, results);
  if (entry->isTrainStep) {
    /* The perturbed parameters are static, like the originals. */
    for (int i = 0; i < n; ++i)
      if (!entry->arguments[i].isParameter)
        filled[i] = passed[i];
    gradientCheck(e, entry, filled, results);
  } else {
    for (int i = 0; i < entry->resultCount; ++i)
      print(e, results[i]);
  }
  zooFunctionEnd(e, module, "main", NULL, NULL, 0);
  memoptStringBufferAppendCString(
      module, "func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}\n");
  free(filled);
  free(passed);
  free(results);
}

/* Invariants of memopt ops that IRDL cannot state. IRDL already checks the
 * operand/result kinds and that each attribute is present with the right
 * kind; everything that relates one attribute to another, to the types, or to
 * the region body is checked here and reported as an ordinary op error. */
#include "IR/IR.h"
#include "IR/Verifier.h"
#include "Support/Support.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

#include <stdlib.h>
#include <string.h>

void memoptVerifierError(MemoptVerifier *verifier, MlirOperation op, const char *format, ...) {
  va_list args;
  va_start(args, format);
  memoptEmitOpErrorV(op, format, args);
  va_end(args);
  verifier->failed = true;
}

MlirAttribute memoptVerifierAttribute(MlirOperation op, const char *name) {
  return mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name));
}

int64_t memoptI64ArrayAt(MemoptI64Array array, intptr_t index) {
  return mlirDenseI64ArrayGetElement(array.attr, index);
}

/* Reads an i64 dense array attribute; false (with an error) for other kinds. */
bool memoptVerifierI64Array(MemoptVerifier *verifier, MlirOperation op, const char *name,
                            MemoptI64Array *array) {
  array->attr = memoptVerifierAttribute(op, name);
  if (!mlirAttributeIsADenseI64Array(array->attr)) {
    memoptVerifierError(verifier, op, "attribute '%s' must be an array<i64: ...>", name);
    return false;
  }
  array->count = mlirDenseArrayGetNumElements(array->attr);
  return true;
}

/* Reads an integer attribute into `value`; false (with an error) for other
 * kinds and for values outside int64_t, which a wider or unsigned type can
 * hold. */
bool memoptVerifierInteger(MemoptVerifier *verifier, MlirOperation op, const char *name,
                           int64_t *value) {
  MlirAttribute attr = memoptVerifierAttribute(op, name);
  if (!mlirAttributeIsAInteger(attr)) {
    memoptVerifierError(verifier, op, "attribute '%s' must be an integer", name);
    return false;
  }
  if (!memoptIntegerAttrGetInt64(attr, value)) {
    MemoptStringBuffer text = memoptStringBufferCreate();
    mlirAttributePrint(attr, memoptAppendToBuffer, &text);
    memoptVerifierError(verifier, op, "attribute '%s' (%s) is out of the 64-bit signed range", name,
            memoptStringBufferGet(&text));
    memoptStringBufferDestroy(&text);
    return false;
  }
  return true;
}

bool memoptVerifierAtLeast(MemoptVerifier *verifier, MlirOperation op, const char *name,
                           int64_t minimum, int64_t *value) {
  if (!memoptVerifierInteger(verifier, op, name, value))
    return false;
  if (*value < minimum) {
    memoptVerifierError(verifier, op, "attribute '%s' must be at least %lld, got %lld", name,
            (long long)minimum, (long long)*value);
    return false;
  }
  return true;
}

/* Returns the single block of region `index`, with an error when it is empty. */
bool memoptVerifierBody(MemoptVerifier *verifier, MlirOperation op, intptr_t index,
                        MlirBlock *block) {
  *block = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, index));
  if (mlirBlockIsNull(*block)) {
    memoptVerifierError(verifier, op, "region #%ld must have a body block", (long)index);
    return false;
  }
  return true;
}

/* Checks that `block` ends in vector.yield and returns it. */
bool memoptVerifierYieldOf(MemoptVerifier *verifier, MlirOperation op, MlirBlock block,
                           MlirOperation *yield) {
  *yield = mlirBlockGetTerminator(block);
  if (mlirOperationIsNull(*yield) || !memoptOperationIsA(*yield, MEMOPT_REGION_TERMINATOR)) {
    memoptVerifierError(verifier, op, "region must end in '" MEMOPT_REGION_TERMINATOR "'");
    return false;
  }
  return true;
}

/* Checks that the body yields exactly the op's result types. */
void memoptVerifierYieldMatchesResults(MemoptVerifier *verifier, MlirOperation op,
                                       MlirOperation yield) {
  intptr_t results = mlirOperationGetNumResults(op);
  intptr_t yielded = mlirOperationGetNumOperands(yield);
  if (yielded != results) {
    memoptVerifierError(verifier, op, "body yields %ld values but the op has %ld results",
                        (long)yielded, (long)results);
    return;
  }
  for (intptr_t i = 0; i < results; ++i)
    if (!mlirTypeEqual(mlirValueGetType(mlirOperationGetOperand(yield, i)),
                       mlirValueGetType(mlirOperationGetResult(op, i))))
      memoptVerifierError(verifier, op, "body yields a value of another type than result #%ld",
                          (long)i);
}

static void verifySpmGroup(MemoptVerifier *verifier, MlirOperation op) {
  MemoptI64Array tile;
  if (!memoptVerifierI64Array(verifier, op, "tile", &tile))
    return;
  for (intptr_t i = 0; i < tile.count; ++i)
    if (memoptI64ArrayAt(tile, i) < 1) {
      memoptVerifierError(verifier, op, "tile sizes must be positive, got %lld at #%ld",
              (long long)memoptI64ArrayAt(tile, i), (long)i);
      return;
    }
  MlirBlock block;
  MlirOperation yield;
  if (memoptVerifierBody(verifier, op, 0, &block) &&
      memoptVerifierYieldOf(verifier, op, block, &yield))
    memoptVerifierYieldMatchesResults(verifier, op, yield);
}

static void verifySameType(MemoptVerifier *verifier, MlirOperation op) {
  if (!mlirTypeEqual(mlirValueGetType(mlirOperationGetOperand(op, 0)),
                     mlirValueGetType(mlirOperationGetResult(op, 0))))
    memoptVerifierError(verifier, op, "result type must equal the operand type");
}

/* The static byte size of a tensor type: StaticBytesKnown with the size in
 * `bytes`, StaticBytesUnknown when the shape is dynamic or the element type
 * has no fixed bit width, StaticBytesOverflow when it exceeds INT64_MAX. */
typedef enum StaticBytes { StaticBytesKnown, StaticBytesUnknown, StaticBytesOverflow } StaticBytes;

static StaticBytes staticBytes(MlirType type, int64_t *bytes) {
  if (!mlirShapedTypeHasStaticShape(type))
    return StaticBytesUnknown;
  MlirType element = mlirShapedTypeGetElementType(type);
  int64_t bits;
  if (mlirTypeIsAInteger(element))
    bits = mlirIntegerTypeGetWidth(element);
  else if (mlirTypeIsAFloat(element))
    bits = mlirFloatTypeGetWidth(element);
  else
    return StaticBytesUnknown;
  int64_t totalBits = bits;
  for (int64_t d = 0; d < mlirShapedTypeGetRank(type); ++d)
    if (__builtin_mul_overflow(totalBits, mlirShapedTypeGetDimSize(type, d), &totalBits))
      return StaticBytesOverflow;
  if (__builtin_add_overflow(totalBits, 7, &totalBits))
    return StaticBytesOverflow;
  *bytes = totalBits / 8;
  return StaticBytesKnown;
}

static void verifySpmPin(MemoptVerifier *verifier, MlirOperation op) {
  int64_t offset, size, end;
  if (!memoptVerifierAtLeast(verifier, op, "offset", 0, &offset) ||
      !memoptVerifierAtLeast(verifier, op, "size", 1, &size))
    return;
  if (__builtin_add_overflow(offset, size, &end)) {
    memoptVerifierError(verifier, op, "offset %lld + size %lld overflows a 64-bit byte address",
            (long long)offset, (long long)size);
    return;
  }
  verifySameType(verifier, op);
  verifier->pins = memoptGrowArray(verifier->pins, &verifier->pinCapacity, verifier->pinCount + 1,
                                   sizeof *verifier->pins);
  verifier->pins[verifier->pinCount++] = op;
  int64_t needed;
  switch (staticBytes(mlirValueGetType(mlirOperationGetOperand(op, 0)), &needed)) {
  case StaticBytesOverflow:
    memoptVerifierError(verifier, op, "the pinned tensor needs more than 2^63 - 1 bytes");
    break;
  case StaticBytesKnown:
    if (needed > size)
      memoptVerifierError(verifier, op, "pins %lld bytes but the tensor needs %lld",
                          (long long)size, (long long)needed);
    break;
  case StaticBytesUnknown:
    break;
  }
}

/* The ops at which a pinned value's bytes are in use: the pin's producer
 * (when in the pin's block: a group's tile loops write straight into the
 * arena), the pin, and every user of the value or of a value that may share
 * its buffer (views, destinations written in place, loop-carried and yielded
 * values). A yield inside a loop keeps the value live across iterations, so
 * the first op of that block counts too. */
typedef struct PinLiveness {
  MlirOperation *points;
  size_t count, capacity;
  MlirValue *values; /* worklist of values that may share the pin's buffer */
  size_t valueCount, valueCapacity;
} PinLiveness;

static void addPoint(PinLiveness *live, MlirOperation op) {
  live->points =
      memoptGrowArray(live->points, &live->capacity, live->count + 1, sizeof *live->points);
  live->points[live->count++] = op;
}

static void addAlias(PinLiveness *live, MlirValue value) {
  for (size_t i = 0; i < live->valueCount; ++i)
    if (mlirValueEqual(live->values[i], value))
      return;
  live->values = memoptGrowArray(live->values, &live->valueCapacity, live->valueCount + 1,
                                 sizeof *live->values);
  live->values[live->valueCount++] = value;
}

static bool isOneOf(MlirOperation op, const char *const *names) {
  for (; *names; ++names)
    if (memoptOperationIsA(op, *names))
      return true;
  return false;
}

/* Adds the results of `user` that may share the buffer of its operand #`operand`. */
static void addAliasingResults(PinLiveness *live, MlirOperation user, intptr_t operand) {
  static const char *const views[] = {"tensor.extract_slice", "tensor.expand_shape",
                                      "tensor.collapse_shape", "tensor.cast", "tensor.reshape",
                                      "tensor.bitcast", NULL};
  intptr_t results = mlirOperationGetNumResults(user);
  MlirOperation parent = mlirOperationGetParentOperation(user);
  if (isOneOf(user, views) && operand == 0) {
    addAlias(live, mlirOperationGetResult(user, 0));
  } else if ((memoptOperationIsA(user, "tensor.insert_slice") && operand == 1) ||
             (memoptOperationIsA(user, "tensor.insert") && operand == 1)) {
    addAlias(live, mlirOperationGetResult(user, 0));
  } else if (memoptOperationIsInDialect(user, "linalg") && mlirOperationGetNumRegions(user) == 1) {
    MlirAttribute segments = mlirOperationGetAttributeByName(
        user, mlirStringRefCreateFromCString("operandSegmentSizes"));
    intptr_t inputs = mlirAttributeIsADenseI32Array(segments)
                          ? mlirDenseI32ArrayGetElement(segments, 0)
                          : mlirOperationGetNumOperands(user) - results;
    if (operand >= inputs && operand - inputs < results)
      addAlias(live, mlirOperationGetResult(user, operand - inputs));
  } else if (memoptOperationIsA(user, "scf.for") && operand >= 3 && operand - 3 < results) {
    addAlias(live, mlirOperationGetResult(user, operand - 3));
    MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(user, 0));
    addAlias(live, mlirBlockGetArgument(body, operand - 2));
  } else if (mlirOperationIsNull(mlirOperationGetNextInBlock(user)) &&
             !mlirOperationIsNull(parent) && !memoptOperationIsA(parent, "func.func")) {
    /* A region's terminator: the value leaves through its parent's results. */
    for (intptr_t r = 0; r < mlirOperationGetNumResults(parent); ++r)
      addAlias(live, mlirOperationGetResult(parent, r));
    addPoint(live, mlirBlockGetFirstOperation(mlirOperationGetBlock(user)));
  }
}

static void pinLiveness(MlirOperation pin, PinLiveness *live) {
  *live = (PinLiveness){0};
  addPoint(live, pin);
  MlirValue source = mlirOperationGetOperand(pin, 0);
  if (mlirValueIsAOpResult(source) &&
      mlirBlockEqual(mlirOperationGetBlock(mlirOpResultGetOwner(source)),
                     mlirOperationGetBlock(pin)))
    addPoint(live, mlirOpResultGetOwner(source));
  addAlias(live, mlirOperationGetResult(pin, 0));
  for (size_t v = 0; v < live->valueCount; ++v)
    for (MlirOpOperand use = mlirValueGetFirstUse(live->values[v]); !mlirOpOperandIsNull(use);
         use = mlirOpOperandGetNextUse(use)) {
      MlirOperation user = mlirOpOperandGetOwner(use);
      addPoint(live, user);
      addAliasingResults(live, user, (intptr_t)mlirOpOperandGetOperandNumber(use));
    }
}

static void pinLivenessDestroy(PinLiveness *live) {
  free(live->points);
  free(live->values);
}

/* The first and last op of `block` holding a point of `live`; false when none is in it. */
static bool spanIn(const PinLiveness *live, MlirBlock block, MlirOperation *first,
                   MlirOperation *last) {
  *first = *last = (MlirOperation){NULL};
  for (size_t i = 0; i < live->count; ++i) {
    MlirOperation op = memoptOperationAncestorInBlock(live->points[i], block);
    if (mlirOperationIsNull(op))
      continue;
    if (mlirOperationIsNull(*first) || mlirOperationIsBeforeInBlock(op, *first))
      *first = op;
    if (mlirOperationIsNull(*last) || mlirOperationIsBeforeInBlock(*last, op))
      *last = op;
  }
  return !mlirOperationIsNull(*first);
}

/* The innermost block of `a`'s function that holds `b` (or an op holding
 * it); null when they are in different functions. */
static MlirBlock commonBlock(MlirOperation a, MlirOperation b) {
  for (MlirBlock block = mlirOperationGetBlock(a); !mlirBlockIsNull(block);) {
    if (!mlirOperationIsNull(memoptOperationAncestorInBlock(b, block)))
      return block;
    MlirOperation parent = mlirBlockGetParentOperation(block);
    if (mlirOperationIsNull(parent) || memoptOperationIsA(parent, "func.func"))
      break;
    block = mlirOperationGetBlock(parent);
  }
  return (MlirBlock){NULL};
}

/* True when the pins' live ranges share an op of their innermost common block. */
static bool liveTogether(MlirOperation a, MlirOperation b) {
  MlirBlock block = commonBlock(a, b);
  if (mlirBlockIsNull(block))
    return false;
  PinLiveness liveA, liveB;
  pinLiveness(a, &liveA);
  pinLiveness(b, &liveB);
  MlirOperation firstA, lastA, firstB, lastB;
  bool together =
      spanIn(&liveA, block, &firstA, &lastA) && spanIn(&liveB, block, &firstB, &lastB) &&
      !mlirOperationIsBeforeInBlock(lastA, firstB) && !mlirOperationIsBeforeInBlock(lastB, firstA);
  pinLivenessDestroy(&liveA);
  pinLivenessDestroy(&liveB);
  return together;
}

/* Two pins whose bytes overlap must not be live at the same time: the
 * lowering gives them the same scratchpad bytes. Checked on pins whose own
 * attributes passed verification. */
static void verifyPinsDisjoint(MemoptVerifier *verifier) {
  for (size_t j = 1; j < verifier->pinCount; ++j)
    for (size_t i = 0; i < j; ++i) {
      MlirOperation a = verifier->pins[i], b = verifier->pins[j];
      int64_t offsetA = mlirIntegerAttrGetValueSInt(memoptVerifierAttribute(a, "offset"));
      int64_t offsetB = mlirIntegerAttrGetValueSInt(memoptVerifierAttribute(b, "offset"));
      int64_t endA = offsetA + mlirIntegerAttrGetValueSInt(memoptVerifierAttribute(a, "size"));
      int64_t endB = offsetB + mlirIntegerAttrGetValueSInt(memoptVerifierAttribute(b, "size"));
      if (offsetA >= endB || offsetB >= endA || !liveTogether(a, b))
        continue;
      MlirStringRef file;
      unsigned line = 0, column = 0;
      memoptLocationPosition(mlirOperationGetLocation(a), &file, &line, &column);
      memoptVerifierError(verifier, b,
              "bytes [%lld, %lld) overlap bytes [%lld, %lld) of the spm.pin at %u:%u, and both "
              "are live at the same time",
              (long long)offsetB, (long long)endB, (long long)offsetA, (long long)endA, line,
              column);
      break;
    }
}

static void verifyPlaceCluster(MemoptVerifier *verifier, MlirOperation op) {
  int64_t value;
  if (memoptVerifierAtLeast(verifier, op, "devices", 1, &value) &&
      memoptVerifierAtLeast(verifier, op, "hbm_bytes", 1, &value))
    memoptVerifierAtLeast(verifier, op, "link_bandwidth", 1, &value);
}

/* Checks that a stage uses at most the devices of its cluster, when the
 * cluster is a place.cluster of the enclosing symbol table. */
static void verifyStageFitsCluster(MemoptVerifier *verifier, MlirOperation stage, int64_t devices) {
  MlirAttribute cluster = memoptVerifierAttribute(stage, "cluster");
  if (!mlirAttributeIsAFlatSymbolRef(cluster))
    return;
  MlirStringRef name = mlirFlatSymbolRefAttrGetValue(cluster);
  MlirOperation table = mlirOperationGetParentOperation(stage);
  while (!mlirOperationIsNull(table) &&
         !mlirOperationIsNull(mlirOperationGetParentOperation(table)))
    table = mlirOperationGetParentOperation(table);
  if (mlirOperationIsNull(table) || mlirOperationGetNumRegions(table) != 1)
    return;
  MlirBlock block = mlirRegionGetFirstBlock(mlirOperationGetRegion(table, 0));
  for (MlirOperation op = mlirBlockIsNull(block) ? (MlirOperation){NULL}
                                                 : mlirBlockGetFirstOperation(block);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    MlirAttribute symbol = memoptVerifierAttribute(op, "sym_name");
    MlirAttribute clusterDevices = memoptVerifierAttribute(op, "devices");
    if (!memoptOperationIsA(op, "place.cluster") || !mlirAttributeIsAString(symbol) ||
        !mlirStringRefEqual(mlirStringAttrGetValue(symbol), name) ||
        !mlirAttributeIsAInteger(clusterDevices))
      continue;
    if (devices > mlirIntegerAttrGetValueSInt(clusterDevices))
      memoptVerifierError(verifier, stage, "uses %lld devices but cluster @%.*s has %lld",
                          (long long)devices, (int)name.length, name.data,
                          (long long)mlirIntegerAttrGetValueSInt(clusterDevices));
    return;
  }
}

static void verifyPlaceStage(MemoptVerifier *verifier, MlirOperation op) {
  int64_t index, devices, dataParallel, tensorParallel, recompute, firstLayer, layers;
  if (!memoptVerifierAtLeast(verifier, op, "index", 0, &index) ||
      !memoptVerifierAtLeast(verifier, op, "first_layer", 0, &firstLayer) ||
      !memoptVerifierAtLeast(verifier, op, "layers", 1, &layers) ||
      !memoptVerifierAtLeast(verifier, op, "devices", 1, &devices) ||
      !memoptVerifierAtLeast(verifier, op, "data_parallel", 1, &dataParallel) ||
      !memoptVerifierAtLeast(verifier, op, "tensor_parallel", 1, &tensorParallel) ||
      !memoptVerifierInteger(verifier, op, "recompute", &recompute))
    return;
  int64_t product;
  if (__builtin_mul_overflow(dataParallel, tensorParallel, &product))
    memoptVerifierError(verifier, op,
                        "data_parallel x tensor_parallel = %lld x %lld exceeds 2^63 - 1 devices",
                        (long long)dataParallel, (long long)tensorParallel);
  else if (product != devices)
    memoptVerifierError(verifier, op,
                        "uses %lld devices but data_parallel x tensor_parallel is %lld",
                        (long long)devices, (long long)product);
  else
    verifyStageFitsCluster(verifier, op, devices);
  /* Stage indices are unique among the stages of one block. */
  for (MlirOperation other = mlirBlockGetFirstOperation(mlirOperationGetBlock(op));
       !mlirOperationIsNull(other) && !mlirOperationEqual(other, op);
       other = mlirOperationGetNextInBlock(other)) {
    int64_t otherIndex;
    if (memoptOperationIsA(other, "place.stage") &&
        mlirAttributeIsAInteger(memoptVerifierAttribute(other, "index")) &&
        (otherIndex = mlirIntegerAttrGetValueSInt(memoptVerifierAttribute(other, "index"))) ==
            index) {
      memoptVerifierError(verifier, op, "repeats stage index %lld", (long long)index);
      break;
    }
  }
  MlirBlock block;
  MlirOperation yield;
  if (!memoptVerifierBody(verifier, op, 0, &block))
    return;
  if (mlirBlockGetNumArguments(block) != 0)
    memoptVerifierError(verifier, op,
            "body must take no arguments (it takes %ld): a stage has no operands to bind them",
            (long)mlirBlockGetNumArguments(block));
  if (memoptVerifierYieldOf(verifier, op, block, &yield))
    memoptVerifierYieldMatchesResults(verifier, op, yield);
}

/* True for the uses of a value that read its shape alone: they stay valid
 * while its buffer is evicted (the pages go, the descriptor stays). */
static bool readsShapeOnly(MlirOperation user) {
  return memoptOperationIsA(user, "tensor.dim") || memoptOperationIsA(user, "remat.dim_symbol");
}

static void verifyRematRegenerate(MemoptVerifier *verifier, MlirOperation op) {
  verifySameType(verifier, op);
  MlirBlock block;
  MlirOperation yield;
  if (memoptVerifierBody(verifier, op, 0, &block) &&
      memoptVerifierYieldOf(verifier, op, block, &yield))
    memoptVerifierYieldMatchesResults(verifier, op, yield);
  /* The value is evicted while its recomputation runs: reading it there, or
   * regenerating it again, would read the released buffer. */
  MlirValue value = mlirOperationGetOperand(op, 0);
  for (MlirOpOperand use = mlirValueGetFirstUse(value); !mlirOpOperandIsNull(use);
       use = mlirOpOperandGetNextUse(use)) {
    MlirOperation user = mlirOpOperandGetOwner(use);
    if (!mlirOperationEqual(user, op) && !readsShapeOnly(user) &&
        memoptOperationIsInside(user, op)) {
      memoptVerifierError(verifier, op,
                          "body uses the value it regenerates: a buffer cannot be recomputed "
                          "from itself");
      return;
    }
  }
}

/* The block that defines `value`. */
static MlirBlock definingBlock(MlirValue value) {
  return mlirValueIsABlockArgument(value) ? mlirBlockArgumentGetOwner(value)
                                          : mlirOperationGetBlock(mlirOpResultGetOwner(value));
}

/* From an evict (or, nested in a regenerate's body, from the end of the op
 * of the value's block it is in) until the next regenerate of the value in
 * that block, the buffer may be evicted: no op there may read it. */
static void verifyRematEvict(MemoptVerifier *verifier, MlirOperation op) {
  MlirValue value = mlirOperationGetOperand(op, 0);
  MlirBlock block = definingBlock(value);
  MlirOperation start = memoptOperationAncestorInBlock(op, block);
  if (mlirOperationIsNull(start))
    return;
  MlirOperation end = {NULL};
  for (MlirOpOperand use = mlirValueGetFirstUse(value); !mlirOpOperandIsNull(use);
       use = mlirOpOperandGetNextUse(use)) {
    MlirOperation user = mlirOpOperandGetOwner(use);
    if (memoptOperationIsA(user, "remat.regenerate") &&
        mlirBlockEqual(mlirOperationGetBlock(user), block) &&
        mlirOperationIsBeforeInBlock(start, user) &&
        (mlirOperationIsNull(end) || mlirOperationIsBeforeInBlock(user, end)))
      end = user;
  }
  for (MlirOpOperand use = mlirValueGetFirstUse(value); !mlirOpOperandIsNull(use);
       use = mlirOpOperandGetNextUse(use)) {
    MlirOperation user = mlirOpOperandGetOwner(use);
    MlirOperation at = memoptOperationAncestorInBlock(user, block);
    /* Remat ops restore or register it again. */
    if (readsShapeOnly(user) || memoptOperationIsInDialect(user, "remat") ||
        mlirOperationIsNull(at) ||
        !mlirOperationIsBeforeInBlock(start, at) ||
        (!mlirOperationIsNull(end) && !mlirOperationIsBeforeInBlock(at, end)))
      continue;
    MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(user));
    MemoptStringBuffer message = memoptStringBufferCreate();
    memoptStringBufferAppendFormat(&message,
                                   "'%.*s' op reads a value that a remat.evict made evictable, "
                                   "before a remat.regenerate restores it",
                                   (int)name.length, name.data);
    mlirEmitError(mlirOperationGetLocation(user), memoptStringBufferGet(&message));
    memoptStringBufferDestroy(&message);
    memoptEmitDiagnostic(mlirOperationGetLocation(op), MlirDiagnosticNote,
                         "made evictable here");
    verifier->failed = true;
    return;
  }
}

static void verifyRematDimSymbol(MemoptVerifier *verifier, MlirOperation op) {
  int64_t dim;
  if (!memoptVerifierAtLeast(verifier, op, "dim", 0, &dim))
    return;
  MlirType type = mlirValueGetType(mlirOperationGetOperand(op, 0));
  if (!mlirShapedTypeHasRank(type) || dim >= mlirShapedTypeGetRank(type))
    memoptVerifierError(verifier, op, "dimension %lld is out of range for the operand",
                        (long long)dim);
  else if (mlirStringAttrGetValue(memoptVerifierAttribute(op, "symbol")).length == 0)
    memoptVerifierError(verifier, op, "symbol name must not be empty");
}

typedef struct OpCheck {
  const char *name;
  void (*check)(MemoptVerifier *, MlirOperation);
} OpCheck;

static const OpCheck opChecks[] = {
    {"chunk.region", memoptVerifyChunkRegion},   {"spm.group", verifySpmGroup},
    {"spm.pin", verifySpmPin},             {"spm.load", verifySameType},
    {"spm.store", verifySameType},         {"place.cluster", verifyPlaceCluster},
    {"place.stage", verifyPlaceStage},     {"remat.regenerate", verifyRematRegenerate},
    {"remat.evict", verifyRematEvict},     {"remat.dim_symbol", verifyRematDimSymbol},
};

static MlirWalkResult verifyOne(MlirOperation op, void *userData) {
  for (size_t i = 0; i < sizeof opChecks / sizeof *opChecks; ++i)
    if (memoptOperationIsA(op, opChecks[i].name)) {
      opChecks[i].check((MemoptVerifier *)userData, op);
      break;
    }
  return MlirWalkResultAdvance;
}

MlirLogicalResult memoptVerifyOps(MlirOperation root) {
  MemoptVerifier verifier = {0};
  mlirOperationWalk(root, verifyOne, &verifier, MlirWalkPostOrder);
  verifyPinsDisjoint(&verifier);
  free(verifier.pins);
  return verifier.failed ? mlirLogicalResultFailure() : mlirLogicalResultSuccess();
}

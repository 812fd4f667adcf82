/* Invariants of memopt ops that IRDL cannot state. IRDL already checks the
 * operand/result kinds and that each attribute is present with the right
 * kind; everything that relates one attribute to another, to the types, or to
 * the region body is checked here and reported as an ordinary op error. */
#include "IR/IR.h"
#include "Support/Support.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

#include <stdlib.h>
#include <string.h>

typedef struct Verifier {
  bool failed;
  MlirOperation *pins; /* the spm.pin ops seen, in walk order */
  size_t pinCount;
  size_t pinCapacity;
} Verifier;

/* Emits "'<op>' op <message>" at the op's location. */
static void opError(Verifier *verifier, MlirOperation op, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
static void opError(Verifier *verifier, MlirOperation op, const char *format, ...) {
  va_list args;
  va_start(args, format);
  memoptEmitOpErrorV(op, format, args);
  va_end(args);
  verifier->failed = true;
}

static MlirAttribute attribute(MlirOperation op, const char *name) {
  return mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name));
}

/* An i64 dense array attribute and its length. */
typedef struct I64Array {
  MlirAttribute attr;
  intptr_t count;
} I64Array;

static int64_t at(I64Array array, intptr_t index) {
  return mlirDenseI64ArrayGetElement(array.attr, index);
}

/* Reads an i64 dense array attribute; false (with an error) for other kinds. */
static bool i64Array(Verifier *verifier, MlirOperation op, const char *name, I64Array *array) {
  array->attr = attribute(op, name);
  if (!mlirAttributeIsADenseI64Array(array->attr)) {
    opError(verifier, op, "attribute '%s' must be an array<i64: ...>", name);
    return false;
  }
  array->count = mlirDenseArrayGetNumElements(array->attr);
  return true;
}

/* Reads an integer attribute into `value`; false (with an error) for other
 * kinds and for values outside int64_t, which a wider or unsigned type can
 * hold. */
static bool integer(Verifier *verifier, MlirOperation op, const char *name, int64_t *value) {
  MlirAttribute attr = attribute(op, name);
  if (!mlirAttributeIsAInteger(attr)) {
    opError(verifier, op, "attribute '%s' must be an integer", name);
    return false;
  }
  if (!memoptIntegerAttrGetInt64(attr, value)) {
    MemoptStringBuffer text = memoptStringBufferCreate();
    mlirAttributePrint(attr, memoptAppendToBuffer, &text);
    opError(verifier, op, "attribute '%s' (%s) is out of the 64-bit signed range", name,
            memoptStringBufferGet(&text));
    memoptStringBufferDestroy(&text);
    return false;
  }
  return true;
}

static bool atLeast(Verifier *verifier, MlirOperation op, const char *name, int64_t minimum,
                    int64_t *value) {
  if (!integer(verifier, op, name, value))
    return false;
  if (*value < minimum) {
    opError(verifier, op, "attribute '%s' must be at least %lld, got %lld", name,
            (long long)minimum, (long long)*value);
    return false;
  }
  return true;
}

/* Returns the single block of region `index`, with an error when it is empty. */
static bool body(Verifier *verifier, MlirOperation op, intptr_t index, MlirBlock *block) {
  *block = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, index));
  if (mlirBlockIsNull(*block)) {
    opError(verifier, op, "region #%ld must have a body block", (long)index);
    return false;
  }
  return true;
}

/* Checks that `block` ends in vector.yield and returns it. */
static bool yieldOf(Verifier *verifier, MlirOperation op, MlirBlock block, MlirOperation *yield) {
  *yield = mlirBlockGetTerminator(block);
  if (mlirOperationIsNull(*yield) || !memoptOperationIsA(*yield, MEMOPT_REGION_TERMINATOR)) {
    opError(verifier, op, "region must end in '" MEMOPT_REGION_TERMINATOR "'");
    return false;
  }
  return true;
}

/* Checks that the body yields exactly the op's result types. */
static void yieldMatchesResults(Verifier *verifier, MlirOperation op, MlirOperation yield) {
  intptr_t results = mlirOperationGetNumResults(op);
  intptr_t yielded = mlirOperationGetNumOperands(yield);
  if (yielded != results) {
    opError(verifier, op, "body yields %ld values but the op has %ld results", (long)yielded,
            (long)results);
    return;
  }
  for (intptr_t i = 0; i < results; ++i)
    if (!mlirTypeEqual(mlirValueGetType(mlirOperationGetOperand(yield, i)),
                       mlirValueGetType(mlirOperationGetResult(op, i))))
      opError(verifier, op, "body yields a value of another type than result #%ld", (long)i);
}

/* Checks `dim` against a ranked tensor and returns its extent (or the
 * dynamic marker) through `extent`. */
static bool chunkDim(Verifier *verifier, MlirOperation op, const char *what, intptr_t index,
                     MlirType type, int64_t dim, int64_t *extent) {
  if (!mlirTypeIsARankedTensor(type)) {
    opError(verifier, op, "%s #%ld must be a ranked tensor", what, (long)index);
    return false;
  }
  int64_t rank = mlirShapedTypeGetRank(type);
  if (dim < 0 || dim >= rank) {
    opError(verifier, op, "chunk dimension %lld of %s #%ld is out of range for rank %lld",
            (long long)dim, what, (long)index, (long long)rank);
    return false;
  }
  *extent = mlirShapedTypeGetDimSize(type, dim);
  return true;
}

/* Appends `type` as MLIR prints it to `text`. */
static void appendType(MemoptStringBuffer *text, MlirType type) {
  mlirTypePrint(type, memoptAppendToBuffer, text);
}

/* Checks the `combiners` and `rescale_by` attributes of a chunk.region: an
 * array of known combiner names, one per result, and for each "rescaled-add"
 * result the index of another result, a "max" one (-1 for the others). */
static bool verifyCombinerAttributes(Verifier *verifier, MlirOperation op) {
  intptr_t outputs = mlirOperationGetNumResults(op);
  MlirAttribute names = attribute(op, "combiners");
  bool rescaled = false;
  if (!mlirAttributeIsNull(names)) {
    if (!mlirAttributeIsAArray(names) || mlirArrayAttrGetNumElements(names) != outputs) {
      opError(verifier, op,
              "attribute 'combiners' must be an array of strings, one per result (%ld)",
              (long)outputs);
      return false;
    }
    for (intptr_t j = 0; j < outputs; ++j) {
      MlirAttribute name = mlirArrayAttrGetElement(names, j);
      MemoptChunkCombiner combiner;
      if (mlirAttributeIsAString(name) &&
          memoptChunkCombinerFromName(mlirStringAttrGetValue(name), &combiner)) {
        rescaled |= combiner == MemoptChunkCombineRescaledAdd;
        continue;
      }
      MemoptStringBuffer text = memoptStringBufferCreate();
      mlirAttributePrint(name, memoptAppendToBuffer, &text);
      opError(verifier, op,
              "combiner %s of result #%ld is unknown: expected \"concat\", \"add\", \"max\" or "
              "\"rescaled-add\"",
              memoptStringBufferGet(&text), (long)j);
      memoptStringBufferDestroy(&text);
      return false;
    }
  }
  I64Array rescaleBy;
  if (mlirAttributeIsNull(attribute(op, "rescale_by"))) {
    if (rescaled)
      opError(verifier, op,
              "a \"rescaled-add\" result needs attribute 'rescale_by' naming its \"max\" result");
    return !rescaled;
  }
  if (!i64Array(verifier, op, "rescale_by", &rescaleBy))
    return false;
  if (rescaleBy.count != outputs) {
    opError(verifier, op, "attribute 'rescale_by' must have one entry per result: got %ld for %ld",
            (long)rescaleBy.count, (long)outputs);
    return false;
  }
  bool ok = true;
  for (intptr_t j = 0; j < outputs && ok; ++j) {
    int64_t by = at(rescaleBy, j);
    MemoptChunkCombiner combiner = memoptChunkRegionCombiner(op, j, NULL);
    ok = false;
    if (combiner != MemoptChunkCombineRescaledAdd && by != -1)
      opError(verifier, op,
              "rescale_by entry of result #%ld must be -1: the result is \"%s\", not "
              "\"rescaled-add\" (got %lld)",
              (long)j, memoptChunkCombinerName(combiner), (long long)by);
    else if (combiner == MemoptChunkCombineRescaledAdd && (by < 0 || by >= outputs))
      opError(verifier, op,
              "rescale_by entry of result #%ld (%lld) must be the index of a \"max\" result "
              "(0 to %ld)",
              (long)j, (long long)by, (long)outputs - 1);
    else if (combiner == MemoptChunkCombineRescaledAdd && by == j)
      opError(verifier, op,
              "result #%ld is rescaled by itself: its rescale_by entry must name a \"max\" result",
              (long)j);
    else if (combiner == MemoptChunkCombineRescaledAdd &&
             memoptChunkRegionCombiner(op, by, NULL) != MemoptChunkCombineMax)
      opError(verifier, op, "result #%ld is rescaled by result #%lld, which is \"%s\", not \"max\"",
              (long)j, (long long)by,
              memoptChunkCombinerName(memoptChunkRegionCombiner(op, by, NULL)));
    else
      ok = true;
  }
  return ok;
}

/* For output `j` of `type` whose output_dims entry is `dim`: returns false
 * when the output is combined (it has no chunked dimension), after checking
 * that it is a ranked tensor with entry -1; true for a concatenated output,
 * after checking that its entry is not -1. Clears *ok on an error. */
static bool combinedOutputDim(Verifier *verifier, MlirOperation op, intptr_t j, MlirType type,
                              int64_t dim, bool *ok) {
  MemoptChunkCombiner combiner = memoptChunkRegionCombiner(op, j, NULL);
  const char *name = memoptChunkCombinerName(combiner);
  if (combiner == MemoptChunkCombineConcat) {
    if (dim == -1) {
      opError(verifier, op,
              "result #%ld is concatenated (\"concat\"): its output_dims entry must be the "
              "dimension it is assembled along, not -1",
              (long)j);
      *ok = false;
    }
    return *ok;
  }
  if (!mlirTypeIsARankedTensor(type)) {
    opError(verifier, op, "output #%ld must be a ranked tensor", (long)j);
    *ok = false;
  } else if (dim != -1) {
    opError(verifier, op,
            "result #%ld is combined with \"%s\", not concatenated: its output_dims entry must "
            "be -1, got %lld",
            (long)j, name, (long long)dim);
    *ok = false;
  }
  return false;
}

/* Checks combined (not "concat") result #j, whose value each chunk yields
 * with type `yielded`: that is the result's type, its element type suits the
 * combiner, and a "rescaled-add" result has the type of its "max" result
 * with trailing dimensions appended (the maximum broadcasts along them). */
static void verifyCombinedResult(Verifier *verifier, MlirOperation op, intptr_t j,
                                 MlirType yielded) {
  int64_t by;
  MemoptChunkCombiner combiner = memoptChunkRegionCombiner(op, j, &by);
  const char *name = memoptChunkCombinerName(combiner);
  MlirType type = mlirValueGetType(mlirOperationGetResult(op, j));
  MlirType element = mlirShapedTypeGetElementType(type);
  MemoptStringBuffer text = memoptStringBufferCreate();
  if (!mlirTypeEqual(yielded, type)) {
    appendType(&text, yielded);
    memoptStringBufferAppendCString(&text, " but the result is ");
    appendType(&text, type);
    opError(verifier, op,
            "result #%ld is combined with \"%s\": the body must yield a value of the result's "
            "type, it yields %s",
            (long)j, name, memoptStringBufferGet(&text));
  } else if (combiner == MemoptChunkCombineRescaledAdd ? !mlirTypeIsAFloat(element)
                                                       : !mlirTypeIsAFloat(element) &&
                                                             !mlirTypeIsAInteger(element)) {
    appendType(&text, element);
    opError(verifier, op, "result #%ld is combined with \"%s\", which needs %s element type, not %s",
            (long)j, name,
            combiner == MemoptChunkCombineRescaledAdd ? "a float" : "a float or integer",
            memoptStringBufferGet(&text));
  } else if (combiner == MemoptChunkCombineRescaledAdd) {
    MlirType maxType = mlirValueGetType(mlirOperationGetResult(op, by));
    bool prefix = mlirTypeIsARankedTensor(maxType) &&
                  mlirTypeEqual(mlirShapedTypeGetElementType(maxType), element) &&
                  mlirShapedTypeGetRank(maxType) <= mlirShapedTypeGetRank(type);
    for (intptr_t d = 0; prefix && d < mlirShapedTypeGetRank(maxType); ++d)
      prefix = mlirShapedTypeGetDimSize(maxType, d) == mlirShapedTypeGetDimSize(type, d);
    if (!prefix) {
      MemoptStringBuffer maxText = memoptStringBufferCreate();
      appendType(&text, type);
      appendType(&maxText, maxType);
      opError(verifier, op,
              "result #%ld (%s) is rescaled by result #%lld (%s), so its type must be the "
              "maximum's with trailing dimensions appended",
              (long)j, memoptStringBufferGet(&text), (long long)by,
              memoptStringBufferGet(&maxText));
      memoptStringBufferDestroy(&maxText);
    }
  }
  memoptStringBufferDestroy(&text);
}

static void verifyChunkRegion(Verifier *verifier, MlirOperation op) {
  I64Array inputDims, outputDims;
  int64_t chunkSize;
  if (!i64Array(verifier, op, "input_dims", &inputDims) ||
      !i64Array(verifier, op, "output_dims", &outputDims) ||
      !atLeast(verifier, op, "chunk_size", 1, &chunkSize))
    return;
  intptr_t inputs = mlirOperationGetNumOperands(op);
  intptr_t outputs = mlirOperationGetNumResults(op);
  if (inputDims.count != inputs || outputDims.count != outputs) {
    opError(verifier, op,
            "needs one chunk dimension per input and per output: got %ld input_dims for %ld "
            "inputs and %ld output_dims for %ld outputs",
            (long)inputDims.count, (long)inputs, (long)outputDims.count, (long)outputs);
    return;
  }
  if (!verifyCombinerAttributes(verifier, op))
    return;
  /* Every chunked dimension walks the same iteration space. */
  int64_t extent = mlirShapedTypeGetDynamicSize();
  bool ok = true;
  for (intptr_t i = 0; i < inputs + outputs && ok; ++i) {
    bool isInput = i < inputs;
    MlirType type = isInput ? mlirValueGetType(mlirOperationGetOperand(op, i))
                            : mlirValueGetType(mlirOperationGetResult(op, i - inputs));
    if (!isInput && !combinedOutputDim(verifier, op, i - inputs, type, at(outputDims, i - inputs),
                                       &ok))
      continue;
    int64_t dimExtent;
    ok = chunkDim(verifier, op, isInput ? "input" : "output", isInput ? i : i - inputs, type,
                  isInput ? at(inputDims, i) : at(outputDims, i - inputs), &dimExtent);
    if (!ok || mlirShapedTypeIsDynamicSize(dimExtent))
      continue;
    if (!mlirShapedTypeIsDynamicSize(extent) && extent != dimExtent) {
      opError(verifier, op, "chunked dimensions differ in extent: %lld and %lld",
              (long long)extent, (long long)dimExtent);
      ok = false;
    }
    extent = dimExtent;
  }
  if (!ok)
    return;
  if (!mlirShapedTypeIsDynamicSize(extent) && chunkSize > extent) {
    opError(verifier, op, "chunk_size %lld exceeds the chunked extent %lld", (long long)chunkSize,
            (long long)extent);
    return;
  }
  MlirBlock block;
  MlirOperation yield;
  if (!body(verifier, op, 0, &block) || !yieldOf(verifier, op, block, &yield))
    return;
  /* One slice per input, then optionally the chunk's offset. */
  intptr_t arguments = mlirBlockGetNumArguments(block);
  if (arguments != inputs && arguments != inputs + 1) {
    opError(verifier, op,
            "body takes %ld arguments but the op has %ld inputs (one slice per input, then an "
            "optional index offset)",
            (long)arguments, (long)inputs);
    return;
  }
  if (arguments == inputs + 1 &&
      !mlirTypeIsAIndex(mlirValueGetType(mlirBlockGetArgument(block, inputs)))) {
    opError(verifier, op,
            "body argument #%ld after the input slices must be the chunk offset, of type index",
            (long)inputs);
    return;
  }
  /* A slice has the input's shape with the chunked extent at most chunk_size. */
  for (intptr_t i = 0; i < inputs; ++i) {
    MlirType inputType = mlirValueGetType(mlirOperationGetOperand(op, i));
    MlirType sliceType = mlirValueGetType(mlirBlockGetArgument(block, i));
    bool same = mlirTypeIsARankedTensor(sliceType) &&
                mlirShapedTypeGetRank(sliceType) == mlirShapedTypeGetRank(inputType) &&
                mlirTypeEqual(mlirShapedTypeGetElementType(sliceType),
                              mlirShapedTypeGetElementType(inputType));
    for (int64_t d = 0; same && d < mlirShapedTypeGetRank(inputType); ++d) {
      int64_t want = mlirShapedTypeGetDimSize(inputType, d);
      int64_t got = mlirShapedTypeGetDimSize(sliceType, d);
      if (d == at(inputDims, i))
        same = mlirShapedTypeIsDynamicSize(got) || got == chunkSize;
      else
        same = want == got;
    }
    if (!same)
      opError(verifier, op,
              "body argument #%ld must be a slice of input #%ld along dimension %lld "
              "(extent chunk_size or '?')",
              (long)i, (long)i, (long long)at(inputDims, i));
  }
  intptr_t yielded = mlirOperationGetNumOperands(yield);
  if (yielded != outputs)
    opError(verifier, op, "body yields %ld values but the op has %ld outputs", (long)yielded,
            (long)outputs);
  for (intptr_t i = 0; i < yielded && i < outputs; ++i) {
    MlirType sliceType = mlirValueGetType(mlirOperationGetOperand(yield, i));
    MlirType outputType = mlirValueGetType(mlirOperationGetResult(op, i));
    if (memoptChunkRegionCombiner(op, i, NULL) != MemoptChunkCombineConcat)
      verifyCombinedResult(verifier, op, i, sliceType);
    else if (!mlirTypeIsARankedTensor(sliceType) ||
             mlirShapedTypeGetRank(sliceType) != mlirShapedTypeGetRank(outputType))
      opError(verifier, op, "yielded slice #%ld must be a tensor of the rank of output #%ld",
              (long)i, (long)i);
  }
}

static void verifySpmGroup(Verifier *verifier, MlirOperation op) {
  I64Array tile;
  if (!i64Array(verifier, op, "tile", &tile))
    return;
  for (intptr_t i = 0; i < tile.count; ++i)
    if (at(tile, i) < 1) {
      opError(verifier, op, "tile sizes must be positive, got %lld at #%ld",
              (long long)at(tile, i), (long)i);
      return;
    }
  MlirBlock block;
  MlirOperation yield;
  if (body(verifier, op, 0, &block) && yieldOf(verifier, op, block, &yield))
    yieldMatchesResults(verifier, op, yield);
}

static void verifySameType(Verifier *verifier, MlirOperation op) {
  if (!mlirTypeEqual(mlirValueGetType(mlirOperationGetOperand(op, 0)),
                     mlirValueGetType(mlirOperationGetResult(op, 0))))
    opError(verifier, op, "result type must equal the operand type");
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

static void verifySpmPin(Verifier *verifier, MlirOperation op) {
  int64_t offset, size, end;
  if (!atLeast(verifier, op, "offset", 0, &offset) || !atLeast(verifier, op, "size", 1, &size))
    return;
  if (__builtin_add_overflow(offset, size, &end)) {
    opError(verifier, op, "offset %lld + size %lld overflows a 64-bit byte address",
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
    opError(verifier, op, "the pinned tensor needs more than 2^63 - 1 bytes");
    break;
  case StaticBytesKnown:
    if (needed > size)
      opError(verifier, op, "pins %lld bytes but the tensor needs %lld", (long long)size,
              (long long)needed);
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
  live->points = memoptGrowArray(live->points, &live->capacity, live->count + 1, sizeof *live->points);
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
  } else if (mlirOperationIsNull(mlirOperationGetNextInBlock(user)) && !mlirOperationIsNull(parent) &&
             !memoptOperationIsA(parent, "func.func")) {
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
      mlirBlockEqual(mlirOperationGetBlock(mlirOpResultGetOwner(source)), mlirOperationGetBlock(pin)))
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
  bool together = spanIn(&liveA, block, &firstA, &lastA) && spanIn(&liveB, block, &firstB, &lastB) &&
                  !mlirOperationIsBeforeInBlock(lastA, firstB) &&
                  !mlirOperationIsBeforeInBlock(lastB, firstA);
  pinLivenessDestroy(&liveA);
  pinLivenessDestroy(&liveB);
  return together;
}

/* Two pins whose bytes overlap must not be live at the same time: the
 * lowering gives them the same scratchpad bytes. Checked on pins whose own
 * attributes passed verification. */
static void verifyPinsDisjoint(Verifier *verifier) {
  for (size_t j = 1; j < verifier->pinCount; ++j)
    for (size_t i = 0; i < j; ++i) {
      MlirOperation a = verifier->pins[i], b = verifier->pins[j];
      int64_t offsetA = mlirIntegerAttrGetValueSInt(attribute(a, "offset"));
      int64_t offsetB = mlirIntegerAttrGetValueSInt(attribute(b, "offset"));
      int64_t endA = offsetA + mlirIntegerAttrGetValueSInt(attribute(a, "size"));
      int64_t endB = offsetB + mlirIntegerAttrGetValueSInt(attribute(b, "size"));
      if (offsetA >= endB || offsetB >= endA || !liveTogether(a, b))
        continue;
      MlirStringRef file;
      unsigned line = 0, column = 0;
      memoptLocationPosition(mlirOperationGetLocation(a), &file, &line, &column);
      opError(verifier, b,
              "bytes [%lld, %lld) overlap bytes [%lld, %lld) of the spm.pin at %u:%u, and both "
              "are live at the same time",
              (long long)offsetB, (long long)endB, (long long)offsetA, (long long)endA, line,
              column);
      break;
    }
}

static void verifyPlaceCluster(Verifier *verifier, MlirOperation op) {
  int64_t value;
  if (atLeast(verifier, op, "devices", 1, &value) && atLeast(verifier, op, "hbm_bytes", 1, &value))
    atLeast(verifier, op, "link_bandwidth", 1, &value);
}

/* Checks that a stage uses at most the devices of its cluster, when the
 * cluster is a place.cluster of the enclosing symbol table. */
static void verifyStageFitsCluster(Verifier *verifier, MlirOperation stage, int64_t devices) {
  MlirAttribute cluster = attribute(stage, "cluster");
  if (!mlirAttributeIsAFlatSymbolRef(cluster))
    return;
  MlirStringRef name = mlirFlatSymbolRefAttrGetValue(cluster);
  MlirOperation table = mlirOperationGetParentOperation(stage);
  while (!mlirOperationIsNull(table) && !mlirOperationIsNull(mlirOperationGetParentOperation(table)))
    table = mlirOperationGetParentOperation(table);
  if (mlirOperationIsNull(table) || mlirOperationGetNumRegions(table) != 1)
    return;
  MlirBlock block = mlirRegionGetFirstBlock(mlirOperationGetRegion(table, 0));
  for (MlirOperation op = mlirBlockIsNull(block) ? (MlirOperation){NULL} : mlirBlockGetFirstOperation(block);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    MlirAttribute symbol = attribute(op, "sym_name");
    MlirAttribute clusterDevices = attribute(op, "devices");
    if (!memoptOperationIsA(op, "place.cluster") || !mlirAttributeIsAString(symbol) ||
        !mlirStringRefEqual(mlirStringAttrGetValue(symbol), name) ||
        !mlirAttributeIsAInteger(clusterDevices))
      continue;
    if (devices > mlirIntegerAttrGetValueSInt(clusterDevices))
      opError(verifier, stage, "uses %lld devices but cluster @%.*s has %lld", (long long)devices,
              (int)name.length, name.data, (long long)mlirIntegerAttrGetValueSInt(clusterDevices));
    return;
  }
}

static void verifyPlaceStage(Verifier *verifier, MlirOperation op) {
  int64_t index, devices, dataParallel, tensorParallel, recompute, firstLayer, layers;
  if (!atLeast(verifier, op, "index", 0, &index) ||
      !atLeast(verifier, op, "first_layer", 0, &firstLayer) ||
      !atLeast(verifier, op, "layers", 1, &layers) ||
      !atLeast(verifier, op, "devices", 1, &devices) ||
      !atLeast(verifier, op, "data_parallel", 1, &dataParallel) ||
      !atLeast(verifier, op, "tensor_parallel", 1, &tensorParallel) ||
      !integer(verifier, op, "recompute", &recompute))
    return;
  int64_t product;
  if (__builtin_mul_overflow(dataParallel, tensorParallel, &product))
    opError(verifier, op, "data_parallel x tensor_parallel = %lld x %lld exceeds 2^63 - 1 devices",
            (long long)dataParallel, (long long)tensorParallel);
  else if (product != devices)
    opError(verifier, op, "uses %lld devices but data_parallel x tensor_parallel is %lld",
            (long long)devices, (long long)product);
  else
    verifyStageFitsCluster(verifier, op, devices);
  /* Stage indices are unique among the stages of one block. */
  for (MlirOperation other = mlirBlockGetFirstOperation(mlirOperationGetBlock(op));
       !mlirOperationIsNull(other) && !mlirOperationEqual(other, op);
       other = mlirOperationGetNextInBlock(other)) {
    int64_t otherIndex;
    if (memoptOperationIsA(other, "place.stage") &&
        mlirAttributeIsAInteger(attribute(other, "index")) &&
        (otherIndex = mlirIntegerAttrGetValueSInt(attribute(other, "index"))) == index) {
      opError(verifier, op, "repeats stage index %lld", (long long)index);
      break;
    }
  }
  MlirBlock block;
  MlirOperation yield;
  if (!body(verifier, op, 0, &block))
    return;
  if (mlirBlockGetNumArguments(block) != 0)
    opError(verifier, op,
            "body must take no arguments (it takes %ld): a stage has no operands to bind them",
            (long)mlirBlockGetNumArguments(block));
  if (yieldOf(verifier, op, block, &yield))
    yieldMatchesResults(verifier, op, yield);
}

/* True for the uses of a value that read its shape alone: they stay valid
 * while its buffer is evicted (the pages go, the descriptor stays). */
static bool readsShapeOnly(MlirOperation user) {
  return memoptOperationIsA(user, "tensor.dim") || memoptOperationIsA(user, "remat.dim_symbol");
}

static void verifyRematRegenerate(Verifier *verifier, MlirOperation op) {
  verifySameType(verifier, op);
  MlirBlock block;
  MlirOperation yield;
  if (body(verifier, op, 0, &block) && yieldOf(verifier, op, block, &yield))
    yieldMatchesResults(verifier, op, yield);
  /* The value is evicted while its recomputation runs: reading it there, or
   * regenerating it again, would read the released buffer. */
  MlirValue value = mlirOperationGetOperand(op, 0);
  for (MlirOpOperand use = mlirValueGetFirstUse(value); !mlirOpOperandIsNull(use);
       use = mlirOpOperandGetNextUse(use)) {
    MlirOperation user = mlirOpOperandGetOwner(use);
    if (!mlirOperationEqual(user, op) && !readsShapeOnly(user) &&
        memoptOperationIsInside(user, op)) {
      opError(verifier, op, "body uses the value it regenerates: a buffer cannot be recomputed "
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
static void verifyRematEvict(Verifier *verifier, MlirOperation op) {
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

static void verifyRematDimSymbol(Verifier *verifier, MlirOperation op) {
  int64_t dim;
  if (!atLeast(verifier, op, "dim", 0, &dim))
    return;
  MlirType type = mlirValueGetType(mlirOperationGetOperand(op, 0));
  if (!mlirShapedTypeHasRank(type) || dim >= mlirShapedTypeGetRank(type))
    opError(verifier, op, "dimension %lld is out of range for the operand", (long long)dim);
  else if (mlirStringAttrGetValue(attribute(op, "symbol")).length == 0)
    opError(verifier, op, "symbol name must not be empty");
}

typedef struct OpCheck {
  const char *name;
  void (*check)(Verifier *, MlirOperation);
} OpCheck;

static const OpCheck opChecks[] = {
    {"chunk.region", verifyChunkRegion},   {"spm.group", verifySpmGroup},
    {"spm.pin", verifySpmPin},             {"spm.load", verifySameType},
    {"spm.store", verifySameType},         {"place.cluster", verifyPlaceCluster},
    {"place.stage", verifyPlaceStage},     {"remat.regenerate", verifyRematRegenerate},
    {"remat.evict", verifyRematEvict},     {"remat.dim_symbol", verifyRematDimSymbol},
};

static MlirWalkResult verifyOne(MlirOperation op, void *userData) {
  for (size_t i = 0; i < sizeof opChecks / sizeof *opChecks; ++i)
    if (memoptOperationIsA(op, opChecks[i].name)) {
      opChecks[i].check((Verifier *)userData, op);
      break;
    }
  return MlirWalkResultAdvance;
}

MlirLogicalResult memoptVerifyOps(MlirOperation root) {
  Verifier verifier = {0};
  mlirOperationWalk(root, verifyOne, &verifier, MlirWalkPostOrder);
  verifyPinsDisjoint(&verifier);
  free(verifier.pins);
  return verifier.failed ? mlirLogicalResultFailure() : mlirLogicalResultSuccess();
}

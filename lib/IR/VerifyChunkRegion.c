/* Invariants of chunk.region that IRDL cannot state: one chunk dimension per
 * input and output, in range and of equal extents, the chunk size, the
 * body's block arguments and yielded slices, and the `combiners` and
 * `rescale_by` attributes of results combined across chunks. */
#include "IR/IR.h"
#include "IR/Verifier.h"
#include "Support/Support.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdlib.h>
#include <string.h>

/* Checks `dim` against a ranked tensor and returns its extent (or the
 * dynamic marker) through `extent`. */
static bool chunkDim(MemoptVerifier *verifier, MlirOperation op, const char *what, intptr_t index,
                     MlirType type, int64_t dim, int64_t *extent) {
  if (!mlirTypeIsARankedTensor(type)) {
    memoptVerifierError(verifier, op, "%s #%ld must be a ranked tensor", what, (long)index);
    return false;
  }
  int64_t rank = mlirShapedTypeGetRank(type);
  if (dim < 0 || dim >= rank) {
    memoptVerifierError(verifier, op,
                        "chunk dimension %lld of %s #%ld is out of range for rank %lld",
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
static bool verifyCombinerAttributes(MemoptVerifier *verifier, MlirOperation op) {
  intptr_t outputs = mlirOperationGetNumResults(op);
  MlirAttribute names = memoptVerifierAttribute(op, "combiners");
  bool rescaled = false;
  if (!mlirAttributeIsNull(names)) {
    if (!mlirAttributeIsAArray(names) || mlirArrayAttrGetNumElements(names) != outputs) {
      memoptVerifierError(verifier, op,
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
      memoptVerifierError(verifier, op,
              "combiner %s of result #%ld is unknown: expected \"concat\", \"add\", \"max\" or "
              "\"rescaled-add\"",
              memoptStringBufferGet(&text), (long)j);
      memoptStringBufferDestroy(&text);
      return false;
    }
  }
  MemoptI64Array rescaleBy;
  if (mlirAttributeIsNull(memoptVerifierAttribute(op, "rescale_by"))) {
    if (rescaled)
      memoptVerifierError(verifier, op,
              "a \"rescaled-add\" result needs attribute 'rescale_by' naming its \"max\" result");
    return !rescaled;
  }
  if (!memoptVerifierI64Array(verifier, op, "rescale_by", &rescaleBy))
    return false;
  if (rescaleBy.count != outputs) {
    memoptVerifierError(verifier, op,
                        "attribute 'rescale_by' must have one entry per result: got %ld for %ld",
                        (long)rescaleBy.count, (long)outputs);
    return false;
  }
  bool ok = true;
  for (intptr_t j = 0; j < outputs && ok; ++j) {
    int64_t by = memoptI64ArrayAt(rescaleBy, j);
    MemoptChunkCombiner combiner = memoptChunkRegionCombiner(op, j, NULL);
    ok = false;
    if (combiner != MemoptChunkCombineRescaledAdd && by != -1)
      memoptVerifierError(verifier, op,
              "rescale_by entry of result #%ld must be -1: the result is \"%s\", not "
              "\"rescaled-add\" (got %lld)",
              (long)j, memoptChunkCombinerName(combiner), (long long)by);
    else if (combiner == MemoptChunkCombineRescaledAdd && (by < 0 || by >= outputs))
      memoptVerifierError(verifier, op,
              "rescale_by entry of result #%ld (%lld) must be the index of a \"max\" result "
              "(0 to %ld)",
              (long)j, (long long)by, (long)outputs - 1);
    else if (combiner == MemoptChunkCombineRescaledAdd && by == j)
      memoptVerifierError(verifier, op,
              "result #%ld is rescaled by itself: its rescale_by entry must name a \"max\" result",
              (long)j);
    else if (combiner == MemoptChunkCombineRescaledAdd &&
             memoptChunkRegionCombiner(op, by, NULL) != MemoptChunkCombineMax)
      memoptVerifierError(
          verifier, op, "result #%ld is rescaled by result #%lld, which is \"%s\", not \"max\"",
          (long)j, (long long)by, memoptChunkCombinerName(memoptChunkRegionCombiner(op, by, NULL)));
    else
      ok = true;
  }
  return ok;
}

/* For output `j` of `type` whose output_dims entry is `dim`: returns false
 * when the output is combined (it has no chunked dimension), after checking
 * that it is a ranked tensor with entry -1; true for a concatenated output,
 * after checking that its entry is not -1. Clears *ok on an error. */
static bool combinedOutputDim(MemoptVerifier *verifier, MlirOperation op, intptr_t j, MlirType type,
                              int64_t dim, bool *ok) {
  MemoptChunkCombiner combiner = memoptChunkRegionCombiner(op, j, NULL);
  const char *name = memoptChunkCombinerName(combiner);
  if (combiner == MemoptChunkCombineConcat) {
    if (dim == -1) {
      memoptVerifierError(verifier, op,
              "result #%ld is concatenated (\"concat\"): its output_dims entry must be the "
              "dimension it is assembled along, not -1",
              (long)j);
      *ok = false;
    }
    return *ok;
  }
  if (!mlirTypeIsARankedTensor(type)) {
    memoptVerifierError(verifier, op, "output #%ld must be a ranked tensor", (long)j);
    *ok = false;
  } else if (dim != -1) {
    memoptVerifierError(verifier, op,
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
static void verifyCombinedResult(MemoptVerifier *verifier, MlirOperation op, intptr_t j,
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
    memoptVerifierError(verifier, op,
            "result #%ld is combined with \"%s\": the body must yield a value of the result's "
            "type, it yields %s",
            (long)j, name, memoptStringBufferGet(&text));
  } else if (combiner == MemoptChunkCombineRescaledAdd ? !mlirTypeIsAFloat(element)
                                                       : !mlirTypeIsAFloat(element) &&
                                                             !mlirTypeIsAInteger(element)) {
    appendType(&text, element);
    memoptVerifierError(
        verifier, op, "result #%ld is combined with \"%s\", which needs %s element type, not %s",
        (long)j, name, combiner == MemoptChunkCombineRescaledAdd ? "a float" : "a float or integer",
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
      memoptVerifierError(verifier, op,
              "result #%ld (%s) is rescaled by result #%lld (%s), so its type must be the "
              "maximum's with trailing dimensions appended",
              (long)j, memoptStringBufferGet(&text), (long long)by,
              memoptStringBufferGet(&maxText));
      memoptStringBufferDestroy(&maxText);
    }
  }
  memoptStringBufferDestroy(&text);
}

void memoptVerifyChunkRegion(MemoptVerifier *verifier, MlirOperation op) {
  MemoptI64Array inputDims, outputDims;
  int64_t chunkSize;
  if (!memoptVerifierI64Array(verifier, op, "input_dims", &inputDims) ||
      !memoptVerifierI64Array(verifier, op, "output_dims", &outputDims) ||
      !memoptVerifierAtLeast(verifier, op, "chunk_size", 1, &chunkSize))
    return;
  intptr_t inputs = mlirOperationGetNumOperands(op);
  intptr_t outputs = mlirOperationGetNumResults(op);
  if (inputDims.count != inputs || outputDims.count != outputs) {
    memoptVerifierError(verifier, op,
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
    if (!isInput && !combinedOutputDim(verifier, op, i - inputs, type,
                                       memoptI64ArrayAt(outputDims, i - inputs), &ok))
      continue;
    int64_t dimExtent;
    ok = chunkDim(verifier, op, isInput ? "input" : "output", isInput ? i : i - inputs, type,
                  isInput ? memoptI64ArrayAt(inputDims, i)
                          : memoptI64ArrayAt(outputDims, i - inputs),
                  &dimExtent);
    if (!ok || mlirShapedTypeIsDynamicSize(dimExtent))
      continue;
    if (!mlirShapedTypeIsDynamicSize(extent) && extent != dimExtent) {
      memoptVerifierError(verifier, op, "chunked dimensions differ in extent: %lld and %lld",
              (long long)extent, (long long)dimExtent);
      ok = false;
    }
    extent = dimExtent;
  }
  if (!ok)
    return;
  if (!mlirShapedTypeIsDynamicSize(extent) && chunkSize > extent) {
    memoptVerifierError(verifier, op, "chunk_size %lld exceeds the chunked extent %lld",
                        (long long)chunkSize, (long long)extent);
    return;
  }
  MlirBlock block;
  MlirOperation yield;
  if (!memoptVerifierBody(verifier, op, 0, &block) ||
      !memoptVerifierYieldOf(verifier, op, block, &yield))
    return;
  /* One slice per input, then optionally the chunk's offset. */
  intptr_t arguments = mlirBlockGetNumArguments(block);
  if (arguments != inputs && arguments != inputs + 1) {
    memoptVerifierError(verifier, op,
            "body takes %ld arguments but the op has %ld inputs (one slice per input, then an "
            "optional index offset)",
            (long)arguments, (long)inputs);
    return;
  }
  if (arguments == inputs + 1 &&
      !mlirTypeIsAIndex(mlirValueGetType(mlirBlockGetArgument(block, inputs)))) {
    memoptVerifierError(verifier, op,
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
      if (d == memoptI64ArrayAt(inputDims, i))
        same = mlirShapedTypeIsDynamicSize(got) || got == chunkSize;
      else
        same = want == got;
    }
    if (!same)
      memoptVerifierError(verifier, op,
              "body argument #%ld must be a slice of input #%ld along dimension %lld "
              "(extent chunk_size or '?')",
              (long)i, (long)i, (long long)memoptI64ArrayAt(inputDims, i));
  }
  intptr_t yielded = mlirOperationGetNumOperands(yield);
  if (yielded != outputs)
    memoptVerifierError(verifier, op, "body yields %ld values but the op has %ld outputs",
                        (long)yielded, (long)outputs);
  for (intptr_t i = 0; i < yielded && i < outputs; ++i) {
    MlirType sliceType = mlirValueGetType(mlirOperationGetOperand(yield, i));
    MlirType outputType = mlirValueGetType(mlirOperationGetResult(op, i));
    if (memoptChunkRegionCombiner(op, i, NULL) != MemoptChunkCombineConcat)
      verifyCombinedResult(verifier, op, i, sliceType);
    else if (!mlirTypeIsARankedTensor(sliceType) ||
             mlirShapedTypeGetRank(sliceType) != mlirShapedTypeGetRank(outputType))
      memoptVerifierError(verifier, op,
                          "yielded slice #%ld must be a tensor of the rank of output #%ld", (long)i,
                          (long)i);
  }
}

/* The combiners of a chunk.region: how each result is assembled from the
 * values its chunks yield, read from the op's `combiners` and `rescale_by`
 * attributes (python-free-docs/dialects.md, "chunk"). */
#include "IR/IR.h"

#include "mlir-c/BuiltinAttributes.h"

static const char *const combinerNames[] = {
    [MemoptChunkCombineConcat] = "concat",
    [MemoptChunkCombineAdd] = "add",
    [MemoptChunkCombineMax] = "max",
    [MemoptChunkCombineRescaledAdd] = "rescaled-add",
};

const char *memoptChunkCombinerName(MemoptChunkCombiner combiner) {
  return combinerNames[combiner];
}

bool memoptChunkCombinerFromName(MlirStringRef name, MemoptChunkCombiner *combiner) {
  for (size_t i = 0; i < sizeof combinerNames / sizeof *combinerNames; ++i)
    if (mlirStringRefEqual(name, mlirStringRefCreateFromCString(combinerNames[i]))) {
      *combiner = (MemoptChunkCombiner)i;
      return true;
    }
  return false;
}

MemoptChunkCombiner memoptChunkRegionCombiner(MlirOperation op, intptr_t resultIndex,
                                              int64_t *rescaleBy) {
  MemoptChunkCombiner combiner = MemoptChunkCombineConcat;
  MlirAttribute names =
      mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("combiners"));
  if (!mlirAttributeIsNull(names))
    memoptChunkCombinerFromName(mlirStringAttrGetValue(mlirArrayAttrGetElement(names, resultIndex)),
                                &combiner);
  if (rescaleBy) {
    MlirAttribute indices =
        mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("rescale_by"));
    *rescaleBy = combiner == MemoptChunkCombineRescaledAdd
                     ? mlirDenseI64ArrayGetElement(indices, resultIndex)
                     : -1;
  }
  return combiner;
}

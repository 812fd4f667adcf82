/* Byte sizes of tensor and memref types as the lowered program allocates them.
 *
 * finalize-memref-to-llvm sizes an allocation as `getelementptr null[n]` of
 * the LLVM element type, i.e. n times LLVM's allocation size of one element:
 * the store size rounded up to the ABI alignment. On x86-64 the alignment of
 * an integer or float of b bytes is the next power of two, up to 16 (i128,
 * f80 and f128 are 16-byte aligned), which gives the rule below. */
#include "Analysis/Analysis.h"
#include "Analysis/MemoryProfile.h"

#include "mlir-c/BuiltinTypes.h"

/* The largest ABI alignment of a scalar in the x86-64 data layout ("i128:128"). */
enum { largestScalarAlignment = 16 };

/* Allocation size of an LLVM integer or float `bits` wide. */
static uint64_t scalarAllocationSize(uint64_t bits) {
  uint64_t storeBytes = (bits + 7) / 8;
  uint64_t alignment = 1;
  while (alignment < storeBytes && alignment < largestScalarAlignment)
    alignment *= 2;
  return memoptRoundUpToAlignment(storeBytes, alignment);
}

/* Bits of the integer lowered for `index` (the default index-bitwidth of the
 * LLVM conversions on a 64-bit target). */
enum { indexBits = 64 };

bool memoptTypeGetElementByteSize(MlirType elementType, uint64_t *bytes) {
  if (mlirTypeIsAIndex(elementType)) {
    *bytes = scalarAllocationSize(indexBits);
    return true;
  }
  if (mlirTypeIsAInteger(elementType)) {
    *bytes = scalarAllocationSize(mlirIntegerTypeGetWidth(elementType));
    return true;
  }
  if (mlirTypeIsAFloat(elementType)) {
    *bytes = scalarAllocationSize(mlirFloatTypeGetWidth(elementType));
    return true;
  }
  if (mlirTypeIsAComplex(elementType)) {
    /* complex<T> lowers to struct {T, T}: no padding between equal members. */
    uint64_t part;
    if (!memoptTypeGetElementByteSize(mlirComplexTypeGetElementType(elementType), &part))
      return false;
    *bytes = 2 * part;
    return true;
  }
  return false;
}

bool memoptTypeGetStaticByteSize(MlirType shapedType, uint64_t *bytes) {
  if (!mlirTypeIsAShaped(shapedType) || !mlirShapedTypeHasRank(shapedType) ||
      !mlirShapedTypeHasStaticShape(shapedType))
    return false;
  uint64_t size;
  if (!memoptTypeGetElementByteSize(mlirShapedTypeGetElementType(shapedType), &size))
    return false;
  int64_t rank = mlirShapedTypeGetRank(shapedType);
  for (int64_t dim = 0; dim < rank; ++dim) {
    uint64_t extent = (uint64_t)mlirShapedTypeGetDimSize(shapedType, dim);
    if (extent != 0 && size > UINT64_MAX / extent)
      return false;
    size *= extent;
  }
  *bytes = size;
  return true;
}

uint64_t memoptOneShotBufferAlignment(void) { return oneShotBufferAlignment; }

uint64_t memoptRoundUpToAlignment(uint64_t bytes, uint64_t alignment) {
  return (bytes + alignment - 1) / alignment * alignment;
}

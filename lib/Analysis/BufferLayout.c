/* Buffer layouts: the strides bufferization gives each buffer view. They
 * decide whether a collapse_shape can view a buffer or must copy it, the
 * same test memref::CollapseShapeOp::isGuaranteedCollapsible makes. */
#include "Analysis/BufferizationModel.h"

#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdint.h>

#define DYNAMIC INT64_MIN

static bool isDynamic(int64_t value) { return value == DYNAMIC || value < 0; }

/* Saturating product: dynamic if either factor is. */
static int64_t multiply(int64_t a, int64_t b) {
  if (isDynamic(a) || isDynamic(b))
    return DYNAMIC;
  if (a != 0 && b > INT64_MAX / a)
    return DYNAMIC;
  return a * b;
}

static int64_t dimSize(MlirType type, size_t dim) {
  if (mlirShapedTypeIsDynamicDim(type, (intptr_t)dim))
    return DYNAMIC;
  return mlirShapedTypeGetDimSize(type, (intptr_t)dim);
}

IrLayout memoptLayoutDynamic(size_t rank) {
  IrLayout layout = {.rank = rank, .unknown = rank > MEMOPT_MAX_TRACKED_RANK, .offset = DYNAMIC};
  for (size_t i = 0; i < rank && i < MEMOPT_MAX_TRACKED_RANK; ++i)
    layout.strides[i] = DYNAMIC;
  return layout;
}

IrLayout memoptLayoutIdentity(MlirType shapedType) {
  if (!mlirShapedTypeHasRank(shapedType))
    return memoptLayoutDynamic(0);
  size_t rank = (size_t)mlirShapedTypeGetRank(shapedType);
  IrLayout layout = memoptLayoutDynamic(rank);
  layout.identity = true;
  layout.offset = 0;
  if (layout.unknown)
    return layout;
  int64_t stride = 1;
  for (size_t i = rank; i-- > 0;) {
    layout.strides[i] = stride;
    stride = multiply(stride, dimSize(shapedType, i));
  }
  return layout;
}

IrLayout memoptLayoutOfMemRefType(MlirType memrefType) {
  if (!mlirTypeIsAMemRef(memrefType))
    return memoptLayoutDynamic(0);
  size_t rank = (size_t)mlirShapedTypeGetRank(memrefType);
  MlirAttribute layoutAttribute = mlirMemRefTypeGetLayout(memrefType);
  if (mlirAttributeIsAAffineMap(layoutAttribute) &&
      mlirAffineMapIsIdentity(mlirAffineMapAttrGetValue(layoutAttribute)))
    return memoptLayoutIdentity(memrefType);
  IrLayout layout = memoptLayoutDynamic(rank);
  if (layout.unknown)
    return layout;
  int64_t offset;
  if (mlirLogicalResultIsFailure(mlirMemRefTypeGetStridesAndOffset(memrefType, layout.strides, &offset))) {
    layout.unknown = true;
    return memoptLayoutDynamic(rank);
  }
  for (size_t i = 0; i < rank; ++i)
    if (mlirShapedTypeIsDynamicStrideOrOffset(layout.strides[i]))
      layout.strides[i] = DYNAMIC;
  layout.offset = mlirShapedTypeIsDynamicStrideOrOffset(offset) ? DYNAMIC : offset;
  return layout;
}

static MlirAttribute attribute(MlirOperation op, const char *name) {
  return mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name));
}

IrLayout memoptLayoutOfSlice(IrLayout source, MlirOperation op) {
  MlirType resultType = mlirValueGetType(mlirOperationGetResult(op, 0));
  size_t resultRank = (size_t)mlirShapedTypeGetRank(resultType);
  MlirAttribute offsets = attribute(op, "static_offsets");
  MlirAttribute sizes = attribute(op, "static_sizes");
  MlirAttribute strides = attribute(op, "static_strides");
  if (source.unknown || mlirAttributeIsNull(sizes) || mlirAttributeIsNull(strides) ||
      (size_t)mlirDenseArrayGetNumElements(strides) != source.rank)
    return memoptLayoutDynamic(resultRank);
  IrLayout layout = memoptLayoutDynamic(resultRank);
  if (layout.unknown)
    return layout;
  /* The slice starts at source offset + sum of offset_i * stride_i. */
  layout.offset = source.offset;
  for (size_t i = 0; i < source.rank && !mlirAttributeIsNull(offsets); ++i) {
    int64_t start = mlirDenseI64ArrayGetElement(offsets, (intptr_t)i);
    int64_t step = mlirShapedTypeIsDynamicStrideOrOffset(start) ? DYNAMIC : start;
    int64_t term = multiply(step, source.strides[i]);
    layout.offset = (isDynamic(layout.offset) || isDynamic(term) ||
                     layout.offset > INT64_MAX - term)
                        ? DYNAMIC
                        : layout.offset + term;
  }
  /* A rank-reducing slice drops unit dimensions; match the kept ones from the
   * left, as MLIR's rank-reduction mask does. */
  size_t kept = 0;
  for (size_t i = 0; i < source.rank; ++i) {
    int64_t size = mlirDenseI64ArrayGetElement(sizes, (intptr_t)i);
    bool drop = source.rank - i > resultRank - kept && size == 1;
    if (!drop && kept < resultRank) {
      if (size != 1 && !mlirShapedTypeIsDynamicSize(size) &&
          !mlirShapedTypeIsDynamicDim(resultType, (intptr_t)kept) &&
          mlirShapedTypeGetDimSize(resultType, (intptr_t)kept) != size) {
        /* Not the dimension the result keeps: treat it as dropped. */
        continue;
      }
      int64_t step = mlirDenseI64ArrayGetElement(strides, (intptr_t)i);
      layout.strides[kept++] =
          mlirShapedTypeIsDynamicStrideOrOffset(step) ? DYNAMIC : multiply(source.strides[i], step);
    }
  }
  if (kept != resultRank)
    return memoptLayoutDynamic(resultRank);
  return layout;
}

/* Reads reassociation group `group` of `op` into `dims`; returns its size. */
static size_t reassociationGroup(MlirOperation op, size_t group, size_t *dims, size_t capacity) {
  MlirAttribute groups = attribute(op, "reassociation");
  MlirAttribute entry = mlirArrayAttrGetElement(groups, (intptr_t)group);
  size_t count = (size_t)mlirArrayAttrGetNumElements(entry);
  for (size_t i = 0; i < count && i < capacity; ++i)
    dims[i] = (size_t)mlirIntegerAttrGetValueInt(mlirArrayAttrGetElement(entry, (intptr_t)i));
  return count;
}

static size_t numGroups(MlirOperation op) {
  MlirAttribute groups = attribute(op, "reassociation");
  if (mlirAttributeIsNull(groups) || !mlirAttributeIsAArray(groups))
    return 0;
  return (size_t)mlirArrayAttrGetNumElements(groups);
}

IrLayout memoptLayoutOfExpand(IrLayout source, MlirOperation op) {
  MlirType resultType = mlirValueGetType(mlirOperationGetResult(op, 0));
  size_t resultRank = (size_t)mlirShapedTypeGetRank(resultType);
  IrLayout layout = memoptLayoutDynamic(resultRank);
  size_t groups = numGroups(op);
  if (source.identity)
    return memoptLayoutIdentity(resultType);
  layout.offset = source.offset;
  if (source.unknown || layout.unknown || groups != source.rank)
    return layout;
  for (size_t g = 0; g < groups; ++g) {
    size_t dims[MEMOPT_MAX_TRACKED_RANK];
    size_t count = reassociationGroup(op, g, dims, MEMOPT_MAX_TRACKED_RANK);
    if (count == 0 || count > MEMOPT_MAX_TRACKED_RANK)
      return memoptLayoutDynamic(resultRank);
    /* The innermost dimension keeps the source stride; outer ones step over
     * the inner extents (memref::ExpandShapeOp's expanded layout). */
    int64_t stride = source.strides[g];
    for (size_t i = count; i-- > 0;) {
      layout.strides[dims[i]] = stride;
      stride = multiply(stride, dimSize(resultType, dims[i]));
    }
  }
  return layout;
}

IrLayout memoptLayoutOfCollapse(IrLayout source, MlirOperation op, bool *collapsible) {
  MlirType sourceType = mlirValueGetType(mlirOperationGetOperand(op, 0));
  MlirType resultType = mlirValueGetType(mlirOperationGetResult(op, 0));
  size_t resultRank = (size_t)mlirShapedTypeGetRank(resultType);
  size_t groups = numGroups(op);
  *collapsible = false;
  if (source.unknown || groups != resultRank || resultRank > MEMOPT_MAX_TRACKED_RANK)
    return memoptLayoutIdentity(resultType);
  if (memoptLayoutIsIdentity(source, sourceType)) {
    *collapsible = true;
    return memoptLayoutIdentity(resultType);
  }
  /* memref's computeCollapsedLayoutMap in strict mode: the stride of a group
   * is that of its last non-unit dimension, and each non-unit dimension's
   * stride must equal the next one's times its extent, all statically known. */
  IrLayout layout = memoptLayoutDynamic(resultRank);
  layout.offset = source.offset;
  for (size_t g = 0; g < groups; ++g) {
    size_t dims[MEMOPT_MAX_TRACKED_RANK];
    size_t count = reassociationGroup(op, g, dims, MEMOPT_MAX_TRACKED_RANK);
    if (count == 0 || count > MEMOPT_MAX_TRACKED_RANK)
      return memoptLayoutIdentity(resultType);
    size_t last = count;
    while (last > 1 && dimSize(sourceType, dims[last - 1]) == 1)
      --last;
    bool lastDynamic = isDynamic(dimSize(sourceType, dims[last - 1]));
    layout.strides[g] = (!lastDynamic || last == 1) ? source.strides[dims[last - 1]] : DYNAMIC;
    int64_t stride = layout.strides[g];
    for (size_t i = count; i-- > 1;) {
      stride = multiply(stride, dimSize(sourceType, dims[i]));
      /* A unit dimension's stride is meaningless: MLIR 22 skips it before
       * requiring static strides (measured: 1x32 -> 32 views an argument,
       * 32x1 -> 32 copies it). */
      if (dimSize(sourceType, dims[i - 1]) == 1)
        continue;
      int64_t sourceStride = source.strides[dims[i - 1]];
      if (isDynamic(stride) || isDynamic(sourceStride) || stride != sourceStride)
        return memoptLayoutIdentity(resultType);
    }
  }
  *collapsible = true;
  return layout;
}

bool memoptLayoutIsIdentity(IrLayout layout, MlirType shapedType) {
  (void)shapedType;
  return layout.identity;
}

bool memoptLayoutCastsTo(IrLayout layout, MlirType memrefType) {
  if (!mlirTypeIsAMemRef(memrefType))
    return true; /* unranked targets take any layout */
  IrLayout target = memoptLayoutOfMemRefType(memrefType);
  if (target.unknown || layout.unknown)
    return target.unknown;
  if (layout.rank != target.rank)
    return false;
  if (layout.identity && target.identity)
    return true;
  IrLayout source = layout;
  if (source.identity) {
    /* An identity layout has row-major strides and offset 0. */
    source = memoptLayoutIdentity(memrefType);
  }
  for (size_t i = 0; i < target.rank; ++i)
    if (!isDynamic(target.strides[i]) &&
        (isDynamic(source.strides[i]) || source.strides[i] != target.strides[i]))
      return false;
  return isDynamic(target.offset) || (!isDynamic(source.offset) && source.offset == target.offset);
}

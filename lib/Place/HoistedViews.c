/* How a caller makes each argument place-to-shard hoisted from a view of
 * another argument (memoptShardNormalize), written on the stage as the
 * argument's `memopt.view`:
 *
 *   %arg1: tensor<4x2xf32> {memopt.view = {source = 2 : i64, steps = [
 *     {op = "tensor.extract_slice", properties = {...}, type = tensor<4x2xf32>}]}}
 *
 * `steps` are views applied in turn to argument `source`, the root: an
 * argument that is no view itself. A caller passes the argument as those
 * views of the root's buffer, so the stage holds the root's bytes once
 * (memopt-run does so, python-free-docs/harness.md).
 *
 * While hoisting, a view of an argument that is itself a hoisted view is
 * recorded as the root's steps followed by its own; when a root is erased
 * because its last use became an argument, the views rooted at it are
 * rooted at that argument, after a step undoing it when it is a reshape
 * (the same data), and forgotten otherwise (a caller then passes them as
 * buffers of their own).
 *
 * When marking, steps that amount to one box of the root, seen without
 * some of its unit dimensions, become that one extract_slice: GPT-2's q
 * third of the qkv weight, recorded as "collapse [8, 3, 2, 4] to [8, 24],
 * slice columns 0 to 8, expand to [8, 2, 4]", is [0:8, 0:1, 0:2, 0:4] of
 * the root. A rank holding a slice of the root along dimensions the box
 * takes whole then holds its slice of the view as a view of its slice of
 * the root. The steps are composed as a strided layout over the root's
 * row-major data: offset + sum of index x stride. */
#include "IR/IR.h"
#include "Place/Place.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/Func.h"

#include <stdlib.h>

/* One hoisted argument: its root and the views, each a dictionary {op,
 * properties, type}, that make it from the root. */
typedef struct HoistedView {
  MlirValue argument, root;
  MlirAttribute *steps;
  intptr_t stepCount;
} HoistedView;

struct MemoptHoistedViews {
  HoistedView *items;
  size_t count;
};

MemoptHoistedViews *memoptHoistedViewsCreate(void) {
  return memoptAllocateZeroed(1, sizeof(MemoptHoistedViews));
}

/* The named attribute `name` = `value`. */
static MlirNamedAttribute named(MlirContext context, const char *name, MlirAttribute value) {
  return mlirNamedAttributeGet(mlirIdentifierGet(context, mlirStringRefCreateFromCString(name)),
                               value);
}

/* A step: op `name` with the inherent attributes of `op` (null: none) and
 * `extra` (`extraCount` of them) as properties, giving `type`. */
static MlirAttribute viewStep(MlirContext context, const char *name, MlirOperation op,
                              const MlirNamedAttribute *extra, intptr_t extraCount, MlirType type) {
  intptr_t total = mlirOperationIsNull(op) ? 0 : mlirOperationGetNumAttributes(op), count = 0;
  MlirNamedAttribute *properties =
      memoptAllocateZeroed((size_t)(total + extraCount) + 1, sizeof *properties);
  for (intptr_t k = 0; k < total; ++k) {
    MlirNamedAttribute attribute = mlirOperationGetAttribute(op, k);
    if (mlirOperationHasInherentAttributeByName(op, mlirIdentifierStr(attribute.name)))
      properties[count++] = attribute;
  }
  for (intptr_t k = 0; k < extraCount; ++k)
    properties[count++] = extra[k];
  MlirNamedAttribute fields[] = {
      named(context, "op", mlirStringAttrGet(context, mlirStringRefCreateFromCString(name))),
      named(context, "properties", mlirDictionaryAttrGet(context, count, properties)),
      named(context, "type", mlirTypeAttrGet(type))};
  free(properties);
  return mlirDictionaryAttrGet(context, 3, fields);
}

/* The record of `argument`, or NULL. */
static HoistedView *findRecord(const MemoptHoistedViews *views, MlirValue argument) {
  for (size_t k = 0; k < views->count; ++k)
    if (mlirValueEqual(views->items[k].argument, argument))
      return &views->items[k];
  return NULL;
}

bool memoptHoistedViewsHas(const MemoptHoistedViews *views, MlirValue argument) {
  return findRecord(views, argument) != NULL;
}

void memoptHoistedViewsRecord(MemoptHoistedViews *views, MlirValue argument, MlirOperation view,
                              MlirValue source) {
  const HoistedView *base = findRecord(views, source);
  intptr_t baseCount = base ? base->stepCount : 0;
  MlirAttribute *steps = memoptAllocateZeroed((size_t)baseCount + 1, sizeof *steps);
  for (intptr_t k = 0; k < baseCount; ++k)
    steps[k] = base->steps[k];
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(view));
  char *spelled = memoptStrndup(name.data, name.length);
  steps[baseCount] = viewStep(mlirOperationGetContext(view), spelled, view, NULL, 0,
                              mlirValueGetType(mlirOperationGetResult(view, 0)));
  free(spelled);
  MlirValue root = base ? base->root : source;
  views->items = memoptReallocArray(views->items, views->count + 1, sizeof *views->items);
  views->items[views->count++] = (HoistedView){argument, root, steps, baseCount + 1};
}

/* The step undoing `reshape` (an expand_shape or collapse_shape): the other
 * one, with its reassociation, back to its source's type. */
static MlirAttribute inverseReshapeStep(MlirOperation reshape) {
  MlirContext context = mlirOperationGetContext(reshape);
  MlirType sourceType = mlirValueGetType(mlirOperationGetOperand(reshape, 0));
  MlirNamedAttribute extra[2] = {named(
      context, "reassociation",
      mlirOperationGetAttributeByName(reshape, mlirStringRefCreateFromCString("reassociation")))};
  if (memoptOperationIsA(reshape, "tensor.expand_shape"))
    return viewStep(context, "tensor.collapse_shape", (MlirOperation){NULL}, extra, 1, sourceType);
  intptr_t rank = mlirShapedTypeGetRank(sourceType);
  int64_t *shape = memoptAllocateZeroed((size_t)rank + 1, sizeof *shape);
  for (intptr_t d = 0; d < rank; ++d)
    shape[d] = mlirShapedTypeGetDimSize(sourceType, d);
  extra[1] = named(context, "static_output_shape", mlirDenseI64ArrayGet(context, rank, shape));
  free(shape);
  return viewStep(context, "tensor.expand_shape", (MlirOperation){NULL}, extra, 2, sourceType);
}

void memoptHoistedViewsReroot(MemoptHoistedViews *views, MlirValue source, MlirOperation view,
                              MlirValue argument) {
  bool reshape = memoptOperationIsTensorReshape(view);
  MlirAttribute undo = reshape ? inverseReshapeStep(view) : (MlirAttribute){NULL};
  size_t kept = 0;
  for (size_t k = 0; k < views->count; ++k) {
    HoistedView item = views->items[k];
    bool rooted = mlirValueEqual(item.root, source);
    if (mlirValueEqual(item.argument, source) || (rooted && !reshape)) {
      free(item.steps);
      continue;
    }
    if (rooted) {
      MlirAttribute *steps = memoptAllocateZeroed((size_t)item.stepCount + 2, sizeof *steps);
      steps[0] = undo;
      for (intptr_t s = 0; s < item.stepCount; ++s)
        steps[s + 1] = item.steps[s];
      free(item.steps);
      item = (HoistedView){item.argument, argument, steps, item.stepCount + 1};
    }
    views->items[kept++] = item;
  }
  views->count = kept;
}

/*===------------------------------------------------------------------===*
 * Steps as one box of the root
 *===------------------------------------------------------------------===*/

/* A view as a strided layout over the root's row-major elements: element
 * i of the view is the root's element offset + sum over d of i_d x
 * strides[d]. */
typedef struct StridedView {
  intptr_t rank;
  int64_t *shape, *strides;
  int64_t offset;
} StridedView;

/* When `ok`, replaces `view`'s dimensions by `rank` new ones (owned
 * arrays); frees them otherwise. Returns `ok`. */
static bool replaceDimensions(StridedView *view, bool ok, intptr_t rank, int64_t *shape,
                              int64_t *strides) {
  if (!ok) {
    free(shape);
    free(strides);
    return false;
  }
  free(view->shape);
  free(view->strides);
  *view = (StridedView){rank, shape, strides, view->offset};
  return true;
}

static MlirAttribute property(MlirAttribute step, const char *name) {
  MlirAttribute properties =
      mlirDictionaryAttrGetElementByName(step, mlirStringRefCreateFromCString("properties"));
  return mlirDictionaryAttrGetElementByName(properties, mlirStringRefCreateFromCString(name));
}

/* The integer at `position` of array `array` of integer attributes. */
static int64_t arrayInteger(MlirAttribute array, intptr_t position) {
  return mlirIntegerAttrGetValueInt(mlirArrayAttrGetElement(array, position));
}

/* Collapses `view` by the reassociation `groups`; false when a group is not
 * one stride apart (a collapse of a non-contiguous slice). */
static bool collapse(StridedView *view, MlirAttribute groups) {
  intptr_t rank = mlirArrayAttrGetNumElements(groups);
  int64_t *shape = memoptAllocateZeroed((size_t)rank + 1, sizeof *shape);
  int64_t *strides = memoptAllocateZeroed((size_t)rank + 1, sizeof *strides);
  bool ok = true;
  for (intptr_t g = 0; g < rank && ok; ++g) {
    MlirAttribute group = mlirArrayAttrGetElement(groups, g);
    shape[g] = 1;
    strides[g] = 1;
    int64_t inner = -1; /* the stride the next outer dimension must have */
    for (intptr_t m = mlirArrayAttrGetNumElements(group) - 1; m >= 0 && ok; --m) {
      int64_t d = arrayInteger(group, m);
      ok = d >= 0 && d < view->rank;
      if (!ok || view->shape[d] == 1)
        continue;
      if (inner < 0)
        strides[g] = view->strides[d];
      else
        ok = view->strides[d] == inner;
      inner = view->strides[d] * view->shape[d];
      shape[g] *= view->shape[d];
    }
  }
  return replaceDimensions(view, ok, rank, shape, strides);
}

/* Expands `view` by the reassociation `groups` into `type`'s shape. */
static bool expand(StridedView *view, MlirAttribute groups, MlirType type) {
  intptr_t rank = mlirShapedTypeGetRank(type);
  int64_t *shape = memoptAllocateZeroed((size_t)rank + 1, sizeof *shape);
  int64_t *strides = memoptAllocateZeroed((size_t)rank + 1, sizeof *strides);
  bool ok = mlirArrayAttrGetNumElements(groups) == view->rank;
  for (intptr_t g = 0; g < view->rank && ok; ++g) {
    MlirAttribute group = mlirArrayAttrGetElement(groups, g);
    int64_t stride = view->strides[g];
    for (intptr_t m = mlirArrayAttrGetNumElements(group) - 1; m >= 0 && ok; --m) {
      int64_t d = arrayInteger(group, m);
      ok = d >= 0 && d < rank;
      if (!ok)
        break;
      shape[d] = mlirShapedTypeGetDimSize(type, d);
      strides[d] = stride;
      stride *= shape[d];
    }
  }
  return replaceDimensions(view, ok, rank, shape, strides);
}

/* Slices `view` by a static extract_slice step giving `type`, dropping the
 * unit dimensions `type` does not have. */
static bool slice(StridedView *view, MlirAttribute step, MlirType type) {
  MlirAttribute offsets = property(step, "static_offsets"), sizes = property(step, "static_sizes"),
                steps = property(step, "static_strides");
  if (mlirAttributeIsNull(offsets) || mlirAttributeIsNull(sizes) || mlirAttributeIsNull(steps) ||
      mlirDenseArrayGetNumElements(offsets) != view->rank)
    return false;
  intptr_t rank = mlirShapedTypeGetRank(type), kept = 0;
  int64_t *shape = memoptAllocateZeroed((size_t)rank + 1, sizeof *shape);
  int64_t *strides = memoptAllocateZeroed((size_t)rank + 1, sizeof *strides);
  bool ok = true;
  for (intptr_t d = 0; d < view->rank && ok; ++d) {
    int64_t size = mlirDenseI64ArrayGetElement(sizes, d);
    view->offset += mlirDenseI64ArrayGetElement(offsets, d) * view->strides[d];
    if (kept < rank && mlirShapedTypeGetDimSize(type, kept) == size) {
      shape[kept] = size;
      strides[kept++] = view->strides[d] * mlirDenseI64ArrayGetElement(steps, d);
    } else {
      ok = size == 1;
    }
  }
  return replaceDimensions(view, ok && kept == rank, rank, shape, strides);
}

/* Composes `steps` over a root of type `root`; false when one of them
 * cannot be written as a strided layout. */
static bool compose(MlirType root, const MlirAttribute *steps, intptr_t count, StridedView *view) {
  intptr_t rank = mlirShapedTypeGetRank(root);
  int64_t *shape = memoptAllocateZeroed((size_t)rank + 1, sizeof *shape);
  int64_t *strides = memoptAllocateZeroed((size_t)rank + 1, sizeof *strides);
  for (intptr_t d = rank - 1, stride = 1; d >= 0; --d) {
    shape[d] = mlirShapedTypeGetDimSize(root, d);
    strides[d] = stride;
    stride *= shape[d];
  }
  *view = (StridedView){rank, shape, strides, 0};
  bool ok = true;
  for (intptr_t k = 0; k < count && ok; ++k) {
    MlirStringRef op = mlirStringAttrGetValue(
        mlirDictionaryAttrGetElementByName(steps[k], mlirStringRefCreateFromCString("op")));
    MlirType type = mlirTypeAttrGetValue(
        mlirDictionaryAttrGetElementByName(steps[k], mlirStringRefCreateFromCString("type")));
    if (mlirStringRefEqual(op, mlirStringRefCreateFromCString("tensor.collapse_shape")))
      ok = collapse(view, property(steps[k], "reassociation"));
    else if (mlirStringRefEqual(op, mlirStringRefCreateFromCString("tensor.expand_shape")))
      ok = expand(view, property(steps[k], "reassociation"), type);
    else
      ok = slice(view, steps[k], type);
  }
  return ok;
}

/* The step slicing one box out of the root of type `root` that `view` is,
 * its unit dimensions but those of `type` dropped: each dimension of the
 * view longer than 1 runs along a root dimension, in order, at that
 * dimension's stride. A null attribute when `view` is no such box. */
static MlirAttribute boxStep(MlirType root, const StridedView *view, MlirType type) {
  MlirContext context = mlirTypeGetContext(root);
  intptr_t rank = mlirShapedTypeGetRank(root);
  int64_t *offsets = memoptAllocateZeroed((size_t)rank + 1, sizeof *offsets);
  int64_t *sizes = memoptAllocateZeroed((size_t)rank + 1, sizeof *sizes);
  int64_t *ones = memoptAllocateZeroed((size_t)rank + 1, sizeof *ones);
  int64_t *rootStrides = memoptAllocateZeroed((size_t)rank + 1, sizeof *rootStrides);
  for (intptr_t e = rank - 1, stride = 1; e >= 0; --e) {
    rootStrides[e] = stride;
    stride *= mlirShapedTypeGetDimSize(root, e);
    sizes[e] = ones[e] = 1;
  }
  bool ok = true;
  intptr_t next = 0; /* root dimensions before it are taken */
  for (intptr_t d = 0; d < view->rank && ok; ++d) {
    if (view->shape[d] == 1)
      continue;
    while (next < rank && (rootStrides[next] != view->strides[d] ||
                           mlirShapedTypeGetDimSize(root, next) < view->shape[d]))
      ++next;
    ok = next < rank;
    if (ok)
      sizes[next++] = view->shape[d];
  }
  int64_t rest = view->offset;
  for (intptr_t e = 0; e < rank && ok; ++e) {
    offsets[e] = rest / rootStrides[e];
    rest -= offsets[e] * rootStrides[e];
    ok = offsets[e] + sizes[e] <= mlirShapedTypeGetDimSize(root, e);
  }
  MlirAttribute step = {NULL};
  if (ok && rest == 0) {
    int32_t segments[] = {1, 0, 0, 0};
    MlirNamedAttribute properties[] = {
        named(context, "operandSegmentSizes", mlirDenseI32ArrayGet(context, 4, segments)),
        named(context, "static_offsets", mlirDenseI64ArrayGet(context, rank, offsets)),
        named(context, "static_sizes", mlirDenseI64ArrayGet(context, rank, sizes)),
        named(context, "static_strides", mlirDenseI64ArrayGet(context, rank, ones))};
    step = viewStep(context, "tensor.extract_slice", (MlirOperation){NULL}, properties, 4, type);
  }
  free(rootStrides);
  free(ones);
  free(sizes);
  free(offsets);
  return step;
}

/* `item`'s steps, as one box of its root when they are one. */
static MlirAttribute stepsOf(MlirContext context, const HoistedView *item) {
  MlirType root = mlirValueGetType(item->root);
  MlirType type = mlirValueGetType(item->argument);
  StridedView view = {0, NULL, NULL, 0};
  MlirAttribute box = {NULL};
  if (item->stepCount > 1 && compose(root, item->steps, item->stepCount, &view))
    box = boxStep(root, &view, type);
  free(view.shape);
  free(view.strides);
  if (!mlirAttributeIsNull(box))
    return mlirArrayAttrGet(context, 1, &box);
  return mlirArrayAttrGet(context, item->stepCount, item->steps);
}

void memoptHoistedViewsMark(MemoptHoistedViews *views, MlirOperation func) {
  MlirContext context = mlirOperationGetContext(func);
  for (size_t k = 0; k < views->count; ++k) {
    const HoistedView *item = &views->items[k];
    MlirNamedAttribute fields[] = {
        named(context, "source",
              mlirIntegerAttrGet(mlirIntegerTypeGet(context, 64),
                                 mlirBlockArgumentGetArgNumber(item->root))),
        named(context, "steps", stepsOf(context, item))};
    mlirFuncSetArgAttr(func, mlirBlockArgumentGetArgNumber(item->argument),
                       mlirStringRefCreateFromCString("memopt.view"),
                       mlirDictionaryAttrGet(context, 2, fields));
    free(item->steps);
  }
  free(views->items);
  free(views);
}

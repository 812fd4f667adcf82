/* tensor.concat of equal parts as a linalg.generic over a part loop, for
 * place-to-shard's normalization (ShardNormalize.c).
 *
 * Upstream (MLIR 22) gives tensor.concat no sharding interface, and
 * sharding-propagation stops at any top-level op without one. Llama's rotary
 * embedding concatenates the two rotated halves of each head along the head
 * dimension: concat(x1 cos - x2 sin, x2 cos + x1 sin). A concatenation of k
 * parts that all have the same extent n along dimension d is the tensor
 * [..., k, n, ...] whose slot p along the new dimension d is part p, seen
 * as [..., k n, ...]:
 *
 *   %g = linalg.generic (loops ..., p, j, ...)
 *          ins(part_0, ..., part_(k-1))   each read at (..., j, ...), not p
 *          outs(tensor.empty [..., k, n, ...])  written at (..., p, j, ...)
 *          { select(p >= k-1, in_(k-1), ... select(p >= 1, in_1, in_0)) }
 *   %c = tensor.collapse_shape %g [..., [d, d + 1], ...]
 *
 * Every indexing map is a projected permutation, so linalg's sharding
 * interface covers the generic; the collapse_shape folds into the generics
 * reading it in the normalization's reshape fusion. The part loop p is read
 * with linalg.index, which shard-partition does not offset: the rewrite is
 * right as long as loop p stays whole on every device. Splits follow the
 * parts and the parameters, none of which has loop p; place-to-shard
 * refuses a tensor split of a loop a body indexes all the same
 * (PlaceToShard.c). A split of the parts' own loop j is fine: each device
 * holds its share of every part. Llama's heads are split, the head
 * dimension is not.
 *
 * A concat of parts of different extents is left as it is (upstream then
 * stops at it): with affine maps alone a part cannot be read at an offset
 * that depends on the part. */
#include "Place/Place.h"
#include "IR/Builders.h"
#include "IR/IR.h"

#include "mlir-c/AffineExpr.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/IR.h"

#include <stdlib.h>

/* The concatenated dimension of `concat` when it is a top-level concat of
 * two or more parts of one static type (so of equal extents along it) with a
 * static result; -1 otherwise. */
static int64_t equalPartsDimension(MlirOperation concat) {
  if (!memoptOperationIsA(concat, "tensor.concat") || mlirOperationGetNumOperands(concat) < 2)
    return -1;
  MlirType part = mlirValueGetType(mlirOperationGetOperand(concat, 0));
  if (!mlirTypeIsARankedTensor(part) || !mlirShapedTypeHasStaticShape(part))
    return -1;
  for (intptr_t k = 1; k < mlirOperationGetNumOperands(concat); ++k)
    if (!mlirTypeEqual(mlirValueGetType(mlirOperationGetOperand(concat, k)), part))
      return -1;
  MlirAttribute dim = mlirOperationGetAttributeByName(concat, mlirStringRefCreateFromCString("dim"));
  return mlirIntegerAttrGetValueInt(dim);
}

/* The identity map of `loops` loops without loop `skip` (-1: none): a
 * part's map skips the part loop, the output's skips nothing. */
static MlirAttribute partMap(MlirContext context, intptr_t loops, intptr_t skip) {
  MlirAffineExpr *exprs = memoptAllocateZeroed((size_t)loops, sizeof *exprs);
  intptr_t count = 0;
  for (intptr_t l = 0; l < loops; ++l)
    if (l != skip)
      exprs[count++] = mlirAffineDimExprGet(context, l);
  MlirAttribute map = mlirAffineMapAttrGet(mlirAffineMapGet(context, loops, 0, count, exprs));
  free(exprs);
  return map;
}

/* Creates before `concat` the all-parallel linalg.generic over `loops`
 * loops that reads the concat's parts (without loop `partLoop`) and writes
 * `init` (of type [..., k, n, ...]); returns it, its payload block empty
 * (`payload` at its end). */
static MlirOperation buildPartGeneric(MlirOperation concat, MlirValue init, intptr_t loops,
                                      intptr_t partLoop, MemoptBuilder *payload) {
  MlirContext context = mlirOperationGetContext(concat);
  intptr_t parts = mlirOperationGetNumOperands(concat);
  MlirValue *inputs = memoptAllocateZeroed((size_t)parts, sizeof *inputs);
  MlirAttribute *maps = memoptAllocateZeroed((size_t)parts + 1, sizeof *maps);
  for (intptr_t k = 0; k <= parts; ++k) {
    if (k < parts)
      inputs[k] = mlirOperationGetOperand(concat, k);
    maps[k] = partMap(context, loops, k < parts ? partLoop : -1);
  }
  MemoptBuilder builder = memoptBuilderBefore(concat);
  MlirOperation generic =
      memoptBuildParallelGeneric(&builder, inputs, parts, init, maps, loops, payload);
  free(maps);
  free(inputs);
  return generic;
}

/* Fills the payload of the part generic: part p's element where the part
 * loop `partLoop` is p. */
static void buildPartPayload(MemoptBuilder payload, intptr_t parts, intptr_t partLoop) {
  MlirContext context = mlirLocationGetContext(payload.location);
  MlirBlock block = payload.block;
  MlirNamedAttribute dim = memoptNamedAttribute(
      context, "dim", mlirIntegerAttrGet(mlirIntegerTypeGet(context, 64), partLoop));
  MlirValue part = memoptBuildOneResult(&payload, "linalg.index", NULL, 0,
                                        mlirIndexTypeGet(context), &dim, 1);
  MlirValue value = mlirBlockGetArgument(block, 0);
  for (intptr_t k = 1; k < parts; ++k) {
    MlirValue from = memoptBuildIndexAtLeast(&payload, part, memoptBuildIndexConstant(&payload, k));
    MlirValue choices[] = {from, mlirBlockGetArgument(block, k), value};
    value = memoptBuildOneResult(&payload, "arith.select", choices, 3, mlirValueGetType(value),
                                 NULL, 0);
  }
  memoptBuildYield(&payload, "linalg.yield", &value, 1);
}

/* Rewrites one concat of equal parts along `dim` (see the model above). */
static void rewriteConcat(MlirOperation concat, int64_t dim) {
  MlirContext context = mlirOperationGetContext(concat);
  MlirType part = mlirValueGetType(mlirOperationGetOperand(concat, 0));
  MlirType result = mlirValueGetType(mlirOperationGetResult(concat, 0));
  intptr_t rank = mlirShapedTypeGetRank(part), parts = mlirOperationGetNumOperands(concat);
  /* [..., k, n, ...]: the part loop comes right before the part's own. */
  int64_t *shape = memoptAllocateZeroed((size_t)rank + 1, sizeof *shape);
  MlirAttribute *groups = memoptAllocateZeroed((size_t)rank, sizeof *groups);
  MlirType i64 = mlirIntegerTypeGet(context, 64);
  for (intptr_t d = 0, l = 0; d < rank; ++d) {
    MlirAttribute group[2];
    intptr_t size = 0;
    if (d == dim) {
      shape[l] = parts;
      group[size++] = mlirIntegerAttrGet(i64, l++);
    }
    shape[l] = mlirShapedTypeGetDimSize(part, d);
    group[size++] = mlirIntegerAttrGet(i64, l++);
    groups[d] = mlirArrayAttrGet(context, size, group);
  }
  MlirType expanded = mlirRankedTensorTypeGet(rank + 1, shape, mlirShapedTypeGetElementType(part),
                                              mlirAttributeGetNull());
  MemoptBuilder builder = memoptBuilderBefore(concat);
  MlirValue init = memoptBuildTensorEmpty(&builder, expanded, NULL, 0);
  MemoptBuilder payload;
  MlirOperation generic = buildPartGeneric(concat, init, rank + 1, dim, &payload);
  buildPartPayload(payload, parts, dim);
  MlirNamedAttribute reassociation =
      memoptNamedAttribute(context, "reassociation", mlirArrayAttrGet(context, rank, groups));
  MlirValue whole = mlirOperationGetResult(generic, 0);
  MlirValue collapsed = memoptBuildOneResult(&builder, "tensor.collapse_shape", &whole, 1, result,
                                             &reassociation, 1);
  mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(concat, 0), collapsed);
  memoptEraseOp(concat);
  free(groups);
  free(shape);
}

void memoptRewriteConcatsAsGenerics(MlirBlock body) {
  for (MlirOperation op = mlirBlockGetFirstOperation(body), next; !mlirOperationIsNull(op);
       op = next) {
    next = mlirOperationGetNextInBlock(op);
    int64_t dim = equalPartsDimension(op);
    if (dim >= 0)
      rewriteConcat(op, dim);
  }
}

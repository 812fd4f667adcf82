/* place-to-shard: lowers a placement to the upstream shard dialect.
 *
 * Every place.stage becomes a function `<function>_stage<index>` (the
 * stage's ops, the values it uses from outside as arguments, its yielded
 * values as results): each pipeline stage is a separate SPMD program on its
 * own `shard.grid` of shape data_parallel x tensor_parallel. The function
 * that held the stages is removed: the pipeline schedule between stages is
 * not expressible in shard (upstream sharding-propagation rejects func.call,
 * "sharding interface is not implemented"); stage i + 1 takes stage i's
 * results among its arguments, in the order its ops first use them. Its arguments are annotated with
 * `shard.shard ... annotate_for_users`: a parameter (an argument of the
 * original function from index data-arguments on) is split along its last
 * dimension over the tensor axis (Megatron's column split), an activation
 * along its first (batch) dimension over the data axis, each only when the
 * degree is above 1 and divides the extent. Upstream sharding-propagation,
 * shard-partition and convert-shard-to-mpi take it from there. The
 * place.cluster ops are erased: the result is pure upstream IR. */
#include "Place/Place.h"
#include "Place/PlaceToShard.h"
#include "IR/Builders.h"
#include "IR/IR.h"

#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/Arith.h"
#include "mlir-c/Dialect/Bufferization.h"
#include "mlir-c/Dialect/ControlFlow.h"
#include "mlir-c/Dialect/Func.h"
#include "mlir-c/Dialect/MPI.h"
#include "mlir-c/Dialect/MemRef.h"
#include "mlir-c/Dialect/SCF.h"
#include "mlir-c/Dialect/Shard.h"
#include "mlir-c/IR.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const MemoptPassOptionInfo options[] = {
    {"data-arguments", MemoptOptionInteger, "1",
     "Leading function arguments that are data; the others are parameters", NULL, 0, 1e9},
    {"trailing-data-arguments", MemoptOptionInteger, "0",
     "Trailing function arguments that are data (a training step's labels)", NULL, 0, 1e9},
    {"pipeline-driver", MemoptOptionBool, "true",
     "Keep a function placed in several stages as a driver running them on MPI ranks, one "
     "per stage (false: only the stage functions)", NULL, 0, 0},
};

/* Which arguments of the original function are data: the first `leading`
 * and the last `trailing`; the others are parameters. */
typedef struct DataArguments {
  intptr_t leading, trailing;
} DataArguments;

/* Values used inside `stage` and defined outside it, in first-use order. */
typedef struct Captures {
  MlirValue *values;
  intptr_t count;
  size_t capacity;
} Captures;

static bool collectCapture(MlirValue value, void *userData) {
  Captures *captures = userData;
  for (intptr_t k = 0; k < captures->count; ++k)
    if (mlirValueEqual(captures->values[k], value))
      return true;
  captures->values = memoptGrowArray(captures->values, &captures->capacity,
                                     (size_t)captures->count + 1, sizeof *captures->values);
  captures->values[captures->count++] = value;
  return true;
}

static bool isConstant(MlirValue value) {
  return mlirValueIsAOpResult(value) &&
         memoptOperationIsA(mlirOpResultGetOwner(value), "arith.constant");
}

/* True when `value` is an argument of `func` that is not data. */
static bool isParameter(MlirValue value, MlirOperation func, DataArguments data) {
  if (!mlirValueIsABlockArgument(value) ||
      !mlirOperationEqual(mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(value)), func))
    return false;
  intptr_t index = mlirBlockArgumentGetArgNumber(value);
  return index >= data.leading &&
         index < mlirBlockGetNumArguments(mlirBlockArgumentGetOwner(value)) - data.trailing;
}

/* Inserts before `before` in `body` a `shard.sharding` and a `shard.shard`
 * of `value` split along `dataDim` over grid axis 0 and along `tensorDim`
 * over axis 1 (-1: not split over that axis); returns the shard op. */
static MlirOperation insertShard(MlirBlock body, MlirOperation before, MlirValue value,
                                 const char *grid, int64_t dataDim, int64_t tensorDim,
                                 bool forUsers, MlirLocation location) {
  MlirContext context = mlirLocationGetContext(location);
  /* Built from its generic form: parsing it alone would verify its grid
   * reference outside any module. */
  MemoptStringBuffer axes = memoptStringBufferCreate();
  memoptStringBufferAppendCString(&axes, "#shard<axisarray[");
  int64_t last = dataDim > tensorDim ? dataDim : tensorDim;
  if (last < 0)
    memoptStringBufferAppendCString(&axes, "[]]>");
  for (int64_t d = 0; d <= last; ++d) {
    memoptStringBufferAppendCString(&axes, d == dataDim ? "[0]" : d == tensorDim ? "[1]" : "[]");
    memoptStringBufferAppendCString(&axes, d < last ? ", " : "]>");
  }
  MlirOperationState shardingState =
      mlirOperationStateGet(mlirStringRefCreateFromCString("shard.sharding"), location);
  int32_t noOperands[2] = {0, 0};
  MlirNamedAttribute shardingAttributes[] = {
      memoptNamedAttribute(context, "grid", mlirFlatSymbolRefAttrGet(context, mlirStringRefCreateFromCString(grid))),
      memoptNamedAttribute(context, "split_axes",
            mlirAttributeParseGet(context, mlirStringRefCreateFromCString(axes.data))),
      memoptNamedAttribute(context, "operandSegmentSizes", mlirDenseI32ArrayGet(context, 2, noOperands)),
      memoptNamedAttribute(context, "static_halo_sizes", mlirDenseI64ArrayGet(context, 0, NULL)),
      memoptNamedAttribute(context, "static_sharded_dims_offsets", mlirDenseI64ArrayGet(context, 0, NULL)),
  };
  memoptStringBufferDestroy(&axes);
  mlirOperationStateAddAttributes(&shardingState, 5, shardingAttributes);
  MlirType shardingType =
      mlirTypeParseGet(context, mlirStringRefCreateFromCString("!shard.sharding"));
  mlirOperationStateAddResults(&shardingState, 1, &shardingType);
  MlirOperation sharding = mlirOperationCreate(&shardingState);
  mlirBlockInsertOwnedOperationBefore(body, before, sharding);
  MlirOperationState state = mlirOperationStateGet(mlirStringRefCreateFromCString("shard.shard"), location);
  MlirValue operands[2] = {value, mlirOperationGetResult(sharding, 0)};
  mlirOperationStateAddOperands(&state, 2, operands);
  MlirType type = mlirValueGetType(value);
  mlirOperationStateAddResults(&state, 1, &type);
  if (forUsers) {
    MlirNamedAttribute unit = memoptNamedAttribute(context, "annotate_for_users", mlirUnitAttrGet(context));
    mlirOperationStateAddAttributes(&state, 1, &unit);
  }
  MlirOperation shard = mlirOperationCreate(&state);
  mlirBlockInsertOwnedOperationAfter(body, sharding, shard);
  return shard;
}

/* Annotates `argument` for its users (`shard.shard annotate_for_users`) at
 * the start of `body`, split as insertShard says. */
static void annotate(MlirBlock body, MlirValue argument, const char *grid, int64_t dataDim,
                     int64_t tensorDim, MlirLocation location) {
  MlirOperation shard = insertShard(body, mlirBlockGetFirstOperation(body), argument, grid, dataDim,
                                    tensorDim, true, location);
  /* Every use but the annotation's own reads the annotated value. */
  MlirValue annotated = mlirOperationGetResult(shard, 0);
  for (MlirOperation op = mlirOperationGetNextInBlock(shard); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    memoptValueReplaceUsesByScope(argument, annotated, op, true);
}

/* How an argument of an outlined stage is split: the dimension over the data
 * axis and the one over the tensor axis (-1: none). */
typedef struct Split {
  int64_t data, tensor;
} Split;

enum { Undecided = -2 };

/* The tensor-axis split dimension of each value met so far (-1: none). */
typedef struct SplitMap {
  MlirValue *values;
  int64_t *dims;
  intptr_t count;
  size_t valueCapacity, dimCapacity;
} SplitMap;

static void splitMapSet(SplitMap *map, MlirValue value, int64_t dim) {
  for (intptr_t k = 0; k < map->count; ++k)
    if (mlirValueEqual(map->values[k], value)) {
      map->dims[k] = dim;
      return;
    }
  map->values = memoptGrowArray(map->values, &map->valueCapacity, (size_t)map->count + 1, sizeof *map->values);
  map->dims = memoptGrowArray(map->dims, &map->dimCapacity, (size_t)map->count + 1, sizeof *map->dims);
  map->values[map->count] = value;
  map->dims[map->count++] = dim;
}

/* True when `map` holds a split (or none, -1) for `value`. */
static bool splitMapHas(const SplitMap *map, MlirValue value) {
  for (intptr_t k = 0; k < map->count; ++k)
    if (mlirValueEqual(map->values[k], value))
      return true;
  return false;
}

static int64_t splitMapGet(const SplitMap *map, MlirValue value) {
  for (intptr_t k = 0; k < map->count; ++k)
    if (mlirValueEqual(map->values[k], value))
      return map->dims[k];
  return -1;
}

/* The first user of `value` in `body` (for a location), or `fallback`. */
static MlirOperation firstUser(MlirValue value, MlirBlock body, MlirOperation fallback) {
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    for (intptr_t k = 0; k < mlirOperationGetNumOperands(op); ++k)
      if (mlirValueEqual(mlirOperationGetOperand(op, k), value))
        return op;
  return fallback;
}

/* Megatron's split of one linalg.generic over the tensor axis, given the
 * splits of its operands: the loop an operand is split along is split; a
 * parameter not yet split follows that loop, or, when no loop is split yet
 * and the op contracts, is split along its outermost loop that the result
 * has and no other input has (its output columns: the column split). A split
 * reduction loop leaves the result whole (upstream all-reduces the partial
 * sums: the row split). Returns false after an error at the op when the
 * degree does not divide the extent to split, or when the body reads the
 * index of the split loop. */
static bool splitGeneric(MlirOperation op, SplitMap *map, int64_t tensor) {
  MlirAttribute maps = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("indexing_maps"));
  MlirAttribute iterators = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("iterator_types"));
  MlirAttribute segments = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("operandSegmentSizes"));
  intptr_t inputs = mlirDenseI32ArrayGetElement(segments, 0);
  intptr_t operands = mlirOperationGetNumOperands(op);
  for (intptr_t k = 0; k < operands; ++k)
    if (!mlirAffineMapIsProjectedPermutation(mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, k))))
      return true; /* upstream partitions only projected permutations: left whole */
  bool contracts = false;
  for (intptr_t l = 0; l < mlirArrayAttrGetNumElements(iterators); ++l)
    contracts |= memoptLinalgIteratorKind(mlirArrayAttrGetElement(iterators, l)) == MemoptIteratorReduction;
  int64_t splitLoop = -1;
  for (intptr_t k = 0; k < inputs && splitLoop < 0; ++k) {
    int64_t dim = splitMapGet(map, mlirOperationGetOperand(op, k));
    if (dim >= 0)
      splitLoop = memoptAffineMapResultLoop(mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, k)), dim);
  }
  MlirAffineMap output = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, inputs));
  for (intptr_t k = 0; k < inputs; ++k) {
    MlirValue operand = mlirOperationGetOperand(op, k);
    if (splitMapGet(map, operand) != Undecided)
      continue;
    MlirAffineMap operandMap = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, k));
    int64_t dim = -1;
    if (splitLoop >= 0) {
      dim = memoptAffineMapLoopPosition(operandMap, splitLoop);
    } else if (contracts) {
      for (intptr_t r = 0; r < mlirAffineMapGetNumResults(operandMap) && dim < 0; ++r) {
        int64_t loop = memoptAffineMapResultLoop(operandMap, r);
        bool own = memoptAffineMapLoopPosition(output, loop) >= 0;
        for (intptr_t other = 0; other < inputs && own; ++other)
          own = other == k ||
                memoptAffineMapLoopPosition(mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, other)), loop) < 0;
        if (own)
          dim = r, splitLoop = loop;
      }
    }
    if (dim >= 0) {
      int64_t extent = mlirShapedTypeGetDimSize(mlirValueGetType(operand), dim);
      if (mlirShapedTypeIsDynamicSize(extent) || extent % tensor != 0) {
        memoptEmitOpDiagnostic(op, MlirDiagnosticError,
                               "place-to-shard: tensor-parallel degree %lld does not divide "
                               "extent %lld of dimension %lld of parameter operand %lld, which "
                               "Megatron's split divides among the tensor axis",
                               (long long)tensor, (long long)extent, (long long)dim, (long long)k);
        return false;
      }
    }
    splitMapSet(map, operand, dim);
  }
  /* shard-partition keeps the body as it is: linalg.index would count the
   * split loop from 0 on every device's share. */
  if (splitLoop >= 0 && memoptLinalgReadsLoopIndex(op, splitLoop)) {
    memoptEmitOpDiagnostic(op, MlirDiagnosticError,
                           "place-to-shard: the tensor-parallel split divides loop %lld of this "
                           "op, whose body reads its index (linalg.index): each device would "
                           "count its share from 0",
                           (long long)splitLoop);
    return false;
  }
  bool parallel = splitLoop >= 0 &&
                  memoptLinalgIteratorKind(mlirArrayAttrGetElement(iterators, splitLoop)) == MemoptIteratorParallel;
  for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r) {
    MlirAffineMap resultMap = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, inputs + r));
    splitMapSet(map, mlirOperationGetResult(op, r), parallel ? memoptAffineMapLoopPosition(resultMap, splitLoop) : -1);
  }
  return true;
}

/* Follows the batch split through one linalg.generic of projected
 * permutations: its results are split along the loop an input is split
 * along by batch when that loop is parallel, and whole when it is a
 * reduction (upstream all-reduces the partial sums: a gradient of a
 * data-parallel step) or no input is split by batch. */
static void followBatch(MlirOperation op, SplitMap *batch) {
  MlirAttribute maps = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("indexing_maps"));
  MlirAttribute iterators = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("iterator_types"));
  MlirAttribute segments = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("operandSegmentSizes"));
  intptr_t inputs = mlirDenseI32ArrayGetElement(segments, 0);
  int64_t loop = -1;
  for (intptr_t k = 0; k < mlirOperationGetNumOperands(op); ++k)
    if (!mlirAffineMapIsProjectedPermutation(mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, k))))
      return;
  for (intptr_t k = 0; k < inputs && loop < 0; ++k) {
    int64_t dim = splitMapGet(batch, mlirOperationGetOperand(op, k));
    if (dim >= 0)
      loop = memoptAffineMapResultLoop(mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, k)), dim);
  }
  bool parallel = loop >= 0 && memoptLinalgIteratorKind(mlirArrayAttrGetElement(iterators, loop)) ==
                                   MemoptIteratorParallel;
  for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r) {
    MlirAffineMap resultMap = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, inputs + r));
    splitMapSet(batch, mlirOperationGetResult(op, r), parallel ? memoptAffineMapLoopPosition(resultMap, loop) : -1);
  }
}

/* Chooses how each argument of the normalized stage `func` is split:
 * activations along their batch (first) dimension over the data axis,
 * parameters by Megatron's column-then-row rule over the tensor axis
 * (splitGeneric), nothing for an argument read inside a region; and how
 * each result is split. `*batchOut` and `*tensorOut` get the walk's split
 * dimension of every value it met over each axis (the caller frees them).
 * Returns false after a located error when a degree does not divide an
 * extent. */
static bool chooseSplits(MlirOperation func, const bool *parameters, int64_t data, int64_t tensor,
                         Split *splits, Split *resultSplits, SplitMap *batchOut,
                         SplitMap *tensorOut) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  SplitMap map = {NULL, NULL, 0, 0, 0};
  bool ok = true;
  intptr_t arguments = mlirBlockGetNumArguments(body);
  for (intptr_t k = 0; k < arguments && ok; ++k) {
    MlirValue argument = mlirBlockGetArgument(body, k);
    MlirType type = mlirValueGetType(argument);
    splits[k] = (Split){-1, -1};
    /* A capture in a linalg body is read with global indices: never split. */
    bool shardable = mlirTypeIsARankedTensor(type) && mlirShapedTypeGetRank(type) > 0 &&
                     !memoptValueIsReadInRegion(argument, body);
    splitMapSet(&map, argument, shardable && parameters[k] && tensor > 1 ? Undecided : -1);
    /* An argument normalization left unused is read by nothing: whole. */
    if (!shardable || parameters[k] || data == 1 || mlirOpOperandIsNull(mlirValueGetFirstUse(argument)))
      continue;
    int64_t extent = mlirShapedTypeGetDimSize(type, 0);
    if (mlirShapedTypeIsDynamicSize(extent) || extent % data != 0) {
      memoptEmitOpDiagnostic(firstUser(argument, body, func), MlirDiagnosticError,
                             "place-to-shard: data-parallel degree %lld does not divide the batch "
                             "extent %lld of stage argument %lld used here",
                             (long long)data, (long long)extent, (long long)k);
      ok = false;
    }
    splits[k].data = 0;
  }
  SplitMap batch = {NULL, NULL, 0, 0, 0};
  for (intptr_t k = 0; k < arguments; ++k)
    splitMapSet(&batch, mlirBlockGetArgument(body, k), splits[k].data);
  for (MlirOperation op = mlirBlockGetFirstOperation(body); ok && !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (memoptOperationIsA(op, "linalg.generic")) {
      ok = splitGeneric(op, &map, tensor);
      followBatch(op, &batch);
    }
  for (intptr_t k = 0; k < arguments; ++k) {
    int64_t dim = splitMapGet(&map, mlirBlockGetArgument(body, k));
    splits[k].tensor = dim >= 0 ? dim : -1;
  }
  /* Results: a generic's keeps the batch split the walk followed to it
   * over the data axis (an activation), or none when it reduced the batch
   * (a gradient); another op's result (the walk knows only generics) is an
   * activation split along its first dimension when some argument is split
   * by batch. Each keeps whatever split over the tensor axis the walk left
   * on it. */
  bool batchSplit = false;
  for (intptr_t k = 0; k < arguments; ++k)
    batchSplit = batchSplit || splits[k].data == 0;
  MlirOperation ret = mlirBlockGetTerminator(body);
  for (intptr_t r = 0; ok && r < mlirOperationGetNumOperands(ret); ++r) {
    MlirValue value = mlirOperationGetOperand(ret, r);
    MlirType type = mlirValueGetType(value);
    resultSplits[r] = (Split){-1, -1};
    if (!mlirTypeIsARankedTensor(type) || mlirShapedTypeGetRank(type) == 0)
      continue;
    int64_t dim = splitMapGet(&map, value);
    resultSplits[r].tensor = dim >= 0 ? dim : -1;
    int64_t dataDim = splitMapHas(&batch, value) ? splitMapGet(&batch, value) : batchSplit ? 0 : -1;
    if (dataDim < 0 || resultSplits[r].tensor == dataDim)
      continue;
    int64_t extent = mlirShapedTypeGetDimSize(type, dataDim);
    if (mlirShapedTypeIsDynamicSize(extent) || extent % data != 0) {
      MlirOperation producer = mlirValueIsAOpResult(value) ? mlirOpResultGetOwner(value) : ret;
      memoptEmitOpDiagnostic(producer, MlirDiagnosticError,
                             "place-to-shard: data-parallel degree %lld does not divide the batch "
                             "extent %lld of stage result %lld made here",
                             (long long)data, (long long)extent, (long long)r);
      ok = false;
    }
    resultSplits[r].data = dataDim;
  }
  *batchOut = batch;
  *tensorOut = map;
  return ok;
}

/* Annotates each value a top-level op of `body` computes and the walk
 * split by batch (`batch`) with that split, and the tensor split the walk
 * left on it (`tensor`), right after the op. Without
 * it, a training step's gradient contractions, whose results are whole,
 * pull upstream's propagation towards whole operands: the activations they
 * read would be all-gathered (which convert-shard-to-mpi does not lower)
 * instead of each rank contracting its own samples into partial sums. */
static void annotateBatchSplits(MlirBlock body, const SplitMap *batch, const SplitMap *tensor,
                                const char *grid, MlirLocation location) {
  for (intptr_t k = 0; k < batch->count; ++k) {
    MlirValue value = batch->values[k];
    if (batch->dims[k] < 0 || !mlirValueIsAOpResult(value))
      continue;
    MlirOperation producer = mlirOpResultGetOwner(value);
    bool returned = false;
    for (MlirOpOperand use = mlirValueGetFirstUse(value); !mlirOpOperandIsNull(use);
         use = mlirOpOperandGetNextUse(use))
      returned = returned || memoptOperationIsA(mlirOpOperandGetOwner(use), "func.return");
    /* A returned value gets its result's annotation instead. */
    if (!mlirBlockEqual(mlirOperationGetBlock(producer), body) || returned)
      continue;
    int64_t tensorDim = splitMapGet(tensor, value);
    MlirOperation shard = insertShard(body, mlirOperationGetNextInBlock(producer), value, grid,
                                      batch->dims[k], tensorDim >= 0 ? tensorDim : -1, false,
                                      location);
    memoptValueReplaceUsesByScope(value, mlirOperationGetResult(shard, 0), shard, false);
  }
}

/* Chooses the splits of the normalized stage function `outlined`
 * (chooseSplits) and annotates them on the grid `grid`. Returns false after
 * a located error. */
static bool annotateStage(MlirOperation outlined, const bool *parameters, int64_t data,
                          int64_t tensor, const char *grid, MlirLocation location) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(outlined, 0));
  intptr_t normalized = mlirBlockGetNumArguments(body);
  MlirOperation ret = mlirBlockGetTerminator(body);
  intptr_t results = mlirOperationGetNumOperands(ret);
  Split *splits = memoptAllocateZeroed((size_t)normalized + 1, sizeof *splits);
  Split *resultSplits = memoptAllocateZeroed((size_t)results + 1, sizeof *resultSplits);
  SplitMap batch = {NULL, NULL, 0, 0, 0}, tensorSplits = {NULL, NULL, 0, 0, 0};
  bool ok = chooseSplits(outlined, parameters, data, tensor, splits, resultSplits, &batch,
                         &tensorSplits);
  /* Every ranked tensor argument, replicated ones too: upstream 22's
   * shard-partition crashes on a tensor argument without an annotation. A
   * stage on one device is annotated nowhere: it runs as it is, without
   * partitioning. */
  bool annotated = ok && data * tensor > 1;
  for (intptr_t k = 0; annotated && k < normalized; ++k)
    if (mlirTypeIsARankedTensor(mlirValueGetType(mlirBlockGetArgument(body, k))) &&
        mlirShapedTypeGetRank(mlirValueGetType(mlirBlockGetArgument(body, k))) > 0)
      annotate(body, mlirBlockGetArgument(body, k), grid, splits[k].data, splits[k].tensor,
               location);
  if (annotated)
    annotateBatchSplits(body, &batch, &tensorSplits, grid, location);
  /* And every ranked tensor result: without it, upstream's backward pass
   * has nowhere to start from, and an op that creates a tensor from
   * nothing (a fill of tensor.empty) can end up replicated where its users
   * are split, which shard-partition turns into an all-gather. */
  for (intptr_t r = 0; annotated && r < results; ++r) {
    MlirValue value = mlirOperationGetOperand(ret, r);
    if (!mlirTypeIsARankedTensor(mlirValueGetType(value)) ||
        mlirShapedTypeGetRank(mlirValueGetType(value)) == 0)
      continue;
    MlirOperation shard = insertShard(body, ret, value, grid, resultSplits[r].data,
                                      resultSplits[r].tensor, false, location);
    mlirOperationSetOperand(ret, r, mlirOperationGetResult(shard, 0));
  }
  free(batch.values);
  free(batch.dims);
  free(tensorSplits.values);
  free(tensorSplits.dims);
  free(resultSplits);
  free(splits);
  return ok;
}

/* Starts `driven`'s recipe: a block of its own holding the call of
 * `outlined` on `arguments` (values of the original function); its results
 * stand for `stage`'s outputs, which `driven` already holds. Returns the
 * call. */
static MlirOperation recipeCall(MemoptPipelineStage *driven, MlirOperation outlined,
                                MlirOperation stage, const MlirValue *arguments, intptr_t count,
                                const MlirType *resultTypes, intptr_t results) {
  MlirContext context = mlirOperationGetContext(outlined);
  driven->recipe = mlirBlockCreate(0, NULL, NULL);
  MlirStringRef name = mlirStringAttrGetValue(
      mlirOperationGetAttributeByName(outlined, mlirSymbolTableGetSymbolAttributeName()));
  MlirNamedAttribute callee =
      memoptNamedAttribute(context, "callee", mlirFlatSymbolRefAttrGet(context, name));
  MemoptBuilder builder = memoptBuilderAtEnd(driven->recipe, mlirOperationGetLocation(stage));
  driven->call = memoptBuildOp(&builder, "func.call", arguments, count, resultTypes, results,
                               &callee, 1);
  return driven->call;
}

/* Outlines one stage into a function after `*after` (then the new function).
 * The function and its grid are named `<function>_stage<index>` and
 * `<function>_stage<index>_grid`, renamed by the symbol table (a `_N`
 * suffix) when another symbol has the name already. */
static bool lowerStage(MlirOperation module, MlirSymbolTable symbols, MlirOperation func,
                       MlirOperation stage, DataArguments dataArguments, MlirOperation *after,
                       MemoptPipelineStage *driven) {
  MlirContext context = mlirOperationGetContext(stage);
  MlirLocation location = mlirOperationGetLocation(stage);
  MlirStringRef funcName =
      mlirStringAttrGetValue(mlirOperationGetAttributeByName(func, mlirStringRefCreateFromCString("sym_name")));
  long long index = (long long)memoptOperationGetIntegerAttr(stage, "index");
  int64_t data = memoptOperationGetIntegerAttr(stage, "data_parallel");
  int64_t tensor = memoptOperationGetIntegerAttr(stage, "tensor_parallel");
  MemoptStringBuffer name = memoptStringBufferCreate(), grid = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&name, "%.*s_stage%lld", (int)funcName.length, funcName.data,
                                 index);

  /* The verifier rejects a stage body with arguments: nothing would bind them. */
  Captures captures = {NULL, 0, 0};
  memoptOperationForEachCapture(stage, collectCapture, &captures);
  /* Constants are cloned into the function instead of passed: they
   * go to the end of the list, the arguments stay first, in order. */
  intptr_t arguments = 0;
  MlirValue *ordered = memoptAllocateZeroed((size_t)(captures.count + 1), sizeof *ordered);
  for (intptr_t k = 0; k < captures.count; ++k)
    if (!isConstant(captures.values[k]))
      ordered[arguments++] = captures.values[k];
  for (intptr_t k = 0, constants = arguments; k < captures.count; ++k)
    if (isConstant(captures.values[k]))
      ordered[constants++] = captures.values[k];
  free(captures.values);
  captures.values = ordered;
  MlirBlock stageBody = mlirRegionGetFirstBlock(mlirOperationGetRegion(stage, 0));
  MlirOperation yield = mlirBlockGetTerminator(stageBody);
  /* The function returns what the stage yields, unpacked when packed. The
   * values its call stands for are read while the stage still yields its
   * pack (a training step's stage has more results than a stage yields
   * unpacked). */
  if (driven)
    driven->outputs = memoptPipelineStageOutputs(stage, &driven->outputCount);
  MlirOperation pack = memoptPlaceStagePack(stage);
  MlirOperation returned = mlirOperationIsNull(pack) ? yield : pack;
  intptr_t results = mlirOperationGetNumOperands(returned);

  MlirType *inputTypes = memoptAllocateZeroed((size_t)(arguments + 1), sizeof *inputTypes);
  MlirLocation *locations = memoptAllocateZeroed((size_t)(arguments + 1), sizeof *locations);
  MlirType *resultTypes = memoptAllocateZeroed((size_t)(results + 1), sizeof *resultTypes);
  for (intptr_t k = 0; k < arguments; ++k) {
    inputTypes[k] = mlirValueGetType(captures.values[k]);
    locations[k] = location;
  }
  for (intptr_t r = 0; r < results; ++r)
    resultTypes[r] = mlirValueGetType(mlirOperationGetOperand(returned, r));

  /* The grid and the function, after the original function. */
  MlirBlock moduleBody = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  MemoptStringBuffer gridName = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&gridName, "%s_grid", name.data);
  MlirOperationState gridState = mlirOperationStateGet(mlirStringRefCreateFromCString("shard.grid"), location);
  int64_t shape[2] = {data, tensor};
  MlirNamedAttribute gridAttributes[] = {
      memoptNamedAttribute(context, "sym_name", mlirStringAttrGet(context, mlirStringRefCreateFromCString(gridName.data))),
      memoptNamedAttribute(context, "shape", mlirDenseI64ArrayGet(context, 2, shape)),
  };
  memoptStringBufferDestroy(&gridName);
  mlirOperationStateAddAttributes(&gridState, 2, gridAttributes);
  MlirOperation gridOp = mlirOperationCreate(&gridState);
  mlirBlockInsertOwnedOperationAfter(moduleBody, *after, gridOp);
  MlirStringRef gridSymbol = mlirStringAttrGetValue(mlirSymbolTableInsert(symbols, gridOp));
  memoptStringBufferAppendFormat(&grid, "%.*s", (int)gridSymbol.length, gridSymbol.data);
  MlirOperationState funcState = mlirOperationStateGet(mlirStringRefCreateFromCString("func.func"), location);
  MlirType functionType = mlirFunctionTypeGet(context, arguments, inputTypes, results, resultTypes);
  MlirNamedAttribute funcAttributes[] = {
      memoptNamedAttribute(context, "sym_name", mlirStringAttrGet(context, mlirStringRefCreateFromCString(name.data))),
      memoptNamedAttribute(context, "function_type", mlirTypeAttrGet(functionType)),
  };
  mlirOperationStateAddAttributes(&funcState, 2, funcAttributes);
  /* place-search's memory per device for the stage, for memopt-run --ranks
   * to set beside each rank's measured peak. */
  MlirAttribute memory = mlirOperationGetAttributeByName(
      stage, mlirStringRefCreateFromCString("memory_bytes_per_device"));
  if (!mlirAttributeIsNull(memory)) {
    MlirNamedAttribute predicted =
        memoptNamedAttribute(context, "place.memory_bytes_per_device", memory);
    mlirOperationStateAddAttributes(&funcState, 1, &predicted);
  }
  MlirRegion region = mlirRegionCreate();
  MlirBlock body = mlirBlockCreate(arguments, inputTypes, locations);
  mlirRegionAppendOwnedBlock(region, body);
  mlirOperationStateAddOwnedRegions(&funcState, 1, &region);
  MlirOperation outlined = mlirOperationCreate(&funcState);
  mlirBlockInsertOwnedOperationAfter(moduleBody, gridOp, outlined);
  mlirSymbolTableInsert(symbols, outlined);
  *after = outlined;

  /* Move the ops, then the terminator becomes func.return. */
  for (MlirOperation op = mlirBlockGetFirstOperation(stageBody); !mlirOperationEqual(op, returned);) {
    MlirOperation next = mlirOperationGetNextInBlock(op);
    mlirOperationRemoveFromParent(op);
    mlirBlockAppendOwnedOperation(body, op);
    op = next;
  }
  MlirOperationState returnState = mlirOperationStateGet(mlirStringRefCreateFromCString("func.return"), location);
  MlirValue *yielded = memoptAllocateZeroed((size_t)(results + 1), sizeof *yielded);
  for (intptr_t r = 0; r < results; ++r)
    yielded[r] = mlirOperationGetOperand(returned, r);
  mlirOperationStateAddOperands(&returnState, results, yielded);
  mlirBlockAppendOwnedOperation(body, mlirOperationCreate(&returnState));
  /* The stage, removed with its function, reads the moved values no more:
   * normalization sees only the new function's uses. */
  mlirOperationSetOperands(yield, 0, NULL);
  if (!mlirOperationIsNull(pack))
    memoptEraseOp(pack);
  for (intptr_t k = 0; k < arguments; ++k)
    memoptValueReplaceUsesByScope(captures.values[k], mlirBlockGetArgument(body, k), outlined, true);
  for (intptr_t k = arguments; k < captures.count; ++k) {
      MlirOperation clone = mlirOperationClone(mlirOpResultGetOwner(captures.values[k]));
      mlirBlockInsertOwnedOperationBefore(body, mlirBlockGetFirstOperation(body), clone);
      memoptValueReplaceUsesByScope(captures.values[k], mlirOperationGetResult(clone, 0), outlined, true);
    }
  /* Normalize for upstream sharding, then annotate the tensor arguments. */
  bool *parameters = memoptAllocateZeroed((size_t)arguments + 1, sizeof *parameters);
  for (intptr_t k = 0; k < arguments; ++k)
    parameters[k] = isParameter(captures.values[k], func, dataArguments);
  MemoptStringBuffer message = memoptStringBufferCreate();
  MlirOperation call = {NULL};
  if (driven)
    call = recipeCall(driven, outlined, stage, captures.values, arguments, resultTypes, results);
  bool ok = mlirLogicalResultIsSuccess(memoptShardNormalize(outlined, call, &parameters, &message));
  if (!ok)
    memoptEmitOpDiagnostic(stage, MlirDiagnosticError,
                           "place-to-shard: normalizing this stage for upstream sharding failed: %s",
                           message.data ? message.data : "");
  memoptStringBufferDestroy(&message);
  ok = ok && annotateStage(outlined, parameters, data, tensor, grid.data, location);
  free(parameters);
  memoptStringBufferDestroy(&grid);
  memoptStringBufferDestroy(&name);

  free(yielded);
  free(resultTypes);
  free(locations);
  free(inputTypes);
  free(captures.values);
  return ok;
}

/* Outlines every stage of `func`, then replaces `func` by the pipeline
 * driver (when `driven` and it has several stages) or removes it. */
static bool lowerStagedFunction(MlirOperation module, MlirSymbolTable symbols, MlirOperation func,
                                DataArguments dataArguments, bool driven) {
  intptr_t count = memoptPlaceStageCount(func);
  MemoptPipelineStage *stages =
      driven && count > 1 ? memoptAllocateZeroed((size_t)count, sizeof *stages) : NULL;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  MlirOperation after = func;
  bool ok = true;
  intptr_t index = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); ok && !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (memoptOperationIsA(op, "place.stage"))
      ok = lowerStage(module, symbols, func, op, dataArguments, &after,
                      stages ? &stages[index++] : NULL);
  MlirOperation driver = {NULL};
  if (ok && stages) {
    driver = memoptPipelineDriverBuild(func, stages, count);
    ok = !mlirOperationIsNull(driver);
  }
  /* Its stages now stand alone: nothing else in it computed anything. */
  if (ok)
    mlirSymbolTableErase(symbols, func);
  if (!mlirOperationIsNull(driver)) {
    mlirBlockInsertOwnedOperationAfter(mlirOperationGetBlock(after), after, driver);
    mlirSymbolTableInsert(symbols, driver);
  }
  for (intptr_t s = 0; stages && s < count; ++s)
    memoptPipelineStageDestroy(&stages[s]);
  free(stages);
  return ok;
}

static MlirLogicalResult runPlaceToShard(MlirOperation module, const MemoptPassOptions *passOptions) {
  /* The degrees and device counts are read below: check them first. */
  if (mlirLogicalResultIsFailure(memoptVerifyOps(module)))
    return mlirLogicalResultFailure();
  DataArguments dataArguments = {
      (intptr_t)memoptPassOptionsGetInteger(passOptions, "data-arguments"),
      (intptr_t)memoptPassOptionsGetInteger(passOptions, "trailing-data-arguments")};
  MlirBlock moduleBody = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  bool driven = memoptPassOptionsGetBool(passOptions, "pipeline-driver");
  /* Check everything before changing anything. */
  if (!memoptPlaceToShardCheck(module, driven))
    return mlirLogicalResultFailure();
  /* Lowered on a copy, which replaces the module's body only when every
   * stage was sharded: an error leaves the module as it was. */
  MlirOperation copy = mlirOperationClone(module);
  MlirBlock copyBody = mlirRegionGetFirstBlock(mlirOperationGetRegion(copy, 0));
  MlirSymbolTable symbols = mlirSymbolTableCreate(copy);
  bool ok = true;
  for (MlirOperation func = mlirBlockGetFirstOperation(copyBody); ok && !mlirOperationIsNull(func);) {
    MlirOperation next = mlirOperationGetNextInBlock(func);
    if (memoptOperationIsA(func, "place.cluster")) {
      mlirSymbolTableErase(symbols, func);
    } else if (memoptPlaceHoldsStages(func)) {
      ok = lowerStagedFunction(copy, symbols, func, dataArguments, driven);
    }
    func = next;
  }
  mlirSymbolTableDestroy(symbols);
  if (ok) {
    for (MlirOperation op = mlirBlockGetFirstOperation(moduleBody); !mlirOperationIsNull(op);) {
      MlirOperation next = mlirOperationGetNextInBlock(op);
      mlirOperationDestroy(op);
      op = next;
    }
    for (MlirOperation op = mlirBlockGetFirstOperation(copyBody); !mlirOperationIsNull(op);) {
      MlirOperation next = mlirOperationGetNextInBlock(op);
      mlirOperationRemoveFromParent(op);
      mlirBlockAppendOwnedOperation(moduleBody, op);
      op = next;
    }
  }
  mlirOperationDestroy(copy);
  return ok ? mlirLogicalResultSuccess() : mlirLogicalResultFailure();
}

/* func for the outlined stages and calls, shard for the annotations; the
 * pipeline driver's mpi, scf, memref, bufferization, arith and cf. */
static MlirDialectHandle (*const placeToShardDialects[])(void) = {
    mlirGetDialectHandle__func__,   mlirGetDialectHandle__shard__, mlirGetDialectHandle__mpi__,
    mlirGetDialectHandle__scf__,    mlirGetDialectHandle__memref__,
    mlirGetDialectHandle__bufferization__, mlirGetDialectHandle__arith__,
    mlirGetDialectHandle__cf__};

const MemoptPassInfo memoptPlaceToShardPass = {
    .argument = "place-to-shard",
    .summary = "Lower place.stage ops to per-stage functions on shard.grid meshes with "
               "shard.shard annotations",
    .anchor = "builtin.module",
    .options = options,
    .optionCount = sizeof options / sizeof *options,
    .dependentDialects = placeToShardDialects,
    .dependentDialectCount = sizeof placeToShardDialects / sizeof *placeToShardDialects,
    .run = runPlaceToShard,
};

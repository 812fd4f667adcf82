/* What a function holds as place-to-shard runs it, op by op, for
 * place-search's `memory=program`: the buffers memopt's memory estimator
 * (lib/Analysis) finds in the bufferized function, live from the op that
 * allocates them to their last use, split into those that carry the batch
 * (their bytes scale with the microbatch, so they are kept per sample) and
 * those that do not (a training step's parameter gradients and loss, whole
 * on every device whatever the microbatch).
 *
 * The function priced is a copy normalized as place-to-shard normalizes a
 * stage (memoptShardNormalize): elementwise fusion there removes the
 * buffers between fused ops. Each of its ops stands for the op of the
 * function whose index tagOps put in its location (a fused op has its
 * consumer's); an op without one, for the op before it. When the
 * normalization fails, the function is priced as written.
 *
 * Each buffer keeps its payload and alignment, and each argument its
 * payload at one-shot bufferization's alignment (its caller allocates it
 * alike): PlaceStageMemory.c rounds each device's share up.
 *
 * A value carries the batch along one dimension. A data argument carries it
 * along its first. A linalg op's operand carrying it along dimension k reads
 * it with loop d_l of its indexing map there; a result whose map has d_l at
 * position j carries it along j (a loop the result does not index is a
 * reduction, and the result is a sum over the batch: it does not carry it).
 * A collapse_shape carries it in the group holding k, an expand_shape in
 * the member of group k where it sat before the collapse (see CarriedMap),
 * any other op along k when the result has the operand's rank, else along
 * its first dimension; a scalar never does.
 *
 * A value is split over the tensor-parallel group the same way, along
 * Megatron's split as place-to-shard makes it: a linalg op that reduces (a
 * contraction, or a generic with a reduction loop: a matmul with its
 * producers fused in), none of whose operands is split yet, reading a
 * parameter (an argument, or a value computed from arguments alone, such
 * as a transposed weight; not a table a gather reads, which place-to-shard
 * keeps whole), splits the loop that only that parameter and the result
 * index (the column split); the split then follows the data flow as the
 * batch does, and a result summed over a split loop (the row split,
 * all-reduced) is whole. A buffer split so holds 1 / t of its bytes on each
 * device of a group of t. A parameter is split when an op reads it along a
 * loop it splits: the column and row matrices, and the biases added to a
 * column split's products; the parameters are followed on the function as
 * written, the buffers on the normalized copy. */
#include "Place/Place.h"
#include "Place/PlaceSearch.h"

#include "Analysis/Analysis.h"
#include "Analysis/BufferizationModel.h"
#include "IR/IR.h"

#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/Linalg.h"

#include <stdlib.h>
#include <string.h>

/* Ops writing into one another's results as inits that bufferCarries
 * follows (tensor.empty, fill, generic, and a few more for nested inits). */
enum { initChainDepth = 8 };

/* Values carrying the batch (or the tensor split), each mapped to its
 * dimension and to the stride within it at which the carried factor sits:
 * 1 for a dimension of its own, the extent of the dimensions collapsed
 * inside it otherwise (heads collapsed as [batch x heads] sit at stride 1,
 * the batch at stride heads), so that an expand_shape finds it again. The
 * map holds stride << dimBits | dimension. */
typedef MemoptPointerMap CarriedMap;
enum { dimBits = 8 };

static int64_t carriedDimOf(const CarriedMap *map, MlirValue value) {
  size_t entry = memoptPointerMapLookup(map, value.ptr);
  return entry == MEMOPT_NO_INDEX ? -1 : (int64_t)(entry & ((1u << dimBits) - 1));
}

static int64_t carriedStrideOf(const CarriedMap *map, MlirValue value) {
  size_t entry = memoptPointerMapLookup(map, value.ptr);
  return entry == MEMOPT_NO_INDEX ? 1 : (int64_t)(entry >> dimBits);
}

static void carry(CarriedMap *map, MlirValue value, int64_t dim, int64_t stride) {
  memoptPointerMapInsert(map, value.ptr, ((size_t)stride << dimBits) | (size_t)dim);
}

static intptr_t rankOf(MlirValue value) {
  MlirType type = mlirValueGetType(value);
  return mlirTypeIsAShaped(type) && mlirShapedTypeHasRank(type) ? mlirShapedTypeGetRank(type) : 0;
}

/* The dimension of linalg op `op`'s result `result` that carries what
 * `carried` maps, or -1; its stride goes to `*stride`. */
static int64_t linalgResultCarriedDim(MlirOperation op, MlirAttribute maps, intptr_t result,
                                    const CarriedMap *carried, int64_t *stride) {
  intptr_t operands = mlirOperationGetNumOperands(op);
  intptr_t inits = mlirOperationGetNumResults(op);
  MlirAffineMap out =
      mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, operands - inits + result));
  for (intptr_t o = 0; o < operands; ++o) {
    int64_t dim = carriedDimOf(carried, mlirOperationGetOperand(op, o));
    if (dim < 0 || dim >= rankOf(mlirOperationGetOperand(op, o)))
      continue;
    int64_t loop = memoptAffineMapResultLoop(
        mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, o)), (intptr_t)dim);
    int64_t position = loop >= 0 ? memoptAffineMapLoopPosition(out, loop) : -1;
    if (position >= 0) {
      *stride = carriedStrideOf(carried, mlirOperationGetOperand(op, o));
      return position;
    }
  }
  return -1;
}

/* The product of the extents of dimensions (first, end) of `type`. */
static int64_t extentProduct(MlirType type, intptr_t first, intptr_t end) {
  int64_t product = 1;
  for (intptr_t d = first + 1; d < end; ++d)
    product *= mlirShapedTypeGetDimSize(type, d);
  return product;
}

/* The result dimension of reshape `op` holding its source's dimension
 * `dim` at `*stride`, which it updates: a collapse puts it in the group
 * holding `dim`, at the stride the group's later dimensions add; an expand
 * in the member of group `dim` whose later members' extent is the stride
 * or below. */
static int64_t reshapedDim(MlirOperation op, int64_t dim, int64_t *stride) {
  MlirAttribute groups =
      mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("reassociation"));
  if (mlirAttributeIsNull(groups))
    return 0;
  bool collapse = memoptOperationIsA(op, "tensor.collapse_shape");
  MlirType source = mlirValueGetType(mlirOperationGetOperand(op, 0));
  MlirType result = mlirValueGetType(mlirOperationGetResult(op, 0));
  int64_t first = 0;
  for (intptr_t g = 0; g < mlirArrayAttrGetNumElements(groups); ++g) {
    intptr_t size = mlirArrayAttrGetNumElements(mlirArrayAttrGetElement(groups, g));
    if (collapse && dim >= first && dim < first + size) {
      *stride *= extentProduct(source, dim, first + size);
      return g;
    }
    if (!collapse && g == dim)
      for (intptr_t m = first; m < first + size; ++m) {
        int64_t inner = extentProduct(result, m, first + size);
        if (inner <= *stride || m + 1 == first + size) {
          *stride = inner > 0 ? *stride / inner : 1;
          return m;
        }
      }
    first += size;
  }
  return 0;
}

/* Records which results of top-level op `op` carry what `carried` maps
 * (the batch, or the tensor split), and along which dimension. */
static void followCarried(MlirOperation op, CarriedMap *carried) {
  MlirAttribute maps = memoptOperationIsInDialect(op, "linalg")
                           ? mlirLinalgGetIndexingMapsAttribute(op)
                           : (MlirAttribute){NULL};
  for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r) {
    MlirValue result = mlirOperationGetResult(op, r);
    if (rankOf(result) == 0)
      continue;
    int64_t dim = -1, stride = 1;
    if (!mlirAttributeIsNull(maps)) {
      dim = linalgResultCarriedDim(op, maps, r, carried, &stride);
    } else {
      for (intptr_t o = 0; o < mlirOperationGetNumOperands(op) && dim < 0; ++o) {
        MlirValue operand = mlirOperationGetOperand(op, o);
        int64_t from = carriedDimOf(carried, operand);
        if (from < 0)
          continue;
        stride = carriedStrideOf(carried, operand);
        if (memoptOperationIsTensorReshape(op))
          dim = reshapedDim(op, from, &stride);
        else
          dim = rankOf(result) == rankOf(operand) ? from : 0;
      }
    }
    if (dim >= 0)
      carry(carried, result, dim, stride);
  }
}

/* Whether `value` is a parameter (an argument `parameters` flags) or
 * computed from parameters alone (`derived`): 0 when not, 1 when Megatron
 * may split it, 2 when it stays whole (a gathered table, or computed from
 * one). */
static int parameterKind(MlirValue value, MlirBlock body, const bool *parameters,
                         const MemoptPointerMap *derived) {
  if (mlirValueIsABlockArgument(value)) {
    if (!mlirBlockEqual(mlirBlockArgumentGetOwner(value), body) ||
        !parameters[mlirBlockArgumentGetArgNumber(value)])
      return 0;
    /* place-to-shard keeps a table read inside a body (a gather's) whole. */
    return memoptValueIsReadInRegion(value, body) ? 2 : 1;
  }
  size_t kind = memoptPointerMapLookup(derived, value.ptr);
  return kind == MEMOPT_NO_INDEX ? 0 : (int)kind;
}

/* The result dimension of contraction `op` that Megatron's column split
 * takes: the position in the result map of a loop that input `parameter`'s
 * map and the result's hold and no other input's does; -1 when none. */
static int64_t columnSplitDim(MlirOperation op, MlirAttribute maps, intptr_t parameter) {
  intptr_t inputs = mlirOperationGetNumOperands(op) - mlirOperationGetNumResults(op);
  MlirAffineMap out = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, inputs));
  for (intptr_t j = 0; j < mlirAffineMapGetNumResults(out); ++j) {
    int64_t loop = memoptAffineMapResultLoop(out, j);
    bool onlyParameter = loop >= 0, inParameter = false;
    for (intptr_t i = 0; i < inputs && onlyParameter; ++i) {
      MlirAffineMap map = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, i));
      bool holds = memoptAffineMapLoopPosition(map, loop) >= 0;
      if (i == parameter)
        inParameter = holds;
      else
        onlyParameter = !holds;
    }
    if (inParameter && onlyParameter)
      return j;
  }
  return -1;
}

/* Whether linalg op `op` reduces: a named contraction, or an op with a
 * reduction loop (a matmul with its producers fused in). */
static bool linalgReduces(MlirOperation op) {
  if (mlirLinalgIsAContractionOp(op))
    return true;
  MlirAttribute iterators =
      mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("iterator_types"));
  if (mlirAttributeIsNull(iterators) || !mlirAttributeIsAArray(iterators))
    return false;
  for (intptr_t l = 0; l < mlirArrayAttrGetNumElements(iterators); ++l)
    if (memoptLinalgIteratorKind(mlirArrayAttrGetElement(iterators, l)) == MemoptIteratorReduction)
      return true;
  return false;
}

/* Records which results of top-level op `op` are split over the tensor
 * group (`split`, along which dimension) and which are computed from
 * parameters alone (`derived`). As place-to-shard splits: an op reading a
 * split value follows it; else a reducing op splits the first parameter it
 * reads that has a loop of its own (the column split). */
static void followTensorSplit(MlirOperation op, MlirBlock body, const bool *parameters,
                              CarriedMap *split, MemoptPointerMap *derived) {
  bool anySplit = false, allParameters = mlirOperationGetNumOperands(op) > 0;
  int kind = 1; /* of the parameters the op reads: 2 when any stays whole */
  /* A linalg op's inits come after its inputs; other ops only read. */
  intptr_t inputs = mlirOperationGetNumOperands(op) -
                    (memoptOperationIsInDialect(op, "linalg") ? mlirOperationGetNumResults(op) : 0);
  for (intptr_t o = 0; o < mlirOperationGetNumOperands(op); ++o) {
    MlirValue operand = mlirOperationGetOperand(op, o);
    anySplit = anySplit || carriedDimOf(split, operand) >= 0;
    int operandKind = parameterKind(operand, body, parameters, derived);
    if (rankOf(operand) > 0 && o < inputs && operandKind == 0)
      allParameters = false;
    kind = operandKind > kind ? operandKind : kind;
  }
  if (allParameters)
    for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r)
      memoptPointerMapInsert(derived, mlirOperationGetResult(op, r).ptr, (size_t)kind);
  if (anySplit) {
    followCarried(op, split);
    return;
  }
  MlirAttribute maps = memoptOperationIsInDialect(op, "linalg")
                           ? mlirLinalgGetIndexingMapsAttribute(op)
                           : (MlirAttribute){NULL};
  if (allParameters || mlirAttributeIsNull(maps) || mlirOperationGetNumResults(op) != 1 ||
      !linalgReduces(op))
    return;
  for (intptr_t o = 0; o < inputs; ++o) {
    MlirValue operand = mlirOperationGetOperand(op, o);
    int64_t dim = rankOf(operand) > 0 && parameterKind(operand, body, parameters, derived) == 1
                      ? columnSplitDim(op, maps, o)
                      : -1;
    if (dim >= 0) {
      carry(split, mlirOperationGetResult(op, 0), dim, 1);
      return;
    }
  }
}

/* Marks in `splitArguments` the parameters `root` stands for: the argument
 * itself, or those a value computed from parameters alone is computed from
 * (each value of that computation visited once). */
static void markParameterRoots(MlirValue root, MlirBlock body, const bool *parameters,
                               const MemoptPointerMap *derived, bool *splitArguments) {
  MemoptPointerMap visited = memoptPointerMapCreate();
  MlirValue *stack = NULL;
  size_t count = 0, capacity = 0;
  stack = memoptGrowArray(stack, &capacity, 1, sizeof *stack);
  stack[count++] = root;
  while (count > 0) {
    MlirValue value = stack[--count];
    if (memoptPointerMapLookup(&visited, value.ptr) != MEMOPT_NO_INDEX)
      continue;
    memoptPointerMapInsert(&visited, value.ptr, 0);
    if (mlirValueIsABlockArgument(value)) {
      if (mlirBlockEqual(mlirBlockArgumentGetOwner(value), body) &&
          parameters[mlirBlockArgumentGetArgNumber(value)])
        splitArguments[mlirBlockArgumentGetArgNumber(value)] = true;
      continue;
    }
    if (memoptPointerMapLookup(derived, value.ptr) == MEMOPT_NO_INDEX)
      continue;
    MlirOperation producer = mlirOpResultGetOwner(value);
    intptr_t operands = mlirOperationGetNumOperands(producer);
    stack = memoptGrowArray(stack, &capacity, count + (size_t)operands, sizeof *stack);
    for (intptr_t o = 0; o < operands; ++o)
      stack[count++] = mlirOperationGetOperand(producer, o);
  }
  free(stack);
  memoptPointerMapDestroy(&visited);
}

/* Marks in `splitArguments` the parameters linalg op `op` reads along the
 * loop the tensor split divides in it (that some operand or result of it
 * is split along): Megatron's matrices, and the biases added to their
 * column-split products. A table read inside a body stays whole. */
static void markSplitParameters(MlirOperation op, MlirBlock body, const bool *parameters,
                                const CarriedMap *split, const MemoptPointerMap *derived,
                                bool *splitArguments) {
  MlirAttribute maps = memoptOperationIsInDialect(op, "linalg")
                           ? mlirLinalgGetIndexingMapsAttribute(op)
                           : (MlirAttribute){NULL};
  if (mlirAttributeIsNull(maps))
    return;
  intptr_t operands = mlirOperationGetNumOperands(op);
  intptr_t inputs = operands - mlirOperationGetNumResults(op);
  int64_t loop = -1;
  for (intptr_t v = 0; v < operands + mlirOperationGetNumResults(op) && loop < 0; ++v) {
    MlirValue value =
        v < operands ? mlirOperationGetOperand(op, v) : mlirOperationGetResult(op, v - operands);
    int64_t dim = carriedDimOf(split, value);
    if (dim >= 0 && dim < rankOf(value))
      loop = memoptAffineMapResultLoop(mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(
                                           maps, v < operands ? v : inputs + v - operands)),
                                       (intptr_t)dim);
  }
  for (intptr_t o = 0; o < inputs && loop >= 0; ++o) {
    MlirValue operand = mlirOperationGetOperand(op, o);
    if (parameterKind(operand, body, parameters, derived) == 1 &&
        memoptAffineMapLoopPosition(mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, o)),
                                    loop) >= 0)
      markParameterRoots(operand, body, parameters, derived, splitArguments);
  }
}

/* Whether the buffer first holding `value` carries what `carried` maps (the
 * batch, or the tensor split): `value` does,
 * or an op writes into it (a linalg op's init: a tensor.empty, a fill of
 * one; an insert_slice's destination) a result that does, `depth` such steps at most. */
static bool bufferCarries(MlirValue value, const CarriedMap *carried, int depth) {
  if (carriedDimOf(carried, value) >= 0)
    return true;
  for (MlirOpOperand use = mlirValueGetFirstUse(value); depth > 0 && !mlirOpOperandIsNull(use);
       use = mlirOpOperandGetNextUse(use)) {
    MlirOperation user = mlirOpOperandGetOwner(use);
    intptr_t inits = mlirOperationGetNumResults(user);
    intptr_t init =
        (intptr_t)mlirOpOperandGetOperandNumber(use) - (mlirOperationGetNumOperands(user) - inits);
    if (memoptOperationIsInDialect(user, "linalg")) {
      if (init >= 0 && init < inits &&
          bufferCarries(mlirOperationGetResult(user, init), carried, depth - 1))
        return true;
      continue;
    }
    /* Another op writing into it (a tensor.insert_slice's destination)
     * gives a result of its type. */
    for (intptr_t r = 0; r < inits; ++r) {
      MlirValue result = mlirOperationGetResult(user, r);
      if (mlirTypeEqual(mlirValueGetType(result), mlirValueGetType(value)) &&
          bufferCarries(result, carried, depth - 1))
        return true;
    }
  }
  return false;
}

/* The file name of the locations tagOps gives. */
static const char opTag[] = "memopt-program-op";

/* Gives each top-level op of `func` its index as its location (line index +
 * 1 of file opTag): upstream's rewrites give an op they create the location
 * of the op it stands for (a fused generic the consumer's). */
static void tagOps(MlirOperation func) {
  MlirContext context = mlirOperationGetContext(func);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  unsigned index = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    mlirOperationSetLocation(
        op, mlirLocationFileLineColGet(context, mlirStringRefCreateFromCString(opTag), ++index, 0));
}

/* The op index tagOps put in `location` (the latest of a fused location's),
 * or MEMOPT_NO_INDEX. */
static size_t taggedIndex(MlirLocation location) {
  if (mlirLocationIsAFileLineColRange(location)) {
    MlirIdentifier file = mlirLocationFileLineColRangeGetFilename(location);
    if (!mlirStringRefEqual(mlirIdentifierStr(file), mlirStringRefCreateFromCString(opTag)))
      return MEMOPT_NO_INDEX;
    return (size_t)mlirLocationFileLineColRangeGetStartLine(location) - 1;
  }
  if (mlirLocationIsAName(location))
    return taggedIndex(mlirLocationNameGetChildLoc(location));
  if (!mlirLocationIsAFused(location))
    return MEMOPT_NO_INDEX;
  intptr_t count = (intptr_t)mlirLocationFusedGetNumLocations(location);
  MlirLocation *parts = memoptAllocateZeroed((size_t)count + 1, sizeof *parts);
  mlirLocationFusedGetLocations(location, parts);
  size_t latest = MEMOPT_NO_INDEX;
  for (intptr_t k = 0; k < count; ++k) {
    size_t index = taggedIndex(parts[k]);
    if (index != MEMOPT_NO_INDEX && (latest == MEMOPT_NO_INDEX || index > latest))
      latest = index;
  }
  free(parts);
  return latest;
}

/* The reads found so far: (record, op) pairs, a record being a buffer of
 * the profile or, after them, a data argument. */
typedef struct ReadList {
  size_t (*pairs)[2];
  size_t count, capacity;
} ReadList;

/* What recordReads's walk of one top-level op needs. */
typedef struct ReadWalk {
  const MemoptMemoryProfile *profile; /* NULL: only arguments are read */
  MlirBlock body;
  MlirOperation top;            /* the top-level op walked */
  size_t op;                    /* the op of `func` it stands for */
  const size_t *argumentRecord; /* per argument of `body`: its record, or MEMOPT_NO_INDEX */
  ReadList *reads;
} ReadWalk;

static void addRead(ReadList *reads, size_t record, size_t op) {
  reads->pairs =
      memoptGrowArray(reads->pairs, &reads->capacity, reads->count + 1, sizeof *reads->pairs);
  reads->pairs[reads->count][0] = record;
  reads->pairs[reads->count++][1] = op;
}

/* Records what an op nested in (or being) the walked top-level op reads from
 * outside it: a buffer, or a data argument. */
static MlirWalkResult recordReads(MlirOperation op, void *userData) {
  ReadWalk *walk = userData;
  for (intptr_t o = 0; o < mlirOperationGetNumOperands(op); ++o) {
    MlirValue operand = mlirOperationGetOperand(op, o);
    size_t buffer;
    if (mlirValueIsABlockArgument(operand)) {
      if (mlirBlockEqual(mlirBlockArgumentGetOwner(operand), walk->body) &&
          walk->argumentRecord[mlirBlockArgumentGetArgNumber(operand)] != MEMOPT_NO_INDEX)
        addRead(walk->reads, walk->argumentRecord[mlirBlockArgumentGetArgNumber(operand)],
                walk->op);
    } else if (walk->profile &&
               !mlirOperationEqual(
                   memoptOperationAncestorInBlock(mlirOpResultGetOwner(operand), walk->body),
                   walk->top) &&
               memoptMemoryProfileLookupBuffer(walk->profile, operand, &buffer)) {
      addRead(walk->reads, buffer, walk->op);
    }
  }
  return MlirWalkResultAdvance;
}

/* Marks the buffer of each result of an op of `body` that sums a value
 * split over the tensor group along a loop it reduces (the row split): the
 * partitioned program all-reduces it right after the op, into a buffer of
 * its own, while the partial sums are still held. */
static void markAllReduced(MlirBlock body, const MemoptMemoryProfile *profile,
                           const CarriedMap *split, MemoptPlaceBuffer *buffers) {
  size_t position = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op), ++position) {
    if (!memoptOperationIsInDialect(op, "linalg") || mlirOperationGetNumResults(op) == 0)
      continue;
    bool readsSplit = false;
    for (intptr_t o = 0; o < mlirOperationGetNumOperands(op); ++o)
      readsSplit = readsSplit || carriedDimOf(split, mlirOperationGetOperand(op, o)) >= 0;
    for (intptr_t r = 0; readsSplit && r < mlirOperationGetNumResults(op); ++r) {
      size_t buffer;
      MlirValue result = mlirOperationGetResult(op, r);
      if (rankOf(result) > 0 && carriedDimOf(split, result) < 0 &&
          memoptMemoryProfileLookupBuffer(profile, result, &buffer))
        buffers[buffer].reducedAt = position;
    }
  }
}

/* The record of an argument of `payload` bytes (allocated by its caller at
 * one-shot bufferization's alignment), held only as an input. */
static MemoptPlaceBuffer argumentRecord(uint64_t payload, bool perSample, bool split) {
  return (MemoptPlaceBuffer){payload,
                             memoptOneShotBufferAlignment(),
                             perSample,
                             split,
                             true,
                             0,
                             MEMOPT_NO_INDEX,
                             MEMOPT_NO_INDEX,
                             0,
                             0,
                             MEMOPT_NO_INDEX};
}

/* Returns the ops of `reads` grouped by record (a counting sort), setting
 * each of the `count` records' range of them; frees the pairs. */
static size_t *groupReads(ReadList *reads, MemoptPlaceBuffer *records, size_t count) {
  size_t *grouped = memoptAllocateZeroed(reads->count + 1, sizeof *grouped);
  for (size_t r = 0; r < reads->count; ++r)
    ++records[reads->pairs[r][0]].readEnd;
  for (size_t b = 0, at = 0; b < count; ++b) {
    records[b].firstRead = at;
    at += records[b].readEnd;
    records[b].readEnd = records[b].firstRead;
  }
  for (size_t r = 0; r < reads->count; ++r)
    grouped[records[reads->pairs[r][0]].readEnd++] = reads->pairs[r][1];
  free(reads->pairs);
  *reads = (ReadList){NULL, 0, 0};
  return grouped;
}

/* Fills `memory`'s parameters from `func` as written: each one's bytes, the
 * ops reading it, and whether place-to-shard splits it over the tensor
 * group. Arguments `parameters` flags are parameters. */
static void priceParameters(MlirOperation func, const bool *parameters,
                            MemoptPlaceProgramMemory *memory) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  intptr_t arguments = mlirBlockGetNumArguments(body);
  size_t *record = memoptAllocateZeroed((size_t)arguments + 1, sizeof *record);
  bool *split = memoptAllocateZeroed((size_t)arguments + 1, sizeof *split);
  size_t count = 0;
  for (intptr_t a = 0; a < arguments; ++a) {
    uint64_t bytes;
    record[a] = parameters[a] && memoptTypeGetStaticByteSize(
                                     mlirValueGetType(mlirBlockGetArgument(body, a)), &bytes)
                    ? count++
                    : MEMOPT_NO_INDEX;
  }
  CarriedMap splitValues = memoptPointerMapCreate();
  MemoptPointerMap derived = memoptPointerMapCreate();
  ReadList reads = {NULL, 0, 0};
  size_t index = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op), ++index) {
    followTensorSplit(op, body, parameters, &splitValues, &derived);
    markSplitParameters(op, body, parameters, &splitValues, &derived, split);
    if (!mlirOperationIsNull(mlirOperationGetNextInBlock(op))) {
      ReadWalk walk = {NULL, body, op, index, record, &reads};
      mlirOperationWalk(op, recordReads, &walk, MlirWalkPreOrder);
    }
  }
  memory->parameterCount = count;
  memory->parameters = memoptAllocateZeroed(count + 1, sizeof *memory->parameters);
  for (intptr_t a = 0; a < arguments; ++a) {
    if (record[a] == MEMOPT_NO_INDEX)
      continue;
    uint64_t bytes = 0;
    memoptTypeGetStaticByteSize(mlirValueGetType(mlirBlockGetArgument(body, a)), &bytes);
    memory->parameters[record[a]] = argumentRecord(bytes, false, split[a]);
  }
  memory->parameterReads = groupReads(&reads, memory->parameters, count);
  memoptPointerMapDestroy(&derived);
  memoptPointerMapDestroy(&splitValues);
  free(split);
  free(record);
}

/* Fills `memory`'s buffers, data arguments and reads from the profile of
 * `priced`, whose op k stands for op memory->opAt[k] of the function.
 * Arguments `parameters` flags are parameters. */
static bool priceOps(MlirOperation priced, const bool *parameters, MemoptPlaceProgramMemory *memory,
                     MemoptStringBuffer *error) {
  MemoptMemoryProfile *profile = memoptMemoryProfileCreate(priced, false, error);
  if (!profile)
    return false;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(priced, 0));
  CarriedMap batch = memoptPointerMapCreate(), split = memoptPointerMapCreate();
  MemoptPointerMap derived = memoptPointerMapCreate();
  intptr_t arguments = mlirBlockGetNumArguments(body);
  size_t buffers = memoptMemoryProfileGetNumBuffers(profile), records = buffers;
  size_t *recordOf = memoptAllocateZeroed((size_t)arguments + 1, sizeof *recordOf);
  for (intptr_t a = 0; a < arguments; ++a) {
    MlirValue argument = mlirBlockGetArgument(body, a);
    uint64_t bytes;
    recordOf[a] = MEMOPT_NO_INDEX;
    if (!parameters[a] && memoptTypeGetStaticByteSize(mlirValueGetType(argument), &bytes))
      recordOf[a] = records++;
    if (!parameters[a] && rankOf(argument) > 0)
      carry(&batch, argument, 0, 1);
  }
  ReadList reads = {NULL, 0, 0};
  size_t count = 0; /* positions: the profile's are the body's top-level ops */
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op), ++count) {
    followCarried(op, &batch);
    followTensorSplit(op, body, parameters, &split, &derived);
    /* The terminator returns what the stages made: no stage reads it. */
    if (!mlirOperationIsNull(mlirOperationGetNextInBlock(op))) {
      ReadWalk walk = {profile, body, op, memory->opAt[count], recordOf, &reads};
      mlirOperationWalk(op, recordReads, &walk, MlirWalkPreOrder);
    }
  }
  memory->positionCount = count;
  memory->bufferCount = records;
  memory->buffers = memoptAllocateZeroed(records + 1, sizeof *memory->buffers);
  for (size_t b = 0; b < buffers; ++b) {
    MemoptBufferInfo info = memoptMemoryProfileGetBuffer(profile, b);
    MlirOperation owner = memoptOperationAncestorInBlock(info.op, body);
    size_t last = info.lastPosition < count ? info.lastPosition : count - 1;
    memory->buffers[b] = (MemoptPlaceBuffer){
        info.bytes,
        info.alignment ? info.alignment : 1,
        bufferCarries(info.value, &batch, initChainDepth) ||
            (info.nested && !mlirOperationIsNull(owner) && mlirOperationGetNumResults(owner) > 0 &&
             carriedDimOf(&batch, mlirOperationGetResult(owner, 0)) >= 0),
        bufferCarries(info.value, &split, initChainDepth),
        false,
        memory->opAt[info.firstPosition],
        info.firstPosition,
        last,
        0,
        0,
        MEMOPT_NO_INDEX};
  }
  markAllReduced(body, profile, &split, memory->buffers);
  for (intptr_t a = 0; a < arguments; ++a) {
    if (recordOf[a] == MEMOPT_NO_INDEX)
      continue;
    MlirValue argument = mlirBlockGetArgument(body, a);
    uint64_t bytes = 0;
    memoptTypeGetStaticByteSize(mlirValueGetType(argument), &bytes);
    memory->buffers[recordOf[a]] = argumentRecord(bytes, rankOf(argument) > 0, false);
  }
  memory->reads = groupReads(&reads, memory->buffers, records);
  free(recordOf);
  memoptPointerMapDestroy(&derived);
  memoptPointerMapDestroy(&split);
  memoptPointerMapDestroy(&batch);
  memoptMemoryProfileDestroy(profile);
  return true;
}

/* Normalizes a copy of `func`, in `scratch`, as place-to-shard normalizes a
 * stage (memoptShardNormalize), and maps each of its top-level ops to the
 * op of `func` it stands for (`*original`, allocated; an op without a tag
 * stands for the op before it). `*parameters` follows the arguments.
 * Returns the copy, or a null op when normalization fails. */
static MlirOperation normalizedCopy(MlirOperation func, MlirModule scratch, bool **parameters,
                                    size_t **original) {
  MlirOperation copy = mlirOperationClone(func);
  mlirBlockAppendOwnedOperation(mlirModuleGetBody(scratch), copy);
  tagOps(copy);
  MemoptStringBuffer message = memoptStringBufferCreate();
  bool ok = mlirLogicalResultIsSuccess(
      memoptShardNormalize(copy, (MlirOperation){NULL}, parameters, &message));
  memoptStringBufferDestroy(&message);
  if (!ok)
    return (MlirOperation){NULL};
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(copy, 0));
  size_t count = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    ++count;
  *original = memoptAllocateZeroed(count + 1, sizeof **original);
  size_t k = 0, previous = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op), ++k) {
    size_t index = taggedIndex(mlirOperationGetLocation(op));
    previous = index != MEMOPT_NO_INDEX ? index : previous;
    (*original)[k] = previous;
  }
  return copy;
}

/* Returns, per argument of `body`, whether it is a parameter: neither one
 * of the first `leading` nor of the last `trailing` (data). */
static bool *parameterFlags(MlirBlock body, size_t leading, size_t trailing) {
  intptr_t arguments = mlirBlockGetNumArguments(body);
  bool *parameters = memoptAllocateZeroed((size_t)arguments + 1, sizeof *parameters);
  for (intptr_t a = 0; a < arguments; ++a)
    parameters[a] = (size_t)a >= leading && a < arguments - (intptr_t)trailing;
  return parameters;
}

bool memoptPlaceProgramMemoryCompute(MlirOperation func, size_t dataArguments,
                                     size_t trailingDataArguments, double irBatch,
                                     MemoptPlaceProgramMemory *memory, MemoptStringBuffer *error) {
  memset(memory, 0, sizeof *memory);
  memory->irBatch = irBatch;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  bool *parameters = parameterFlags(body, dataArguments, trailingDataArguments);
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    ++memory->opCount;
  /* Priced as place-to-shard runs it: normalized, its elementwise chains
   * fused (their intermediate buffers gone); as written when that fails. */
  MlirModule scratch = mlirModuleCreateEmpty(mlirOperationGetLocation(func));
  MlirOperation priced = normalizedCopy(func, scratch, &parameters, &memory->opAt);
  if (mlirOperationIsNull(priced)) {
    priced = func;
    free(parameters);
    parameters = parameterFlags(body, dataArguments, trailingDataArguments);
    memory->opAt = memoptReallocArray(memory->opAt, memory->opCount + 1, sizeof *memory->opAt);
    for (size_t k = 0; k < memory->opCount; ++k)
      memory->opAt[k] = k;
  }
  bool ok = priceOps(priced, parameters, memory, error);
  free(parameters);
  /* The parameters as written: normalization makes views of them arguments. */
  parameters = parameterFlags(body, dataArguments, trailingDataArguments);
  priceParameters(func, parameters, memory);
  free(parameters);
  mlirModuleDestroy(scratch);
  return ok;
}

void memoptPlaceProgramMemoryDestroy(MemoptPlaceProgramMemory *memory) {
  free(memory->opAt);
  free(memory->buffers);
  free(memory->reads);
  free(memory->parameters);
  free(memory->parameterReads);
  memset(memory, 0, sizeof *memory);
}

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
 * A stage from a later op runs as a function whose arguments include what
 * earlier stages made and it reads, held until it returns: for each start
 * the caller names, those buffers count as its inputs, and the per-op live
 * sets count only the buffers made from the start on (MemoptPlaceHeld).
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
 * Megatron's split: a contraction none of whose operands is split yet,
 * reading a parameter (an argument, or a value computed from arguments
 * alone, such as a transposed weight; not a table a gather reads, which
 * place-to-shard keeps whole), splits the loop that only the
 * parameter and the result index (the column split); the split then
 * follows the data flow as the batch does, and a result summed over a split
 * loop (the row split, all-reduced) is whole. A buffer split so holds 1 / t
 * of its bytes on each device of a group of t. */
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

/* Records which results of top-level op `op` are split over the tensor
 * group (`split`, along which dimension) and which are computed from
 * parameters alone (`derived`). */
static void followTensorSplit(MlirOperation op, MlirBlock body, const bool *parameters,
                              CarriedMap *split, MemoptPointerMap *derived) {
  bool anySplit = false, allParameters = mlirOperationGetNumOperands(op) > 0;
  int kind = 1; /* of the parameters the op reads: 2 when any stays whole */
  intptr_t parameter = -1;
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
    if (operandKind == 1 && rankOf(operand) >= 2 && o < inputs && parameter < 0)
      parameter = o;
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
  if (allParameters || parameter < 0 || mlirAttributeIsNull(maps) ||
      !mlirLinalgIsAContractionOp(op) || mlirOperationGetNumResults(op) != 1)
    return;
  int64_t dim = columnSplitDim(op, maps, parameter);
  if (dim >= 0)
    carry(split, mlirOperationGetResult(op, 0), dim, 1);
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

/* Bytes a buffer takes in the lowered program: its payload rounded up to its alignment. */
static double allocatedBytes(const MemoptBufferInfo *info) {
  uint64_t alignment = info->alignment ? info->alignment : 1;
  return (double)((info->bytes + alignment - 1) / alignment * alignment);
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

/* Allocates `held`'s per-op arrays for `count` ops. */
static void heldCreate(MemoptPlaceHeld *held, size_t count) {
  memset(held, 0, sizeof *held);
  for (int k = 0; k < 2; ++k) {
    held->perSampleBytes[k] = memoptAllocateZeroed(count + 1, sizeof *held->perSampleBytes[k]);
    held->fixedBytes[k] = memoptAllocateZeroed(count + 1, sizeof *held->fixedBytes[k]);
  }
}

static void heldDestroy(MemoptPlaceHeld *held) {
  for (int k = 0; k < 2; ++k) {
    free(held->perSampleBytes[k]);
    free(held->fixedBytes[k]);
  }
}

/* The array of `held` for a buffer of class `split`, `perSample`. */
static double *heldArray(MemoptPlaceHeld *held, int split, bool perSample) {
  return perSample ? held->perSampleBytes[split] : held->fixedBytes[split];
}

/* The op of `func` the profile's position `p` stands for (`original` maps
 * the priced function's ops, `indexOf` finds them), or MEMOPT_NO_INDEX. */
static size_t originalAt(const MemoptMemoryProfile *profile, const MemoptPointerMap *indexOf,
                         const size_t *original, size_t p) {
  size_t at = memoptPointerMapLookup(indexOf, memoptMemoryProfileGetPositionOp(profile, p).ptr);
  return at == MEMOPT_NO_INDEX ? at : original[at];
}

/* Adds what the buffers of `priced` hold at each of its top-level ops to
 * `memory`'s per-op arrays, at the op of `func` each stands for
 * (`original[k]` for `priced`'s op k); several ops standing for one keep
 * the most any holds. For a stage from each of `memory->starts`, a buffer
 * made before it and read from it on is one of its inputs, and the others
 * are held per op. Arguments `parameters` flags are parameters. */
static bool priceOps(MlirOperation priced, const size_t *original, const bool *parameters,
                     double irBatch, MemoptPlaceProgramMemory *memory, MemoptStringBuffer *error) {
  MemoptMemoryProfile *profile = memoptMemoryProfileCreate(priced, false, error);
  if (!profile)
    return false;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(priced, 0));
  CarriedMap batch = memoptPointerMapCreate(), split = memoptPointerMapCreate();
  MemoptPointerMap derived = memoptPointerMapCreate(), indexOf = memoptPointerMapCreate();
  for (intptr_t a = 0; a < mlirBlockGetNumArguments(body); ++a)
    if (!parameters[a] && rankOf(mlirBlockGetArgument(body, a)) > 0)
      carry(&batch, mlirBlockGetArgument(body, a), 0, 1);
  size_t count = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    memoptPointerMapInsert(&indexOf, op.ptr, count++);
    followCarried(op, &batch);
    followTensorSplit(op, body, parameters, &split, &derived);
  }
  /* What each of `priced`'s ops holds: [0] every buffer, [1 + j] in a stage
   * from start j. */
  size_t variants = memory->startCount + 1;
  MemoptPlaceHeld *held = memoptAllocateZeroed(variants, sizeof *held);
  for (size_t v = 0; v < variants; ++v)
    heldCreate(&held[v], count);
  size_t positions = memoptMemoryProfileGetNumPositions(profile);
  for (size_t b = 0; b < memoptMemoryProfileGetNumBuffers(profile); ++b) {
    MemoptBufferInfo info = memoptMemoryProfileGetBuffer(profile, b);
    MlirOperation owner = memoptOperationAncestorInBlock(info.op, body);
    bool perSample =
        bufferCarries(info.value, &batch, initChainDepth) ||
        (info.nested && !mlirOperationIsNull(owner) && mlirOperationGetNumResults(owner) > 0 &&
         carriedDimOf(&batch, mlirOperationGetResult(owner, 0)) >= 0);
    int splitOver = bufferCarries(info.value, &split, initChainDepth) ? 1 : 0;
    double bytes = allocatedBytes(&info) / (perSample ? irBatch : 1);
    size_t last = info.lastPosition < positions ? info.lastPosition : positions - 1;
    size_t made = MEMOPT_NO_INDEX, read = MEMOPT_NO_INDEX; /* first and last op of `func` */
    for (size_t p = info.firstPosition; p <= last && made == MEMOPT_NO_INDEX; ++p)
      made = originalAt(profile, &indexOf, original, p);
    for (size_t p = last + 1; p-- > info.firstPosition && read == MEMOPT_NO_INDEX;)
      read = originalAt(profile, &indexOf, original, p);
    for (size_t j = 0; j < memory->startCount && made != MEMOPT_NO_INDEX; ++j)
      if (made < memory->starts[j] && read >= memory->starts[j]) {
        if (perSample)
          held[1 + j].inputPerSampleBytes[splitOver] += bytes;
        else
          held[1 + j].inputFixedBytes[splitOver] += bytes;
      }
    for (size_t p = info.firstPosition; p <= last; ++p) {
      size_t at =
          memoptPointerMapLookup(&indexOf, memoptMemoryProfileGetPositionOp(profile, p).ptr);
      if (at == MEMOPT_NO_INDEX)
        continue;
      heldArray(&held[0], splitOver, perSample)[at] += bytes;
      for (size_t j = 0; j < memory->startCount; ++j)
        if (made >= memory->starts[j])
          heldArray(&held[1 + j], splitOver, perSample)[at] += bytes;
    }
  }
  for (size_t v = 0; v < variants; ++v) {
    MemoptPlaceHeld *into = v == 0 ? &memory->all : &memory->fromStart[v - 1];
    for (int c = 0; c < 4; ++c) {
      double *from = heldArray(&held[v], c / 2, c % 2), *to = heldArray(into, c / 2, c % 2);
      for (size_t k = 0; k < count; ++k)
        to[original[k]] = from[k] > to[original[k]] ? from[k] : to[original[k]];
    }
    for (int k = 0; k < 2; ++k) {
      into->inputPerSampleBytes[k] = held[v].inputPerSampleBytes[k];
      into->inputFixedBytes[k] = held[v].inputFixedBytes[k];
    }
    heldDestroy(&held[v]);
  }
  free(held);
  memoptPointerMapDestroy(&indexOf);
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

bool memoptPlaceProgramMemoryCompute(MlirOperation func, size_t dataArguments, double irBatch,
                                     const size_t *starts, size_t startCount,
                                     MemoptPlaceProgramMemory *memory, MemoptStringBuffer *error) {
  memset(memory, 0, sizeof *memory);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  intptr_t arguments = mlirBlockGetNumArguments(body);
  bool *parameters = memoptAllocateZeroed((size_t)arguments + 1, sizeof *parameters);
  for (intptr_t a = 0; a < arguments; ++a) {
    parameters[a] = (size_t)a >= dataArguments;
    uint64_t bytes;
    if (!parameters[a] &&
        memoptTypeGetStaticByteSize(mlirValueGetType(mlirBlockGetArgument(body, a)), &bytes))
      memory->dataBytesPerSample += (double)bytes / irBatch;
  }
  size_t count = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    ++count;
  memory->opCount = count;
  heldCreate(&memory->all, count);
  memory->startCount = startCount;
  memory->starts = memoptAllocateZeroed(startCount + 1, sizeof *memory->starts);
  memory->fromStart = memoptAllocateZeroed(startCount + 1, sizeof *memory->fromStart);
  for (size_t j = 0; j < startCount; ++j) {
    memory->starts[j] = starts[j];
    heldCreate(&memory->fromStart[j], count);
  }
  /* Priced as place-to-shard runs it: normalized, its elementwise chains
   * fused (their intermediate buffers gone); as written when that fails. */
  MlirModule scratch = mlirModuleCreateEmpty(mlirOperationGetLocation(func));
  size_t *original = NULL;
  MlirOperation priced = normalizedCopy(func, scratch, &parameters, &original);
  if (mlirOperationIsNull(priced)) {
    priced = func;
    for (intptr_t a = 0; a < arguments; ++a)
      parameters[a] = (size_t)a >= dataArguments;
    original = memoptReallocArray(original, count + 1, sizeof *original);
    for (size_t k = 0; k < count; ++k)
      original[k] = k;
  }
  bool ok = priceOps(priced, original, parameters, irBatch, memory, error);
  free(original);
  free(parameters);
  mlirModuleDestroy(scratch);
  return ok;
}

double memoptPlaceProgramMemoryPeak(const MemoptPlaceProgramMemory *memory, size_t start,
                                    size_t first, size_t end, double microbatch, double tensor) {
  const MemoptPlaceHeld *held =
      start > 0 && start <= memory->startCount ? &memory->fromStart[start - 1] : &memory->all;
  double peak = 0;
  for (size_t i = first; i < end && i < memory->opCount; ++i) {
    double at = (held->perSampleBytes[0][i] + held->perSampleBytes[1][i] / tensor) * microbatch +
                held->fixedBytes[0][i] + held->fixedBytes[1][i] / tensor;
    peak = at > peak ? at : peak;
  }
  double inputs =
      (held->inputPerSampleBytes[0] + held->inputPerSampleBytes[1] / tensor) * microbatch +
      held->inputFixedBytes[0] + held->inputFixedBytes[1] / tensor;
  return peak + inputs + memory->dataBytesPerSample * microbatch;
}

void memoptPlaceProgramMemoryDestroy(MemoptPlaceProgramMemory *memory) {
  heldDestroy(&memory->all);
  for (size_t j = 0; j < memory->startCount; ++j)
    heldDestroy(&memory->fromStart[j]);
  free(memory->fromStart);
  free(memory->starts);
}

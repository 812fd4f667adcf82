/* chunk-to-scf: lowers chunk.region (AutoChunk) to upstream scf and tensor IR.
 *
 * For a region of extent N (the chunked dimension) and chunk size C:
 *
 *   %dest = tensor.empty() : <full output type>           one per output
 *   %full = scf.for %iv = 0 to N - N mod C step C iter_args(%acc = %dest) {
 *     %s = tensor.extract_slice %input ... along its chunk dim: [%iv, %iv + C)
 *     <body, its block argument replaced by %s (tensor.cast to '?' if needed)>
 *     %acc2 = tensor.insert_slice <yielded> into %acc ... at %iv
 *     scf.yield %acc2
 *   }
 *   %res = scf.for %iv = N - N mod C to N step C iter_args(%acc = %full) {
 *     <the partial last chunk: at most one iteration, none when C divides N>
 *   }
 *
 * The full chunks have static slice types. The last chunk is peeled into the
 * second loop, emitted only when C may not divide N, in one of two ways:
 *
 * - exact remainder, when every slice the body sees or yields is '?' along
 *   the chunk dimension: the body runs on the R = N - %iv remaining rows.
 * - shifted window, when some slice of the body is static (C rows cannot
 *   hold R): the body runs on the last full window [N - C, N) and only its
 *   last R rows are inserted. Rows [N - C, N - R) are computed twice, with
 *   equal results: a dimension may be chunked only when no op of the body
 *   mixes rows along it, which is what makes a chunk.region compute the
 *   unchunked result at all. This needs N >= C, which the verifier checks for
 *   static extents and a cf.assert checks at run time for dynamic ones.
 *
 * When an output has a dynamic extent besides the chunked one, its size is
 * known only from a computed chunk: the first chunk is then computed before
 * the loops (peeled), the destinations take their sizes from its rows, and
 * the full-chunk loop starts at C. (N >= C again, asserted when dynamic.)
 *
 * An output of the type of an input chunked along the same dimension that
 * dies at the region (a residual update z + f(z)) is written into that input:
 * its destination is the input, and every chunk slices the input from the
 * loop's iter_arg, reading its rows before it overwrites them, so One-Shot
 * Bufferize keeps the output in the input's buffer.
 *
 * A combined result (a `combiners` entry other than "concat") is not
 * inserted: its iter_arg starts at the combiner's identity (linalg.fill of a
 * tensor.empty) and each chunk's value is combined into it by a
 * linalg.generic (ChunkCombiners.c), in every loop and in a peeled first
 * chunk alike. A shifted window would combine rows [N - C, N - R) twice, so
 * a region with an "add" or "rescaled-add" result needs an exact remainder.
 *
 * Regions nest: they are lowered innermost first, so an outer body (and its
 * copies) already holds the loops of the inner regions. */
#include "Chunk/Chunk.h"
#include "Chunk/ChunkCombiners.h"
#include "IR/Builders.h"
#include "IR/IR.h"
#include "Support/Support.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/Arith.h"
#include "mlir-c/Dialect/ControlFlow.h"
#include "mlir-c/Dialect/Linalg.h"
#include "mlir-c/Dialect/Math.h"
#include "mlir-c/Dialect/SCF.h"
#include "mlir-c/Dialect/Tensor.h"

#include <stdlib.h>

/* What one computed chunk reads and writes (see the file comment). */
typedef enum ChunkKind {
  FullChunk,        /* C rows from its offset */
  ExactRemainder,   /* the N - offset rows left, through '?' slices */
  ShiftedRemainder, /* the last full window [N - C, N); writes its rows from the offset on */
} ChunkKind;

/* A chunk.region and the facts its lowering needs. */
typedef struct ChunkRegion {
  MlirOperation op;
  MlirAttribute inputDims;
  MlirAttribute outputDims;
  int64_t chunkSize;
  int64_t extent;      /* of the chunked dimension; the dynamic-size marker when unknown */
  ChunkKind lastChunk; /* FullChunk when C divides the static extent */
  /* Some output has a dynamic extent besides the chunked one: only a
   * computed chunk tells its size, so the first chunk is computed before the
   * destinations are created. */
  bool peelFirstChunk;
  /* Per output, the input whose buffer it reuses (see inPlaceInput), or -1. */
  intptr_t *inPlaceInputs;
} ChunkRegion;

static int64_t inputDim(const ChunkRegion *region, intptr_t input) {
  return mlirDenseI64ArrayGetElement(region->inputDims, input);
}

static int64_t outputDim(const ChunkRegion *region, intptr_t output) {
  return mlirDenseI64ArrayGetElement(region->outputDims, output);
}

static intptr_t inputCount(const ChunkRegion *region) {
  return mlirOperationGetNumOperands(region->op);
}

static intptr_t outputCount(const ChunkRegion *region) {
  return mlirOperationGetNumResults(region->op);
}

static MlirAttribute attribute(MlirOperation op, const char *name) {
  return mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name));
}

/* How output `output` is assembled from the chunks. */
static MemoptChunkCombiner combinerOf(const ChunkRegion *region, intptr_t output) {
  return memoptChunkRegionCombiner(region->op, output, NULL);
}

static bool isConcat(const ChunkRegion *region, intptr_t output) {
  return combinerOf(region, output) == MemoptChunkCombineConcat;
}

static MlirType inputType(MlirOperation op, intptr_t input) {
  return mlirValueGetType(mlirOperationGetOperand(op, input));
}

static MlirType outputType(MlirOperation op, intptr_t output) {
  return mlirValueGetType(mlirOperationGetResult(op, output));
}

static bool isStaticAlong(MlirType type, int64_t dim) {
  return !mlirShapedTypeIsDynamicSize(mlirShapedTypeGetDimSize(type, dim));
}

/* True when a yielded slice can be inserted into the output: same element
 * type, and each extent static in both equal (chunk_size along the chunk
 * dimension). (The verifier has checked the rank.) */
static bool sliceFitsOutput(MlirType slice, MlirType output, int64_t dim, int64_t chunkSize) {
  if (!mlirTypeEqual(mlirShapedTypeGetElementType(slice), mlirShapedTypeGetElementType(output)))
    return false;
  for (int64_t d = 0; d < mlirShapedTypeGetRank(slice); ++d) {
    int64_t expected = d == dim ? chunkSize : mlirShapedTypeGetDimSize(output, d);
    if (isStaticAlong(slice, d) && !mlirShapedTypeIsDynamicSize(expected) &&
        mlirShapedTypeGetDimSize(slice, d) != expected)
      return false;
  }
  return true;
}

/* True when the region is the last reader of input `i`: the value is
 * computed by an op (a block argument may be a caller's buffer), the region
 * reads it once, and every other use comes before the region in its block. */
static bool inputDiesAtRegion(const ChunkRegion *region, intptr_t i) {
  MlirValue input = mlirOperationGetOperand(region->op, i);
  if (!mlirValueIsAOpResult(input))
    return false;
  MlirBlock block = mlirOperationGetBlock(region->op);
  for (MlirOpOperand use = mlirValueGetFirstUse(input); !mlirOpOperandIsNull(use);
       use = mlirOpOperandGetNextUse(use)) {
    MlirOperation user = mlirOpOperandGetOwner(use);
    if (mlirOperationEqual(user, region->op)) {
      if (mlirOpOperandGetOperandNumber(use) != (unsigned)i)
        return false;
      continue;
    }
    MlirOperation ancestor = memoptOperationAncestorInBlock(user, block);
    if (mlirOperationIsNull(ancestor) || !mlirOperationIsBeforeInBlock(ancestor, region->op))
      return false;
  }
  return true;
}

/* The input whose buffer output `j` can be written into, or -1: one of the
 * same type, chunked along the same dimension, that dies at the region (a
 * residual update z + f(z)). Chunk k then reads rows k of the input from the
 * loop's destination before overwriting them with rows k of the output, so
 * bufferization keeps the output in the input's buffer instead of allocating
 * a new one. Every chunk must read exactly the rows it writes: no shifted
 * window (which rereads rows already written) and no peeled first chunk. */
static intptr_t inPlaceInput(const ChunkRegion *region, intptr_t j) {
  if (region->lastChunk == ShiftedRemainder || region->peelFirstChunk)
    return -1;
  for (intptr_t i = 0; i < inputCount(region); ++i) {
    bool taken = false;
    for (intptr_t k = 0; k < j; ++k)
      taken |= region->inPlaceInputs[k] == i;
    if (!taken && inputDim(region, i) == outputDim(region, j) &&
        mlirTypeEqual(inputType(region->op, i), outputType(region->op, j)) &&
        inputDiesAtRegion(region, i))
      return i;
  }
  return -1;
}

/* Reads what lowering `op` needs into `region` and checks the limits of the
 * lowering beyond memopt's invariants (which hold: the verifier ran). Emits
 * an error and returns false for each limit a region exceeds. */
static bool analyze(MlirOperation op, ChunkRegion *region) {
  *region = (ChunkRegion){
      .op = op,
      .inputDims = attribute(op, "input_dims"),
      .outputDims = attribute(op, "output_dims"),
      .extent = mlirShapedTypeGetDynamicSize(),
  };
  /* The verifier has checked that chunk_size fits int64_t and is positive. */
  memoptIntegerAttrGetInt64(attribute(op, "chunk_size"), &region->chunkSize);
  intptr_t inputs = inputCount(region);
  intptr_t outputs = outputCount(region);
  /* The verifier has checked that all static chunked extents are equal. */
  for (intptr_t i = 0; i < inputs; ++i)
    if (isStaticAlong(inputType(op, i), inputDim(region, i)))
      region->extent = mlirShapedTypeGetDimSize(inputType(op, i), inputDim(region, i));
  for (intptr_t j = 0; j < outputs; ++j)
    if (isConcat(region, j) && isStaticAlong(outputType(op, j), outputDim(region, j)))
      region->extent = mlirShapedTypeGetDimSize(outputType(op, j), outputDim(region, j));

  bool ok = true;
  if (mlirShapedTypeIsDynamicSize(region->extent) && inputs == 0) {
    memoptEmitOpError(op, "cannot be lowered to scf: the chunked extent is dynamic and there is "
                          "no input to read it from");
    ok = false;
  }
  MlirBlock body = memoptSingleBlock(op);
  MlirOperation yield = mlirBlockGetTerminator(body);
  bool staticSlice = false;
  for (intptr_t i = 0; i < inputs; ++i)
    staticSlice |=
        isStaticAlong(mlirValueGetType(mlirBlockGetArgument(body, i)), inputDim(region, i));
  for (intptr_t j = 0; j < outputs; ++j) {
    MlirType output = outputType(op, j);
    int64_t dim = outputDim(region, j);
    for (int64_t d = 0; d < mlirShapedTypeGetRank(output); ++d)
      region->peelFirstChunk |= d != dim && !isStaticAlong(output, d);
    /* A combined output yields its own type (verified) and fixes no window. */
    if (!isConcat(region, j))
      continue;
    MlirType slice = mlirValueGetType(mlirOperationGetOperand(yield, j));
    if (!sliceFitsOutput(slice, output, dim, region->chunkSize)) {
      memoptEmitOpError(op,
                        "cannot be lowered to scf: yielded slice #%ld does not fit output #%ld: it "
                        "needs the output's element type and extents, with chunk_size (%lld) or "
                        "'?' along dimension %lld",
                        (long)j, (long)j, (long long)region->chunkSize, (long long)dim);
      ok = false;
    }
    staticSlice |= isStaticAlong(slice, dim);
  }
  if (!mlirShapedTypeIsDynamicSize(region->extent) && region->extent % region->chunkSize == 0)
    region->lastChunk = FullChunk;
  else
    region->lastChunk = staticSlice ? ShiftedRemainder : ExactRemainder;
  for (intptr_t j = 0; j < outputs && region->lastChunk == ShiftedRemainder; ++j) {
    MemoptChunkCombiner combiner = combinerOf(region, j);
    if (combiner != MemoptChunkCombineAdd && combiner != MemoptChunkCombineRescaledAdd)
      continue;
    memoptEmitOpError(op,
                      "cannot be lowered to scf: result #%ld is combined with \"%s\", and the "
                      "partial last chunk would run on a shifted window that counts rows twice; "
                      "give the body '?' slices along the chunked dimension",
                      (long)j, memoptChunkCombinerName(combiner));
    ok = false;
  }
  region->inPlaceInputs =
      memoptAllocateZeroed((size_t)(outputs > 0 ? outputs : 1), sizeof *region->inPlaceInputs);
  for (intptr_t j = 0; j < outputs; ++j)
    region->inPlaceInputs[j] = inPlaceInput(region, j);
  return ok;
}

/* Index values shared by the loops of one region, created before it. */
typedef struct Bounds {
  MlirValue zero;
  MlirValue chunkSize;
  MlirValue extent;  /* null when nothing needs it (a static extent that chunk_size
                      * divides, and no output '?' along its chunked dimension) */
  MlirValue fullEnd; /* end of the full chunks: extent - extent mod chunk_size */
} Bounds;

/* Checks at run time that a dynamic extent holds at least one full chunk,
 * which memopt's invariants require and the verifier checks statically. */
static void buildChunkFitsAssert(const MemoptBuilder *builder, const Bounds *bounds) {
  memoptBuildAssert(builder, memoptBuildIndexAtLeast(builder, bounds->extent, bounds->chunkSize),
                    "chunk.region: chunk_size exceeds the dynamic extent");
}

/* True when some output is '?' along its chunked dimension although the
 * extent is known (from an input or another output): its destination is
 * created with the extent as that size. */
static bool someOutputIsDynamicAlongItsChunk(const ChunkRegion *region) {
  for (intptr_t j = 0; j < outputCount(region); ++j)
    if (isConcat(region, j) && !isStaticAlong(outputType(region->op, j), outputDim(region, j)))
      return true;
  return false;
}

static Bounds buildBounds(const ChunkRegion *region, const MemoptBuilder *builder) {
  Bounds bounds = {.zero = memoptBuildIndexConstant(builder, 0),
                   .chunkSize = memoptBuildIndexConstant(builder, region->chunkSize)};
  if (mlirShapedTypeIsDynamicSize(region->extent)) {
    MlirValue input = mlirOperationGetOperand(region->op, 0);
    bounds.extent = memoptBuildTensorDim(builder, input, inputDim(region, 0));
    MlirValue partial =
        memoptBuildIndexArith(builder, "arith.remui", bounds.extent, bounds.chunkSize);
    bounds.fullEnd = memoptBuildIndexArith(builder, "arith.subi", bounds.extent, partial);
    return bounds;
  }
  if (region->lastChunk != FullChunk || someOutputIsDynamicAlongItsChunk(region))
    bounds.extent = memoptBuildIndexConstant(builder, region->extent);
  bounds.fullEnd =
      memoptBuildIndexConstant(builder, region->extent - region->extent % region->chunkSize);
  return bounds;
}

/* The rows one chunk reads from the inputs and writes to the outputs. The
 * body maps `readSize` rows from `readOffset` to as many result rows, of
 * which `writeSize` rows from `keepOffset` are inserted at the chunk's
 * offset. */
typedef struct Window {
  MlirValue readOffset;
  MemoptIndex readSize;
  MlirValue keepOffset; /* null: the result is inserted whole */
  MemoptIndex writeSize;
} Window;

/* Returns the window of a chunk of `kind` at `offset`, building the index
 * arithmetic it needs. */
static Window windowOf(const ChunkRegion *region, const Bounds *bounds, ChunkKind kind,
                       const MemoptBuilder *builder, MlirValue offset) {
  MemoptIndex chunkSize = memoptIndexFixed(region->chunkSize);
  if (kind == FullChunk)
    return (Window){offset, chunkSize, {NULL}, chunkSize};
  bool dynamic = mlirShapedTypeIsDynamicSize(region->extent);
  MemoptIndex remaining =
      dynamic
          ? memoptIndexDynamic(memoptBuildIndexArith(builder, "arith.subi", bounds->extent, offset))
          : memoptIndexFixed(region->extent % region->chunkSize);
  if (kind == ExactRemainder)
    return (Window){offset, remaining, {NULL}, remaining};

  MlirValue start;
  if (dynamic) {
    buildChunkFitsAssert(builder, bounds);
    start = memoptBuildIndexArith(builder, "arith.subi", bounds->extent, bounds->chunkSize);
  } else {
    start = memoptBuildIndexConstant(builder, region->extent - region->chunkSize);
  }
  MlirValue keepOffset = memoptBuildIndexArith(builder, "arith.subi", offset, start);
  return (Window){start, chunkSize, keepOffset, remaining};
}

/* Moves the ops of `body` except its terminator to the builder's point. */
static void moveBodyOps(MlirBlock body, const MemoptBuilder *builder) {
  MlirOperation terminator = mlirBlockGetTerminator(body);
  MlirOperation op = mlirBlockGetFirstOperation(body);
  while (!mlirOperationEqual(op, terminator)) {
    MlirOperation next = mlirOperationGetNextInBlock(op);
    mlirOperationRemoveFromParent(op);
    mlirBlockInsertOwnedOperationBefore(builder->block, builder->before, op);
    op = next;
  }
}

static MlirValue *allocateValues(intptr_t count) {
  return memoptAllocateZeroed((size_t)(count > 0 ? count : 1), sizeof(MlirValue));
}

/* Computes one chunk at the builder's point: slices the inputs for `window`
 * (input i from `sources[i]`: the input, or the destination that reuses its
 * buffer), moves the ops of `body` (the region's or a copy's) there, and
 * fills `rows` with the result rows to write, one per output. Erases the
 * terminator of `body`. */
static void buildChunk(const ChunkRegion *region, const MemoptBuilder *builder, MlirBlock body,
                       const Window *window, const MlirValue *sources, MlirValue *rows) {
  MlirOperation op = region->op;
  for (intptr_t i = 0; i < inputCount(region); ++i) {
    MlirValue argument = mlirBlockGetArgument(body, i);
    MlirValue slice = memoptBuildExtractSliceAlong(builder, sources[i], inputDim(region, i),
                                                   window->readOffset, window->readSize);
    /* A static slice becomes '?' where the body expects it. */
    slice = memoptBuildTensorCastIfNeeded(builder, slice, mlirValueGetType(argument));
    mlirValueReplaceAllUsesOfWith(argument, slice);
  }
  /* The optional trailing argument is the chunk's position along its dimension. */
  if (mlirBlockGetNumArguments(body) > inputCount(region))
    mlirValueReplaceAllUsesOfWith(mlirBlockGetArgument(body, inputCount(region)),
                                  window->readOffset);
  moveBodyOps(body, builder);

  MlirOperation yield = mlirBlockGetTerminator(body);
  for (intptr_t j = 0; j < outputCount(region); ++j) {
    int64_t dim = outputDim(region, j);
    /* A combined output takes the whole value (a max over a shifted window
     * counts its first rows twice, which does not change a maximum). */
    if (!isConcat(region, j)) {
      rows[j] = mlirOperationGetOperand(yield, j);
      continue;
    }
    /* insert_slice needs the exact slice type: the body may yield '?'. */
    MlirType produced = memoptTensorTypeWithExtent(outputType(op, j), dim, window->readSize.fixed);
    rows[j] = memoptBuildTensorCastIfNeeded(builder, mlirOperationGetOperand(yield, j), produced);
    if (!mlirValueIsNull(window->keepOffset))
      rows[j] = memoptBuildExtractSliceAlong(builder, rows[j], dim, window->keepOffset,
                                             window->writeSize);
  }
  memoptEraseOp(yield);
}

/* Writes one chunk's `rows` into the destinations `dests`: inserts a
 * concatenated output's rows at `offset` along its chunk dimension, combines
 * a combined output's value into its accumulator. `updated` (which may be
 * `dests`) receives the new destination tensors. */
static void buildInserts(const ChunkRegion *region, const MemoptBuilder *builder,
                         const MlirValue *rows, const MlirValue *dests, MlirValue offset,
                         MemoptIndex size, MlirValue *updated) {
  intptr_t outputs = outputCount(region);
  MlirValue *old = allocateValues(outputs);
  for (intptr_t j = 0; j < outputs; ++j)
    old[j] = dests[j];
  /* Rescaled sums first: they read the old value of their maximum, which
   * is then updated in place (ChunkCombiners.c). */
  for (intptr_t j = 0; j < outputs; ++j) {
    int64_t by;
    if (memoptChunkRegionCombiner(region->op, j, &by) == MemoptChunkCombineRescaledAdd)
      updated[j] = memoptBuildRescaledAdd(builder, old[j], rows[j], old[by], rows[by]);
  }
  for (intptr_t j = 0; j < outputs; ++j) {
    MemoptChunkCombiner combiner = combinerOf(region, j);
    if (combiner == MemoptChunkCombineConcat)
      updated[j] =
          memoptBuildInsertSliceAlong(builder, rows[j], old[j], outputDim(region, j), offset, size);
    else if (combiner != MemoptChunkCombineRescaledAdd)
      updated[j] = memoptBuildCombine(builder, combiner, old[j], rows[j]);
  }
  free(old);
}

/* The values the inputs are sliced from: the region's operands (the caller
 * owns the array). */
static MlirValue *inputSources(const ChunkRegion *region) {
  MlirValue *sources = allocateValues(inputCount(region));
  for (intptr_t i = 0; i < inputCount(region); ++i)
    sources[i] = mlirOperationGetOperand(region->op, i);
  return sources;
}

/* Builds, before the region, an scf.for from `lower` to `upper` computing
 * chunks of `kind` into the destinations `inits`, with the ops of `body`
 * moved into it. Returns the loop. */
static MlirOperation buildChunkLoop(const ChunkRegion *region, const Bounds *bounds, ChunkKind kind,
                                    MlirValue lower, MlirValue upper, const MlirValue *inits,
                                    MlirBlock body) {
  intptr_t outputs = outputCount(region);
  MemoptBuilder before = memoptBuilderBefore(region->op);
  MlirOperation loop = memoptBuildFor(&before, lower, upper, bounds->chunkSize, inits, outputs);
  MlirBlock loopBody = memoptSingleBlock(loop);
  MemoptBuilder inside = memoptBuilderAtEnd(loopBody, before.location);
  MlirValue iv = mlirBlockGetArgument(loopBody, 0);
  Window window = windowOf(region, bounds, kind, &inside, iv);

  MlirValue *rows = allocateValues(outputs);
  MlirValue *accumulators = allocateValues(outputs);
  MlirValue *sources = inputSources(region);
  for (intptr_t j = 0; j < outputs; ++j) {
    accumulators[j] = mlirBlockGetArgument(loopBody, 1 + j);
    if (region->inPlaceInputs[j] >= 0)
      sources[region->inPlaceInputs[j]] = accumulators[j];
  }
  buildChunk(region, &inside, body, &window, sources, rows);
  buildInserts(region, &inside, rows, accumulators, iv, window.writeSize, accumulators);
  memoptBuildYield(&inside, "scf.yield", accumulators, outputs);
  free(sources);
  free(rows);
  free(accumulators);
  return loop;
}

/* Creates the destinations: the input an output reuses, the combiner's
 * identity for a combined output, else tensor.empty of the whole output,
 * where a dynamic chunked extent is the region's extent, any other dynamic
 * extent is that of the first chunk's rows `firstRows` (non-null when the
 * region peels it). */
static void buildDestinations(const ChunkRegion *region, const MemoptBuilder *builder,
                              const Bounds *bounds, const MlirValue *firstRows, MlirValue *dests) {
  for (intptr_t j = 0; j < outputCount(region); ++j) {
    if (region->inPlaceInputs[j] >= 0) {
      dests[j] = mlirOperationGetOperand(region->op, region->inPlaceInputs[j]);
      continue;
    }
    MlirType type = outputType(region->op, j);
    intptr_t rank = mlirShapedTypeGetRank(type);
    MlirValue *sizes = allocateValues(rank);
    intptr_t count = 0;
    for (intptr_t d = 0; d < rank; ++d)
      if (!isStaticAlong(type, d))
        sizes[count++] = d == outputDim(region, j) ? bounds->extent
                                                   : memoptBuildTensorDim(builder, firstRows[j], d);
    MemoptChunkCombiner combiner = combinerOf(region, j);
    dests[j] = combiner == MemoptChunkCombineConcat
                   ? memoptBuildTensorEmpty(builder, type, sizes, count)
                   : memoptBuildCombinerInit(builder, combiner, type, sizes, count);
    free(sizes);
  }
}

/* Replaces the region by its loops. */
static void lower(const ChunkRegion *region) {
  MlirOperation op = region->op;
  intptr_t outputs = outputCount(region);
  MemoptBuilder before = memoptBuilderBefore(op);
  Bounds bounds = buildBounds(region, &before);

  /* Every computed chunk but those of the main loop needs its own copy of
   * the body: take them before that loop moves the original away. */
  MlirOperation firstCopy = region->peelFirstChunk ? mlirOperationClone(op) : (MlirOperation){NULL};
  MlirOperation remainderCopy =
      region->lastChunk == FullChunk ? (MlirOperation){NULL} : mlirOperationClone(op);

  MlirValue *results = allocateValues(outputs);
  MlirValue loopStart = bounds.zero;
  if (region->peelFirstChunk) {
    if (mlirShapedTypeIsDynamicSize(region->extent))
      buildChunkFitsAssert(&before, &bounds);
    Window first = windowOf(region, &bounds, FullChunk, &before, bounds.zero);
    MlirValue *rows = allocateValues(outputs);
    MlirValue *sources = inputSources(region);
    buildChunk(region, &before, memoptSingleBlock(firstCopy), &first, sources, rows);
    free(sources);
    mlirOperationDestroy(firstCopy);
    buildDestinations(region, &before, &bounds, rows, results);
    buildInserts(region, &before, rows, results, bounds.zero, first.writeSize, results);
    free(rows);
    loopStart = bounds.chunkSize;
  } else {
    buildDestinations(region, &before, &bounds, NULL, results);
  }

  MlirOperation loop = buildChunkLoop(region, &bounds, FullChunk, loopStart, bounds.fullEnd,
                                      results, memoptSingleBlock(op));
  if (!mlirOperationIsNull(remainderCopy)) {
    for (intptr_t j = 0; j < outputs; ++j)
      results[j] = mlirOperationGetResult(loop, j);
    loop = buildChunkLoop(region, &bounds, region->lastChunk, bounds.fullEnd, bounds.extent,
                          results, memoptSingleBlock(remainderCopy));
    mlirOperationDestroy(remainderCopy);
  }
  for (intptr_t j = 0; j < outputs; ++j)
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, j), mlirOperationGetResult(loop, j));
  memoptEraseOp(op);
  free(results);
}

/* The chunk.region ops under a root, innermost first. */
typedef struct RegionList {
  ChunkRegion *regions;
  size_t count;
  size_t capacity;
} RegionList;

static MlirWalkResult collectChunkRegion(MlirOperation op, void *userData) {
  if (!memoptOperationIsA(op, "chunk.region"))
    return MlirWalkResultAdvance;
  RegionList *list = userData;
  list->regions =
      memoptGrowArray(list->regions, &list->capacity, list->count + 1, sizeof *list->regions);
  list->regions[list->count++] = (ChunkRegion){.op = op};
  return MlirWalkResultAdvance;
}

MlirLogicalResult memoptLowerChunkRegions(MlirOperation root) {
  /* The lowering relies on memopt's invariants; passes since the last
   * check may have changed the IR. */
  if (mlirLogicalResultIsFailure(memoptVerifyOps(root)))
    return mlirLogicalResultFailure();
  /* Post-order visits inner regions before the regions around them. */
  RegionList list = {NULL, 0, 0};
  mlirOperationWalk(root, collectChunkRegion, &list, MlirWalkPostOrder);
  /* Check every region before changing any, so a failure leaves the IR as it was. */
  bool ok = true;
  for (size_t i = 0; i < list.count; ++i)
    ok &= analyze(list.regions[i].op, &list.regions[i]);
  if (ok)
    for (size_t i = 0; i < list.count; ++i)
      lower(&list.regions[i]);
  for (size_t i = 0; i < list.count; ++i)
    free(list.regions[i].inPlaceInputs);
  free(list.regions);
  return ok ? mlirLogicalResultSuccess() : mlirLogicalResultFailure();
}

static MlirLogicalResult runChunkToScf(MlirOperation op, const MemoptPassOptions *options) {
  return memoptLowerChunkRegions(op);
}

static MlirDialectHandle (*const chunkToScfDialects[])(void) = {
    mlirGetDialectHandle__arith__,
    mlirGetDialectHandle__cf__,
    mlirGetDialectHandle__linalg__,
    mlirGetDialectHandle__math__,
    mlirGetDialectHandle__scf__,
    mlirGetDialectHandle__tensor__,
};

const MemoptPassInfo memoptChunkToScfPass = {
    .argument = "chunk-to-scf",
    .summary = "Lower chunk.region to scf.for loops over slices of its inputs and outputs",
    .anchor = "func.func",
    .dependentDialects = chunkToScfDialects,
    .dependentDialectCount = sizeof chunkToScfDialects / sizeof *chunkToScfDialects,
    .run = runChunkToScf,
};

/* Lowering a wrapped model from tensors to the LLVM dialect, in process.
 *
 * The pipeline is upstream's usual lowering of bufferized tensors to LLVM
 * (python-free-docs/harness.md, "How a model is run"), with three additions:
 *   - the TOSA-to-linalg/arith/tensor conversions first, so TOSA models
 *     run as they are (they do nothing to a module without TOSA), and
 *     convert-elementwise-to-linalg, because most arith and math ops on
 *     whole tensors (arith.addf on tensor<3xf32>) do not bufferize;
 *   - symbol-dce, which drops the functions the wrapper made private and
 *     nothing uses (a model's own test driver, for instance);
 *   - convert-math-to-llvm before convert-math-to-libm, not after: the other
 *     order turns math.rsqrt (LayerNorm, RMSNorm) into a call to `rsqrtf`,
 *     which libm does not have; LLVM lowers it, and libm keeps what LLVM
 *     cannot (math.erf, math.tanh);
 *   - `use-aligned-alloc` for finalize-memref-to-llvm: every buffer then comes
 *     from _mlir_memref_to_llvm_aligned_alloc with its exact size (rounded up
 *     to its alignment), where the default path asks malloc for `alignment`
 *     extra bytes per buffer to align by hand. peak_bytes is then the sum of
 *     the live buffers' sizes, which is what memopt's estimators compute.
 * --buffer-deallocation-pipeline and --optimize-allocation-liveness make each
 * buffer die right after its last use, so the peak is not overstated; the
 * deallocation pipeline can leave bufferization.clone ops (for a result that
 * aliases an argument, say), which convert-bufferization-to-memref lowers to
 * an allocation and a copy: counted, as the program makes them.
 *
 * A program that runs on MPI ranks (--ranks) first goes through
 * convert-shard-to-mpi, for MPICH; its mpi ops are hidden from the
 * deallocation passes, which reject them (hideMpiOps). */
#include "Harness.h"

#include "IR/IR.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Pass.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The pipeline in three steps: to buffers, deallocation, to LLVM. With MPI
 * the deallocation step runs with the mpi ops hidden (see hideMpiOps). */
#define HARNESS_BUFFERIZE_STEP                                                                     \
  "func.func(tosa-to-linalg-named, tosa-to-linalg, tosa-to-arith, tosa-to-tensor, "                \
  "convert-elementwise-to-linalg), "                                                               \
  "symbol-dce, "                                                                                   \
  "one-shot-bufferize{bufferize-function-boundaries}"
#define HARNESS_DEALLOCATION_STEP                                                                  \
  "buffer-deallocation-pipeline, "                                                                 \
  "func.func(optimize-allocation-liveness), "                                                      \
  "convert-bufferization-to-memref"
#define HARNESS_LLVM_STEP                                                                          \
  "convert-linalg-to-loops, lower-affine, convert-scf-to-cf, "                                     \
  "expand-strided-metadata, lower-affine, "                                                        \
  "finalize-memref-to-llvm{use-generic-functions use-aligned-alloc}, "                             \
  "convert-math-to-llvm, convert-math-to-libm, convert-to-llvm, "                                  \
  "reconcile-unrealized-casts"

const char *harnessLoweringPipeline(void) {
  return "builtin.module(" HARNESS_BUFFERIZE_STEP ", " HARNESS_DEALLOCATION_STEP
         ", " HARNESS_LLVM_STEP ")";
}

bool harnessRunPipeline(MlirModule module, const char *pipeline, MemoptStringBuffer *error) {
  MlirContext context = mlirModuleGetContext(module);
  MlirPassManager passManager =
      mlirPassManagerCreateOnOperation(context, mlirStringRefCreateFromCString("builtin.module"));
  MemoptStringBuffer parseError = memoptStringBufferCreate();
  MlirLogicalResult parsed =
      mlirParsePassPipeline(mlirPassManagerGetAsOpPassManager(passManager),
                            mlirStringRefCreateFromCString(pipeline), memoptAppendToBuffer, &parseError);
  bool ok = mlirLogicalResultIsSuccess(parsed);
  if (!ok)
    memoptStringBufferAppendFormat(error, "internal error: the pipeline '%s' does not parse: %s",
                                   pipeline, parseError.data);
  else if (mlirLogicalResultIsFailure(
               mlirPassManagerRunOnOp(passManager, mlirModuleGetOperation(module)))) {
    memoptStringBufferAppendFormat(error, "the passes %s failed", pipeline);
    ok = false;
  }
  memoptStringBufferDestroy(&parseError);
  mlirPassManagerDestroy(passManager);
  return ok;
}

/* The deallocation passes reject ops that take a buffer without declaring
 * their memory effects ("ops with unknown memory side effects are not
 * supported"), which every mpi op is. While they run, each mpi op is
 * replaced by a call of an external function of the same
 * type: a call is something they understand (the callee may read and write
 * its arguments, and they stay alive until it returns), so buffers are freed
 * after their last use, the MPI call included. The ops come back after.
 * Meanwhile each waits in a block of its own, outside the module, whose
 * arguments stand for its operands: the passes see no use of a value by an
 * op outside the function. */
typedef struct HiddenOps {
  MlirOperation *ops;   /* the mpi ops */
  MlirBlock *holders;   /* the detached block holding each */
  MlirOperation *calls; /* the call standing in for each */
  MlirOperation *declarations;
  size_t count;
} HiddenOps;

typedef struct MpiSearch {
  MlirOperation *ops;
  size_t count, capacity;
} MpiSearch;

static MlirWalkResult collectMpiOps(MlirOperation op, void *userData) {
  MpiSearch *search = userData;
  if (memoptOperationIsInDialect(op, "mpi")) {
    search->ops = memoptGrowArray(search->ops, &search->capacity, search->count + 1, sizeof *search->ops);
    search->ops[search->count++] = op;
  }
  return MlirWalkResultAdvance;
}

static MlirNamedAttribute namedAttribute(MlirContext context, const char *name, MlirAttribute value) {
  return mlirNamedAttributeGet(mlirIdentifierGet(context, mlirStringRefCreateFromCString(name)), value);
}

static void hideMpiOps(MlirModule module, HiddenOps *hidden) {
  memset(hidden, 0, sizeof *hidden);
  MpiSearch search = {NULL, 0, 0};
  mlirOperationWalk(mlirModuleGetOperation(module), collectMpiOps, &search, MlirWalkPreOrder);
  MlirContext context = mlirModuleGetContext(module);
  MlirBlock moduleBody = mlirModuleGetBody(module);
  hidden->ops = search.ops;
  hidden->count = search.count;
  hidden->holders = memoptAllocateZeroed(search.count + 1, sizeof *hidden->holders);
  hidden->calls = memoptAllocateZeroed(search.count + 1, sizeof *hidden->calls);
  hidden->declarations = memoptAllocateZeroed(search.count + 1, sizeof *hidden->declarations);
  for (size_t k = 0; k < search.count; ++k) {
    MlirOperation op = search.ops[k];
    MlirLocation location = mlirOperationGetLocation(op);
    intptr_t operandCount = mlirOperationGetNumOperands(op), resultCount = mlirOperationGetNumResults(op);
    MlirValue *operands = memoptAllocateZeroed((size_t)operandCount + 1, sizeof *operands);
    MlirType *types = memoptAllocateZeroed((size_t)(operandCount + resultCount) + 1, sizeof *types);
    for (intptr_t i = 0; i < operandCount; ++i) {
      operands[i] = mlirOperationGetOperand(op, i);
      types[i] = mlirValueGetType(operands[i]);
    }
    for (intptr_t i = 0; i < resultCount; ++i)
      types[operandCount + i] = mlirValueGetType(mlirOperationGetResult(op, i));
    MemoptStringBuffer name = memoptStringBufferCreate();
    memoptStringBufferAppendFormat(&name, "memopt_run_hidden_mpi_%zu", k);
    MlirAttribute callee = mlirFlatSymbolRefAttrGet(context, mlirStringRefCreateFromCString(name.data));
    MlirType functionType =
        mlirFunctionTypeGet(context, operandCount, types, resultCount, types + operandCount);

    MlirOperationState declaration =
        mlirOperationStateGet(mlirStringRefCreateFromCString("func.func"), location);
    MlirNamedAttribute declarationAttributes[] = {
        namedAttribute(context, "sym_name",
                       mlirStringAttrGet(context, mlirStringRefCreateFromCString(name.data))),
        namedAttribute(context, "function_type", mlirTypeAttrGet(functionType)),
        namedAttribute(context, "sym_visibility",
                       mlirStringAttrGet(context, mlirStringRefCreateFromCString("private"))),
    };
    mlirOperationStateAddAttributes(&declaration, 3, declarationAttributes);
    MlirRegion empty = mlirRegionCreate();
    mlirOperationStateAddOwnedRegions(&declaration, 1, &empty);
    hidden->declarations[k] = mlirOperationCreate(&declaration);
    mlirBlockAppendOwnedOperation(moduleBody, hidden->declarations[k]);

    MlirOperationState call = mlirOperationStateGet(mlirStringRefCreateFromCString("func.call"), location);
    mlirOperationStateAddOperands(&call, operandCount, operands);
    mlirOperationStateAddResults(&call, resultCount, types + operandCount);
    MlirNamedAttribute calleeAttribute = namedAttribute(context, "callee", callee);
    mlirOperationStateAddAttributes(&call, 1, &calleeAttribute);
    hidden->calls[k] = mlirOperationCreate(&call);
    mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(op), op, hidden->calls[k]);
    for (intptr_t i = 0; i < resultCount; ++i)
      mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, i),
                                    mlirOperationGetResult(hidden->calls[k], i));
    MlirLocation *locations = memoptAllocateZeroed((size_t)operandCount + 1, sizeof *locations);
    for (intptr_t i = 0; i < operandCount; ++i)
      locations[i] = location;
    hidden->holders[k] = mlirBlockCreate(operandCount, types, locations);
    mlirOperationRemoveFromParent(op);
    mlirBlockAppendOwnedOperation(hidden->holders[k], op);
    for (intptr_t i = 0; i < operandCount; ++i)
      mlirOperationSetOperand(op, i, mlirBlockGetArgument(hidden->holders[k], i));
    memoptStringBufferDestroy(&name);
    free(locations);
    free(operands);
    free(types);
  }
}

/* Puts every hidden op back in place of its call, with the call's operands
 * (the passes may have replaced them by equivalent values), and removes the
 * calls and the declarations. */
static void restoreMpiOps(HiddenOps *hidden) {
  for (size_t k = 0; k < hidden->count; ++k) {
    MlirOperation op = hidden->ops[k], call = hidden->calls[k];
    for (intptr_t i = 0; i < mlirOperationGetNumOperands(call); ++i)
      mlirOperationSetOperand(op, i, mlirOperationGetOperand(call, i));
    mlirOperationMoveBefore(op, call);
    mlirBlockDestroy(hidden->holders[k]);
    for (intptr_t i = 0; i < mlirOperationGetNumResults(call); ++i)
      mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(call, i), mlirOperationGetResult(op, i));
    mlirOperationDestroy(call);
    mlirOperationDestroy(hidden->declarations[k]);
  }
  free(hidden->ops);
  free(hidden->holders);
  free(hidden->calls);
  free(hidden->declarations);
  memset(hidden, 0, sizeof *hidden);
}

/* What mlir-runner cannot parse once the program is in the LLVM dialect: the
 * shard grids (declarations, which nothing refers to any more: a stage
 * place-to-shard put on a 1x1 grid has no shard op) and the module's MPI
 * implementation attribute, which convert-shard-to-mpi has read. */
static void stripShardLeftovers(MlirModule module) {
  MlirOperation root = mlirModuleGetOperation(module);
  mlirOperationRemoveAttributeByName(root, mlirStringRefCreateFromCString("dlti.map"));
  MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
  while (!mlirOperationIsNull(op)) {
    MlirOperation next = mlirOperationGetNextInBlock(op);
    if (memoptOperationIsA(op, "shard.grid"))
      mlirOperationDestroy(op);
    op = next;
  }
}

typedef struct LeftoverSearch {
  MlirOperation first; /* the first op outside the LLVM dialect, or null */
} LeftoverSearch;

static MlirWalkResult findLeftover(MlirOperation op, void *userData) {
  LeftoverSearch *search = userData;
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  bool isLLVM = name.length > 5 && memcmp(name.data, "llvm.", 5) == 0;
  bool isModule = mlirStringRefEqual(name, mlirStringRefCreateFromCString("builtin.module"));
  if (isLLVM || isModule)
    return MlirWalkResultAdvance;
  search->first = op;
  return MlirWalkResultInterrupt;
}

bool harnessLower(MlirModule module, bool mpi, MemoptStringBuffer *error) {
  MemoptStringBuffer passes = memoptStringBufferCreate();
  bool ok;
  if (!mpi)
    ok = harnessRunPipeline(module, harnessLoweringPipeline(), &passes);
  else {
    /* convert-shard-to-mpi reads which MPI it targets from the module. */
    MlirContext context = mlirModuleGetContext(module);
    mlirOperationSetAttributeByName(
        mlirModuleGetOperation(module), mlirStringRefCreateFromCString("dlti.map"),
        mlirAttributeParseGet(context, mlirStringRefCreateFromCString(
                                           "#dlti.map<\"MPI:Implementation\" = \"MPICH\">")));
    ok = harnessRunPipeline(module, "builtin.module(convert-shard-to-mpi, " HARNESS_BUFFERIZE_STEP ")",
                            &passes);
    if (ok) {
      HiddenOps hidden;
      hideMpiOps(module, &hidden);
      ok = harnessRunPipeline(module, "builtin.module(" HARNESS_DEALLOCATION_STEP ")", &passes);
      restoreMpiOps(&hidden);
    }
    ok = ok && harnessRunPipeline(module, "builtin.module(" HARNESS_LLVM_STEP ")", &passes);
  }
  if (ok)
    stripShardLeftovers(module);
  if (!ok) {
    bool internal = memoptStartsWith(memoptStringBufferGet(&passes), "internal error");
    memoptStringBufferAppendCString(error, internal ? memoptStringBufferGet(&passes)
                                                    : "lowering to the LLVM dialect failed");
  } else {
    /* mlir-runner would only say that it cannot parse the op; say which op
     * survived, at its source location. */
    LeftoverSearch search = {{NULL}};
    mlirOperationWalk(mlirModuleGetOperation(module), findLeftover, &search, MlirWalkPreOrder);
    if (!mlirOperationIsNull(search.first)) {
      MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(search.first));
      mlirEmitError(mlirOperationGetLocation(search.first),
                    "this op is not lowered to the LLVM dialect by memopt-run's pipeline");
      memoptStringBufferAppendFormat(error, "lowering left '%.*s' unconverted", (int)name.length,
                                     name.data);
      ok = false;
    }
  }
  memoptStringBufferDestroy(&passes);
  return ok;
}

typedef struct FileSink {
  FILE *file;
  bool failed;
} FileSink;

static void writeToFile(MlirStringRef text, void *userData) {
  FileSink *sink = userData;
  if (!sink->failed && text.length && fwrite(text.data, 1, text.length, sink->file) != text.length)
    sink->failed = true;
}

bool harnessWriteOperation(MlirOperation op, const char *path, MemoptStringBuffer *error) {
  /* Streamed rather than built in memory: a lowered model can be large. */
  FileSink sink = {fopen(path, "w"), false};
  if (!sink.file) {
    memoptStringBufferAppendFormat(error, "cannot create '%s': %s", path, strerror(errno));
    return false;
  }
  mlirOperationPrint(op, writeToFile, &sink);
  writeToFile(mlirStringRefCreateFromCString("\n"), &sink);
  if (fclose(sink.file) != 0 || sink.failed) {
    memoptStringBufferAppendFormat(error, "cannot write '%s': %s", path, strerror(errno));
    return false;
  }
  return true;
}

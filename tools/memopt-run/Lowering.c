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
 * an allocation and a copy: counted, as the program makes them. */
#include "Harness.h"

#include "IR/IR.h"

#include "mlir-c/Pass.h"

#include "mlir-c/Diagnostics.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

const char *harnessLoweringPipeline(void) {
  return "builtin.module("
         "func.func(tosa-to-linalg-named, tosa-to-linalg, tosa-to-arith, tosa-to-tensor, "
         "convert-elementwise-to-linalg), "
         "symbol-dce, "
         "one-shot-bufferize{bufferize-function-boundaries}, "
         "buffer-deallocation-pipeline, "
         "func.func(optimize-allocation-liveness), "
         "convert-bufferization-to-memref, "
         "convert-linalg-to-loops, lower-affine, convert-scf-to-cf, "
         "expand-strided-metadata, lower-affine, "
         "finalize-memref-to-llvm{use-generic-functions use-aligned-alloc}, "
         "convert-math-to-llvm, convert-math-to-libm, convert-to-llvm, "
         "reconcile-unrealized-casts)";
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

bool harnessLower(MlirModule module, MemoptStringBuffer *error) {
  MlirContext context = mlirModuleGetContext(module);
  MlirPassManager passManager =
      mlirPassManagerCreateOnOperation(context, mlirStringRefCreateFromCString("builtin.module"));
  MemoptStringBuffer parseError = memoptStringBufferCreate();
  MlirLogicalResult parsed =
      mlirParsePassPipeline(mlirPassManagerGetAsOpPassManager(passManager),
                            mlirStringRefCreateFromCString(harnessLoweringPipeline()),
                            memoptAppendToBuffer, &parseError);
  bool ok = mlirLogicalResultIsSuccess(parsed);
  if (!ok)
    memoptStringBufferAppendFormat(error, "internal error: the lowering pipeline does not parse: %s",
                                   parseError.data);
  else if (mlirLogicalResultIsFailure(
               mlirPassManagerRunOnOp(passManager, mlirModuleGetOperation(module)))) {
    memoptStringBufferAppendCString(error, "lowering to the LLVM dialect failed");
    ok = false;
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
  memoptStringBufferDestroy(&parseError);
  mlirPassManagerDestroy(passManager);
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

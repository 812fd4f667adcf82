/* The memory profile of a function: the buffers one-shot bufferization
 * creates for it, where the buffer-deallocation pipeline and
 * optimize-allocation-liveness free them, and the live bytes at every op.
 *
 * Steps: index the function (FunctionIR.c), state each op's bufferization
 * semantics (BufferizationSemantics.c), decide in-place operands
 * (InPlaceAnalysis.c), then here: give every tensor/memref value a storage
 * (a buffer, an argument, a global), find each buffer's last use through all
 * its aliases, and sum the live bytes per position. Callees are profiled
 * first and summarized for their callers. python-free-docs/analysis.md
 * explains the model and its correspondence to the upstream passes. */
#include "Analysis/MemoryProfile.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/*===------------------------------------------------------------------===*
 * Callee summaries, shared by one top-level analysis
 *===------------------------------------------------------------------===*/

typedef enum CalleeState { CalleeInProgress, CalleeDone } CalleeState;

typedef struct CalleeEntry {
  MlirOperation func;
  CalleeState state;
  IrCalleeSummary summary;
} CalleeEntry;

typedef struct AnalysisContext {
  bool analyzeCallees;
  CalleeEntry *entries;
  size_t count;
  size_t capacity;
} AnalysisContext;

static MemoptMemoryProfile *analyzeFunction(MlirOperation func, AnalysisContext *context,
                                            MemoptStringBuffer *error);

static void summaryDestroy(IrCalleeSummary *summary) {
  free(summary->argumentRead);
  free(summary->argumentWritten);
  free(summary->resultEquivalentArgument);
  free(summary->resultAliasedArgument);
  free(summary->resultIdentityLayout);
  free(summary->resultAlignment);
}

static IrCalleeSummary summaryCopy(const IrCalleeSummary *source) {
  IrCalleeSummary copy = *source;
  copy.argumentRead = memoptAllocateZeroed(source->numArguments, sizeof(bool));
  copy.argumentWritten = memoptAllocateZeroed(source->numArguments, sizeof(bool));
  copy.resultEquivalentArgument = memoptAllocateZeroed(source->numResults, sizeof(size_t));
  copy.resultAliasedArgument = memoptAllocateZeroed(source->numResults, sizeof(size_t));
  copy.resultIdentityLayout = memoptAllocateZeroed(source->numResults, sizeof(bool));
  copy.resultAlignment = memoptAllocateZeroed(source->numResults, sizeof(uint64_t));
  if (source->numArguments) {
    memcpy(copy.argumentRead, source->argumentRead, source->numArguments * sizeof(bool));
    memcpy(copy.argumentWritten, source->argumentWritten, source->numArguments * sizeof(bool));
  }
  if (source->numResults) {
    memcpy(copy.resultEquivalentArgument, source->resultEquivalentArgument,
           source->numResults * sizeof(size_t));
    memcpy(copy.resultAliasedArgument, source->resultAliasedArgument,
           source->numResults * sizeof(size_t));
    memcpy(copy.resultIdentityLayout, source->resultIdentityLayout,
           source->numResults * sizeof(bool));
    memcpy(copy.resultAlignment, source->resultAlignment, source->numResults * sizeof(uint64_t));
  }
  return copy;
}

/* A summary that assumes the worst of every argument: read and written, no
 * result aliasing it (One-Shot's assumption for declarations). */
static IrCalleeSummary summaryConservative(MlirOperation func, MlirType functionType) {
  IrCalleeSummary summary = {.func = func, .external = true};
  summary.numArguments = (size_t)mlirFunctionTypeGetNumInputs(functionType);
  summary.numResults = (size_t)mlirFunctionTypeGetNumResults(functionType);
  summary.argumentRead = memoptAllocateZeroed(summary.numArguments, sizeof(bool));
  summary.argumentWritten = memoptAllocateZeroed(summary.numArguments, sizeof(bool));
  summary.resultEquivalentArgument = memoptAllocateZeroed(summary.numResults, sizeof(size_t));
  summary.resultAliasedArgument = memoptAllocateZeroed(summary.numResults, sizeof(size_t));
  summary.resultIdentityLayout = memoptAllocateZeroed(summary.numResults, sizeof(bool));
  summary.resultAlignment = memoptAllocateZeroed(summary.numResults, sizeof(uint64_t));
  for (size_t i = 0; i < summary.numArguments; ++i)
    summary.argumentRead[i] = summary.argumentWritten[i] = true;
  for (size_t r = 0; r < summary.numResults; ++r) {
    summary.resultEquivalentArgument[r] = MEMOPT_NO_INDEX;
    summary.resultAliasedArgument[r] = MEMOPT_NO_INDEX;
    /* What a callee usually returns: a buffer one-shot-bufferize allocated. */
    summary.resultAlignment[r] = oneShotBufferAlignment;
  }
  return summary;
}

static MlirType functionTypeOf(MlirOperation func) {
  MlirAttribute type =
      mlirOperationGetAttributeByName(func, mlirStringRefCreateFromCString("function_type"));
  return mlirTypeAttrGetValue(type);
}

static bool hasBody(MlirOperation func) {
  return mlirOperationGetNumRegions(func) == 1 &&
         !mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0)));
}

/* The func.func that `call` names in the nearest enclosing symbol table. */
static MlirOperation findCallee(MlirOperation call) {
  MlirAttribute callee =
      mlirOperationGetAttributeByName(call, mlirStringRefCreateFromCString("callee"));
  if (mlirAttributeIsNull(callee) || !mlirAttributeIsAFlatSymbolRef(callee))
    return (MlirOperation){NULL};
  MlirStringRef name = mlirFlatSymbolRefAttrGetValue(callee);
  for (MlirOperation scope = mlirOperationGetParentOperation(call); !mlirOperationIsNull(scope);
       scope = mlirOperationGetParentOperation(scope)) {
    if (mlirOperationGetNumRegions(scope) != 1)
      continue;
    MlirBlock block = mlirRegionGetFirstBlock(mlirOperationGetRegion(scope, 0));
    if (mlirBlockIsNull(block))
      continue;
    for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op);
         op = mlirOperationGetNextInBlock(op)) {
      MlirAttribute symbol =
          mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("sym_name"));
      if (mlirAttributeIsNull(symbol) || !mlirAttributeIsAString(symbol))
        continue;
      MlirStringRef symbolName = mlirStringAttrGetValue(symbol);
      if (symbolName.length == name.length && memcmp(symbolName.data, name.data, name.length) == 0)
        return memoptNameIs(mlirIdentifierStr(mlirOperationGetName(op)), "func.func")
                   ? op
                   : (MlirOperation){NULL};
    }
  }
  return (MlirOperation){NULL};
}

/* Summarizes an analyzed function for its callers: what it does to its
 * arguments (One-Shot's funcOpBbArgReadWriteAnalysis) and which results are
 * its arguments (equivalentFuncArgs / aliasingReturnVals). */
static IrCalleeSummary summarize(MemoptMemoryProfile *profile) {
  IrFunction *ir = &profile->ir;
  MlirType type = functionTypeOf(ir->func);
  IrCalleeSummary summary = summaryConservative(ir->func, type);
  summary.external = false;
  MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(ir->func, 0));
  for (size_t i = 0; i < summary.numArguments; ++i) {
    size_t value = memoptIrFunctionLookupValue(ir, mlirBlockGetArgument(entry, (intptr_t)i));
    summary.argumentRead[i] = value != MEMOPT_NO_INDEX && memoptValueIsRead(ir, value);
    summary.argumentWritten[i] = value != MEMOPT_NO_INDEX && memoptValueIsWritten(ir, value);
  }
  const IrBlock *body = &ir->blocks[profile->bodyBlock];
  size_t terminator = body->numOps ? memoptIrBlockOp(ir, profile->bodyBlock, body->numOps - 1)
                                   : MEMOPT_NO_INDEX;
  if (terminator != MEMOPT_NO_INDEX && ir->ops[terminator].opClass == IrOpReturn) {
    const IrOp *ret = &ir->ops[terminator];
    for (size_t r = 0; r < summary.numResults && r < ret->numOperands; ++r) {
      size_t returned = ir->operands[ret->firstOperand + r].value;
      if (returned == MEMOPT_NO_INDEX)
        continue;
      const Storage *storage = &profile->storage[returned];
      summary.resultIdentityLayout[r] = storage->kind != StorageArgument && storage->layout.identity;
      if (storage->kind == StorageBuffer)
        summary.resultAlignment[r] = profile->buffers[storage->buffer].info.alignment;
      else
        summary.resultAlignment[r] = 0; /* a clone: the allocator's default */
      for (size_t i = 0; i < summary.numArguments; ++i) {
        size_t argument =
            memoptIrFunctionLookupValue(ir, mlirBlockGetArgument(entry, (intptr_t)i));
        if (argument == MEMOPT_NO_INDEX)
          continue;
        if (memoptAliasLeader(ir, returned) == memoptAliasLeader(ir, argument))
          summary.resultAliasedArgument[r] = i;
        if (memoptEquivalenceLeader(ir, returned) == memoptEquivalenceLeader(ir, argument))
          summary.resultEquivalentArgument[r] = i;
      }
    }
  }
  summary.peakBytes = memoptMemoryProfileGetPeakBytes(profile);
  summary.peakAllocatedBytes = profile->peakAllocatedBytes;
  summary.peakHasUnknownSize = false;
  for (size_t p = 0; p < profile->numPositions; ++p)
    summary.peakHasUnknownSize |= profile->unknownSize[p];
  summary.approximate = profile->numNotes || profile->numNotesDropped;
  return summary;
}

typedef struct ResolveState {
  AnalysisContext *context;
  MemoptMemoryProfile *profile;
} ResolveState;

void memoptProfileAddNote(MemoptMemoryProfile *profile, MlirOperation op, const char *format, ...) {
  if (profile->numNotes == maxNotes) {
    ++profile->numNotesDropped;
    return;
  }
  if (!profile->notes)
    profile->notes = memoptAllocateZeroed(maxNotes, sizeof *profile->notes);
  MemoptStringBuffer message = memoptStringBufferCreate();
  va_list args;
  va_start(args, format);
  memoptStringBufferAppendFormatV(&message, format, args);
  va_end(args);
  profile->notes[profile->numNotes++] = (Note){op, memoptStringBufferRelease(&message)};
}

/* Called for each func.call while indexing: profiles the callee (once per
 * top-level analysis) and returns the index of its summary. */
static size_t resolveCallee(MlirOperation call, void *userData) {
  ResolveState *state = userData;
  MemoptMemoryProfile *profile = state->profile;
  AnalysisContext *context = state->context;
  if (!context->analyzeCallees) {
    memoptProfileAddNote(profile, call,
            "callee not analyzed: assumed to read and write its tensor arguments; its own "
            "memory is not included");
    return MEMOPT_NO_INDEX;
  }
  MlirOperation func = findCallee(call);
  IrCalleeSummary summary;
  if (mlirOperationIsNull(func)) {
    memoptProfileAddNote(profile, call, "callee not found: assumed to read and write every tensor argument");
    return MEMOPT_NO_INDEX;
  }
  size_t entry = MEMOPT_NO_INDEX;
  for (size_t i = 0; i < context->count; ++i)
    if (mlirOperationEqual(context->entries[i].func, func))
      entry = i;
  if (entry != MEMOPT_NO_INDEX && context->entries[entry].state == CalleeInProgress) {
    memoptProfileAddNote(profile, call, "recursive call: callee memory not included");
    summary = summaryConservative(func, functionTypeOf(func));
  } else if (entry != MEMOPT_NO_INDEX) {
    summary = summaryCopy(&context->entries[entry].summary);
  } else if (!hasBody(func)) {
    summary = summaryConservative(func, functionTypeOf(func));
  } else {
    context->entries = memoptGrowArray(context->entries, &context->capacity, context->count + 1,
                                       sizeof *context->entries);
    entry = context->count++;
    context->entries[entry] = (CalleeEntry){.func = func, .state = CalleeInProgress};
    MemoptStringBuffer error = memoptStringBufferCreate();
    MemoptMemoryProfile *calleeProfile = analyzeFunction(func, context, &error);
    if (calleeProfile) {
      context->entries[entry].summary = summarize(calleeProfile);
      memoptMemoryProfileDestroy(calleeProfile);
    } else {
      memoptProfileAddNote(profile, call, "callee not analyzed (%s): its memory is not included",
              memoptStringBufferGet(&error));
      context->entries[entry].summary = summaryConservative(func, functionTypeOf(func));
    }
    memoptStringBufferDestroy(&error);
    context->entries[entry].state = CalleeDone;
    summary = summaryCopy(&context->entries[entry].summary);
  }
  if (summary.approximate)
    memoptProfileAddNote(profile, call,
            "the callee's own profile is an approximation (see the remarks on the callee)");
  if (profile->numCallees % 8 == 0) {
    profile->callees =
        memoptReallocArray(profile->callees, profile->numCallees + 8, sizeof *profile->callees);
  }
  profile->callees[profile->numCallees] = summary;
  return profile->numCallees++;
}

/*===------------------------------------------------------------------===*
 * Profile
 *===------------------------------------------------------------------===*/

static bool isFunc(MlirOperation op) {
  return memoptNameIs(mlirIdentifierStr(mlirOperationGetName(op)), "func.func");
}

static MemoptMemoryProfile *analyzeFunction(MlirOperation func, AnalysisContext *context,
                                            MemoptStringBuffer *error) {
  if (mlirOperationIsNull(func) || !isFunc(func)) {
    memoptStringBufferAppendCString(error, "expected a func.func");
    return NULL;
  }
  if (!hasBody(func)) {
    memoptStringBufferAppendCString(error, "the function is a declaration");
    return NULL;
  }
  MemoptMemoryProfile *profile = memoptAllocateZeroed(1, sizeof *profile);
  ResolveState resolve = {context, profile};
  IrFunction *ir = &profile->ir;
  memoptIrFunctionBuild(ir, func, resolveCallee, &resolve, NULL);
  ir->callees = profile->callees;
  if (ir->hasUnstructuredControlFlow) {
    memoptStringBufferAppendCString(error, "regions with several blocks (unstructured control "
                                           "flow) are not modeled");
    memoptMemoryProfileDestroy(profile);
    return NULL;
  }
  profile->bodyBlock = 0;
  memoptBufferizationSemanticsCompute(ir);
  memoptInPlaceAnalysisRun(ir);

  profile->storage = memoptAllocateZeroed(ir->numValues, sizeof *profile->storage);
  profile->operandCopy = memoptAllocateZeroed(ir->numOperands, sizeof *profile->operandCopy);
  profile->operandCopyOmitted = memoptAllocateZeroed(ir->numOperands, sizeof(bool));
  for (size_t i = 0; i < ir->numOperands; ++i)
    profile->operandCopy[i] = MEMOPT_NO_INDEX;
  memoptProfileAssignStorage(profile);
  memoptProfileComputeLastUses(profile);
  profile->bookkeepingBytes = memoptProfileDeallocationBookkeeping(profile);

  profile->blockStats = memoptAllocateZeroed(ir->numBlocks, sizeof *profile->blockStats);
  profile->numPositions = ir->blocks[profile->bodyBlock].numOps;
  profile->liveBytes = memoptAllocateZeroed(profile->numPositions, sizeof(uint64_t));
  profile->allocatedBytes = memoptAllocateZeroed(profile->numPositions, sizeof(uint64_t));
  profile->calleeBytes = memoptAllocateZeroed(profile->numPositions, sizeof(uint64_t));
  profile->unknownSize = memoptAllocateZeroed(profile->numPositions, sizeof(bool));
  /* Nested blocks come after their parent: the reverse order visits every
   * block after all blocks nested in it. */
  for (size_t b = ir->numBlocks; b-- > 0;) {
    bool body = b == profile->bodyBlock;
    memoptProfileComputeBlockStats(profile, b, body ? profile->liveBytes : NULL,
                      body ? profile->allocatedBytes : NULL, body ? profile->calleeBytes : NULL,
                      body ? profile->unknownSize : NULL);
  }
  profile->peakPosition = profile->blockStats[profile->bodyBlock].peakPosition;
  profile->peakAllocatedBytes = profile->blockStats[profile->bodyBlock].peakAllocatedBytes;
  profile->internalOfPublic = memoptAllocateZeroed(profile->numBuffers + 1, sizeof(size_t));
  profile->publicOfInternal = memoptAllocateZeroed(profile->numBuffers + 1, sizeof(size_t));
  for (size_t b = 0; b < profile->numBuffers; ++b) {
    profile->publicOfInternal[b] = MEMOPT_NO_INDEX;
    if (profile->buffers[b].dropped)
      continue;
    profile->publicOfInternal[b] = profile->numPublicBuffers;
    profile->internalOfPublic[profile->numPublicBuffers++] = b;
  }
  return profile;
}

MemoptMemoryProfile *memoptMemoryProfileCreate(MlirOperation func, bool analyzeCallees,
                                               MemoptStringBuffer *error) {
  AnalysisContext context = {analyzeCallees, NULL, 0, 0};
  /* The function itself is "in progress": a call back to it is recursion. */
  context.entries = memoptAllocateZeroed(8, sizeof *context.entries);
  context.capacity = 8;
  context.entries[context.count++] = (CalleeEntry){.func = func, .state = CalleeInProgress};
  MemoptMemoryProfile *profile = analyzeFunction(func, &context, error);
  for (size_t i = 0; i < context.count; ++i)
    if (context.entries[i].state == CalleeDone)
      summaryDestroy(&context.entries[i].summary);
  free(context.entries);
  return profile;
}

void memoptMemoryProfileDestroy(MemoptMemoryProfile *profile) {
  if (!profile)
    return;
  for (size_t i = 0; i < profile->numCallees; ++i)
    summaryDestroy(&profile->callees[i]);
  free(profile->callees);
  for (size_t i = 0; i < profile->numNotes; ++i)
    free(profile->notes[i].message);
  free(profile->notes);
  free(profile->storage);
  free(profile->operandCopy);
  free(profile->operandCopyOmitted);
  free(profile->buffers);
  free(profile->blockStats);
  free(profile->liveBytes);
  free(profile->allocatedBytes);
  free(profile->calleeBytes);
  free(profile->unknownSize);
  free(profile->internalOfPublic);
  free(profile->publicOfInternal);
  memoptIrFunctionDestroy(&profile->ir);
  free(profile);
}

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
#include "Analysis/BufferizationModel.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdlib.h>
#include <string.h>

/* One-shot-bufferize gives its allocations its default `buffer-alignment`. */
enum { oneShotBufferAlignment = 64 };

/* finalize-memref-to-llvm{use-aligned-alloc} aligns a memref.alloc without
 * an alignment attribute to its element size rounded up to a power of two,
 * and to at least this (its kMinAlignedAllocAlignment). */
enum { minimumAlignedAllocAlignment = 16 };

/* Notes per function beyond which only their number is kept. */
enum { maxNotes = 64 };

typedef enum StorageKind { StorageNone, StorageArgument, StorageGlobal, StorageBuffer } StorageKind;

/* Where the contents of one tensor or memref value live. */
typedef struct Storage {
  StorageKind kind;
  size_t buffer; /* StorageBuffer */
  IrLayout layout;
} Storage;

typedef struct Buffer {
  MemoptBufferInfo info;
  size_t block;        /* the block whose positions the buffer lives at */
  size_t countsFrom;   /* first position whose live bytes include it */
  bool droppable;      /* tensor.empty: erased by bufferization when unused */
  bool dropped;
  bool unknownOrigin;  /* a call result: the deallocation pipeline cannot tell what it aliases */
  bool freeAtBlockEnd; /* its dealloc cannot move up (region results) */
  size_t numUses;
} Buffer;

typedef struct Note {
  MlirOperation op;
  char *message;
} Note;

typedef struct BlockStats {
  uint64_t peakBytes;
  uint64_t peakAllocatedBytes;
  bool peakUnknown;
  size_t peakPosition;
} BlockStats;

struct MemoptMemoryProfile {
  IrFunction ir;
  Storage *storage;        /* per IrValue */
  size_t *operandCopy;     /* per IrOperand: the copy bufferization makes, or MEMOPT_NO_INDEX */
  bool *operandCopyOmitted; /* the copy is allocated but not filled from the operand */
  Buffer *buffers;
  size_t numBuffers;
  size_t buffersCapacity;
  IrCalleeSummary *callees;
  size_t numCallees;
  BlockStats *blockStats;
  size_t bodyBlock;
  size_t numPositions;
  uint64_t *liveBytes;
  uint64_t *allocatedBytes;
  uint64_t *calleeBytes;
  bool *unknownSize;
  size_t peakPosition;
  uint64_t peakAllocatedBytes;
  uint64_t bookkeepingBytes; /* the deallocation pipeline's alias-check arrays at the end */
  Note *notes;
  size_t numNotes;
  size_t numNotesDropped;
  /* Buffers are numbered without the dropped ones: public <-> internal
   * indices, computed once (passes query buffers in loops). */
  size_t numPublicBuffers;
  size_t *internalOfPublic; /* per public index */
  size_t *publicOfInternal; /* per internal index; MEMOPT_NO_INDEX when dropped */
};

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

static bool storageSame(const Storage *a, const Storage *b) {
  if (a->kind != b->kind)
    return false;
  return a->kind != StorageBuffer || a->buffer == b->buffer;
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

static void addNote(MemoptMemoryProfile *profile, MlirOperation op, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static void addNote(MemoptMemoryProfile *profile, MlirOperation op, const char *format, ...) {
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
    addNote(profile, call,
            "callee not analyzed: assumed to read and write its tensor arguments; its own "
            "memory is not included");
    return MEMOPT_NO_INDEX;
  }
  MlirOperation func = findCallee(call);
  IrCalleeSummary summary;
  if (mlirOperationIsNull(func)) {
    addNote(profile, call, "callee not found: assumed to read and write every tensor argument");
    return MEMOPT_NO_INDEX;
  }
  size_t entry = MEMOPT_NO_INDEX;
  for (size_t i = 0; i < context->count; ++i)
    if (mlirOperationEqual(context->entries[i].func, func))
      entry = i;
  if (entry != MEMOPT_NO_INDEX && context->entries[entry].state == CalleeInProgress) {
    addNote(profile, call, "recursive call: callee memory not included");
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
      addNote(profile, call, "callee not analyzed (%s): its memory is not included",
              memoptStringBufferGet(&error));
      context->entries[entry].summary = summaryConservative(func, functionTypeOf(func));
    }
    memoptStringBufferDestroy(&error);
    context->entries[entry].state = CalleeDone;
    summary = summaryCopy(&context->entries[entry].summary);
  }
  if (summary.approximate)
    addNote(profile, call,
            "the callee's own profile is an approximation (see the remarks on the callee)");
  if (profile->numCallees % 8 == 0) {
    profile->callees =
        memoptReallocArray(profile->callees, profile->numCallees + 8, sizeof *profile->callees);
  }
  profile->callees[profile->numCallees] = summary;
  return profile->numCallees++;
}

/*===------------------------------------------------------------------===*
 * Buffers and storage
 *===------------------------------------------------------------------===*/

/* The alignment a buffer of `type` gets in the lowered program: `requested`
 * (an alignment attribute), else finalize-memref-to-llvm's default. */
static uint64_t effectiveAlignment(MlirType type, uint64_t requested) {
  if (requested)
    return requested;
  uint64_t element = 0;
  if (mlirTypeIsAShaped(type))
    memoptTypeGetElementByteSize(mlirShapedTypeGetElementType(type), &element);
  uint64_t alignment = 1;
  while (alignment < element)
    alignment *= 2;
  return alignment > minimumAlignedAllocAlignment ? alignment : minimumAlignedAllocAlignment;
}

/* What aligned_alloc is asked for: the size rounded up to the alignment. */
static uint64_t allocatedBytes(const MemoptBufferInfo *info) {
  return (info->bytes + info->alignment - 1) / info->alignment * info->alignment;
}

static uint64_t roundUp(uint64_t bytes, uint64_t alignment);

/* `alignment` is the one bufferization gives the buffer, 0 for none. */
static size_t newBuffer(MemoptMemoryProfile *profile, MemoptBufferKind kind, MlirValue value,
                        size_t op, MlirType sizedType, uint64_t alignment) {
  profile->buffers = memoptGrowArray(profile->buffers, &profile->buffersCapacity,
                                     profile->numBuffers + 1, sizeof *profile->buffers);
  const IrOp *info = &profile->ir.ops[op];
  Buffer *buffer = &profile->buffers[profile->numBuffers];
  memset(buffer, 0, sizeof *buffer);
  buffer->info.kind = kind;
  buffer->info.value = value;
  buffer->info.op = info->op;
  buffer->info.sizeKnown = memoptTypeGetStaticByteSize(sizedType, &buffer->info.bytes);
  if (!buffer->info.sizeKnown)
    buffer->info.bytes = 0;
  buffer->info.alignment = effectiveAlignment(sizedType, alignment);
  buffer->info.firstPosition = info->position;
  buffer->info.lastPosition = info->position;
  buffer->info.nested = info->block != profile->bodyBlock;
  buffer->block = info->block;
  buffer->countsFrom = info->position;
  return profile->numBuffers++;
}

static Storage bufferStorage(size_t buffer, IrLayout layout) {
  return (Storage){StorageBuffer, buffer, layout};
}

static Storage noStorage(void) { return (Storage){StorageNone, MEMOPT_NO_INDEX, {0}}; }

/* The storage an op sees for `operand`: the copy bufferization made of it,
 * or the storage of its value. */
static Storage operandStorage(const MemoptMemoryProfile *profile, size_t operand) {
  const IrOperand *info = &profile->ir.operands[operand];
  if (profile->operandCopy[operand] != MEMOPT_NO_INDEX)
    return bufferStorage(profile->operandCopy[operand],
                         memoptLayoutIdentity(profile->ir.values[info->value].type));
  if (info->value == MEMOPT_NO_INDEX)
    return noStorage();
  return profile->storage[info->value];
}

static void setStorage(MemoptMemoryProfile *profile, size_t value, Storage storage) {
  if (value != MEMOPT_NO_INDEX)
    profile->storage[value] = storage;
}

/* One-Shot's canOmitTensorCopy: the copy of an out-of-place operand need not
 * be filled when the operand's contents are undefined (tensor.empty), when
 * the op overwrites it without reading, or when nothing reads it. */
static bool canOmitCopy(MemoptMemoryProfile *profile, size_t operand) {
  IrFunction *ir = &profile->ir;
  const IrOperandSemantics *semantics = &ir->operands[operand].semantics;
  if (memoptOperandHasUndefinedContents(ir, operand))
    return true;
  if (semantics->write && !semantics->read)
    return true;
  if (!semantics->read) {
    size_t alias = semantics->aliasResult == MEMOPT_NO_INDEX
                       ? MEMOPT_NO_INDEX
                       : memoptIrResultValue(ir, ir->operands[operand].op, semantics->aliasResult);
    return alias == MEMOPT_NO_INDEX || !memoptValueIsRead(ir, alias);
  }
  return false;
}

/* Copies bufferization inserts before `op` for operands it could not
 * bufferize in place (TensorCopyInsertion); an operand that only creates a
 * view gets its result copied instead (handled with the results). */
static void insertOperandCopies(MemoptMemoryProfile *profile, size_t op) {
  IrFunction *ir = &profile->ir;
  const IrOp *info = &ir->ops[op];
  for (size_t k = 0; k < info->numOperands; ++k) {
    size_t operand = info->firstOperand + k;
    const IrOperand *operandInfo = &ir->operands[operand];
    if (operandInfo->value == MEMOPT_NO_INDEX || !ir->values[operandInfo->value].isTensor ||
        operandInfo->inPlace)
      continue;
    const IrOperandSemantics *semantics = &operandInfo->semantics;
    if (!semantics->read && !semantics->write && semantics->aliasResult != MEMOPT_NO_INDEX)
      continue;
    const IrValue *value = &ir->values[operandInfo->value];
    profile->operandCopy[operand] = newBuffer(profile, MemoptBufferCopy, value->value, op,
                                              value->type, oneShotBufferAlignment);
    profile->operandCopyOmitted[operand] = canOmitCopy(profile, operand);
  }
}

static IrLayout argumentLayout(MlirType type) {
  if (mlirTypeIsAMemRef(type))
    return memoptLayoutOfMemRefType(type);
  return memoptLayoutDynamic(mlirShapedTypeHasRank(type) ? (size_t)mlirShapedTypeGetRank(type) : 0);
}

static void newResultBuffer(MemoptMemoryProfile *profile, size_t op, size_t value,
                            MemoptBufferKind kind, uint64_t alignment) {
  const IrValue *info = &profile->ir.values[value];
  size_t buffer = newBuffer(profile, kind, info->value, op, info->type, alignment);
  setStorage(profile, value, bufferStorage(buffer, memoptLayoutIdentity(info->type)));
}

static uint64_t memrefAllocAlignment(MlirOperation op) {
  MlirAttribute alignment =
      mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("alignment"));
  if (mlirAttributeIsNull(alignment) || !mlirAttributeIsAInteger(alignment))
    return 0;
  return (uint64_t)mlirIntegerAttrGetValueInt(alignment);
}

static void assignView(MemoptMemoryProfile *profile, size_t op) {
  IrFunction *ir = &profile->ir;
  const IrOp *info = &ir->ops[op];
  size_t result = memoptIrResultValue(ir, op, 0);
  if (result == MEMOPT_NO_INDEX)
    return;
  const IrOperand *source = &ir->operands[info->firstOperand];
  if (source->value == MEMOPT_NO_INDEX) {
    setStorage(profile, result, noStorage());
    return;
  }
  if (!source->inPlace) {
    /* Out of place: bufferization copies the view's result right after it. */
    newResultBuffer(profile, op, result, MemoptBufferCopy, oneShotBufferAlignment);
    return;
  }
  Storage storage = profile->storage[source->value];
  MlirType sourceType = ir->values[source->value].type;
  MlirType resultType = ir->values[result].type;
  if (memoptNameIs(info->name, "tensor.extract_slice")) {
    storage.layout = memoptLayoutOfSlice(storage.layout, info->op);
  } else if (memoptNameIs(info->name, "tensor.expand_shape")) {
    storage.layout = memoptLayoutOfExpand(storage.layout, info->op);
  } else if (memoptNameIs(info->name, "tensor.collapse_shape")) {
    bool collapsible;
    storage.layout = memoptLayoutOfCollapse(storage.layout, info->op, &collapsible);
    if (!collapsible) {
      /* memref.collapse_shape cannot view a buffer whose strides are not
       * provably contiguous: bufferization copies the source first. */
      size_t copy = newBuffer(profile, MemoptBufferCopy, ir->values[result].value, op, sourceType,
                              oneShotBufferAlignment);
      storage = bufferStorage(copy, memoptLayoutIdentity(resultType));
    }
  } else if (memoptNameIs(info->name, "tensor.reshape")) {
    /* memref.reshape needs the identity layout; otherwise a copy is made. */
    if (!memoptLayoutIsIdentity(storage.layout, sourceType)) {
      size_t copy = newBuffer(profile, MemoptBufferCopy, ir->values[result].value, op, sourceType,
                              oneShotBufferAlignment);
      storage.kind = StorageBuffer;
      storage.buffer = copy;
    }
    storage.layout = memoptLayoutIdentity(resultType);
  } else if (storage.layout.rank != (mlirShapedTypeHasRank(resultType)
                                         ? (size_t)mlirShapedTypeGetRank(resultType)
                                         : 0)) {
    storage.layout = memoptLayoutDynamic(
        mlirShapedTypeHasRank(resultType) ? (size_t)mlirShapedTypeGetRank(resultType) : 0);
  }
  setStorage(profile, result, storage);
}

/* Storage of the results of `op`, before its regions are visited. */
static void assignResults(MemoptMemoryProfile *profile, size_t op) {
  IrFunction *ir = &profile->ir;
  const IrOp *info = &ir->ops[op];
  size_t numResults = (size_t)mlirOperationGetNumResults(info->op);
  switch (info->opClass) {
  case IrOpDestination:
  case IrOpElementwise:
  case IrOpFor:
  case IrOpToBuffer: {
    for (size_t k = 0; k < info->numOperands; ++k) {
      size_t operand = info->firstOperand + k;
      size_t aliasResult = ir->operands[operand].semantics.aliasResult;
      if (aliasResult == MEMOPT_NO_INDEX || ir->operands[operand].value == MEMOPT_NO_INDEX)
        continue;
      Storage storage = operandStorage(profile, operand);
      setStorage(profile, memoptIrResultValue(ir, op, aliasResult), storage);
      if (info->opClass == IrOpFor && info->numBlocks) {
        /* The iter_arg (after the induction variable) holds the same buffer. */
        MlirBlock body = ir->blocks[info->firstBlock].block;
        setStorage(profile,
                   memoptIrFunctionLookupValue(
                       ir, mlirBlockGetArgument(body, (intptr_t)(aliasResult + 1))),
                   storage);
      }
    }
    if (info->opClass == IrOpToBuffer) {
      Storage storage = operandStorage(profile, info->firstOperand);
      size_t result = memoptIrResultValue(ir, op, 0);
      if (result != MEMOPT_NO_INDEX) {
        MlirType resultType = ir->values[result].type;
        if (storage.kind != StorageNone && !memoptLayoutCastsTo(storage.layout, resultType)) {
          /* The buffer cannot be cast to the declared memref type without a
           * runtime check: bufferization copies it (castOrReallocMemRefValue). */
          size_t copy = newBuffer(profile, MemoptBufferCopy, ir->values[result].value, op,
                                  resultType, oneShotBufferAlignment);
          storage = bufferStorage(copy, memoptLayoutIdentity(resultType));
        }
        storage.layout = memoptLayoutOfMemRefType(resultType);
        setStorage(profile, result, storage);
      }
    }
    if (info->opClass == IrOpElementwise && memoptResultIsAllocation(ir, op, 0)) {
      size_t result = memoptIrResultValue(ir, op, 0);
      if (result != MEMOPT_NO_INDEX)
        newResultBuffer(profile, op, result, MemoptBufferAllocation, oneShotBufferAlignment);
    }
    return;
  }
  case IrOpAllocation:
    for (size_t r = 0; r < numResults; ++r) {
      size_t result = memoptIrResultValue(ir, op, r);
      if (result == MEMOPT_NO_INDEX)
        continue;
      newResultBuffer(profile, op, result, MemoptBufferAllocation, oneShotBufferAlignment);
      Buffer *buffer = &profile->buffers[profile->storage[result].buffer];
      buffer->droppable = memoptNameIs(info->name, "tensor.empty") ||
                          (memoptNameIs(info->name, "bufferization.alloc_tensor") &&
                           !memoptValueIsDefinition(ir, result));
    }
    return;
  case IrOpView:
    assignView(profile, op);
    return;
  case IrOpSelect: {
    size_t result = memoptIrResultValue(ir, op, 0);
    Storage whenTrue = operandStorage(profile, info->firstOperand + 1);
    Storage whenFalse = operandStorage(profile, info->firstOperand + 2);
    if (!storageSame(&whenTrue, &whenFalse))
      addNote(profile, info->op,
              "select between different buffers: counted as the first one");
    setStorage(profile, result, whenTrue);
    return;
  }
  case IrOpConstant:
  case IrOpMemRefGlobal:
    for (size_t r = 0; r < numResults; ++r) {
      size_t result = memoptIrResultValue(ir, op, r);
      if (result != MEMOPT_NO_INDEX)
        setStorage(profile, result,
                   (Storage){StorageGlobal, MEMOPT_NO_INDEX,
                             memoptLayoutIdentity(ir->values[result].type)});
    }
    return;
  case IrOpCall: {
    const IrCalleeSummary *callee =
        info->callee == MEMOPT_NO_INDEX ? NULL : &profile->callees[info->callee];
    for (size_t r = 0; r < numResults; ++r) {
      size_t result = memoptIrResultValue(ir, op, r);
      if (result == MEMOPT_NO_INDEX)
        continue;
      const IrValue *value = &ir->values[result];
      uint64_t alignment = oneShotBufferAlignment;
      if (callee && r < callee->numResults)
        alignment = callee->resultAlignment[r];
      size_t buffer =
          newBuffer(profile, MemoptBufferCallResult, value->value, op, value->type, alignment);
      /* The callee allocated it while running: its peak includes it. */
      profile->buffers[buffer].countsFrom = ir->ops[op].position + 1;
      profile->buffers[buffer].unknownOrigin = true;
      bool identity = callee && r < callee->numResults && callee->resultIdentityLayout[r];
      setStorage(profile, result,
                 bufferStorage(buffer, identity ? memoptLayoutIdentity(value->type)
                                                : argumentLayout(value->type)));
    }
    return;
  }
  case IrOpToTensor: {
    size_t result = memoptIrResultValue(ir, op, 0);
    Storage storage = operandStorage(profile, info->firstOperand);
    if (result != MEMOPT_NO_INDEX) {
      MlirType memrefType = mlirValueGetType(mlirOperationGetOperand(info->op, 0));
      storage.layout = memoptLayoutOfMemRefType(memrefType);
      setStorage(profile, result, storage);
    }
    return;
  }
  case IrOpMemRefAlloc:
    for (size_t r = 0; r < numResults; ++r) {
      size_t result = memoptIrResultValue(ir, op, r);
      if (result != MEMOPT_NO_INDEX)
        newResultBuffer(profile, op, result, MemoptBufferMemRefAlloc,
                        memrefAllocAlignment(info->op));
    }
    return;
  case IrOpMemRefView: {
    size_t result = memoptIrResultValue(ir, op, 0);
    Storage storage = operandStorage(profile, info->firstOperand);
    if (result != MEMOPT_NO_INDEX) {
      storage.layout = memoptLayoutOfMemRefType(ir->values[result].type);
      setStorage(profile, result, storage);
    }
    return;
  }
  case IrOpUnknown:
    addNote(profile, info->op, "'%.*s' has no bufferization model: its results count as new buffers",
            (int)info->name.length, info->name.data);
    for (size_t r = 0; r < numResults; ++r) {
      size_t result = memoptIrResultValue(ir, op, r);
      if (result != MEMOPT_NO_INDEX && ir->values[result].isTensor)
        newResultBuffer(profile, op, result, MemoptBufferUnmodeled, oneShotBufferAlignment);
    }
    return;
  default:
    /* Other ops with memref results view their first memref operand
     * (extract_strided_metadata, ...); memref.alloca lives on the stack. */
    for (size_t r = 0; r < numResults; ++r) {
      size_t result = memoptIrResultValue(ir, op, r);
      if (result == MEMOPT_NO_INDEX)
        continue;
      Storage storage = noStorage();
      if (!memoptNameIs(info->name, "memref.alloca"))
        for (size_t k = 0; k < info->numOperands; ++k)
          if (ir->operands[info->firstOperand + k].value != MEMOPT_NO_INDEX) {
            storage = operandStorage(profile, info->firstOperand + k);
            break;
          }
      storage.layout = argumentLayout(ir->values[result].type);
      setStorage(profile, result, storage);
    }
    return;
  }
}

/* The yield at the end of block `block`, or MEMOPT_NO_INDEX. */
static size_t blockYield(const IrFunction *ir, size_t block) {
  const IrBlock *info = &ir->blocks[block];
  if (!info->numOps)
    return MEMOPT_NO_INDEX;
  size_t last = memoptIrBlockOp(ir, block, info->numOps - 1);
  return ir->ops[last].opClass == IrOpYield ? last : MEMOPT_NO_INDEX;
}

/* Storage of region results, once the regions have been visited. */
static void finishRegionOp(MemoptMemoryProfile *profile, size_t op) {
  IrFunction *ir = &profile->ir;
  const IrOp *info = &ir->ops[op];
  size_t numResults = (size_t)mlirOperationGetNumResults(info->op);
  if (info->opClass == IrOpIf) {
    for (size_t r = 0; r < numResults; ++r) {
      size_t result = memoptIrResultValue(ir, op, r);
      if (result == MEMOPT_NO_INDEX)
        continue;
      Storage first = noStorage();
      bool same = true;
      bool any = false;
      uint64_t alignment = 0;
      for (size_t b = info->firstBlock; b < info->firstBlock + info->numBlocks; ++b) {
        size_t yield = blockYield(ir, b);
        if (yield == MEMOPT_NO_INDEX || r >= ir->ops[yield].numOperands)
          continue;
        Storage yielded = operandStorage(profile, ir->ops[yield].firstOperand + r);
        /* The result is one of the yielded buffers: it keeps their alignment. */
        if (yielded.kind == StorageBuffer &&
            profile->buffers[yielded.buffer].info.alignment > alignment)
          alignment = profile->buffers[yielded.buffer].info.alignment;
        if (!any)
          first = yielded;
        else if (!storageSame(&first, &yielded))
          same = false;
        any = true;
      }
      if (same && any) {
        setStorage(profile, result, first);
        continue;
      }
      /* Each branch yields its own buffer: after the op the result holds one
       * of them, freed only at the end of the block (its deallocation is
       * conditional, so optimize-allocation-liveness cannot move it). */
      const IrValue *value = &ir->values[result];
      size_t buffer =
          newBuffer(profile, MemoptBufferRegionResult, value->value, op, value->type, alignment);
      profile->buffers[buffer].countsFrom = info->position + 1;
      profile->buffers[buffer].freeAtBlockEnd = true;
      for (size_t b = info->firstBlock; b < info->firstBlock + info->numBlocks; ++b) {
        size_t yield = blockYield(ir, b);
        if (yield == MEMOPT_NO_INDEX || r >= ir->ops[yield].numOperands)
          continue;
        Storage yielded = operandStorage(profile, ir->ops[yield].firstOperand + r);
        if (yielded.kind == StorageBuffer && profile->buffers[yielded.buffer].block == info->block) {
          profile->buffers[yielded.buffer].freeAtBlockEnd = true;
          addNote(profile, info->op,
                  "a branch yields a buffer from outside: both are counted to the end of the block");
        }
      }
      setStorage(profile, result, bufferStorage(buffer, memoptLayoutIdentity(value->type)));
    }
    return;
  }
  if (info->opClass == IrOpFor && info->numBlocks) {
    size_t yield = blockYield(ir, info->firstBlock);
    MlirBlock body = ir->blocks[info->firstBlock].block;
    for (size_t r = 0; r < numResults; ++r) {
      size_t iterArg =
          memoptIrFunctionLookupValue(ir, mlirBlockGetArgument(body, (intptr_t)(r + 1)));
      size_t result = memoptIrResultValue(ir, op, r);
      if (yield == MEMOPT_NO_INDEX || iterArg == MEMOPT_NO_INDEX || result == MEMOPT_NO_INDEX ||
          r >= ir->ops[yield].numOperands)
        continue;
      Storage yielded = operandStorage(profile, ir->ops[yield].firstOperand + r);
      if (storageSame(&yielded, &profile->storage[iterArg]))
        continue;
      addNote(profile, info->op,
              "loop yields a new buffer each iteration: the carried buffers are approximated");
      const IrValue *value = &ir->values[result];
      size_t buffer = newBuffer(profile, MemoptBufferRegionResult, value->value, op, value->type,
                                oneShotBufferAlignment);
      profile->buffers[buffer].countsFrom = info->position + 1;
      profile->buffers[buffer].freeAtBlockEnd = true;
      setStorage(profile, result, bufferStorage(buffer, memoptLayoutIdentity(value->type)));
    }
  }
}

/* Clones the deallocation pipeline returns for buffers the function does
 * not own (arguments, globals); returned buffers stay live. */
static void finishReturn(MemoptMemoryProfile *profile, size_t op) {
  IrFunction *ir = &profile->ir;
  const IrOp *info = &ir->ops[op];
  for (size_t k = 0; k < info->numOperands; ++k) {
    size_t operand = info->firstOperand + k;
    size_t value = ir->operands[operand].value;
    if (value == MEMOPT_NO_INDEX)
      continue;
    Storage storage = operandStorage(profile, operand);
    if (storage.kind == StorageBuffer) {
      profile->buffers[storage.buffer].info.escapes = true;
    } else if (storage.kind == StorageArgument || storage.kind == StorageGlobal) {
      /* bufferization.clone lowers to a plain memref.alloc: no alignment. */
      size_t clone =
          newBuffer(profile, MemoptBufferReturnCopy, ir->values[value].value, op, ir->values[value].type, 0);
      profile->buffers[clone].info.escapes = true;
    }
  }
}

static void assignBlock(MemoptMemoryProfile *profile, size_t block) {
  IrFunction *ir = &profile->ir;
  const IrBlock *info = &ir->blocks[block];
  for (size_t p = 0; p < info->numOps; ++p) {
    size_t op = memoptIrBlockOp(ir, block, p);
    insertOperandCopies(profile, op);
    assignResults(profile, op);
    const IrOp *opInfo = &ir->ops[op];
    for (size_t b = opInfo->firstBlock; b < opInfo->firstBlock + opInfo->numBlocks; ++b)
      assignBlock(profile, b);
    finishRegionOp(profile, op);
    if (opInfo->opClass == IrOpReturn && block == profile->bodyBlock)
      finishReturn(profile, op);
  }
}

/*===------------------------------------------------------------------===*
 * Liveness
 *===------------------------------------------------------------------===*/

/* Canonicalization (inside buffer-deallocation-pipeline) erases a
 * memref.alloc whose only users store into it: nothing reads the buffer. */
static void dropStoreOnlyAllocations(MemoptMemoryProfile *profile) {
  IrFunction *ir = &profile->ir;
  for (size_t b = 0; b < profile->numBuffers; ++b) {
    Buffer *buffer = &profile->buffers[b];
    if (buffer->info.kind != MemoptBufferMemRefAlloc || buffer->info.escapes)
      continue;
    size_t value = memoptIrFunctionLookupValue(ir, buffer->info.value);
    if (value == MEMOPT_NO_INDEX)
      continue;
    const IrValue *info = &ir->values[value];
    bool storeOnly = true;
    for (size_t u = 0; u < info->numUses && storeOnly; ++u) {
      const IrOperand *use = &ir->operands[ir->uses[info->firstUse + u]];
      MlirStringRef user = ir->ops[use->op].name;
      storeOnly = (memoptNameIs(user, "memref.store") && use->number == 1) ||
                  memoptNameIs(user, "memref.dealloc");
    }
    buffer->dropped = storeOnly;
  }
}

/* Each buffer is freed after the last use of any value held in it, as
 * optimize-allocation-liveness moves the dealloc after the last user of the
 * allocation and its views; returned buffers are never freed here. */
static void computeLastUses(MemoptMemoryProfile *profile) {
  IrFunction *ir = &profile->ir;
  for (size_t b = 0; b < profile->numBuffers; ++b) {
    Buffer *buffer = &profile->buffers[b];
    buffer->info.lastPosition = buffer->countsFrom > buffer->info.firstPosition
                                    ? buffer->countsFrom
                                    : buffer->info.firstPosition;
  }
  /* Copies are used by the op they were made for. */
  for (size_t i = 0; i < ir->numOperands; ++i)
    if (profile->operandCopy[i] != MEMOPT_NO_INDEX)
      ++profile->buffers[profile->operandCopy[i]].numUses;
  for (size_t i = 0; i < ir->numOperands; ++i) {
    const IrOperand *operand = &ir->operands[i];
    if (operand->value == MEMOPT_NO_INDEX)
      continue;
    /* An out-of-place operand whose copy is not filled no longer uses its value. */
    if (profile->operandCopy[i] != MEMOPT_NO_INDEX && profile->operandCopyOmitted[i])
      continue;
    const Storage *storage = &profile->storage[operand->value];
    if (storage->kind != StorageBuffer)
      continue;
    Buffer *buffer = &profile->buffers[storage->buffer];
    ++buffer->numUses;
    size_t user = memoptIrAncestorInBlock(ir, operand->op, buffer->block);
    if (user == MEMOPT_NO_INDEX) {
      buffer->freeAtBlockEnd = true;
      continue;
    }
    if (ir->ops[user].position > buffer->info.lastPosition)
      buffer->info.lastPosition = ir->ops[user].position;
  }
  /* A buffer is also used by the op that defines a value in it, and a view
   * result that nothing uses still keeps the view op as a user. */
  for (size_t v = 0; v < ir->numValues; ++v) {
    const Storage *storage = &profile->storage[v];
    const IrValue *value = &ir->values[v];
    if (storage->kind != StorageBuffer || value->definingOp == MEMOPT_NO_INDEX)
      continue;
    Buffer *buffer = &profile->buffers[storage->buffer];
    size_t user = memoptIrAncestorInBlock(ir, value->definingOp, buffer->block);
    if (user != MEMOPT_NO_INDEX && ir->ops[user].position > buffer->info.lastPosition &&
        ir->ops[user].position >= buffer->countsFrom)
      buffer->info.lastPosition = ir->ops[user].position;
  }

  /* A call result's origin is unknown to the deallocation pipeline: it
   * cannot prove the block's other buffers distinct from it, so it frees
   * them all together, with runtime alias checks, at the end of the block. */
  dropStoreOnlyAllocations(profile);

  bool *blockHasUnknownOrigin = memoptAllocateZeroed(ir->numBlocks, sizeof(bool));
  for (size_t b = 0; b < profile->numBuffers; ++b)
    if (profile->buffers[b].unknownOrigin)
      blockHasUnknownOrigin[profile->buffers[b].block] = true;
  for (size_t b = 0; b < profile->numBuffers; ++b) {
    Buffer *buffer = &profile->buffers[b];
    if (buffer->dropped)
      continue;
    if (buffer->droppable && buffer->numUses == 0 && !buffer->info.escapes) {
      buffer->dropped = true; /* tensor.empty without uses is erased */
      continue;
    }
    size_t end = ir->blocks[buffer->block].numOps ? ir->blocks[buffer->block].numOps - 1 : 0;
    if (buffer->info.escapes || buffer->freeAtBlockEnd || blockHasUnknownOrigin[buffer->block])
      buffer->info.lastPosition = end;
  }
  free(blockHasUnknownOrigin);
}

static uint64_t roundUp(uint64_t bytes, uint64_t alignment) {
  return (bytes + alignment - 1) / alignment * alignment;
}

/* When the body frees several buffers of which one has an unknown origin,
 * lower-deallocations checks their aliasing at run time through a helper
 * that takes five arrays: the N pointers (index) and their N ownership flags
 * (i1), the M returned pointers (index), and N plus M result flags (i1),
 * allocated just before the return and freed right after the check. They
 * are heap, not activations: they count in allocated bytes only. */
static uint64_t deallocationBookkeeping(const MemoptMemoryProfile *profile) {
  const IrFunction *ir = &profile->ir;
  size_t freedAtEnd = 0;
  bool unknownOriginFreed = false;
  for (size_t b = 0; b < profile->numBuffers; ++b) {
    const Buffer *buffer = &profile->buffers[b];
    if (buffer->block != profile->bodyBlock || buffer->dropped || buffer->info.escapes)
      continue;
    ++freedAtEnd;
    unknownOriginFreed |= buffer->unknownOrigin;
  }
  if (!unknownOriginFreed || freedAtEnd < 2)
    return 0;
  /* Distinct returned buffers are the retained ones. */
  size_t retained = 0;
  const IrBlock *body = &ir->blocks[profile->bodyBlock];
  size_t terminator = memoptIrBlockOp(ir, profile->bodyBlock, body->numOps - 1);
  const IrOp *ret = &ir->ops[terminator];
  for (size_t k = 0; k < ret->numOperands; ++k) {
    size_t value = ir->operands[ret->firstOperand + k].value;
    bool seen = value == MEMOPT_NO_INDEX;
    for (size_t j = 0; j < k && !seen; ++j)
      seen = ir->operands[ret->firstOperand + j].value == value;
    retained += !seen;
  }
  uint64_t index = 0, flag = 0;
  memoptTypeGetElementByteSize(mlirIndexTypeGet(mlirOperationGetContext(ir->func)), &index);
  memoptTypeGetElementByteSize(mlirIntegerTypeGet(mlirOperationGetContext(ir->func), 1), &flag);
  uint64_t indexAlignment = index > minimumAlignedAllocAlignment ? index : minimumAlignedAllocAlignment;
  uint64_t flagAlignment = minimumAlignedAllocAlignment;
  return roundUp(freedAtEnd * index, indexAlignment) + roundUp(freedAtEnd * flag, flagAlignment) +
         roundUp(retained * index, indexAlignment) + roundUp(freedAtEnd * flag, flagAlignment) +
         roundUp(retained * flag, flagAlignment);
}

/* Live bytes of every position of `block`, its nested blocks already done. */
static void computeBlockStats(MemoptMemoryProfile *profile, size_t block, uint64_t *live,
                              uint64_t *allocated, uint64_t *callee, bool *unknown) {
  IrFunction *ir = &profile->ir;
  size_t numOps = ir->blocks[block].numOps;
  int64_t *unknownDelta = memoptAllocateZeroed(numOps + 1, sizeof *unknownDelta);
  uint64_t *addBytes = memoptAllocateZeroed(numOps + 1, sizeof *addBytes);
  uint64_t *removeBytes = memoptAllocateZeroed(numOps + 1, sizeof *removeBytes);
  uint64_t *addAllocated = memoptAllocateZeroed(numOps + 1, sizeof *addAllocated);
  uint64_t *removeAllocated = memoptAllocateZeroed(numOps + 1, sizeof *removeAllocated);
  for (size_t b = 0; b < profile->numBuffers; ++b) {
    const Buffer *buffer = &profile->buffers[b];
    if (buffer->block != block || buffer->dropped || buffer->countsFrom > buffer->info.lastPosition)
      continue;
    addBytes[buffer->countsFrom] += buffer->info.bytes;
    removeBytes[buffer->info.lastPosition + 1] += buffer->info.bytes;
    uint64_t total = allocatedBytes(&buffer->info);
    addAllocated[buffer->countsFrom] += total;
    removeAllocated[buffer->info.lastPosition + 1] += total;
    if (!buffer->info.sizeKnown) {
      ++unknownDelta[buffer->countsFrom];
      --unknownDelta[buffer->info.lastPosition + 1];
    }
  }
  uint64_t bytes = 0, allocatedRunning = 0;
  int64_t unknownCount = 0;
  BlockStats *stats = &profile->blockStats[block];
  memset(stats, 0, sizeof *stats);
  for (size_t p = 0; p < numOps; ++p) {
    bytes = bytes + addBytes[p] - removeBytes[p];
    allocatedRunning = allocatedRunning + addAllocated[p] - removeAllocated[p];
    unknownCount += unknownDelta[p];
    size_t op = memoptIrBlockOp(ir, block, p);
    const IrOp *info = &ir->ops[op];
    uint64_t innerBytes = 0, innerAllocated = 0, calleePart = 0;
    bool innerUnknown = false;
    for (size_t child = info->firstBlock; child < info->firstBlock + info->numBlocks; ++child) {
      const BlockStats *childStats = &profile->blockStats[child];
      if (childStats->peakBytes > innerBytes)
        innerBytes = childStats->peakBytes;
      if (childStats->peakAllocatedBytes > innerAllocated)
        innerAllocated = childStats->peakAllocatedBytes;
      innerUnknown |= childStats->peakUnknown;
    }
    if (info->opClass == IrOpCall && info->callee != MEMOPT_NO_INDEX) {
      const IrCalleeSummary *summary = &profile->callees[info->callee];
      calleePart = summary->peakBytes;
      innerBytes += summary->peakBytes;
      innerAllocated += summary->peakAllocatedBytes;
      innerUnknown |= summary->peakHasUnknownSize;
    }
    uint64_t liveHere = bytes + innerBytes;
    uint64_t allocatedHere = allocatedRunning + innerAllocated;
    if (block == profile->bodyBlock && p + 1 == numOps)
      allocatedHere += profile->bookkeepingBytes;
    bool unknownHere = unknownCount > 0 || innerUnknown;
    if (live) {
      live[p] = liveHere;
      allocated[p] = allocatedHere;
      callee[p] = calleePart;
      unknown[p] = unknownHere;
    }
    if (p == 0 || liveHere > stats->peakBytes) {
      stats->peakBytes = liveHere;
      stats->peakPosition = p;
    }
    if (allocatedHere > stats->peakAllocatedBytes)
      stats->peakAllocatedBytes = allocatedHere;
    stats->peakUnknown |= unknownHere;
  }
  free(unknownDelta);
  free(addBytes);
  free(removeBytes);
  free(addAllocated);
  free(removeAllocated);
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
  for (size_t v = 0; v < ir->numValues; ++v) {
    const IrValue *value = &ir->values[v];
    if (value->definingOp == MEMOPT_NO_INDEX && value->block == profile->bodyBlock)
      profile->storage[v] = (Storage){StorageArgument, MEMOPT_NO_INDEX, argumentLayout(value->type)};
  }
  assignBlock(profile, profile->bodyBlock);
  computeLastUses(profile);
  profile->bookkeepingBytes = deallocationBookkeeping(profile);

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
    computeBlockStats(profile, b, body ? profile->liveBytes : NULL,
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

MlirOperation memoptMemoryProfileGetFunction(const MemoptMemoryProfile *profile) {
  return profile->ir.func;
}

size_t memoptMemoryProfileGetNumPositions(const MemoptMemoryProfile *profile) {
  return profile->numPositions;
}

MlirOperation memoptMemoryProfileGetPositionOp(const MemoptMemoryProfile *profile, size_t position) {
  return profile->ir.ops[memoptIrBlockOp(&profile->ir, profile->bodyBlock, position)].op;
}

bool memoptMemoryProfileLookupPosition(const MemoptMemoryProfile *profile, MlirOperation op,
                                       size_t *position) {
  size_t index = memoptIrFunctionLookupOp(&profile->ir, op);
  if (index == MEMOPT_NO_INDEX)
    return false;
  size_t top = memoptIrAncestorInBlock(&profile->ir, index, profile->bodyBlock);
  if (top == MEMOPT_NO_INDEX)
    return false;
  *position = profile->ir.ops[top].position;
  return true;
}

uint64_t memoptMemoryProfileGetLiveBytes(const MemoptMemoryProfile *profile, size_t position) {
  return profile->liveBytes[position];
}

uint64_t memoptMemoryProfileGetAllocatedBytes(const MemoptMemoryProfile *profile,
                                              size_t position) {
  return profile->allocatedBytes[position];
}

bool memoptMemoryProfileHasUnknownSize(const MemoptMemoryProfile *profile, size_t position) {
  return profile->unknownSize[position];
}

uint64_t memoptMemoryProfileGetCalleeBytes(const MemoptMemoryProfile *profile, size_t position) {
  return profile->calleeBytes[position];
}

size_t memoptMemoryProfileGetPeakPosition(const MemoptMemoryProfile *profile) {
  return profile->peakPosition;
}

uint64_t memoptMemoryProfileGetPeakBytes(const MemoptMemoryProfile *profile) {
  return profile->numPositions ? profile->liveBytes[profile->peakPosition] : 0;
}

uint64_t memoptMemoryProfileGetPeakAllocatedBytes(const MemoptMemoryProfile *profile) {
  return profile->peakAllocatedBytes;
}

/* Buffers are numbered without the dropped ones. */
size_t memoptMemoryProfileGetNumBuffers(const MemoptMemoryProfile *profile) {
  return profile->numPublicBuffers;
}

static size_t internalBufferIndex(const MemoptMemoryProfile *profile, size_t index) {
  return index < profile->numPublicBuffers ? profile->internalOfPublic[index] : MEMOPT_NO_INDEX;
}

static size_t publicBufferIndex(const MemoptMemoryProfile *profile, size_t internal) {
  return profile->publicOfInternal[internal];
}

MemoptBufferInfo memoptMemoryProfileGetBuffer(const MemoptMemoryProfile *profile, size_t index) {
  return profile->buffers[internalBufferIndex(profile, index)].info;
}

bool memoptMemoryProfileLookupBuffer(const MemoptMemoryProfile *profile, MlirValue value,
                                     size_t *buffer) {
  size_t index = memoptIrFunctionLookupValue(&profile->ir, value);
  if (index == MEMOPT_NO_INDEX)
    return false;
  const Storage *storage = &profile->storage[index];
  if (storage->kind != StorageBuffer || profile->buffers[storage->buffer].dropped)
    return false;
  *buffer = publicBufferIndex(profile, storage->buffer);
  return true;
}

/* Appends the buffers of `block` live at `position`, then, for a region op
 * there, those of its heaviest region at that region's peak. */
static size_t collectLive(const MemoptMemoryProfile *profile, size_t block, size_t position,
                          size_t *out, size_t capacity, size_t count) {
  for (size_t b = 0; b < profile->numBuffers; ++b) {
    const Buffer *buffer = &profile->buffers[b];
    if (buffer->block != block || buffer->dropped || buffer->countsFrom > position ||
        buffer->info.lastPosition < position)
      continue;
    if (count < capacity)
      out[count] = publicBufferIndex(profile, b);
    ++count;
  }
  const IrOp *op = &profile->ir.ops[memoptIrBlockOp(&profile->ir, block, position)];
  size_t heaviest = MEMOPT_NO_INDEX;
  for (size_t child = op->firstBlock; child < op->firstBlock + op->numBlocks; ++child)
    if (heaviest == MEMOPT_NO_INDEX ||
        profile->blockStats[child].peakBytes > profile->blockStats[heaviest].peakBytes)
      heaviest = child;
  if (heaviest != MEMOPT_NO_INDEX && profile->ir.blocks[heaviest].numOps)
    count = collectLive(profile, heaviest, profile->blockStats[heaviest].peakPosition, out,
                        capacity, count);
  return count;
}

size_t memoptMemoryProfileGetLiveBuffers(const MemoptMemoryProfile *profile, size_t position,
                                         size_t *buffers, size_t capacity) {
  return collectLive(profile, profile->bodyBlock, position, buffers, capacity, 0);
}

size_t memoptMemoryProfileGetNumNotes(const MemoptMemoryProfile *profile) {
  return profile->numNotes;
}

size_t memoptMemoryProfileGetNumOmittedNotes(const MemoptMemoryProfile *profile) {
  return profile->numNotesDropped;
}

const char *memoptMemoryProfileGetNote(const MemoptMemoryProfile *profile, size_t index,
                                       MlirOperation *op) {
  if (op)
    *op = profile->notes[index].op;
  return profile->notes[index].message;
}

const char *memoptBufferKindName(MemoptBufferKind kind) {
  switch (kind) {
  case MemoptBufferAllocation:
    return "allocation";
  case MemoptBufferCopy:
    return "copy";
  case MemoptBufferReturnCopy:
    return "return-copy";
  case MemoptBufferCallResult:
    return "call-result";
  case MemoptBufferRegionResult:
    return "region-result";
  case MemoptBufferMemRefAlloc:
    return "memref-alloc";
  case MemoptBufferUnmodeled:
    return "unmodeled";
  }
  return "unknown";
}

/* remat-dynamic: rematerialization decided at run time (BladeDISC++).
 *
 * With dynamic shapes the compiler cannot tell whether evicting a tensor
 * pays off, so it only prepares the choice: for a tensor whose buffer sits
 * unused across a long gap, it inserts `remat.evict` after the last use
 * before the gap and `remat.regenerate` before the next use (and before
 * the ops that only prepare that use's other operands), whose body
 * recomputes the tensor from values still live there; later uses read the
 * regenerated value. The runtime (memopt_rt, after remat-to-runtime) evicts
 * only when memory runs short.
 *
 * Model: the memory profile's positions (top-level ops) and buffers, sizes
 * as polynomials over the shape symbols. A value is a candidate when
 *   - it fills a buffer of its own that the function allocates (not a view,
 *     not returned, not an uninitialized tensor.empty; written into it in
 *     place through a reshape counts), so its memory really goes while it
 *     is evicted;
 *   - between two consecutive uses (or its definition and first use) lie at
 *     least `min-gap` ops before the regenerate that touch its buffer
 *     through no value at all,
 *     and, unless `everywhere`, one of those ops is a candidate peak of the
 *     symbolic live bytes: eviction cannot lower a peak it does not span;
 *   - its producer chain is cheap (at most `max-chain` contractions and
 *     `max-ops` ops) and reads only values available at the next use: arguments,
 *     constants, scalars, and tensors the program reads at or after that
 *     use anyway (so that reading them there neither extends their life nor
 *     makes bufferization copy them);
 *   - its size is surely at least `min-bytes` (polynomial comparison).
 * A chain that reads a value another candidate may have evicted at the
 * regeneration point reads it through a nested remat.regenerate, which
 * recomputes it only when it was evicted; nested regenerates may nest in
 * turn, and a remat.evict at the end of the outermost body makes every
 * input restored inside evictable again. Candidates are taken cheapest to
 * regenerate per byte first (element operations of the chain,
 * memoptSymbolicRecomputeCost, over its bytes, when surely smaller), then
 * largest first; one is refused when some regeneration, its own or an
 * accepted candidate's, would then hold more than `max-nested` nested
 * regenerates (each copies a chain into the IR, and what they restore stays
 * resident while it runs). The runtime weighs each regeneration's cost
 * (remat-to-runtime passes it), so a longer chain (`max-chain`) only
 * widens its choice: an expensive buffer is evicted after the cheap ones.
 * Each evict also states the bytes resident while its regenerate runs
 * (`restore-footprints`), which the runtime weighs against its limit. */
#include "Analysis/Analysis.h"
#include "Remat/SymbolicSizeValue.h"
#include "IR/Builders.h"
#include "IR/IR.h"
#include "Remat/Remat.h"
#include "Remat/SliceNarrowing.h"

#include "mlir-c/AffineExpr.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/Vector.h"

#include <stdlib.h>
#include <string.h>

typedef struct Candidate {
  MlirValue value;
  size_t definition; /* position of the defining op */
  size_t gapStart;   /* last position using it before the gap (evict after) */
  size_t gapEnd;     /* next position using it */
  size_t regenerateAt; /* the regenerate goes before this position, at most gapEnd: the ops
                          from it up to gapEnd only prepare the next use's other operands */
  MemoptPolynomial *bytes;
  MlirOperation *chain; /* producer ops in program order, the value's own last */
  size_t chainCount;
  MlirValue *inputs; /* tensors the chain reads from outside */
  size_t inputCount, inputCapacity;
  MemoptPolynomial *cost; /* element operations of the chain; NULL when unknown */
  MemoptPolynomial *restoreBytes; /* resident, at least, while its regenerate runs; NULL: unknown */
  MlirValue restoreBytesValue;    /* restoreBytes as an index for its evicts; null: unknown */
} Candidate;

typedef struct Context {
  MemoptMemoryProfile *profile;
  MemoptShapeSymbols *symbols;
  size_t positionCount;
  size_t bufferCount;
  bool *bufferUsed; /* [position * bufferCount + buffer]: some value in it is read there */
  bool *isPeak;     /* candidate peak positions */
  long long minGap, maxChain, maxOps, maxNested;
  uint64_t minBytes;
  bool everywhere, restoreFootprints;
} Context;

static void candidateDestroy(Candidate *candidate) {
  memoptPolynomialDestroy(candidate->bytes);
  memoptPolynomialDestroy(candidate->cost);
  memoptPolynomialDestroy(candidate->restoreBytes);
  free(candidate->chain);
  free(candidate->inputs);
}

static bool positionOf(const Context *context, MlirOperation op, size_t *position) {
  return memoptMemoryProfileLookupPosition(context->profile, op, position);
}

/* Calls `visit` on every value an op reads from outside itself: its
 * operands, then the values ops nested in its regions capture, until `visit`
 * returns false. */
static void forEachExternalOperand(MlirOperation op, MemoptValueVisitor visit, void *userData) {
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i)
    if (!visit(mlirOperationGetOperand(op, i), userData))
      return;
  memoptOperationForEachCapture(op, visit, userData);
}

typedef struct MarkUse {
  Context *context;
  size_t position;
} MarkUse;

static bool markBufferUse(MlirValue value, void *userData) {
  MarkUse *mark = userData;
  size_t buffer;
  if (memoptMemoryProfileLookupBuffer(mark->context->profile, value, &buffer))
    mark->context->bufferUsed[mark->position * mark->context->bufferCount + buffer] = true;
  return true;
}

static bool isTensor(MlirValue value) { return mlirTypeIsARankedTensor(mlirValueGetType(value)); }

/* True when the program reads `value` itself at `position` or later. */
static bool readAtOrAfter(const Context *context, MlirValue value, size_t position) {
  for (MlirOpOperand use = mlirValueGetFirstUse(value); !mlirOpOperandIsNull(use);
       use = mlirOpOperandGetNextUse(use)) {
    size_t at;
    if (positionOf(context, mlirOpOperandGetOwner(use), &at) && at >= position)
      return true;
  }
  return false;
}

/* True for the ops whose cost grows with a reduced dimension besides
 * their output: named contractions and convolutions, and generics that read
 * a reduced loop in two inputs. Elementwise ops, fills, views and reductions
 * of one operand (softmax's max and sum, a variance) cost about what their
 * operands weigh, so only contractions count against max-chain. */
static bool isContraction(MlirOperation op) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  static const char *const kinds[] = {"matmul", "matvec", "vecmat", "dot", "conv", "contract"};
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; ++i)
    for (size_t at = 0; at + strlen(kinds[i]) <= name.length; ++at)
      if (strncmp(name.data + at, kinds[i], strlen(kinds[i])) == 0)
        return true;
  if (!memoptOperationIsA(op, "linalg.generic"))
    return false;
  MlirAttribute iterators =
      mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("iterator_types"));
  MlirAttribute maps =
      mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("indexing_maps"));
  if (mlirAttributeIsNull(iterators) || mlirAttributeIsNull(maps) || !mlirAttributeIsAArray(iterators))
    return false;
  intptr_t inputs = mlirOperationGetNumOperands(op) - mlirOperationGetNumResults(op);
  for (intptr_t loop = 0; loop < mlirArrayAttrGetNumElements(iterators); ++loop) {
    if (memoptLinalgIteratorKind(mlirArrayAttrGetElement(iterators, loop)) !=
        MemoptIteratorReduction)
      continue;
    /* A contraction reads the reduced loop in two inputs (a matmul's k). */
    int readers = 0;
    for (intptr_t i = 0; i < inputs && i < mlirArrayAttrGetNumElements(maps); ++i) {
      MlirAffineMap map = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, i));
      for (intptr_t r = 0; r < mlirAffineMapGetNumResults(map); ++r) {
        MlirAffineExpr expr = mlirAffineMapGetResult(map, r);
        if (mlirAffineExprIsADim(expr) && mlirAffineDimExprGetPosition(expr) == loop) {
          ++readers;
          break;
        }
      }
    }
    if (readers >= 2)
      return true;
  }
  return false;
}

/* Builds the producer chain of a candidate for regeneration before
 * `regeneratePosition`. */
typedef struct ChainBuilder {
  const Context *context;
  size_t regeneratePosition;
  Candidate *candidate;
  long long contractions;
  bool failed;
} ChainBuilder;

static bool chainContains(const Candidate *candidate, MlirOperation op) {
  for (size_t i = 0; i < candidate->chainCount; ++i)
    if (mlirOperationEqual(candidate->chain[i], op))
      return true;
  return false;
}

static void addChainOp(ChainBuilder *builder, MlirOperation op);

static bool isNotTensor(MlirValue value, void *userData) {
  (void)userData;
  return !isTensor(value);
}

static bool addChainOperand(MlirValue value, void *userData) {
  ChainBuilder *builder = userData;
  if (builder->failed || !isTensor(value) || mlirValueIsABlockArgument(value))
    return !builder->failed; /* scalars dominate the use; arguments stay live */
  MlirOperation producer = mlirOpResultGetOwner(value);
  if (memoptOperationIsA(producer, "arith.constant"))
    return true;
  if (readAtOrAfter(builder->context, value, builder->regeneratePosition)) {
    Candidate *candidate = builder->candidate;
    for (size_t i = 0; i < candidate->inputCount; ++i)
      if (mlirValueEqual(candidate->inputs[i], value))
        return true;
    candidate->inputs = memoptGrowArray(candidate->inputs, &candidate->inputCapacity,
                                        candidate->inputCount + 1, sizeof *candidate->inputs);
    candidate->inputs[candidate->inputCount++] = value;
    return true;
  }
  addChainOp(builder, producer);
  return !builder->failed;
}

static void addChainOp(ChainBuilder *builder, MlirOperation op) {
  Candidate *candidate = builder->candidate;
  size_t position;
  if (builder->failed || chainContains(candidate, op))
    return;
  if (!memoptOpIsRecomputable(op) || !positionOf(builder->context, op, &position) ||
      !mlirOperationEqual(memoptMemoryProfileGetPositionOp(builder->context->profile, position), op)) {
    builder->failed = true;
    return;
  }
  builder->contractions += isContraction(op);
  if (builder->contractions > builder->context->maxChain ||
      (long long)builder->candidate->chainCount >= builder->context->maxOps) {
    builder->failed = true;
    return;
  }
  /* A clone remaps only its own operands: tensors read from outside by ops
   * nested in its regions would keep pointing at the originals. */
  if (!memoptOperationForEachCapture(op, isNotTensor, NULL)) {
    builder->failed = true;
    return;
  }
  forEachExternalOperand(op, addChainOperand, builder);
  if (!builder->failed)
    candidate->chain[candidate->chainCount++] = op;
}

/* Sorts the chain into program order. */
static void sortChain(const Context *context, Candidate *candidate) {
  for (size_t i = 1; i < candidate->chainCount; ++i) {
    MlirOperation op = candidate->chain[i];
    size_t position;
    positionOf(context, op, &position);
    size_t j = i;
    for (; j > 0; --j) {
      size_t other;
      positionOf(context, candidate->chain[j - 1], &other);
      if (other <= position)
        break;
      candidate->chain[j] = candidate->chain[j - 1];
    }
    candidate->chain[j] = op;
  }
}

/* True when `value` is `root` or a view of it (through view ops only), so
 * that it reads `root`'s buffer and can be rebuilt on a regenerated root. */
static bool isViewOf(MlirValue value, MlirValue root) {
  while (!mlirValueEqual(value, root)) {
    if (!mlirValueIsAOpResult(value))
      return false;
    MlirOperation op = mlirOpResultGetOwner(value);
    if (!memoptOperationIsView(op) || mlirOperationGetNumOperands(op) == 0)
      return false;
    value = mlirOperationGetOperand(op, 0);
  }
  return true;
}

/* True when every read of `buffer` at or after `from` reads `value`, a view
 * of it, or a value defined at or after `from` (a new value written into
 * the buffer once `value` is dead). */
typedef struct LaterReads {
  const Context *context;
  size_t buffer;
  MlirValue value;
  size_t from;
  bool ok;
} LaterReads;

static bool checkLaterRead(MlirValue operand, void *userData) {
  LaterReads *check = userData;
  size_t buffer, defined;
  if (!memoptMemoryProfileLookupBuffer(check->context->profile, operand, &buffer) ||
      buffer != check->buffer || isViewOf(operand, check->value))
    return true;
  if (mlirValueIsABlockArgument(operand) ||
      !positionOf(check->context, mlirOpResultGetOwner(operand), &defined) || defined < check->from)
    check->ok = false;
  return check->ok;
}

static bool laterReadsAreDirect(const Context *context, size_t buffer, MlirValue value,
                                size_t from) {
  LaterReads check = {context, buffer, value, from, true};
  for (size_t p = from; p < context->positionCount && check.ok; ++p)
    if (context->bufferUsed[p * context->bufferCount + buffer])
      forEachExternalOperand(memoptMemoryProfileGetPositionOp(context->profile, p), checkLaterRead,
                             &check);
  return check.ok;
}

/* Builds the producer chain of `candidate` for its regeneration point;
 * false when it is not recomputable. */
static bool buildChain(const Context *context, Candidate *candidate) {
  ChainBuilder builder = {context, candidate->gapEnd, candidate, 0, false};
  addChainOp(&builder, mlirOpResultGetOwner(candidate->value));
  if (builder.failed)
    return false;
  sortChain(context, candidate);
  return true;
}

/* True when every result of `op`, at `position`, is read only by the ops
 * after it up to position `next`. */
static bool onlyPrepares(const Context *context, MlirOperation op, size_t position, size_t next) {
  for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r)
    for (MlirOpOperand read = mlirValueGetFirstUse(mlirOperationGetResult(op, r));
         !mlirOpOperandIsNull(read); read = mlirOpOperandGetNextUse(read)) {
      size_t at;
      if (!positionOf(context, mlirOpOperandGetOwner(read), &at) || at <= position || at > next)
        return false;
    }
  return true;
}

/* Whether an op frees a buffer: the last read of some buffer is at its position. */
typedef struct FreeCheck {
  const Context *context;
  size_t position;
  bool frees;
} FreeCheck;

static bool checkFree(MlirValue value, void *userData) {
  FreeCheck *check = userData;
  size_t buffer;
  if (memoptMemoryProfileLookupBuffer(check->context->profile, value, &buffer) &&
      memoptMemoryProfileGetBuffer(check->context->profile, buffer).lastPosition == check->position)
    check->frees = true;
  return !check->frees;
}

/* The earliest position after `last` from which every op up to `next` is
 * pure, frees no buffer and only prepares the op at `next`'s other operands
 * (its init's empty and fill, a transposed weight): a regenerate for `next`
 * goes before them. Their buffers are then allocated after the
 * regeneration rather than held through it, and as they free nothing, the
 * regenerated value being resident during them adds to no lower point. */
static size_t preparationStart(const Context *context, size_t last, size_t next) {
  size_t start = next;
  for (size_t p = next - 1; p > last; --p) {
    MlirOperation above = memoptMemoryProfileGetPositionOp(context->profile, p);
    if (!mlirOperationEqual(mlirOperationGetNextInBlock(above),
                            memoptMemoryProfileGetPositionOp(context->profile, p + 1)) ||
        mlirOperationGetNumResults(above) == 0 || !memoptOperationIsPure(above) ||
        !onlyPrepares(context, above, p, next))
      break;
    FreeCheck check = {context, p, false};
    forEachExternalOperand(above, checkFree, &check);
    if (check.frees)
      break;
    start = p;
  }
  return start;
}

/* True when `value` fills the whole of the buffer `allocated` allocates: the
 * same type, or (written in place through a reshape, as softmax's scores
 * are allocated 3-D and expanded per head) surely the same bytes. */
static bool fillsBuffer(const Context *context, MlirValue value, MlirValue allocated) {
  if (mlirTypeEqual(mlirValueGetType(allocated), mlirValueGetType(value)))
    return true;
  MemoptPolynomial *valueBytes = memoptShapeSymbolsGetByteSize(context->symbols, value);
  MemoptPolynomial *bufferBytes = memoptShapeSymbolsGetByteSize(context->symbols, allocated);
  bool equal = valueBytes && bufferBytes && memoptPolynomialEqual(valueBytes, bufferBytes);
  memoptPolynomialDestroy(valueBytes);
  memoptPolynomialDestroy(bufferBytes);
  return equal;
}

/* Fills `candidate` for `value`, defined at `definition`; false when it is none. */
static bool findCandidate(const Context *context, MlirValue value, size_t definition,
                          Candidate *candidate) {
  size_t buffer;
  if (!isTensor(value) || !memoptMemoryProfileLookupBuffer(context->profile, value, &buffer))
    return false;
  MemoptBufferInfo info = memoptMemoryProfileGetBuffer(context->profile, buffer);
  MlirOperation producer = mlirOpResultGetOwner(value);
  if (info.kind != MemoptBufferAllocation || info.nested || info.escapes ||
      memoptOperationIsView(producer) || memoptOperationIsA(producer, "tensor.empty") ||
      !fillsBuffer(context, value, info.value))
    return false;
  /* Gaps lie between consecutive reads of the buffer, through any value,
   * up to where the regenerate would go. */
  size_t previous = definition, bestStart = 0, bestEnd = 0, bestRegenerate = 0;
  for (size_t next = definition + 1; next < context->positionCount; ++next) {
    if (!context->bufferUsed[next * context->bufferCount + buffer])
      continue;
    size_t regenerate = (long long)(next - previous - 1) >= context->minGap
                            ? preparationStart(context, previous, next)
                            : next;
    bool spansPeak = context->everywhere;
    for (size_t p = previous + 1; p < regenerate; ++p)
      spansPeak = spansPeak || context->isPeak[p];
    if ((long long)(regenerate - previous - 1) >= context->minGap && spansPeak &&
        regenerate - previous > bestRegenerate - bestStart) {
      bestStart = previous;
      bestEnd = next;
      bestRegenerate = regenerate;
    }
    previous = next;
  }
  if (bestEnd == 0 || !laterReadsAreDirect(context, buffer, value, bestEnd))
    return false;
  MemoptPolynomial *bytes = memoptShapeSymbolsGetByteSize(context->symbols, value);
  MemoptPolynomial *minimum = memoptPolynomialCreateConstant((int64_t)context->minBytes);
  MemoptComparison comparison = bytes ? memoptShapeSymbolsCompare(context->symbols, bytes, minimum)
                                      : MemoptComparisonUnknown;
  memoptPolynomialDestroy(minimum);
  if (comparison != MemoptComparisonGreater && comparison != MemoptComparisonGreaterOrEqual &&
      comparison != MemoptComparisonEqual) {
    memoptPolynomialDestroy(bytes);
    return false;
  }
  *candidate =
      (Candidate){.value = value,
                  .definition = definition,
                  .gapStart = bestStart,
                  .gapEnd = bestEnd,
                  .regenerateAt = bestRegenerate,
                  .bytes = bytes,
                  .chain = memoptAllocateZeroed(context->positionCount, sizeof(MlirOperation))};
  if (!buildChain(context, candidate)) {
    candidateDestroy(candidate);
    return false;
  }
  return true;
}

/* Reads at or after the regeneration point of a value or of its views. */
typedef struct Redirects {
  MlirOperation *owners;
  unsigned *numbers;
  MlirValue *values;
  size_t count, capacity;
} Redirects;

static void redirectsPush(Redirects *redirects, MlirOperation owner, unsigned number,
                          MlirValue value) {
  if (redirects->count == redirects->capacity) {
    redirects->capacity = redirects->capacity ? 2 * redirects->capacity : 8;
    redirects->owners =
        memoptReallocArray(redirects->owners, redirects->capacity, sizeof *redirects->owners);
    redirects->numbers =
        memoptReallocArray(redirects->numbers, redirects->capacity, sizeof *redirects->numbers);
    redirects->values =
        memoptReallocArray(redirects->values, redirects->capacity, sizeof *redirects->values);
  }
  redirects->owners[redirects->count] = owner;
  redirects->numbers[redirects->count] = number;
  redirects->values[redirects->count++] = value;
}

/* Collects the reads of `value` at or after `from`, following views of it
 * taken before `from` (top-level view ops whose source is `value`). */
static void collectLaterReads(const Context *context, MlirValue value, size_t from,
                              Redirects *redirects) {
  for (MlirOpOperand use = mlirValueGetFirstUse(value); !mlirOpOperandIsNull(use);
       use = mlirOpOperandGetNextUse(use)) {
    MlirOperation owner = mlirOpOperandGetOwner(use);
    size_t at;
    if (!positionOf(context, owner, &at))
      continue;
    if (at >= from)
      redirectsPush(redirects, owner, mlirOpOperandGetOperandNumber(use), value);
    else if (memoptOperationIsView(owner) && mlirOpOperandGetOperandNumber(use) == 0 &&
             mlirOperationEqual(memoptMemoryProfileGetPositionOp(context->profile, at), owner))
      for (intptr_t r = 0; r < mlirOperationGetNumResults(owner); ++r)
        collectLaterReads(context, mlirOperationGetResult(owner, r), from, redirects);
  }
}

/* Views of the regenerated value, cloned from the views of the original. */
typedef struct ViewClones {
  MlirValue root, regenerated;
  MlirOperation before; /* where clones go: the first later read */
  MlirOperation *originals, *clones;
  size_t count;
} ViewClones;

/* Returns `value` (the root or a view of it) rebuilt on the regenerated root. */
static MlirValue rebuildView(ViewClones *views, MlirValue value) {
  if (mlirValueEqual(value, views->root))
    return views->regenerated;
  MlirOperation original = mlirOpResultGetOwner(value);
  intptr_t resultNumber = mlirOpResultGetResultNumber(value);
  for (size_t i = 0; i < views->count; ++i)
    if (mlirOperationEqual(views->originals[i], original))
      return mlirOperationGetResult(views->clones[i], resultNumber);
  MlirValue source = rebuildView(views, mlirOperationGetOperand(original, 0));
  MlirOperation clone = mlirOperationClone(original);
  mlirOperationSetOperand(clone, 0, source);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(views->before), views->before, clone);
  views->originals =
      memoptReallocArray(views->originals, views->count + 1, sizeof *views->originals);
  views->clones = memoptReallocArray(views->clones, views->count + 1, sizeof *views->clones);
  views->originals[views->count] = original;
  views->clones[views->count++] = clone;
  return mlirOperationGetResult(clone, resultNumber);
}

/* True when `reader`'s chain, recomputed at `position`, reads `evicted`'s
 * value (or a view of it) while it may be evicted: after its evict and no
 * later than its own regenerate. */
static bool readsWhileEvicted(const Candidate *reader, size_t position, const Candidate *evicted) {
  if (position <= evicted->gapStart || position > evicted->gapEnd)
    return false;
  for (size_t i = 0; i < reader->inputCount; ++i)
    if (isViewOf(reader->inputs[i], evicted->value))
      return true;
  return false;
}

/* Builds the remat.evict of `candidate`, with its restore footprint when known. */
static void buildEvict(const MemoptBuilder *builder, const Candidate *candidate) {
  MlirValue operands[] = {candidate->value, candidate->restoreBytesValue};
  memoptBuildOp(builder, "remat.evict", operands, mlirValueIsNull(operands[1]) ? 1 : 2, NULL, 0,
                NULL, 0);
}

/* What every recomputation inserted for one regeneration point shares. */
typedef struct Regeneration {
  Candidate *const *accepted;
  size_t acceptedCount;
  size_t position; /* the top-level op the regenerated value is read by */
  MlirLocation location;
  bool *restored; /* [accepted index]: a nested regenerate restores it */
} Regeneration;

static MlirOperation buildRegenerate(Regeneration *regeneration, const Candidate *candidate,
                                     bool outermost);

/* The value `value` stands for before the rewrites of accepted candidates:
 * a regenerate's result is its operand (the rewrite of an earlier candidate
 * redirected later reads, the chain ops of later ones included, to it). */
static MlirValue beforeRegeneration(MlirValue value) {
  while (mlirValueIsAOpResult(value) &&
         memoptOperationIsA(mlirOpResultGetOwner(value), "remat.regenerate"))
    value = mlirOperationGetOperand(mlirOpResultGetOwner(value), 0);
  return value;
}

/* Fills `body` with the recomputation of `candidate` at the regeneration
 * point, ending in vector.yield. An input that another candidate may have
 * evicted there is read through a nested remat.regenerate of it, which
 * recomputes it in place only when it was evicted (DTR's evicted
 * neighbourhood, decided at run time, where recomputing it unconditionally
 * would redo a matmul whose result is most likely still resident). At the
 * end of the outermost body, a remat.evict makes each input restored
 * anywhere inside evictable again until its own regenerate. Not earlier: an
 * enclosing or sibling body may still read it, and restoring one input must
 * not evict another already restored. */
static void fillRecomputation(Regeneration *regeneration, const Candidate *candidate,
                              MlirBlock body, bool outermost) {
  ViewClones *nested = memoptAllocateZeroed(regeneration->acceptedCount, sizeof *nested);
  size_t nestedCount = 0;
  for (size_t i = 0; i < regeneration->acceptedCount; ++i) {
    const Candidate *other = regeneration->accepted[i];
    if (other == candidate || !readsWhileEvicted(candidate, regeneration->position, other))
      continue;
    MlirOperation inner = buildRegenerate(regeneration, other, false);
    mlirBlockAppendOwnedOperation(body, inner);
    nested[nestedCount++] =
        (ViewClones){.root = other->value, .regenerated = mlirOperationGetResult(inner, 0)};
    regeneration->restored[i] = true;
  }

  MlirOperation *clones = memoptAllocateZeroed(candidate->chainCount, sizeof *clones);
  for (size_t i = 0; i < candidate->chainCount; ++i) {
    clones[i] = mlirOperationClone(candidate->chain[i]);
    mlirBlockAppendOwnedOperation(body, clones[i]);
    for (intptr_t k = 0; k < mlirOperationGetNumOperands(clones[i]); ++k) {
      MlirValue operand = mlirOperationGetOperand(clones[i], k);
      /* A chain op reading the regenerate of another op of the chain reads
       * that op's clone: reading the regenerated value instead would keep
       * its buffer alive until here, and leave the clone dead. */
      MlirValue original = beforeRegeneration(operand);
      bool internal = false;
      for (size_t j = 0; j < i; ++j)
        for (intptr_t r = 0; r < mlirOperationGetNumResults(candidate->chain[j]); ++r)
          if (mlirValueEqual(original, mlirOperationGetResult(candidate->chain[j], r))) {
            mlirOperationSetOperand(clones[i], k, mlirOperationGetResult(clones[j], r));
            internal = true;
          }
      for (size_t n = 0; n < nestedCount && !internal; ++n)
        if (isViewOf(operand, nested[n].root)) {
          nested[n].before = clones[i];
          mlirOperationSetOperand(clones[i], k, rebuildView(&nested[n], operand));
          break;
        }
    }
  }
  MlirOperation last = candidate->chain[candidate->chainCount - 1];
  MlirValue again = (MlirValue){NULL};
  for (intptr_t r = 0; r < mlirOperationGetNumResults(last); ++r)
    if (mlirValueEqual(mlirOperationGetResult(last, r), candidate->value))
      again = mlirOperationGetResult(clones[candidate->chainCount - 1], r);
  MemoptBuilder atYield = memoptBuilderAtEnd(body, regeneration->location);
  memoptBuildYield(&atYield, "vector.yield", &again, 1);
  /* A slice of a fused projection recomputes its part of it only. */
  memoptNarrowSlicedProducers(body);
  for (size_t n = 0; n < nestedCount; ++n) {
    free(nested[n].originals);
    free(nested[n].clones);
  }
  free(clones);
  free(nested);
  if (!outermost)
    return;
  MemoptBuilder beforeYield = memoptBuilderBefore(mlirBlockGetTerminator(body));
  for (size_t i = 0; i < regeneration->acceptedCount; ++i) {
    const Candidate *restored = regeneration->accepted[i];
    /* At its own regeneration point the value is read next; it stays resident. */
    if (regeneration->restored[i] && regeneration->position < restored->gapEnd)
      buildEvict(&beforeYield, restored);
  }
}

/* Creates (unattached) the remat.regenerate of `candidate` at the
 * regeneration point; `outermost` when it is not nested in another. */
static MlirOperation buildRegenerate(Regeneration *regeneration, const Candidate *candidate,
                                     bool outermost) {
  MlirRegion region = mlirRegionCreate();
  MlirBlock body = mlirBlockCreate(0, NULL, NULL);
  mlirRegionAppendOwnedBlock(region, body);
  fillRecomputation(regeneration, candidate, body, outermost);
  MlirType type = mlirValueGetType(candidate->value);
  MlirOperationState state = mlirOperationStateGet(
      mlirStringRefCreateFromCString("remat.regenerate"), regeneration->location);
  mlirOperationStateAddOperands(&state, 1, &candidate->value);
  mlirOperationStateAddResults(&state, 1, &type);
  mlirOperationStateAddOwnedRegions(&state, 1, &region);
  return mlirOperationCreate(&state);
}

/* True when an accepted candidate other than `candidate` has its evict or
 * regenerate go right before the op at `position`. */
static bool rematOpBefore(const Candidate *candidate, size_t position, Candidate *const *accepted,
                          size_t acceptedCount) {
  for (size_t i = 0; i < acceptedCount; ++i)
    if (accepted[i] != candidate &&
        (accepted[i]->gapEnd == position || accepted[i]->gapStart + 1 == position))
      return true;
  return false;
}

/* The position of the op the regenerate of `candidate` goes before: its
 * regenerateAt, unless an accepted candidate's evict or regenerate goes
 * between that op and the next use. It keeps its place relative to those
 * (whichever is inserted first), so that what each regeneration finds
 * evicted is what the nesting was decided on. */
static size_t regenerationPosition(const Candidate *candidate, Candidate *const *accepted,
                                   size_t acceptedCount) {
  size_t at = candidate->gapEnd;
  if (!rematOpBefore(candidate, at, accepted, acceptedCount))
    while (at > candidate->regenerateAt &&
           !rematOpBefore(candidate, at - 1, accepted, acceptedCount))
      --at;
  return at;
}

/* The bytes resident, at least, while the regenerate of `accepted[index]`
 * runs (`regenerateAt`: the positions of the ops each accepted candidate's
 * regenerate goes before): the buffers live across that point, its own and
 * those its recomputation reads included, except those of other candidates
 * that may be evicted there. The inputs of a nested regeneration count as
 * evictable: they are restored only when the input they rebuild was
 * evicted too. Nothing counted can make room for the restoration, so
 * evicting the candidate to stay under a limit below this only moves the
 * excess to its regenerate. NULL when some size is unknown. */
static MemoptPolynomial *restoreFootprint(const Context *context, Candidate *const *accepted,
                                          size_t acceptedCount, const size_t *regenerateAt,
                                          size_t index) {
  const Candidate *candidate = accepted[index];
  size_t at = regenerateAt[index];
  bool *evictable = memoptAllocateZeroed(context->bufferCount + 1, sizeof(bool));
  for (size_t i = 0; i < acceptedCount; ++i) {
    size_t buffer;
    /* Ties (an evict or regenerate before the same op) count as evictable:
     * the footprint stays a lower bound. */
    if (i != index && !readsWhileEvicted(candidate, candidate->gapEnd, accepted[i]) &&
        accepted[i]->gapStart < at && regenerateAt[i] >= at &&
        memoptMemoryProfileLookupBuffer(context->profile, accepted[i]->value, &buffer))
      evictable[buffer] = true;
  }
  size_t liveCount = memoptMemoryProfileGetLiveBuffers(context->profile, at, NULL, 0);
  size_t *live = memoptAllocateZeroed(liveCount + 1, sizeof *live);
  memoptMemoryProfileGetLiveBuffers(context->profile, at, live, liveCount);
  MemoptPolynomial *total = memoptPolynomialCreateConstant(0);
  for (size_t i = 0; i < liveCount && total; ++i) {
    MemoptBufferInfo buffer = memoptMemoryProfileGetBuffer(context->profile, live[i]);
    /* Buffers the op at `at` allocates come after the regenerate. */
    if (evictable[live[i]] || buffer.nested || buffer.firstPosition >= at)
      continue;
    MemoptPolynomial *bytes = memoptSymbolicBufferBytes(context->symbols, &buffer);
    if (!bytes) {
      memoptPolynomialDestroy(total);
      total = NULL;
      break;
    }
    memoptPolynomialAccumulate(total, bytes, 1);
    memoptPolynomialDestroy(bytes);
  }
  free(live);
  free(evictable);
  return total;
}

/* Builds each accepted candidate's restore footprint as an index for its
 * evicts: at the start of the function when the symbols can be read there
 * (op positions, which the runtime measures distances in, then all shift
 * alike), else right before its evict. */
static void buildRestoreFootprints(const Context *context, MlirBlock body,
                                   Candidate *const *accepted, size_t acceptedCount) {
  MlirOperation first = mlirBlockGetFirstOperation(body);
  MemoptBuilder atStart = memoptBuilderBefore(first);
  MlirValue *symbolValues = memoptAllocateZeroed(
      memoptShapeSymbolsGetNumSymbols(context->symbols) + 1, sizeof *symbolValues);
  for (size_t i = 0; i < acceptedCount; ++i) {
    Candidate *candidate = accepted[i];
    if (!candidate->restoreBytes)
      continue;
    candidate->restoreBytesValue = memoptBuildPolynomialValue(
        &atStart, context->symbols, candidate->restoreBytes, first, symbolValues);
    if (!mlirValueIsNull(candidate->restoreBytesValue))
      continue;
    MlirOperation afterLastUse =
        memoptMemoryProfileGetPositionOp(context->profile, candidate->gapStart + 1);
    MemoptBuilder atEvict = memoptBuilderBefore(afterLastUse);
    candidate->restoreBytesValue = memoptBuildPolynomialValue(
        &atEvict, context->symbols, candidate->restoreBytes, afterLastUse, NULL);
  }
  free(symbolValues);
}

/* Inserts the evict and regenerate ops of `candidate` and redirects later
 * uses; `accepted` are all the candidates made evictable. */
static void rewrite(const Context *context, const Candidate *candidate, Candidate *const *accepted,
                    size_t acceptedCount, size_t regenerateAt) {
  MlirOperation afterLastUse =
      memoptMemoryProfileGetPositionOp(context->profile, candidate->gapStart + 1);
  MlirOperation nextUse = memoptMemoryProfileGetPositionOp(context->profile, candidate->gapEnd);
  MemoptBuilder atEvict = memoptBuilderBefore(afterLastUse);
  atEvict.location = mlirValueIsAOpResult(candidate->value)
                         ? mlirOperationGetLocation(mlirOpResultGetOwner(candidate->value))
                         : atEvict.location;
  buildEvict(&atEvict, candidate);

  /* Collect the reads to redirect (of the value, or of views of it taken
   * before the gap) before the regenerate op adds its own. */
  Redirects redirects = {0};
  collectLaterReads(context, candidate->value, candidate->gapEnd, &redirects);

  Regeneration regeneration = {accepted, acceptedCount, candidate->gapEnd,
                               mlirOperationGetLocation(nextUse),
                               memoptAllocateZeroed(acceptedCount, sizeof(bool))};
  MlirOperation regenerate = buildRegenerate(&regeneration, candidate, true);
  free(regeneration.restored);
  mlirBlockInsertOwnedOperationBefore(
      mlirOperationGetBlock(nextUse),
      memoptMemoryProfileGetPositionOp(context->profile, regenerateAt), regenerate);
  ViewClones views = {.root = candidate->value, .regenerated = mlirOperationGetResult(regenerate, 0), .before = nextUse};
  for (size_t i = 0; i < redirects.count; ++i)
    mlirOperationSetOperand(redirects.owners[i], (intptr_t)redirects.numbers[i],
                            rebuildView(&views, redirects.values[i]));
  free(views.originals);
  free(views.clones);
  free(redirects.owners);
  free(redirects.numbers);
  free(redirects.values);
}

/* True when `a` surely costs less per byte to regenerate than `b`. */
static bool cheaperPerByte(const MemoptShapeSymbols *symbols, const Candidate *a,
                           const Candidate *b) {
  if (!a->cost || !b->cost)
    return false;
  MemoptPolynomial *left = memoptPolynomialMultiply(a->cost, b->bytes);
  MemoptPolynomial *right = memoptPolynomialMultiply(b->cost, a->bytes);
  bool cheaper = memoptShapeSymbolsCompare(symbols, left, right) == MemoptComparisonLess;
  memoptPolynomialDestroy(left);
  memoptPolynomialDestroy(right);
  return cheaper;
}

/* Order of consideration: surely cheaper per byte first, then larger. */
static bool movesAhead(const MemoptShapeSymbols *symbols, const Candidate *moving,
                       const Candidate *ahead) {
  if (cheaperPerByte(symbols, moving, ahead))
    return true;
  if (cheaperPerByte(symbols, ahead, moving))
    return false;
  return memoptShapeSymbolsCompare(symbols, moving->bytes, ahead->bytes) == MemoptComparisonGreater;
}

/* The regenerates nested, at any depth, in the regeneration of `candidate`
 * at `position`, counted until they pass `limit`: each value its chain
 * reads while another candidate of `accepted` may have evicted it is
 * restored by a nested regenerate, whose own chain may read evicted values
 * in turn. Each is a copy of a chain in the IR, and what it restores stays
 * resident until the regeneration ends. */
static long long nestedRegenerates(const Candidate *candidate, size_t position,
                                   Candidate *const *accepted, size_t acceptedCount,
                                   long long limit) {
  long long total = 0;
  for (size_t i = 0; i < acceptedCount && total <= limit; ++i) {
    const Candidate *other = accepted[i];
    if (other != candidate && readsWhileEvicted(candidate, position, other))
      total += 1 + nestedRegenerates(other, position, accepted, acceptedCount, limit - total - 1);
  }
  return total;
}

/* Accepts `candidate` (appending it to `accepted`) unless some regeneration
 * of it or of an accepted candidate would then nest more than max-nested
 * regenerates. */
static bool accept(const Context *context, Candidate *candidate, Candidate **accepted,
                   size_t *acceptedCount) {
  size_t count = *acceptedCount + 1;
  accepted[*acceptedCount] = candidate;
  for (size_t i = 0; i < count; ++i)
    if (nestedRegenerates(accepted[i], accepted[i]->gapEnd, accepted, count, context->maxNested) >
        context->maxNested)
      return false;
  *acceptedCount = count;
  return true;
}

static MlirLogicalResult runRematDynamic(MlirOperation func, const MemoptPassOptions *options) {
  MlirRegion bodyRegion = mlirOperationGetRegion(func, 0);
  MlirBlock entry = mlirRegionGetFirstBlock(bodyRegion);
  if (mlirBlockIsNull(entry) || !mlirBlockIsNull(mlirBlockGetNextInRegion(entry)))
    return mlirLogicalResultSuccess(); /* a declaration, or control flow the profile does not model */
  MemoptShapeSymbols *symbols = memoptPassCreateShapeSymbols(func);
  if (!symbols)
    return mlirLogicalResultFailure();
  MemoptStringBuffer error = memoptStringBufferCreate();
  MemoptMemoryProfile *profile = memoptMemoryProfileCreate(func, false, &error);
  if (!profile) {
    memoptEmitDiagnostic(mlirOperationGetLocation(func), MlirDiagnosticError, error.data);
    memoptStringBufferDestroy(&error);
    memoptShapeSymbolsDestroy(symbols);
    return mlirLogicalResultFailure();
  }
  memoptStringBufferDestroy(&error);

  Context context = {
      .profile = profile,
      .symbols = symbols,
      .positionCount = memoptMemoryProfileGetNumPositions(profile),
      .bufferCount = memoptMemoryProfileGetNumBuffers(profile),
      .minGap = memoptPassOptionsGetInteger(options, "min-gap"),
      .maxChain = memoptPassOptionsGetInteger(options, "max-chain"),
      .maxOps = memoptPassOptionsGetInteger(options, "max-ops"),
      .maxNested = memoptPassOptionsGetInteger(options, "max-nested"),
      .minBytes = (uint64_t)memoptPassOptionsGetInteger(options, "min-bytes"),
      .everywhere = memoptPassOptionsGetBool(options, "everywhere"),
      .restoreFootprints = memoptPassOptionsGetBool(options, "restore-footprints"),
  };
  context.bufferUsed = memoptAllocateZeroed(
      context.positionCount * (context.bufferCount ? context.bufferCount : 1), sizeof(bool));
  context.isPeak = memoptAllocateZeroed(context.positionCount, sizeof(bool));
  for (size_t p = 0; p < context.positionCount; ++p) {
    MarkUse mark = {&context, p};
    forEachExternalOperand(memoptMemoryProfileGetPositionOp(profile, p), markBufferUse, &mark);
  }
  size_t peakCount = memoptSymbolicPeakPositions(profile, symbols, NULL, 0);
  size_t *peaks = memoptAllocateZeroed(peakCount, sizeof *peaks);
  memoptSymbolicPeakPositions(profile, symbols, peaks, peakCount);
  for (size_t i = 0; i < peakCount; ++i)
    context.isPeak[peaks[i]] = true;
  free(peaks);

  Candidate *candidates = memoptAllocateZeroed(context.positionCount * 4, sizeof *candidates);
  size_t candidateCount = 0;
  for (size_t p = 0; p < context.positionCount; ++p) {
    MlirOperation op = memoptMemoryProfileGetPositionOp(profile, p);
    for (intptr_t r = 0; r < mlirOperationGetNumResults(op) && r < 4; ++r)
      if (findCandidate(&context, mlirOperationGetResult(op, r), p, &candidates[candidateCount])) {
        candidates[candidateCount].cost = memoptSymbolicRecomputeCostOfOps(
            symbols, candidates[candidateCount].chain, candidates[candidateCount].chainCount);
        ++candidateCount;
      }
  }

  /* Insertion sort by movesAhead: cheaper per byte first, then larger; a
   * candidate moves only ahead of those it surely beats. */
  for (size_t i = 1; i < candidateCount; ++i) {
    Candidate moving = candidates[i];
    size_t j = i;
    while (j > 0 && movesAhead(symbols, &moving, &candidates[j - 1])) {
      candidates[j] = candidates[j - 1];
      --j;
    }
    candidates[j] = moving;
  }
  Candidate **accepted = memoptAllocateZeroed(candidateCount, sizeof *accepted);
  size_t acceptedCount = 0;
  for (size_t i = 0; i < candidateCount; ++i)
    accept(&context, &candidates[i], accepted, &acceptedCount);

  size_t *regenerateAt = memoptAllocateZeroed(acceptedCount + 1, sizeof *regenerateAt);
  for (size_t i = 0; i < acceptedCount; ++i)
    regenerateAt[i] = regenerationPosition(accepted[i], accepted, acceptedCount);
  for (size_t i = 0; i < acceptedCount && context.restoreFootprints; ++i)
    accepted[i]->restoreBytes =
        restoreFootprint(&context, accepted, acceptedCount, regenerateAt, i);

  MemoptStringBuffer message = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&message, "remat-dynamic: %zu value%s made evictable",
                                 acceptedCount, acceptedCount == 1 ? "" : "s");
  const char *const *names = memoptShapeSymbolsGetNames(symbols);
  size_t symbolCount = memoptShapeSymbolsGetNumSymbols(symbols);
  for (size_t i = 0; i < acceptedCount; ++i) {
    const Candidate *candidate = accepted[i];
    memoptStringBufferAppendFormat(&message, "%s ops %zu..%zu, ", i ? ";" : ":",
                                   candidate->gapStart, candidate->gapEnd);
    memoptPolynomialPrint(candidate->bytes, names, symbolCount, &message);
    memoptStringBufferAppendFormat(&message, " bytes, %zu op%s recomputed", candidate->chainCount,
                                   candidate->chainCount == 1 ? "" : "s");
    size_t nested = 0;
    for (size_t j = 0; j < acceptedCount; ++j)
      nested += j != i && readsWhileEvicted(candidate, candidate->gapEnd, accepted[j]);
    if (nested)
      memoptStringBufferAppendFormat(&message, ", %zu evictable input%s regenerated inside", nested,
                                     nested == 1 ? "" : "s");
    if (candidate->restoreBytes) {
      memoptStringBufferAppendFormat(&message, ", restored beside ");
      memoptPolynomialPrint(candidate->restoreBytes, names, symbolCount, &message);
      memoptStringBufferAppendFormat(&message, " resident bytes");
    }
  }
  buildRestoreFootprints(&context, entry, accepted, acceptedCount);
  for (size_t i = 0; i < acceptedCount; ++i)
    rewrite(&context, accepted[i], accepted, acceptedCount, regenerateAt[i]);
  free(regenerateAt);
  memoptEmitDiagnostic(mlirOperationGetLocation(func), MlirDiagnosticRemark, message.data);
  memoptStringBufferDestroy(&message);

  for (size_t i = 0; i < candidateCount; ++i)
    candidateDestroy(&candidates[i]);
  free(candidates);
  free(accepted);
  free(context.bufferUsed);
  free(context.isPeak);
  memoptMemoryProfileDestroy(profile);
  memoptShapeSymbolsDestroy(symbols);
  return mlirLogicalResultSuccess();
}

static const MemoptPassOptionInfo rematDynamicOptions[] = {
    {"min-gap", MemoptOptionInteger, "4",
     "fewest ops between the last use before a gap and the regenerate", NULL, 1, 1e9},
    {"max-chain", MemoptOptionInteger, "2",
     "most contractions (matmul-like ops) recomputed to regenerate one value", NULL, 0, 64},
    {"max-ops", MemoptOptionInteger, "32", "most ops recomputed to regenerate one value", NULL, 1,
     1000},
    {"max-nested", MemoptOptionInteger, "16",
     "most regenerates nested in one regeneration, at any depth (for its inputs that may be "
     "evicted there)",
     NULL, 0, 1000},
    {"min-bytes", MemoptOptionBytes, "0", "smallest size (surely) worth evicting", NULL, 0, 9e18},
    {"everywhere", MemoptOptionBool, "false",
     "also gaps that span no candidate peak of the symbolic live bytes", NULL, 0, 0},
    {"restore-footprints", MemoptOptionBool, "true",
     "state on each evict the bytes resident while its regenerate runs (the runtime evicts a "
     "buffer whose restoration cannot fit its limit last, and only when that lowers the peak)",
     NULL, 0, 0},
};

static MlirDialectHandle (*const rematDynamicDialects[])(void) = {
    mlirGetDialectHandle__vector__,
};

const MemoptPassInfo memoptRematDynamicPass = {
    .argument = "remat-dynamic",
    .summary = "Insert remat.evict / remat.regenerate around long gaps of dynamically sized tensors "
               "whose producers are cheap to recompute (eviction decided at run time)",
    .anchor = "func.func",
    .options = rematDynamicOptions,
    .optionCount = sizeof rematDynamicOptions / sizeof *rematDynamicOptions,
    .dependentDialects = rematDynamicDialects,
    .dependentDialectCount = sizeof rematDynamicDialects / sizeof *rematDynamicDialects,
    .run = runRematDynamic,
};

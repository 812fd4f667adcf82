/* One-Shot Analysis, restated: decides which tensor operands bufferize in
 * place, following mlir/lib/Dialect/Bufferization/Transforms/OneShotAnalysis.cpp
 * (MLIR 22) with its default "bottom-up" heuristic.
 *
 * Ops are visited in reverse post-order of the function; each tensor operand
 * is bufferized in place unless that would write a read-only buffer or
 * create a read-after-write conflict: a read R of a value whose definition D
 * is overwritten by an in-place write W of the same alias set that happens
 * after D and before R. Decisions taken earlier (for later ops) constrain the
 * ones taken now, which is why the order matters and is kept.
 *
 * This file holds the decision driver and the alias class summaries that let
 * it check only the new read/write pairs each decision creates; the sets are
 * in InPlaceAliasSets.c, the test for one pair in InPlaceConflictTest.c. */
#include "Analysis/InPlaceAnalysis.h"

#include "mlir-c/BuiltinTypes.h"

#include <stdlib.h>
#include <string.h>

/* An operand set with O(1) membership. */
typedef struct OperandSet {
  IrIndexList items;
  IrVisitMarks marks;
} OperandSet;

static void setClear(OperandSet *set) {
  set->items.count = 0;
  memoptVisitMarksReset(&set->marks);
}

static void setInsert(OperandSet *set, size_t operand) {
  if (memoptVisitMarksAdd(&set->marks, operand))
    memoptIndexListPush(&set->items, operand);
}

/*===------------------------------------------------------------------===*
 * Conflict detection
 *===------------------------------------------------------------------===*/

/* A read or an in-place write of an alias class. Positions are those of
 * ops in the function's entry block: `low`..`high` bounds the positions of
 * the entry-block writes a read can conflict with (see readWindow); a
 * write's `low` and `high` are the position of its entry-block op. */
typedef struct ClassEntry {
  size_t operand;
  size_t low;
  size_t high;
} ClassEntry;

typedef struct EntryArray {
  ClassEntry *items;
  size_t count;
  size_t capacity;
} EntryArray;

/* What the conflict checks need of an alias class, kept at its leader. The
 * reads that have a definition, sorted by `low` descending; the in-place
 * writes of entry-block ops, by position descending; the other in-place
 * writes. Bottom-up, classes grow by earlier ops, whose entries go last. */
typedef struct AliasClass {
  EntryArray reads;
  EntryArray writes;
  EntryArray nestedWrites;
  bool verified;        /* no read of the class conflicts with a write of it */
  bool hasInPlaceWrite; /* some member is written in place */
  bool hasReadOnly;     /* some member is not writable */
} AliasClass;

typedef struct Analysis {
  IrFunction *function;
  size_t entryBlock; /* the function body's first block */
  AliasClass *classes; /* per value; meaningful at alias leaders */
  OperandSet reads;
  OperandSet writes;
  IrIndexList definitions; /* scratch */
} Analysis;

/* One-Shot counts as a read of a buffer a use that reads it, or a view of it
 * that is read later. */
static bool useReadsBuffer(const IrFunction *function, size_t use) {
  const IrOperandSemantics *semantics = &function->operands[use].semantics;
  if (semantics->read)
    return true;
  if (semantics->write)
    return false;
  size_t alias = memoptAliasingValue(function, use);
  return alias != MEMOPT_NO_INDEX && memoptValueIsRead(function, alias);
}

/* Adds every use of a value aliasing `root` that reads its buffer to the
 * reads, and every one that writes it in place to the writes. */
static void collectAliasingUses(Analysis *analysis, size_t root) {
  IrFunction *function = analysis->function;
  size_t leader = memoptAliasLeader(function, root);
  size_t member = leader;
  do {
    const IrValue *info = &function->values[member];
    for (size_t u = 0; u < info->numUses; ++u) {
      size_t use = function->uses[info->firstUse + u];
      if (useReadsBuffer(function, use))
        setInsert(&analysis->reads, use);
      if (memoptOperandIsInPlaceWrite(function, use))
        setInsert(&analysis->writes, use);
    }
    member = info->aliasNext;
  } while (member != leader);
}

/* One-Shot's hasReadAfterWriteInterference over the collected reads and
 * writes, all assumed to share one buffer. */
static bool hasReadAfterWriteInterference(Analysis *analysis) {
  IrFunction *function = analysis->function;
  IrIndexList *definitions = &analysis->definitions;
  for (size_t r = 0; r < analysis->reads.items.count; ++r) {
    size_t read = analysis->reads.items.items[r];
    memoptFindDefinitions(function, read, definitions);
    if (definitions->count == 0)
      continue; /* nothing defined what is read: nothing to overwrite */
    for (size_t w = 0; w < analysis->writes.items.count; ++w)
      if (memoptReadConflictsWithWrite(function, read, analysis->writes.items.items[w], definitions))
        return true;
  }
  return false;
}

/*===------------------------------------------------------------------===*
 * Alias class summaries
 *
 * Whether a read conflicts with a write depends only on the two operands,
 * not on other decisions, so a class whose reads were checked against its
 * writes needs no second check: when an operand joins two such classes,
 * only the reads of one against the writes of the other, and the operand's
 * write against both, are new. Most of those pairs are ruled out by where
 * their ops sit in the entry block (readWindow), which sorted entries find
 * without visiting the others.
 *===------------------------------------------------------------------===*/

/* The position of `op`'s ancestor in the entry block, or SIZE_MAX. */
static size_t entryPosition(const Analysis *analysis, size_t op) {
  size_t top = memoptIrAncestorInBlock(analysis->function, op, analysis->entryBlock);
  return top == MEMOPT_NO_INDEX ? SIZE_MAX : analysis->function->ops[top].position;
}

/* The position of `write`'s op if it lies directly in the entry block, else SIZE_MAX. */
static size_t writePosition(const Analysis *analysis, size_t write) {
  const IrOp *op = &analysis->function->ops[analysis->function->operands[write].op];
  return op->block == analysis->entryBlock ? op->position : SIZE_MAX;
}

/* Bounds in `low`..`high` the positions of the entry-block ops whose writes
 * `read` can conflict with (memoptReadConflictsWithWrite, for a write W of an op
 * directly in the entry block). W after the read's entry-block ancestor
 * happens after the read, which cannot repeat in a loop W owns: no
 * conflict. W before every definition's entry-block ancestor happens before
 * them all: no conflict. An argument of a nested block never sees W; one of
 * the entry block always does. Returns false when the read has no
 * definition: it conflicts with no write. */
static bool readWindow(Analysis *analysis, size_t read, size_t *low, size_t *high) {
  IrFunction *function = analysis->function;
  IrIndexList *definitions = &analysis->definitions;
  memoptFindDefinitions(function, read, definitions);
  if (definitions->count == 0)
    return false;
  *high = entryPosition(analysis, function->operands[read].op);
  *low = SIZE_MAX;
  for (size_t d = 0; d < definitions->count; ++d) {
    const IrValue *definition = &function->values[definitions->items[d]];
    size_t bound;
    if (definition->definingOp != MEMOPT_NO_INDEX) {
      bound = entryPosition(analysis, definition->definingOp);
      if (bound == SIZE_MAX)
        bound = 0; /* in another top-level block: no order known */
    } else if (definition->block == analysis->entryBlock) {
      bound = 0;
    } else {
      continue;
    }
    if (bound < *low)
      *low = bound;
  }
  return true;
}

/* The first index of `array` (sorted by `low` descending) whose `low` is at most `key`. */
static size_t firstAtMost(const EntryArray *array, size_t key) {
  size_t begin = 0, end = array->count;
  while (begin < end) {
    size_t middle = begin + (end - begin) / 2;
    if (array->items[middle].low > key)
      begin = middle + 1;
    else
      end = middle;
  }
  return begin;
}

/* Inserts `entry` into `array`, keeping it sorted by `low` descending. */
static void entryArrayInsert(EntryArray *array, ClassEntry entry) {
  array->items =
      memoptGrowArray(array->items, &array->capacity, array->count + 1, sizeof *array->items);
  size_t at = entry.low == 0 ? array->count : firstAtMost(array, entry.low - 1);
  memmove(array->items + at + 1, array->items + at, (array->count - at) * sizeof *array->items);
  array->items[at] = entry;
  array->count++;
}

static void entryArrayDestroy(EntryArray *array) {
  free(array->items);
  *array = (EntryArray){NULL, 0, 0};
}

/* Records that in-place write `write` belongs to `aliasClass`. */
static void classAddWrite(Analysis *analysis, AliasClass *aliasClass, size_t write) {
  size_t position = writePosition(analysis, write);
  ClassEntry entry = {write, position, position};
  entryArrayInsert(position == SIZE_MAX ? &aliasClass->nestedWrites : &aliasClass->writes, entry);
  aliasClass->hasInPlaceWrite = true;
}

static size_t classSize(const AliasClass *aliasClass) {
  return aliasClass->reads.count + aliasClass->writes.count + aliasClass->nestedWrites.count;
}

/* Moves the entries of `from` into `into` and frees `from`'s. */
static void classMerge(AliasClass *into, AliasClass *from) {
  if (classSize(from) > classSize(into)) {
    AliasClass swap = *into;
    *into = *from;
    *from = swap;
  }
  for (size_t i = 0; i < from->reads.count; ++i)
    entryArrayInsert(&into->reads, from->reads.items[i]);
  for (size_t i = 0; i < from->writes.count; ++i)
    entryArrayInsert(&into->writes, from->writes.items[i]);
  for (size_t i = 0; i < from->nestedWrites.count; ++i)
    entryArrayInsert(&into->nestedWrites, from->nestedWrites.items[i]);
  into->verified = into->verified && from->verified;
  into->hasInPlaceWrite = into->hasInPlaceWrite || from->hasInPlaceWrite;
  into->hasReadOnly = into->hasReadOnly || from->hasReadOnly;
  entryArrayDestroy(&from->reads);
  entryArrayDestroy(&from->writes);
  entryArrayDestroy(&from->nestedWrites);
}

static bool pairConflicts(Analysis *analysis, size_t read, size_t write) {
  memoptFindDefinitions(analysis->function, read, &analysis->definitions);
  return analysis->definitions.count != 0 &&
         memoptReadConflictsWithWrite(analysis->function, read, write, &analysis->definitions);
}

/* Whether some read of `aliasClass` conflicts with in-place write `write`. */
static bool classReadsConflictWith(Analysis *analysis, const AliasClass *aliasClass,
                                   size_t write) {
  size_t position = writePosition(analysis, write);
  const EntryArray *reads = &aliasClass->reads;
  for (size_t i = position == SIZE_MAX ? 0 : firstAtMost(reads, position); i < reads->count; ++i)
    if ((position == SIZE_MAX || reads->items[i].high >= position) &&
        pairConflicts(analysis, reads->items[i].operand, write))
      return true;
  return false;
}

/* Whether `read` conflicts with some in-place write of `aliasClass`. */
static bool classWritesConflictWith(Analysis *analysis, const AliasClass *aliasClass,
                                    const ClassEntry *read) {
  const EntryArray *writes = &aliasClass->writes;
  for (size_t i = firstAtMost(writes, read->high);
       i < writes->count && writes->items[i].low >= read->low; ++i)
    if (pairConflicts(analysis, read->operand, writes->items[i].operand))
      return true;
  for (size_t i = 0; i < aliasClass->nestedWrites.count; ++i)
    if (pairConflicts(analysis, read->operand, aliasClass->nestedWrites.items[i].operand))
      return true;
  return false;
}

/* Whether a read of one class conflicts with a write of the other. */
static bool classesConflict(Analysis *analysis, const AliasClass *a, const AliasClass *b) {
  if (classSize(a) > classSize(b)) {
    const AliasClass *swap = a;
    a = b;
    b = swap;
  }
  for (size_t i = 0; i < a->reads.count; ++i)
    if (classWritesConflictWith(analysis, b, &a->reads.items[i]))
      return true;
  for (size_t i = 0; i < a->writes.count; ++i)
    if (classReadsConflictWith(analysis, b, a->writes.items[i].operand))
      return true;
  for (size_t i = 0; i < a->nestedWrites.count; ++i)
    if (classReadsConflictWith(analysis, b, a->nestedWrites.items[i].operand))
      return true;
  return false;
}

/* Whether a read of `aliasClass` conflicts with one of its writes. */
static bool classHasConflict(Analysis *analysis, const AliasClass *aliasClass) {
  for (size_t i = 0; i < aliasClass->reads.count; ++i)
    if (classWritesConflictWith(analysis, aliasClass, &aliasClass->reads.items[i]))
      return true;
  return false;
}

static AliasClass *classOf(Analysis *analysis, size_t value) {
  return &analysis->classes[memoptAliasLeader(analysis->function, value)];
}

/* The summaries of the singleton alias classes, before any decision. */
static void classesCreate(Analysis *analysis) {
  IrFunction *function = analysis->function;
  analysis->classes = memoptAllocateZeroed(function->numValues, sizeof *analysis->classes);
  for (size_t v = 0; v < function->numValues; ++v) {
    AliasClass *aliasClass = &analysis->classes[v];
    aliasClass->verified = true;
    aliasClass->hasReadOnly = !memoptValueIsWritable(function, v);
    const IrValue *info = &function->values[v];
    for (size_t u = 0; u < info->numUses; ++u) {
      size_t use = function->uses[info->firstUse + u];
      ClassEntry entry = {use, 0, 0};
      if (useReadsBuffer(function, use) && readWindow(analysis, use, &entry.low, &entry.high))
        entryArrayInsert(&aliasClass->reads, entry);
    }
  }
}

static void classesDestroy(Analysis *analysis) {
  for (size_t v = 0; v < analysis->function->numValues; ++v) {
    entryArrayDestroy(&analysis->classes[v].reads);
    entryArrayDestroy(&analysis->classes[v].writes);
    entryArrayDestroy(&analysis->classes[v].nestedWrites);
  }
  free(analysis->classes);
}

/* One-Shot's wouldCreateReadAfterWriteInterference: would bufferizing
 * `operand` in place make a read of its buffer see a later write? */
static bool wouldCreateReadAfterWriteInterference(Analysis *analysis, size_t operand) {
  IrFunction *function = analysis->function;
  size_t value = function->operands[operand].value;
  size_t alias = memoptAliasingValue(function, operand);
  AliasClass *valueClass = classOf(analysis, value);
  AliasClass *aliasClass = alias == MEMOPT_NO_INDEX ? NULL : classOf(analysis, alias);
  if (aliasClass == valueClass)
    aliasClass = NULL;
  bool write = function->operands[operand].semantics.write;
  if (valueClass->verified && (!aliasClass || aliasClass->verified))
    return (aliasClass && classesConflict(analysis, valueClass, aliasClass)) ||
           (write && (classReadsConflictWith(analysis, valueClass, operand) ||
                      (aliasClass && classReadsConflictWith(analysis, aliasClass, operand))));
  /* A class joined unchecked (must-in-place operands): check every pair. */
  setClear(&analysis->reads);
  setClear(&analysis->writes);
  collectAliasingUses(analysis, value);
  if (alias != MEMOPT_NO_INDEX)
    collectAliasingUses(analysis, alias);
  if (write)
    setInsert(&analysis->writes, operand);
  return hasReadAfterWriteInterference(analysis);
}

/* One-Shot's wouldCreateWriteToNonWritableBuffer. */
static bool wouldCreateWriteToNonWritableBuffer(Analysis *analysis, size_t operand) {
  IrFunction *function = analysis->function;
  const AliasClass *valueClass = classOf(analysis, function->operands[operand].value);
  size_t alias = memoptAliasingValue(function, operand);
  const AliasClass *aliasClass = alias == MEMOPT_NO_INDEX ? NULL : classOf(analysis, alias);
  bool write = function->operands[operand].semantics.write || valueClass->hasInPlaceWrite ||
               (aliasClass && aliasClass->hasInPlaceWrite);
  return write && (valueClass->hasReadOnly || (aliasClass && aliasClass->hasReadOnly));
}

/* Bufferizes `operand` in place; `checked` says whether the conflicts this
 * creates were ruled out. */
static void bufferizeInPlace(Analysis *analysis, size_t operand, bool checked) {
  IrFunction *function = analysis->function;
  IrOperand *info = &function->operands[operand];
  if (info->inPlace)
    return;
  info->inPlace = true;
  size_t alias = memoptAliasingValue(function, operand);
  if (alias != MEMOPT_NO_INDEX) {
    size_t aliasLeader = memoptAliasLeader(function, alias);
    size_t valueLeader = memoptAliasLeader(function, info->value);
    if (aliasLeader != valueLeader) {
      memoptAliasUnion(function, alias, info->value);
      size_t leader = memoptAliasLeader(function, alias);
      classMerge(&analysis->classes[leader],
                 &analysis->classes[leader == aliasLeader ? valueLeader : aliasLeader]);
    }
  }
  AliasClass *merged = classOf(analysis, info->value);
  if (info->semantics.write)
    classAddWrite(analysis, merged, operand);
  merged->verified = checked;
}

/*===------------------------------------------------------------------===*
 * Driver
 *===------------------------------------------------------------------===*/

static bool hasTensorSemantics(const IrFunction *function, size_t op) {
  const IrOp *info = &function->ops[op];
  for (size_t k = 0; k < info->numOperands; ++k)
    if (memoptOperandIsTensor(function, info->firstOperand + k))
      return true;
  for (intptr_t i = 0; i < mlirOperationGetNumResults(info->op); ++i)
    if (mlirTypeIsATensor(mlirValueGetType(mlirOperationGetResult(info->op, i))))
      return true;
  return false;
}

/* Appends the ops of `block` and everything nested in them, in post-order. */
static void appendPostOrder(const IrFunction *function, size_t block, size_t *order,
                            size_t *count) {
  const IrBlock *info = &function->blocks[block];
  for (size_t p = 0; p < info->numOps; ++p) {
    size_t op = memoptIrBlockOp(function, block, p);
    const IrOp *opInfo = &function->ops[op];
    for (size_t b = opInfo->firstBlock; b < opInfo->firstBlock + opInfo->numBlocks; ++b)
      appendPostOrder(function, b, order, count);
    order[(*count)++] = op;
  }
}

/* One-Shot's equivalenceAnalysis: in-place results with a definite,
 * equivalent operand hold the same buffer as that operand. */
static void equivalenceAnalysis(IrFunction *function, const size_t *postOrder, size_t count) {
  IrIndexList aliases = {NULL, 0, 0};
  for (size_t i = 0; i < count; ++i) {
    size_t op = postOrder[i];
    MlirOperation operation = function->ops[op].op;
    for (intptr_t r = 0; r < mlirOperationGetNumResults(operation); ++r) {
      size_t result = memoptIrResultValue(function, op, (size_t)r);
      if (result == MEMOPT_NO_INDEX || !function->values[result].isTensor)
        continue;
      memoptAliasingOperands(function, op, (size_t)r, &aliases);
      if (aliases.count == 0)
        continue;
      size_t first = function->operands[aliases.items[0]].value;
      bool allEquivalent = true;
      bool merged = false;
      for (size_t a = 0; a < aliases.count; ++a) {
        const IrOperand *alias = &function->operands[aliases.items[a]];
        if (alias->semantics.equivalent && alias->inPlace && alias->semantics.definite) {
          memoptEquivalenceUnion(function, result, alias->value);
          merged = true;
          break;
        }
        if (!alias->semantics.equivalent || !alias->inPlace ||
            memoptEquivalenceLeader(function, alias->value) !=
                memoptEquivalenceLeader(function, first))
          allEquivalent = false;
      }
      if (!merged && allEquivalent && !memoptResultIsAllocation(function, op, (size_t)r))
        memoptEquivalenceUnion(function, result, first);
    }
  }
  memoptIndexListDestroy(&aliases);
}

void memoptInPlaceAnalysisRun(IrFunction *function) {
  Analysis analysis = {.function = function, .entryBlock = MEMOPT_NO_INDEX};
  for (size_t b = 0; b < function->numBlocks && analysis.entryBlock == MEMOPT_NO_INDEX; ++b)
    if (function->blocks[b].owner == MEMOPT_NO_INDEX)
      analysis.entryBlock = b;
  analysis.reads.marks = memoptVisitMarksCreate(function->numOperands);
  analysis.writes.marks = memoptVisitMarksCreate(function->numOperands);
  size_t *order = memoptAllocateZeroed(function->numOps + 1, sizeof *order);
  classesCreate(&analysis);

  /* Operands that must bufferize in place do so before anything else. */
  for (size_t i = 0; i < function->numOperands; ++i)
    if (memoptOperandIsTensor(function, i) && function->operands[i].semantics.mustInPlace)
      bufferizeInPlace(&analysis, i, false);
  for (size_t v = 0; v < function->numValues; ++v)
    if (memoptAliasLeader(function, v) == v && !analysis.classes[v].verified)
      analysis.classes[v].verified = !classHasConflict(&analysis, &analysis.classes[v]);

  size_t count = 0;
  for (size_t b = 0; b < function->numBlocks; ++b)
    if (function->blocks[b].owner == MEMOPT_NO_INDEX)
      appendPostOrder(function, b, order, &count);

  /* Bottom-up: the reverse of the post-order walk. */
  for (size_t i = count; i-- > 0;) {
    size_t op = order[i];
    if (!hasTensorSemantics(function, op))
      continue;
    const IrOp *info = &function->ops[op];
    for (size_t k = 0; k < info->numOperands; ++k) {
      size_t operand = info->firstOperand + k;
      if (!memoptOperandIsTensor(function, operand) || function->operands[operand].inPlace)
        continue;
      if (!wouldCreateWriteToNonWritableBuffer(&analysis, operand) &&
          !wouldCreateReadAfterWriteInterference(&analysis, operand))
        bufferizeInPlace(&analysis, operand, true);
    }
  }
  equivalenceAnalysis(function, order, count);

  classesDestroy(&analysis);
  memoptIndexListDestroy(&analysis.reads.items);
  memoptVisitMarksDestroy(&analysis.reads.marks);
  memoptIndexListDestroy(&analysis.writes.items);
  memoptVisitMarksDestroy(&analysis.writes.marks);
  memoptIndexListDestroy(&analysis.definitions);
  free(order);
}

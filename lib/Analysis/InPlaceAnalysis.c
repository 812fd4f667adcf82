/* One-Shot Analysis, restated: decides which tensor operands bufferize in
 * place, following mlir/lib/Dialect/Bufferization/Transforms/OneShotAnalysis.cpp
 * (MLIR 22) with its default "bottom-up" heuristic.
 *
 * Ops are visited in reverse post-order of the function; each tensor operand
 * is bufferized in place unless that would write a read-only buffer or
 * create a read-after-write conflict: a read R of a value whose definition D
 * is overwritten by an in-place write W of the same alias set that happens
 * after D and before R. Decisions taken earlier (for later ops) constrain the
 * ones taken now, which is why the order matters and is kept. */
#include "Analysis/BufferizationModel.h"

#include "mlir-c/BuiltinTypes.h"

#include <stdlib.h>
#include <string.h>

/*===------------------------------------------------------------------===*
 * Alias and equivalence sets
 *===------------------------------------------------------------------===*/

/* The parent slot of `value` in the alias or in the equivalence forest. */
static size_t *parentOf(IrFunction *function, size_t value, bool equivalence) {
  return equivalence ? &function->values[value].equivalenceParent
                     : &function->values[value].aliasParent;
}

/* The root of `value`'s set in one forest, compressing the path to it. */
static size_t findLeader(IrFunction *function, size_t value, bool equivalence) {
  size_t root = value;
  while (*parentOf(function, root, equivalence) != root)
    root = *parentOf(function, root, equivalence);
  while (*parentOf(function, value, equivalence) != root) {
    size_t next = *parentOf(function, value, equivalence);
    *parentOf(function, value, equivalence) = root;
    value = next;
  }
  return root;
}

size_t memoptAliasLeader(IrFunction *function, size_t value) {
  return findLeader(function, value, false);
}

static void aliasUnion(IrFunction *function, size_t a, size_t b) {
  size_t rootA = memoptAliasLeader(function, a);
  size_t rootB = memoptAliasLeader(function, b);
  if (rootA == rootB)
    return;
  function->values[rootB].aliasParent = rootA;
  /* Splice the two circular member lists. */
  size_t nextA = function->values[rootA].aliasNext;
  function->values[rootA].aliasNext = function->values[rootB].aliasNext;
  function->values[rootB].aliasNext = nextA;
}

size_t memoptEquivalenceLeader(IrFunction *function, size_t value) {
  return findLeader(function, value, true);
}

static void equivalenceUnion(IrFunction *function, size_t a, size_t b) {
  size_t rootA = memoptEquivalenceLeader(function, a);
  size_t rootB = memoptEquivalenceLeader(function, b);
  if (rootA != rootB)
    function->values[rootB].equivalenceParent = rootA;
}

/*===------------------------------------------------------------------===*
 * Operand queries
 *===------------------------------------------------------------------===*/

/* The value that shares the buffer of `operand` (One-Shot's aliasing value):
 * a result of the owner, or for a yield inside scf.if a result of the if. */
static size_t aliasingValue(const IrFunction *function, size_t operand) {
  const IrOperand *info = &function->operands[operand];
  if (info->semantics.aliasResult == MEMOPT_NO_INDEX)
    return MEMOPT_NO_INDEX;
  size_t owner = info->op;
  if (function->ops[owner].opClass == IrOpYield)
    owner = function->ops[owner].parent;
  if (owner == MEMOPT_NO_INDEX)
    return MEMOPT_NO_INDEX;
  return memoptIrResultValue(function, owner, info->semantics.aliasResult);
}

static bool isTensorOperand(const IrFunction *function, size_t operand) {
  size_t value = function->operands[operand].value;
  return value != MEMOPT_NO_INDEX && function->values[value].isTensor;
}

static bool isInPlaceWrite(const IrFunction *function, size_t operand) {
  const IrOperand *info = &function->operands[operand];
  return info->semantics.write && info->inPlace;
}

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

/* One-Shot's isValueRead: some use reads the buffer of `value`, looking
 * through ops that only create aliases (views). */
bool memoptValueIsRead(const IrFunction *function, size_t value) {
  /* The marks are scratch owned by the function, not part of its state. */
  IrVisitMarks *marks = (IrVisitMarks *)&function->readMarks;
  memoptVisitMarksReset(marks);
  IrIndexList worklist = {NULL, 0, 0};
  const IrValue *info = &function->values[value];
  for (size_t u = 0; u < info->numUses; ++u)
    memoptIndexListPush(&worklist, function->uses[info->firstUse + u]);
  bool read = false;
  while (worklist.count && !read) {
    size_t operand = worklist.items[--worklist.count];
    if (!memoptVisitMarksAdd(marks, operand))
      continue;
    const IrOperandSemantics *semantics = &function->operands[operand].semantics;
    read = semantics->read;
    if (read || semantics->write)
      continue;
    /* An op that only creates an alias: its readers read this value too. */
    size_t alias = aliasingValue(function, operand);
    if (alias == MEMOPT_NO_INDEX)
      continue;
    const IrValue *aliasInfo = &function->values[alias];
    for (size_t u = 0; u < aliasInfo->numUses; ++u)
      memoptIndexListPush(&worklist, function->uses[aliasInfo->firstUse + u]);
  }
  memoptIndexListDestroy(&worklist);
  return read;
}

bool memoptValueIsWritten(IrFunction *function, size_t value) {
  size_t leader = memoptAliasLeader(function, value);
  size_t member = leader;
  do {
    const IrValue *info = &function->values[member];
    for (size_t u = 0; u < info->numUses; ++u)
      if (isInPlaceWrite(function, function->uses[info->firstUse + u]))
        return true;
    member = info->aliasNext;
  } while (member != leader);
  return false;
}

/*===------------------------------------------------------------------===*
 * Program order
 *===------------------------------------------------------------------===*/

/* One-Shot's happensBefore: `a` or an ancestor of `a` precedes an ancestor
 * of `b` in a common block, and `b` is not nested in `a`. */
static bool happensBefore(const IrFunction *function, size_t a, size_t b) {
  for (; a != MEMOPT_NO_INDEX; a = function->ops[a].parent) {
    if (b > a && b < function->ops[a].subtreeEnd)
      return false; /* b is nested in a */
    size_t bAncestor = memoptIrAncestorInBlock(function, b, function->ops[a].block);
    if (bAncestor != MEMOPT_NO_INDEX)
      return function->ops[a].position < function->ops[bAncestor].position;
  }
  return false;
}

static bool isAncestor(const IrFunction *function, size_t ancestor, size_t op) {
  return op >= ancestor && op < function->ops[ancestor].subtreeEnd;
}

/* The ancestor of `op` (or `op`) whose enclosing op is `owner`. */
static size_t ancestorDirectlyIn(const IrFunction *function, size_t op, size_t owner) {
  while (op != MEMOPT_NO_INDEX && function->ops[op].parent != owner)
    op = function->ops[op].parent;
  return op;
}

/* Ops in two different regions of the same scf.if never both run. */
static bool insideMutuallyExclusiveRegions(const IrFunction *function, size_t a, size_t b) {
  for (size_t ancestor = function->ops[a].parent; ancestor != MEMOPT_NO_INDEX;
       ancestor = function->ops[ancestor].parent) {
    if (!isAncestor(function, ancestor, b))
      continue;
    if (function->ops[ancestor].opClass != IrOpIf)
      return false;
    /* The closest common ancestor is an if: compare the regions. */
    size_t blockA = function->ops[ancestorDirectlyIn(function, a, ancestor)].block;
    size_t blockB = function->ops[ancestorDirectlyIn(function, b, ancestor)].block;
    return function->blocks[blockA].region != function->blocks[blockB].region;
  }
  return false;
}

/* The closest enclosing block that belongs to a loop body, starting at `block`. */
static size_t repetitiveBlockFrom(const IrFunction *function, size_t block) {
  while (block != MEMOPT_NO_INDEX) {
    if (function->blocks[block].repetitive)
      return block;
    size_t owner = function->blocks[block].owner;
    block = owner == MEMOPT_NO_INDEX ? MEMOPT_NO_INDEX : function->ops[owner].block;
  }
  return MEMOPT_NO_INDEX;
}

static size_t repetitiveBlockOfOp(const IrFunction *function, size_t op) {
  return repetitiveBlockFrom(function, function->ops[op].block);
}

static size_t repetitiveBlockOfValue(const IrFunction *function, size_t value) {
  return repetitiveBlockFrom(function, function->values[value].block);
}

/* The next loop body enclosing the loop body `block`. */
static size_t nextRepetitiveBlock(const IrFunction *function, size_t block) {
  size_t owner = function->blocks[block].owner;
  if (owner == MEMOPT_NO_INDEX)
    return MEMOPT_NO_INDEX;
  return repetitiveBlockFrom(function, function->ops[owner].block);
}

/* One-Shot's canUseOpDominanceDueToRegions: op order rules out a conflict
 * unless READ and WRITE repeat inside a loop that DEF lies outside of. */
static bool canUseOpDominance(const IrFunction *function, size_t read, size_t write,
                              const size_t *definitions, size_t numDefinitions) {
  size_t readOp = function->operands[read].op;
  size_t writeOp = function->operands[write].op;
  for (size_t d = 0; d < numDefinitions; ++d) {
    size_t readRegion = repetitiveBlockOfOp(function, readOp);
    size_t defRegion = repetitiveBlockOfValue(function, definitions[d]);
    if (readRegion == defRegion || readRegion == MEMOPT_NO_INDEX)
      continue;
    for (;;) {
      size_t next = nextRepetitiveBlock(function, readRegion);
      if (next == defRegion || next == MEMOPT_NO_INDEX)
        break;
      readRegion = next;
    }
    if (isAncestor(function, function->blocks[readRegion].owner, writeOp))
      return false;
  }
  return true;
}

/*===------------------------------------------------------------------===*
 * Reverse use-def chains
 *===------------------------------------------------------------------===*/

typedef bool (*ValuePredicate)(IrFunction *function, size_t value, const void *context);

typedef struct Traversal {
  bool followEquivalentOnly;
  bool alwaysIncludeLeaves;
  bool followSameTypeOnly;
} Traversal;

/* One-Shot's findValueInReverseUseDefChain: walks from the value of
 * `operand` back through aliasing operands and collects in `out` (emptied
 * first) the values that satisfy `predicate` and, if asked, the leaves where
 * the walk ends. */
static void findInReverseUseDefChain(IrFunction *function, size_t operand,
                                     ValuePredicate predicate, const void *context,
                                     Traversal traversal, IrIndexList *out) {
  out->count = 0;
  IrVisitMarks *marks = &function->chainMarks;
  memoptVisitMarksReset(marks);
  IrIndexList worklist = {NULL, 0, 0};
  IrIndexList aliases = {NULL, 0, 0};
  memoptIndexListPush(&worklist, operand);
  while (worklist.count) {
    size_t current = worklist.items[--worklist.count];
    if (!memoptVisitMarksAdd(marks, current))
      continue;
    size_t value = function->operands[current].value;
    if (predicate(function, value, context)) {
      memoptIndexListPushUnique(out, value);
      continue;
    }
    const IrValue *info = &function->values[value];
    aliases.count = 0;
    /* The walk stops at block arguments and at ops without a model. */
    if (info->definingOp != MEMOPT_NO_INDEX &&
        function->ops[info->definingOp].opClass != IrOpUnknown)
      memoptAliasingOperands(function, info->definingOp, info->number, &aliases);
    bool leaf = aliases.count == 0;
    for (size_t i = 0; i < aliases.count; ++i) {
      const IrOperand *alias = &function->operands[aliases.items[i]];
      bool stop = (traversal.followEquivalentOnly && !alias->semantics.equivalent) ||
                  (traversal.followSameTypeOnly &&
                   !mlirTypeEqual(function->values[alias->value].type, info->type));
      if (stop)
        leaf = true;
      else
        memoptIndexListPush(&worklist, aliases.items[i]);
    }
    if (leaf && traversal.alwaysIncludeLeaves)
      memoptIndexListPushUnique(out, value);
  }
  memoptIndexListDestroy(&worklist);
  memoptIndexListDestroy(&aliases);
}

static bool isDefinitionPredicate(IrFunction *function, size_t value, const void *context) {
  (void)context;
  return memoptValueIsDefinition(function, value);
}

static bool isValuePredicate(IrFunction *function, size_t value, const void *context) {
  (void)function;
  return value == *(const size_t *)context;
}

/* The definitions a read of `operand` expects to see. */
static void findDefinitions(IrFunction *function, size_t operand, IrIndexList *out) {
  Traversal traversal = {false, false, false};
  findInReverseUseDefChain(function, operand, isDefinitionPredicate, NULL, traversal, out);
}

bool memoptOperandHasUndefinedContents(IrFunction *function, size_t operand) {
  IrIndexList definitions = {NULL, 0, 0};
  findDefinitions(function, operand, &definitions);
  bool undefined = definitions.count == 0;
  memoptIndexListDestroy(&definitions);
  return undefined;
}

static bool hasEquivalentValueInReverseUseDefChain(IrFunction *function, size_t start,
                                                   size_t other) {
  Traversal traversal = {true, false, true};
  IrIndexList found = {NULL, 0, 0};
  findInReverseUseDefChain(function, start, isValuePredicate, &other, traversal, &found);
  bool any = found.count != 0;
  memoptIndexListDestroy(&found);
  return any;
}

static bool matchingSubsetPredicate(IrFunction *function, size_t value, const void *context) {
  return memoptIsMatchingSubset(function, *(const size_t *)context, value);
}

/* One-Shot's matchesInsertDestination: every leaf of the reverse chain of
 * `operand` is the slice `insertOp` writes back. */
static bool matchesInsertDestination(IrFunction *function, size_t operand, size_t insertOp) {
  Traversal traversal = {false, true, false};
  IrIndexList leaves = {NULL, 0, 0};
  findInReverseUseDefChain(function, operand, matchingSubsetPredicate, &insertOp, traversal,
                           &leaves);
  bool matches = leaves.count != 0;
  for (size_t i = 0; i < leaves.count && matches; ++i)
    matches = memoptIsMatchingSubset(function, insertOp, leaves.items[i]);
  memoptIndexListDestroy(&leaves);
  return matches;
}

/* One-Shot's areNonConflictingSubsets for extract_slice / insert_slice pairs. */
static bool areNonConflictingSubsets(IrFunction *function, size_t read, size_t write) {
  size_t readOp = function->operands[read].op;
  size_t writeOp = function->operands[write].op;
  if (memoptNameIs(function->ops[readOp].name, "tensor.insert_slice")) {
    size_t source = function->ops[readOp].firstOperand;
    size_t dest = source + 1;
    if (read == dest && matchesInsertDestination(function, write, readOp))
      return true;
    if (read == source && write == dest && matchesInsertDestination(function, read, readOp))
      return true;
  }
  if (memoptNameIs(function->ops[writeOp].name, "tensor.insert_slice")) {
    size_t source = function->ops[writeOp].firstOperand;
    size_t dest = source + 1;
    if (write == dest &&
        memoptEquivalenceLeader(function, function->operands[read].value) ==
            memoptEquivalenceLeader(function, function->operands[source].value) &&
        matchesInsertDestination(function, source, writeOp))
      return true;
  }
  return false;
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
  size_t alias = aliasingValue(function, use);
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
      if (isInPlaceWrite(function, use))
        setInsert(&analysis->writes, use);
    }
    member = info->aliasNext;
  } while (member != leader);
}

/* One-Shot's conflict test for one read (with its definitions, at least
 * one) and one in-place write of the same buffer. */
static bool readConflictsWithWrite(IrFunction *function, size_t read, size_t write,
                                   const IrIndexList *definitions) {
  size_t readOp = function->operands[read].op;
  size_t writeOp = function->operands[write].op;
  if (canUseOpDominance(function, read, write, definitions->items, definitions->count)) {
    if (happensBefore(function, readOp, writeOp))
      return false;
    if (read == write)
      return false;
    if (insideMutuallyExclusiveRegions(function, readOp, writeOp))
      return false;
    if (readOp == writeOp && memoptOpIsElementwiseFor(function, readOp, read, write) &&
        (hasEquivalentValueInReverseUseDefChain(function, read,
                                                function->operands[write].value) ||
         hasEquivalentValueInReverseUseDefChain(function, write,
                                                function->operands[read].value)))
      return false;
  }
  if (areNonConflictingSubsets(function, read, write))
    return false;
  for (size_t d = 0; d < definitions->count; ++d) {
    size_t definition = definitions->items[d];
    size_t defOp = function->values[definition].definingOp;
    if (defOp != MEMOPT_NO_INDEX) {
      if (happensBefore(function, writeOp, defOp))
        continue;
      if (defOp != writeOp && isAncestor(function, defOp, writeOp))
        continue;
    } else if (memoptIrAncestorInBlock(function, writeOp, function->values[definition].block) ==
               MEMOPT_NO_INDEX) {
      continue; /* the write happens outside the block of the bbArg */
    }
    if (aliasingValue(function, write) == definition)
      continue; /* the write is what defines the value */
    return true;
  }
  return false;
}

/* One-Shot's hasReadAfterWriteInterference over the collected reads and
 * writes, all assumed to share one buffer. */
static bool hasReadAfterWriteInterference(Analysis *analysis) {
  IrFunction *function = analysis->function;
  IrIndexList *definitions = &analysis->definitions;
  for (size_t r = 0; r < analysis->reads.items.count; ++r) {
    size_t read = analysis->reads.items.items[r];
    findDefinitions(function, read, definitions);
    if (definitions->count == 0)
      continue; /* nothing defined what is read: nothing to overwrite */
    for (size_t w = 0; w < analysis->writes.items.count; ++w)
      if (readConflictsWithWrite(function, read, analysis->writes.items.items[w], definitions))
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
 * `read` can conflict with (readConflictsWithWrite, for a write W of an op
 * directly in the entry block). W after the read's entry-block ancestor
 * happens after the read, which cannot repeat in a loop W owns: no
 * conflict. W before every definition's entry-block ancestor happens before
 * them all: no conflict. An argument of a nested block never sees W; one of
 * the entry block always does. Returns false when the read has no
 * definition: it conflicts with no write. */
static bool readWindow(Analysis *analysis, size_t read, size_t *low, size_t *high) {
  IrFunction *function = analysis->function;
  IrIndexList *definitions = &analysis->definitions;
  findDefinitions(function, read, definitions);
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
  findDefinitions(analysis->function, read, &analysis->definitions);
  return analysis->definitions.count != 0 &&
         readConflictsWithWrite(analysis->function, read, write, &analysis->definitions);
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
  size_t alias = aliasingValue(function, operand);
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
  size_t alias = aliasingValue(function, operand);
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
  size_t alias = aliasingValue(function, operand);
  if (alias != MEMOPT_NO_INDEX) {
    size_t aliasLeader = memoptAliasLeader(function, alias);
    size_t valueLeader = memoptAliasLeader(function, info->value);
    if (aliasLeader != valueLeader) {
      aliasUnion(function, alias, info->value);
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
    if (isTensorOperand(function, info->firstOperand + k))
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
          equivalenceUnion(function, result, alias->value);
          merged = true;
          break;
        }
        if (!alias->semantics.equivalent || !alias->inPlace ||
            memoptEquivalenceLeader(function, alias->value) !=
                memoptEquivalenceLeader(function, first))
          allEquivalent = false;
      }
      if (!merged && allEquivalent && !memoptResultIsAllocation(function, op, (size_t)r))
        equivalenceUnion(function, result, first);
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
    if (isTensorOperand(function, i) && function->operands[i].semantics.mustInPlace)
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
      if (!isTensorOperand(function, operand) || function->operands[operand].inPlace)
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

/* The read-after-write conflict test of the in-place analysis for one read
 * and one in-place write of the same buffer, following One-Shot Analysis:
 * program order (happensBefore, dominance through regions, loop bodies), the
 * reverse use-def chains that find what a read expects to see, and the
 * extract_slice / insert_slice pairs that touch different subsets. */
#include "Analysis/InPlaceAnalysis.h"

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
void memoptFindDefinitions(IrFunction *function, size_t operand, IrIndexList *out) {
  Traversal traversal = {false, false, false};
  findInReverseUseDefChain(function, operand, isDefinitionPredicate, NULL, traversal, out);
}

bool memoptOperandHasUndefinedContents(IrFunction *function, size_t operand) {
  IrIndexList definitions = {NULL, 0, 0};
  memoptFindDefinitions(function, operand, &definitions);
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
 * The conflict test
 *===------------------------------------------------------------------===*/

/* One-Shot's conflict test for one read (with its definitions, at least
 * one) and one in-place write of the same buffer. */
bool memoptReadConflictsWithWrite(IrFunction *function, size_t read, size_t write,
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
    if (memoptAliasingValue(function, write) == definition)
      continue; /* the write is what defines the value */
    return true;
  }
  return false;
}

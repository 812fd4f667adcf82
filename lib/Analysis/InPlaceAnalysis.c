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

typedef struct Analysis {
  IrFunction *function;
  OperandSet reads;
  OperandSet writes;
  IrIndexList definitions; /* scratch */
} Analysis;

static void collectAliasingReads(Analysis *analysis, size_t root) {
  IrFunction *function = analysis->function;
  size_t leader = memoptAliasLeader(function, root);
  size_t member = leader;
  do {
    const IrValue *info = &function->values[member];
    for (size_t u = 0; u < info->numUses; ++u) {
      size_t use = function->uses[info->firstUse + u];
      const IrOperandSemantics *semantics = &function->operands[use].semantics;
      if (semantics->read) {
        setInsert(&analysis->reads, use);
        continue;
      }
      /* A view that is read later reads this buffer too. */
      if (!semantics->write) {
        size_t alias = aliasingValue(function, use);
        if (alias != MEMOPT_NO_INDEX && memoptValueIsRead(function, alias))
          setInsert(&analysis->reads, use);
      }
    }
    member = info->aliasNext;
  } while (member != leader);
}

static void collectAliasingInPlaceWrites(Analysis *analysis, size_t root) {
  IrFunction *function = analysis->function;
  size_t leader = memoptAliasLeader(function, root);
  size_t member = leader;
  do {
    const IrValue *info = &function->values[member];
    for (size_t u = 0; u < info->numUses; ++u) {
      size_t use = function->uses[info->firstUse + u];
      if (isInPlaceWrite(function, use))
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
    size_t readOp = function->operands[read].op;
    findDefinitions(function, read, definitions);
    if (definitions->count == 0)
      continue; /* nothing defined what is read: nothing to overwrite */
    for (size_t w = 0; w < analysis->writes.items.count; ++w) {
      size_t write = analysis->writes.items.items[w];
      size_t writeOp = function->operands[write].op;
      if (canUseOpDominance(function, read, write, definitions->items, definitions->count)) {
        if (happensBefore(function, readOp, writeOp))
          continue;
        if (read == write)
          continue;
        if (insideMutuallyExclusiveRegions(function, readOp, writeOp))
          continue;
        if (readOp == writeOp && memoptOpIsElementwiseFor(function, readOp, read, write) &&
            (hasEquivalentValueInReverseUseDefChain(function, read,
                                                    function->operands[write].value) ||
             hasEquivalentValueInReverseUseDefChain(function, write,
                                                    function->operands[read].value)))
          continue;
      }
      if (areNonConflictingSubsets(function, read, write))
        continue;
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
    }
  }
  return false;
}

static bool wouldCreateReadAfterWriteInterference(Analysis *analysis, size_t operand) {
  IrFunction *function = analysis->function;
  setClear(&analysis->reads);
  setClear(&analysis->writes);
  size_t value = function->operands[operand].value;
  collectAliasingReads(analysis, value);
  collectAliasingInPlaceWrites(analysis, value);
  size_t alias = aliasingValue(function, operand);
  if (alias != MEMOPT_NO_INDEX) {
    collectAliasingReads(analysis, alias);
    collectAliasingInPlaceWrites(analysis, alias);
  }
  if (function->operands[operand].semantics.write)
    setInsert(&analysis->writes, operand);
  return hasReadAfterWriteInterference(analysis);
}

static bool aliasSetHasReadOnlyValue(IrFunction *function, size_t value) {
  size_t leader = memoptAliasLeader(function, value);
  size_t member = leader;
  do {
    if (!memoptValueIsWritable(function, member))
      return true;
    member = function->values[member].aliasNext;
  } while (member != leader);
  return false;
}

static bool aliasSetHasInPlaceWrite(IrFunction *function, size_t value) {
  return memoptValueIsWritten(function, value);
}

/* One-Shot's wouldCreateWriteToNonWritableBuffer. */
static bool wouldCreateWriteToNonWritableBuffer(IrFunction *function, size_t operand) {
  size_t value = function->operands[operand].value;
  size_t alias = aliasingValue(function, operand);
  bool write = function->operands[operand].semantics.write ||
               aliasSetHasInPlaceWrite(function, value) ||
               (alias != MEMOPT_NO_INDEX && aliasSetHasInPlaceWrite(function, alias));
  if (!write)
    return false;
  return aliasSetHasReadOnlyValue(function, value) ||
         (alias != MEMOPT_NO_INDEX && aliasSetHasReadOnlyValue(function, alias));
}

static void bufferizeInPlace(IrFunction *function, size_t operand) {
  IrOperand *info = &function->operands[operand];
  if (info->inPlace)
    return;
  info->inPlace = true;
  size_t alias = aliasingValue(function, operand);
  if (alias != MEMOPT_NO_INDEX)
    aliasUnion(function, alias, info->value);
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
  Analysis analysis = {.function = function};
  analysis.reads.marks = memoptVisitMarksCreate(function->numOperands);
  analysis.writes.marks = memoptVisitMarksCreate(function->numOperands);
  size_t *order = malloc((function->numOps + 1) * sizeof *order);
  if (!order)
    abort();

  /* Operands that must bufferize in place do so before anything else. */
  for (size_t i = 0; i < function->numOperands; ++i)
    if (isTensorOperand(function, i) && function->operands[i].semantics.mustInPlace)
      bufferizeInPlace(function, i);

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
      if (!wouldCreateWriteToNonWritableBuffer(function, operand) &&
          !wouldCreateReadAfterWriteInterference(&analysis, operand))
        bufferizeInPlace(function, operand);
    }
  }
  equivalenceAnalysis(function, order, count);

  memoptIndexListDestroy(&analysis.reads.items);
  memoptVisitMarksDestroy(&analysis.reads.marks);
  memoptIndexListDestroy(&analysis.writes.items);
  memoptVisitMarksDestroy(&analysis.writes.marks);
  memoptIndexListDestroy(&analysis.definitions);
  free(order);
}

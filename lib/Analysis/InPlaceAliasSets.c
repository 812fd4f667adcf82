/* The alias and equivalence sets of the in-place analysis, and what it asks
 * of one operand or value: union-find forests over the function's values
 * (the alias forest also keeps each set's members in a circular list), the
 * value an operand's buffer is shared with, and whether a value's buffer is
 * read or written in place. */
#include "Analysis/InPlaceAnalysis.h"

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

void memoptAliasUnion(IrFunction *function, size_t a, size_t b) {
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

void memoptEquivalenceUnion(IrFunction *function, size_t a, size_t b) {
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
size_t memoptAliasingValue(const IrFunction *function, size_t operand) {
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

bool memoptOperandIsTensor(const IrFunction *function, size_t operand) {
  size_t value = function->operands[operand].value;
  return value != MEMOPT_NO_INDEX && function->values[value].isTensor;
}

bool memoptOperandIsInPlaceWrite(const IrFunction *function, size_t operand) {
  const IrOperand *info = &function->operands[operand];
  return info->semantics.write && info->inPlace;
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
    size_t alias = memoptAliasingValue(function, operand);
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
      if (memoptOperandIsInPlaceWrite(function, function->uses[info->firstUse + u]))
        return true;
    member = info->aliasNext;
  } while (member != leader);
  return false;
}

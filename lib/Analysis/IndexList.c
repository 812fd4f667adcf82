/* Index lists and visit marks: the small containers the analyses share.
 * Ops, values and operands are dense indices (FunctionIR.c), so a list of
 * indices and one stamp per operand are all the traversals need. */
#include "Analysis/BufferizationModel.h"

#include <stdlib.h>
#include <string.h>

void memoptIndexListPush(IrIndexList *list, size_t item) {
  list->items = memoptGrowArray(list->items, &list->capacity, list->count + 1, sizeof *list->items);
  list->items[list->count++] = item;
}

void memoptIndexListPushUnique(IrIndexList *list, size_t item) {
  for (size_t i = 0; i < list->count; ++i)
    if (list->items[i] == item)
      return;
  memoptIndexListPush(list, item);
}

void memoptIndexListDestroy(IrIndexList *list) {
  free(list->items);
  *list = (IrIndexList){NULL, 0, 0};
}

IrVisitMarks memoptVisitMarksCreate(size_t size) {
  IrVisitMarks marks = {memoptAllocateZeroed(size, sizeof(unsigned)), size, 0};
  return marks;
}

void memoptVisitMarksReset(IrVisitMarks *marks) {
  if (++marks->current == 0) {
    /* The stamp wrapped around: clear the old marks once. */
    memset(marks->stamps, 0, marks->size * sizeof *marks->stamps);
    marks->current = 1;
  }
}

bool memoptVisitMarksAdd(IrVisitMarks *marks, size_t operand) {
  if (marks->stamps[operand] == marks->current)
    return false;
  marks->stamps[operand] = marks->current;
  return true;
}

void memoptVisitMarksDestroy(IrVisitMarks *marks) {
  free(marks->stamps);
  *marks = (IrVisitMarks){NULL, 0, 0};
}

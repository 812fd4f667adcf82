/* The linalg.generic builder. The body is collected in its own buffer and the
 * whole op is written out at zooGenericEnd, so function-level constants that
 * the body asks for (through zooConstant) land before the op and dominate it. */
#include "Emitter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void zooGenericBegin(ZooGeneric *g, ZooEmitter *e, const char *hint, const char *iterators) {
  memset(g, 0, sizeof *g);
  g->e = e;
  g->hint = hint;
  g->loopRank = (int)strlen(iterators);
  if (g->loopRank >= (int)sizeof g->iterators) {
    zooFail(e, "internal: too many loops in a generic");
    g->loopRank = 0;
  }
  memcpy(g->iterators, iterators, (size_t)g->loopRank);
  g->region = memoptStringBufferCreate();
}

static const char *addOperand(ZooGeneric *g, ZooValue value, const char *map, bool isOutput) {
  int index = g->inputCount + g->outputCount;
  if (index >= ZOO_MAX_GENERIC_OPERANDS) {
    zooFail(g->e, "internal: too many generic operands");
    return "%<invalid>";
  }
  if (!isOutput && g->outputCount > 0)
    zooFail(g->e, "internal: generic inputs must precede outputs");
  g->operands[index] = value;
  g->maps[index] = zooFormat(g->e, "%s", map);
  if (isOutput) {
    g->outputCount++;
    return zooFormat(g->e, "%%out%d", g->outputCount - 1);
  }
  g->inputCount++;
  return zooFormat(g->e, "%%in%d", g->inputCount - 1);
}

const char *zooGenericInput(ZooGeneric *g, ZooValue value, const char *map) {
  return addOperand(g, value, map, false);
}

const char *zooGenericOutput(ZooGeneric *g, ZooValue init, const char *map) {
  return addOperand(g, init, map, true);
}

const char *zooGenericOp(ZooGeneric *g, const char *format, ...) {
  const char *name = zooFormat(g->e, "%%t%d", g->nextTemp++);
  memoptStringBufferAppendFormat(&g->region, "    %s = ", name);
  va_list args;
  va_start(args, format);
  memoptStringBufferAppendFormatV(&g->region, format, args);
  va_end(args);
  memoptStringBufferAppendCString(&g->region, "\n");
  return name;
}

const char *zooGenericIndex(ZooGeneric *g, int dim) {
  return zooGenericOp(g, "linalg.index %d : index", dim);
}

static void appendLoopDims(MemoptStringBuffer *text, int loopRank) {
  memoptStringBufferAppendCString(text, "(");
  for (int i = 0; i < loopRank; ++i)
    memoptStringBufferAppendFormat(text, "%sd%d", i ? ", " : "", i);
  memoptStringBufferAppendCString(text, ")");
}

void zooGenericEnd(ZooGeneric *g, const char *const *yielded, ZooValue *results) {
  ZooEmitter *e = g->e;
  int operandCount = g->inputCount + g->outputCount;
  for (int i = 0; i < g->outputCount; ++i) {
    ZooValue init = g->operands[g->inputCount + i];
    results[i] = zooNewValueLike(e, g->hint, init.type, init);
  }
  MemoptStringBuffer *body = &e->body;
  memoptStringBufferAppendCString(body, "  ");
  if (g->outputCount == 1) {
    memoptStringBufferAppendFormat(body, "%s = ", zooName(e, results[0]));
  } else {
    /* Give the results the names `%base#i` of one multi-result op. */
    const char *base = zooFormat(e, "%%%s.m%u", g->hint, e->nextSuffix++);
    for (int i = 0; i < g->outputCount; ++i) {
      const char *name = zooFormat(e, "%s#%d", base, i);
      free(e->names[results[i].id]);
      e->names[results[i].id] = memoptStrndup(name, strlen(name));
    }
    memoptStringBufferAppendFormat(body, "%s:%d = ", base, g->outputCount);
  }
  memoptStringBufferAppendCString(body, "linalg.generic {indexing_maps = [");
  for (int i = 0; i < operandCount; ++i) {
    memoptStringBufferAppendFormat(body, "%saffine_map<", i ? ", " : "");
    appendLoopDims(body, g->loopRank);
    memoptStringBufferAppendFormat(body, " -> (%s)>", g->maps[i]);
  }
  memoptStringBufferAppendCString(body, "], iterator_types = [");
  for (int i = 0; i < g->loopRank; ++i)
    memoptStringBufferAppendFormat(body, "%s\"%s\"", i ? ", " : "",
                                   g->iterators[i] == 'r' ? "reduction" : "parallel");
  memoptStringBufferAppendCString(body, "]}");
  if (g->inputCount > 0) {
    memoptStringBufferAppendCString(body, " ins(");
    for (int i = 0; i < g->inputCount; ++i)
      memoptStringBufferAppendFormat(body, "%s%s", i ? ", " : "", zooName(e, g->operands[i]));
    memoptStringBufferAppendCString(body, " : ");
    for (int i = 0; i < g->inputCount; ++i)
      memoptStringBufferAppendFormat(body, "%s%s", i ? ", " : "", zooType(e, g->operands[i]));
    memoptStringBufferAppendCString(body, ")");
  }
  memoptStringBufferAppendCString(body, " outs(");
  for (int i = 0; i < g->outputCount; ++i)
    memoptStringBufferAppendFormat(body, "%s%s", i ? ", " : "",
                                   zooName(e, g->operands[g->inputCount + i]));
  memoptStringBufferAppendCString(body, " : ");
  for (int i = 0; i < g->outputCount; ++i)
    memoptStringBufferAppendFormat(body, "%s%s", i ? ", " : "",
                                   zooType(e, g->operands[g->inputCount + i]));
  memoptStringBufferAppendCString(body, ") {\n  ^bb0(");
  for (int i = 0; i < operandCount; ++i) {
    bool isOutput = i >= g->inputCount;
    memoptStringBufferAppendFormat(body, "%s%%%s%d: %s", i ? ", " : "", isOutput ? "out" : "in",
                                   isOutput ? i - g->inputCount : i,
                                   zooElementName(g->operands[i]));
  }
  memoptStringBufferAppendCString(body, "):\n");
  memoptStringBufferAppendCString(body, memoptStringBufferGet(&g->region));
  memoptStringBufferAppendCString(body, "    linalg.yield ");
  for (int i = 0; i < g->outputCount; ++i)
    memoptStringBufferAppendFormat(body, "%s%s", i ? ", " : "", yielded[i]);
  memoptStringBufferAppendCString(body, " : ");
  for (int i = 0; i < g->outputCount; ++i)
    memoptStringBufferAppendFormat(body, "%s%s", i ? ", " : "",
                                   zooElementName(g->operands[g->inputCount + i]));
  memoptStringBufferAppendCString(body, "\n  } -> ");
  if (g->outputCount > 1)
    memoptStringBufferAppendCString(body, "(");
  for (int i = 0; i < g->outputCount; ++i)
    memoptStringBufferAppendFormat(body, "%s%s", i ? ", " : "", zooType(e, results[i]));
  if (g->outputCount > 1)
    memoptStringBufferAppendCString(body, ")");
  memoptStringBufferAppendCString(body, "\n");
  memoptStringBufferDestroy(&g->region);
}

const char *zooMapOf(ZooEmitter *e, int count, const int *dims) {
  MemoptStringBuffer text = memoptStringBufferCreate();
  for (int i = 0; i < count; ++i)
    memoptStringBufferAppendFormat(&text, "%sd%d", i ? ", " : "", dims ? dims[i] : i);
  return zooTakeString(e, &text);
}

const char *zooParallel(ZooEmitter *e, int rank) {
  char iterators[ZOO_MAX_RANK * 2 + 1];
  for (int i = 0; i < rank; ++i)
    iterators[i] = 'p';
  iterators[rank] = '\0';
  return zooFormat(e, "%s", iterators);
}

/* The optimal rematerialization of a small function: Checkmate's integer
 * program (Jain et al., MLSys 2020), solved by GLPK or CBC
 * (memoptBinaryProgramSolve), to measure how far the remat heuristic is from
 * the optimum.
 *
 * The graph: one node per buffer of the memory profile (its bytes are the
 * node's memory), computed by the top-level ops writing into it (their
 * memoptOpRecomputeCost is the node's cost), reading the buffers their
 * operands live in (the edges); a buffer updated in place after it was read
 * gives one node per version. Nodes are in program order. Stage t computes
 * node t:
 *
 *   R[t][i]  node i is computed in stage t (i <= t; R[t][t] = 1)
 *   S[t][i]  node i is kept in memory from stage t-1 into stage t (i < t)
 *
 *   minimize   sum cost(i) R[t][i] over i < t (the recompute cost)
 *   subject to R[t][j] <= R[t][i] + S[t][i]     for every edge i -> j, j <= t
 *              S[t+1][i] <= R[t][i] + S[t][i]
 *              S[t][i] = 1 for t > i when i is returned
 *              sum bytes(i) (S[t][i] + R[t][i]) <= budget   for every stage
 *
 * The memory row is Checkmate's per-stage bound without its FREE variables:
 * everything kept into a stage and everything computed in it counts for the
 * whole stage, which overstates a stage that recomputes a chain (its
 * intermediates die inside the stage). The model's peak without
 * recomputation (keep each node until its last reader) is reported beside
 * the estimator's. */
#include "Remat/Remat.h"
#include "Analysis/Analysis.h"
#include "Analysis/BufferizationModel.h"
#include "IR/IR.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct Node {
  size_t last;     /* position of its last writer */
  double cost;
  double bytes;
  bool returned;
  IrIndexList reads; /* node indices, before ordering: positions of their writers */
} Node;

/* Building the graph: the node each writer op belongs to, and which
 * buffers were read since they were last written. */
typedef struct GraphBuild {
  const MemoptMemoryProfile *profile;
  Node *nodes;
  size_t count, capacity;
  size_t *nodeOfPosition; /* per position: the node it writes, or none */
  size_t *currentNode;    /* per buffer: its current version's node, or none */
  bool *readSinceWrite;   /* per buffer */
  size_t position;
  size_t written;         /* the buffer the op at `position` writes, or none */
  bool ok;
} GraphBuild;

static void recordRead(GraphBuild *build, MlirValue value) {
  size_t buffer;
  if (!memoptMemoryProfileLookupBuffer(build->profile, value, &buffer) ||
      memoptMemoryProfileGetBuffer(build->profile, buffer).nested || buffer == build->written)
    return;
  build->readSinceWrite[buffer] = true;
  size_t source = build->currentNode[buffer];
  if (source != MEMOPT_NO_INDEX && build->written != MEMOPT_NO_INDEX)
    memoptIndexListPushUnique(&build->nodes[build->currentNode[build->written]].reads, source);
}

static MlirWalkResult visitReads(MlirOperation op, void *userData) {
  GraphBuild *build = userData;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i)
    recordRead(build, mlirOperationGetOperand(op, i));
  return MlirWalkResultAdvance;
}

/* qsort has no context argument: the nodes being ordered. Only used while
 * buildGraph sorts, which never runs on two threads with the same nodes. */
static _Thread_local const Node *sortNodesByLast;

static int compareByLast(const void *a, const void *b) {
  size_t x = sortNodesByLast[*(const size_t *)a].last, y = sortNodesByLast[*(const size_t *)b].last;
  return x < y ? -1 : x > y;
}

/* The node graph of `func`; false with the reason in `error`. A buffer
 * written again after it was read (an in-place update) gets one node per
 * version; in the program they share memory, here each counts. */
static bool buildGraph(MlirOperation func, Node **nodesOut, size_t *countOut,
                       MemoptStringBuffer *error) {
  MemoptMemoryProfile *profile = memoptMemoryProfileCreate(func, false, error);
  if (!profile)
    return false;
  size_t bufferCount = memoptMemoryProfileGetNumBuffers(profile);
  size_t positions = memoptMemoryProfileGetNumPositions(profile);
  GraphBuild build = {profile, NULL, 0, 0, NULL, NULL, NULL, 0, MEMOPT_NO_INDEX, true};
  build.currentNode = memoptAllocateZeroed(bufferCount, sizeof *build.currentNode);
  build.readSinceWrite = memoptAllocateZeroed(bufferCount, sizeof *build.readSinceWrite);
  for (size_t b = 0; b < bufferCount; ++b) {
    build.currentNode[b] = MEMOPT_NO_INDEX;
    MemoptBufferInfo info = memoptMemoryProfileGetBuffer(profile, b);
    if (!info.nested && !info.sizeKnown) {
      memoptStringBufferAppendCString(error, "the function holds tensors of dynamic size");
      build.ok = false;
    }
  }
  for (size_t p = 0; build.ok && p + 1 < positions; ++p) {
    MlirOperation op = memoptMemoryProfileGetPositionOp(profile, p);
    /* A view neither writes its buffer nor reads it: its users read the
     * buffer through it. */
    if (memoptOperationIsView(op))
      continue;
    build.position = p;
    build.written = MEMOPT_NO_INDEX;
    for (intptr_t r = 0; r < mlirOperationGetNumResults(op) && build.written == MEMOPT_NO_INDEX;
         ++r) {
      size_t buffer;
      if (memoptMemoryProfileLookupBuffer(profile, mlirOperationGetResult(op, r), &buffer) &&
          !memoptMemoryProfileGetBuffer(profile, buffer).nested)
        build.written = buffer;
    }
    if (build.written != MEMOPT_NO_INDEX) {
      size_t b = build.written;
      if (build.currentNode[b] == MEMOPT_NO_INDEX || build.readSinceWrite[b]) {
        build.nodes =
            memoptGrowArray(build.nodes, &build.capacity, build.count + 1, sizeof *build.nodes);
        MemoptBufferInfo info = memoptMemoryProfileGetBuffer(profile, b);
        build.nodes[build.count] = (Node){.last = p, .bytes = (double)info.bytes};
        build.currentNode[b] = build.count++;
        build.readSinceWrite[b] = false;
      }
      Node *node = &build.nodes[build.currentNode[b]];
      node->cost += memoptOpRecomputeCost(op);
      node->last = p;
    }
    mlirOperationWalk(op, visitReads, &build, MlirWalkPreOrder);
  }
  /* What the function returns is the last version of its buffer. */
  for (size_t b = 0; build.ok && b < bufferCount; ++b)
    if (build.currentNode[b] != MEMOPT_NO_INDEX &&
        memoptMemoryProfileGetBuffer(profile, b).escapes)
      build.nodes[build.currentNode[b]].returned = true;
  memoptMemoryProfileDestroy(profile);
  free(build.currentNode);
  free(build.readSinceWrite);
  if (!build.ok) {
    for (size_t n = 0; n < build.count; ++n)
      memoptIndexListDestroy(&build.nodes[n].reads);
    free(build.nodes);
    return false;
  }
  /* Program order of the last writers is topological: a version read by a
   * node is complete before that node's writer reads it (a later write
   * starts a new version). */
  size_t *order = memoptAllocateZeroed(build.count, sizeof *order);
  size_t *rank = memoptAllocateZeroed(build.count, sizeof *rank);
  Node *sorted = memoptAllocateZeroed(build.count, sizeof *sorted);
  for (size_t n = 0; n < build.count; ++n)
    order[n] = n;
  sortNodesByLast = build.nodes;
  qsort(order, build.count, sizeof *order, compareByLast);
  for (size_t n = 0; n < build.count; ++n)
    rank[order[n]] = n;
  for (size_t n = 0; n < build.count; ++n) {
    sorted[n] = build.nodes[order[n]];
    for (size_t k = 0; k < sorted[n].reads.count; ++k)
      sorted[n].reads.items[k] = rank[sorted[n].reads.items[k]];
  }
  free(order);
  free(rank);
  free(build.nodes);
  *nodesOut = sorted;
  *countOut = build.count;
  return true;
}

/* The model's peak when every node is computed once and kept until its
 * last reader (or the end, when returned). */
static double unoptimizedPeak(const Node *nodes, size_t count) {
  size_t *lastReader = memoptAllocateZeroed(count ? count : 1, sizeof *lastReader);
  for (size_t n = 0; n < count; ++n) {
    lastReader[n] = nodes[n].returned ? count : n;
    for (size_t k = 0; k < nodes[n].reads.count; ++k) {
      size_t source = nodes[n].reads.items[k];
      if (lastReader[source] < n)
        lastReader[source] = n;
    }
  }
  double peak = 0;
  for (size_t t = 0; t < count; ++t) {
    double bytes = nodes[t].bytes;
    for (size_t i = 0; i < t; ++i)
      if (lastReader[i] >= t)
        bytes += nodes[i].bytes;
    if (bytes > peak)
      peak = bytes;
  }
  free(lastReader);
  return peak;
}

/* Column numbers: R[t][i] for i <= t, then S[t][i] for i < t. */
static int columnR(size_t t, size_t i) { return 1 + (int)(t * (t + 1) / 2 + i); }

static int columnS(size_t count, size_t t, size_t i) {
  return 1 + (int)(count * (count + 1) / 2 + t * (t - 1) / 2 + i);
}

/* Checkmate's program for `nodes` at `budget`. The objective is the
 * recompute cost alone: R[t][t] is fixed to 1 and costs nothing here (the
 * base cost is a constant), so a relative gap is one of the recompute cost. */
static void buildProgram(const Node *nodes, size_t count, double budget,
                         MemoptBinaryProgram *program) {
  /* Variables that cannot help are fixed to 0 (presolve drops them):
   * R[t][i] and S[t][i] once no node from t on depends on i, directly or
   * through others (lastNeed: the last such node; returned nodes are
   * needed to the end). */
  size_t *lastNeed = memoptAllocateZeroed(count + 1, sizeof *lastNeed);
  for (size_t t = count; t-- > 0;) {
    if (nodes[t].returned)
      lastNeed[t] = count;
    if (lastNeed[t] < t)
      lastNeed[t] = t;
    for (size_t k = 0; k < nodes[t].reads.count; ++k) {
      size_t i = nodes[t].reads.items[k];
      if (lastNeed[i] < lastNeed[t])
        lastNeed[i] = lastNeed[t];
    }
  }
  memoptBinaryProgramAddColumns(program, count * count);
  for (size_t t = 0; t < count; ++t) {
    for (size_t i = 0; i <= t; ++i) {
      int column = columnR(t, i);
      if (i == t)
        memoptBinaryProgramFix(program, column, 1);
      else if (lastNeed[i] < t)
        memoptBinaryProgramFix(program, column, 0);
      else
        memoptBinaryProgramSetObjective(program, column, nodes[i].cost);
    }
    for (size_t i = 0; i < t; ++i) {
      int column = columnS(count, t, i);
      if (nodes[i].returned)
        memoptBinaryProgramFix(program, column, 1);
      else if (lastNeed[i] < t)
        memoptBinaryProgramFix(program, column, 0);
    }
  }
  free(lastNeed);
  for (size_t t = 0; t < count; ++t) {
    /* Dependences: R[t][j] - R[t][i] - S[t][i] <= 0. */
    for (size_t j = 0; j <= t; ++j)
      for (size_t k = 0; k < nodes[j].reads.count; ++k) {
        size_t i = nodes[j].reads.items[k];
        int row = memoptBinaryProgramAddRow(program, 0);
        memoptBinaryProgramAddCoefficient(program, row, columnR(t, j), 1);
        memoptBinaryProgramAddCoefficient(program, row, columnR(t, i), -1);
        if (i < t)
          memoptBinaryProgramAddCoefficient(program, row, columnS(count, t, i), -1);
      }
    /* Keeping: S[t+1][i] - R[t][i] - S[t][i] <= 0. */
    if (t + 1 < count)
      for (size_t i = 0; i <= t; ++i) {
        int row = memoptBinaryProgramAddRow(program, 0);
        memoptBinaryProgramAddCoefficient(program, row, columnS(count, t + 1, i), 1);
        memoptBinaryProgramAddCoefficient(program, row, columnR(t, i), -1);
        if (i < t)
          memoptBinaryProgramAddCoefficient(program, row, columnS(count, t, i), -1);
      }
    /* Memory of the stage. */
    int row = memoptBinaryProgramAddRow(program, budget);
    for (size_t i = 0; i <= t; ++i) {
      memoptBinaryProgramAddCoefficient(program, row, columnR(t, i), nodes[i].bytes);
      if (i < t)
        memoptBinaryProgramAddCoefficient(program, row, columnS(count, t, i), nodes[i].bytes);
    }
  }
}

/* The largest stage memory of a solution's R and S. */
static double solutionPeak(const Node *nodes, size_t count, const double *values) {
  double peak = 0;
  for (size_t t = 0; t < count; ++t) {
    double bytes = 0;
    for (size_t i = 0; i <= t; ++i) {
      bytes += nodes[i].bytes * (values[columnR(t, i)] > 0.5);
      if (i < t)
        bytes += nodes[i].bytes * (values[columnS(count, t, i)] > 0.5);
    }
    if (bytes > peak)
      peak = bytes;
  }
  return peak;
}

static void destroyNodes(Node *nodes, size_t count) {
  for (size_t n = 0; n < count; ++n)
    memoptIndexListDestroy(&nodes[n].reads);
  free(nodes);
}

bool memoptRematOptimumSolve(MlirOperation func, double budgetFraction, size_t maxNodes,
                             MemoptIlpSolver solver, double timeLimitSeconds, double relativeGap,
                             MemoptRematOptimum *result, MemoptStringBuffer *error) {
  memset(result, 0, sizeof *result);
  result->recomputeBound = NAN;
  Node *nodes;
  size_t count;
  if (!buildGraph(func, &nodes, &count, error))
    return false;
  result->nodes = count;
  result->baseCost = 0;
  for (size_t n = 0; n < count; ++n)
    result->baseCost += nodes[n].cost;
  result->modelPeak = unoptimizedPeak(nodes, count);
  result->budget = result->modelPeak * budgetFraction;
  if (count > maxNodes) {
    memoptStringBufferAppendFormat(error, "%zu buffers, more than the ILP's limit of %zu", count,
                                   maxNodes);
    destroyNodes(nodes, count);
    return false;
  }
  MemoptBinaryProgram program = {0};
  buildProgram(nodes, count, result->budget, &program);
  MemoptIlpSolution solution;
  bool ok =
      memoptBinaryProgramSolve(&program, solver, timeLimitSeconds, relativeGap, &solution, error);
  if (ok) {
    result->status = solution.status;
    result->recomputeBound = solution.bound;
    if (solution.values) {
      result->recomputeCost = solution.objective;
      result->solutionPeak = solutionPeak(nodes, count, solution.values);
    }
    memoptIlpSolutionDestroy(&solution);
  }
  memoptBinaryProgramDestroy(&program);
  destroyNodes(nodes, count);
  return ok;
}

/* The Pin-or-Fuse problem as an integer linear program, solved exactly by
 * GLPK over the DP's candidates (groups of up to max-group layers, the same
 * tile sizes), without the DP's limits on how many pinned tensors a boundary
 * tracks or how many outputs of a group may be pinned: the optimum the DP is
 * measured against.
 *
 *   x[s,P]  group s (first, last, tile) runs with the pinnable feature maps
 *           in P pinned, P a subset of the maps s reads from outside or
 *           writes for later groups
 *   p[q]    feature map q is pinned
 *
 *   minimize   sum cost(s,P) x[s,P]
 *   subject to every layer is in exactly one chosen group;
 *              a chosen group's P agrees with p;
 *              footprint(s,P) + bytes of the pinned maps alive across s
 *                <= capacity when x[s,P] = 1.
 *
 * cost and footprint are memoptGroupCost's, so the only difference from the
 * DP's model is that streamed weights are costed with the room left beside
 * P alone (the maps merely alive across s only count in the capacity). */
#include "Spm/Spm.h"
#include "Spm/Transforms/SpmPinFuse.h"

#include <glpk.h>
#include <stdlib.h>
#include <string.h>

/* The most pinnable maps one group's choice enumerates (2^n subsets). */
enum { MAX_GROUP_PINS = 6 };

typedef struct Candidate {
  size_t first, last;
  int64_t tileRows;
  size_t pins[MAX_GROUP_PINS]; /* pinnable maps read from outside or written for later */
  size_t pinCount;
  unsigned subset;
  double cost;
  uint64_t footprint;
} Candidate;

static bool pinnable(const MemoptLayerGraph *graph, const MemoptSpmTarget *target,
                     const SpmSearchOptions *options, size_t q) {
  const MemoptLayer *layer = memoptLayerGraphAt(graph, q);
  return options->strategy != SpmStrategyFuseOnly && !layer->isResult &&
         layer->lastUse > (intptr_t)q && memoptLayerBytes(graph, q, target) <= target->spmBytes;
}

/* The pinnable maps whose pinning changes group first..last's cost: those
 * it reads from outside and its outputs read later. False when too many. */
static bool groupPins(const MemoptLayerGraph *graph, const MemoptSpmTarget *target,
                      const SpmSearchOptions *options, Candidate *candidate) {
  candidate->pinCount = 0;
  for (size_t l = candidate->first; l <= candidate->last; ++l) {
    const MemoptLayer *layer = memoptLayerGraphAt(graph, l);
    size_t add[8], addCount = 0;
    for (size_t i = 0; i < layer->inputCount && addCount < 8; ++i)
      if (layer->inputs[i].producer >= 0 && layer->inputs[i].producer < (intptr_t)candidate->first)
        add[addCount++] = (size_t)layer->inputs[i].producer;
    if (layer->lastUse > (intptr_t)candidate->last)
      add[addCount++] = l;
    for (size_t a = 0; a < addCount; ++a) {
      if (!pinnable(graph, target, options, add[a]))
        continue;
      bool known = false;
      for (size_t k = 0; k < candidate->pinCount; ++k)
        known = known || candidate->pins[k] == add[a];
      if (known)
        continue;
      if (candidate->pinCount == MAX_GROUP_PINS)
        return false;
      candidate->pins[candidate->pinCount++] = add[a];
    }
  }
  return true;
}

bool spmSolveILP(const MemoptLayerGraph *graph, const MemoptSpmTarget *fullTarget,
                 const SpmSearchOptions *options, uint64_t capacity, SpmPlan *plan,
                 MemoptStringBuffer *error) {
  MemoptSpmTarget reduced = *fullTarget;
  reduced.spmBytes = capacity;
  const MemoptSpmTarget *target = &reduced;
  size_t count = memoptLayerGraphCount(graph);
  size_t maxGroup = options->strategy == SpmStrategyPinOnly ? 1 : options->maxGroupLayers;
  bool *pinned = memoptAllocateZeroed(count, sizeof *pinned);
  Candidate *candidates = NULL;
  size_t candidateCount = 0, candidateCapacity = 0;
  int64_t tiles[64];
  for (size_t b = 0; b < count; ++b)
    for (size_t e = b; e < count && e < b + maxGroup; ++e) {
      if (spmGroupOutputCount(graph, b, e) > SPM_MAX_GROUP_OUTPUTS)
        continue;
      Candidate base = {.first = b, .last = e};
      if (!groupPins(graph, target, options, &base)) {
        memoptStringBufferAppendFormat(error,
                                       "ilp: layers %zu-%zu touch more than %d pinnable feature "
                                       "maps; the ILP is for small graphs",
                                       b, e, MAX_GROUP_PINS);
        free(candidates);
        free(pinned);
        return false;
      }
      size_t tileCount = spmTileCandidates(memoptLayerGraphAt(graph, e)->rows, tiles);
      for (size_t t = 0; t < tileCount; ++t)
        for (unsigned subset = 0; subset < (1u << base.pinCount); ++subset) {
          for (size_t k = 0; k < base.pinCount; ++k)
            pinned[base.pins[k]] = subset & (1u << k);
          MemoptGroupCost cost;
          memoptGroupCost(graph, b, e, tiles[t], pinned, target, &cost);
          for (size_t k = 0; k < base.pinCount; ++k)
            pinned[base.pins[k]] = false;
          if (cost.footprintBytes > capacity)
            continue;
          candidates = memoptGrowArray(candidates, &candidateCapacity, candidateCount + 1,
                                       sizeof *candidates);
          Candidate *candidate = &candidates[candidateCount++];
          *candidate = base;
          candidate->tileRows = tiles[t];
          candidate->subset = subset;
          candidate->cost = (double)(options->objective == SpmObjectiveTransfer ? cost.offchipBytes
                                                                                 : cost.cycles);
          candidate->footprint = cost.footprintBytes;
        }
    }

  glp_prob *problem = glp_create_prob();
  glp_set_obj_dir(problem, GLP_MIN);
  /* Columns: x (one per candidate), then p (one per layer; fixed to 0 where
   * the layer's output cannot be pinned). */
  int xBase = 1, pBase = 1 + (int)candidateCount;
  glp_add_cols(problem, (int)(candidateCount + count));
  for (size_t c = 0; c < candidateCount; ++c) {
    glp_set_col_kind(problem, xBase + (int)c, GLP_BV);
    glp_set_obj_coef(problem, xBase + (int)c, candidates[c].cost);
  }
  for (size_t q = 0; q < count; ++q) {
    glp_set_col_kind(problem, pBase + (int)q, GLP_BV);
    if (!pinnable(graph, target, options, q))
      glp_set_col_bnds(problem, pBase + (int)q, GLP_FX, 0, 0);
  }
  MemoptSparseMatrix matrix = {0};
  /* Every layer in exactly one chosen group. */
  int coverBase = glp_add_rows(problem, (int)count);
  for (size_t l = 0; l < count; ++l)
    glp_set_row_bnds(problem, coverBase + (int)l, GLP_FX, 1, 1);
  for (size_t c = 0; c < candidateCount; ++c)
    for (size_t l = candidates[c].first; l <= candidates[c].last; ++l)
      memoptSparseMatrixAdd(&matrix, coverBase + (int)l, xBase + (int)c, 1);
  for (size_t c = 0; c < candidateCount; ++c) {
    const Candidate *candidate = &candidates[c];
    /* A chosen candidate's subset agrees with p: x <= p for a map in it,
     * x + p <= 1 for a map out of it. */
    for (size_t k = 0; k < candidate->pinCount; ++k) {
      int row = glp_add_rows(problem, 1);
      bool in = candidate->subset & (1u << k);
      glp_set_row_bnds(problem, row, GLP_UP, 0, in ? 0 : 1);
      memoptSparseMatrixAdd(&matrix, row, xBase + (int)c, 1);
      memoptSparseMatrixAdd(&matrix, row, pBase + (int)candidate->pins[k], in ? -1 : 1);
    }
    /* Capacity with the pinned maps alive across the group that it neither
     * reads nor writes: footprint x + sum bytes p <= capacity + M (1 - x). */
    double bigM = 0;
    size_t rowStart = matrix.count;
    int row = glp_add_rows(problem, 1);
    for (size_t q = 0; q < candidate->first; ++q) {
      if (!pinnable(graph, target, options, q) ||
          memoptLayerGraphAt(graph, q)->lastUse < (intptr_t)candidate->first)
        continue;
      bool touched = false;
      for (size_t k = 0; k < candidate->pinCount; ++k)
        touched = touched || candidate->pins[k] == q;
      if (touched)
        continue;
      double bytes = (double)memoptLayerBytes(graph, q, target);
      memoptSparseMatrixAdd(&matrix, row, pBase + (int)q, bytes);
      bigM += bytes;
    }
    if (matrix.count == rowStart) {
      glp_del_rows(problem, 1, (const int[]){0, row});
      continue;
    }
    memoptSparseMatrixAdd(&matrix, row, xBase + (int)c, (double)candidate->footprint + bigM);
    glp_set_row_bnds(problem, row, GLP_UP, 0, (double)capacity + bigM);
  }
  glp_load_matrix(problem, (int)matrix.count, matrix.rows, matrix.columns, matrix.values);
  glp_iocp parameters;
  glp_init_iocp(&parameters);
  parameters.presolve = GLP_ON;
  parameters.msg_lev = GLP_MSG_OFF;
  parameters.tm_lim = (int)(options->ilpTimeLimitSeconds * 1000);
  int status = glp_intopt(problem, &parameters);
  bool solved = status == 0 && glp_mip_status(problem) == GLP_OPT;
  if (!solved) {
    memoptStringBufferAppendFormat(error,
                                   "ilp: GLPK found no proven optimum within %.1f s (%zu "
                                   "candidate groups)",
                                   options->ilpTimeLimitSeconds, candidateCount);
  } else {
    memset(plan, 0, sizeof *plan);
    plan->pinned = memoptAllocateZeroed(count, sizeof *plan->pinned);
    plan->offsets = memoptAllocateZeroed(count, sizeof *plan->offsets);
    plan->groups = memoptAllocateZeroed(count, sizeof *plan->groups);
    /* Candidates are ordered by first layer, so groups come out in order. */
    for (size_t c = 0; c < candidateCount; ++c) {
      if (glp_mip_col_val(problem, xBase + (int)c) < 0.5)
        continue;
      const Candidate *candidate = &candidates[c];
      plan->groups[plan->groupCount++] =
          (SpmGroup){candidate->first, candidate->last, candidate->tileRows, {0}};
      for (size_t k = 0; k < candidate->pinCount; ++k)
        if ((candidate->subset & (1u << k)) && candidate->pins[k] >= candidate->first)
          plan->pinned[candidate->pins[k]] = true;
    }
    spmPlanCostGroups(graph, target, plan);
  }
  glp_delete_prob(problem);
  memoptSparseMatrixDestroy(&matrix);
  free(candidates);
  free(pinned);
  return solved;
}

/* The Pin-or-Fuse dynamic program. Layers are taken in program order; a
 * state is a boundary between two layers and the set of feature maps that
 * are pinned and still live across it (skip connections keep their producer
 * pinned until the residual add). A transition runs one fused group: its
 * layers, its tile size, and which of its outputs that cross the next
 * boundary stay pinned. The SPM capacity is checked on every transition, so
 * every plan the DP returns fits; interval packing then places the pinned
 * tensors, and when fragmentation defeats it the search runs again at 98% of
 * the capacity. */
#include "Spm/Spm.h"
#include "Spm/Transforms/SpmPinFuse.h"

#include <stdlib.h>
#include <string.h>

/* The most pinnable feature maps tracked across one boundary, and the most
 * outputs of one group whose pinning is decided (the rest stay off-chip). */
enum { MAX_LIVE = 8, MAX_PIN_CHOICES = 4, MAX_PACKING_RETRIES = 40 };

typedef struct Live {
  size_t count;
  size_t layers[MAX_LIVE];
} Live;

typedef struct State {
  bool reached;
  uint64_t primary, secondary;
  size_t previousBoundary;
  unsigned previousMask;
  int64_t tileRows;
} State;

static void objectiveOf(const SpmSearchOptions *options, const MemoptGroupCost *cost,
                        uint64_t *primary, uint64_t *secondary) {
  bool latency = options->objective == SpmObjectiveLatency;
  *primary = latency ? cost->cycles : cost->offchipBytes;
  *secondary = latency ? cost->offchipBytes : cost->cycles;
}

static bool better(uint64_t primary, uint64_t secondary, const State *state) {
  return !state->reached || primary < state->primary ||
         (primary == state->primary && secondary < state->secondary);
}

/* The pinnable feature maps live across each boundary b (produced before b,
 * read at or after it). */
static Live *liveAcrossBoundaries(const MemoptLayerGraph *graph, const MemoptSpmTarget *target,
                                  const SpmSearchOptions *options, uint64_t capacity) {
  size_t count = memoptLayerGraphCount(graph);
  Live *live = memoptAllocateZeroed(count + 1, sizeof *live);
  if (options->strategy == SpmStrategyFuseOnly)
    return live;
  for (size_t b = 1; b <= count; ++b)
    for (size_t p = 0; p < b && live[b].count < MAX_LIVE; ++p) {
      const MemoptLayer *layer = memoptLayerGraphAt(graph, p);
      if (!layer->isResult && layer->lastUse >= (intptr_t)b &&
          memoptLayerBytes(graph, p, target) <= capacity)
        live[b].layers[live[b].count++] = p;
    }
  return live;
}

size_t spmGroupOutputCount(const MemoptLayerGraph *graph, size_t first, size_t last) {
  size_t outputs = 0;
  for (size_t l = first; l <= last; ++l)
    if (memoptLayerGraphAt(graph, l)->lastUse > (intptr_t)last)
      ++outputs;
  return outputs;
}

/* The tile sizes tried for a layer of `rows` rows: halving from the whole. */
size_t spmTileCandidates(int64_t rows, int64_t *tiles) {
  size_t count = 0;
  for (int64_t parts = 1;; parts *= 2) {
    int64_t size = (rows + parts - 1) / parts;
    if (count == 0 || tiles[count - 1] != size)
      tiles[count++] = size;
    if (size == 1)
      return count;
  }
}

static unsigned maskOf(const Live *live, const bool *pinned) {
  unsigned mask = 0;
  for (size_t j = 0; j < live->count; ++j)
    if (pinned[live->layers[j]])
      mask |= 1u << j;
  return mask;
}

static void setMask(const Live *live, unsigned mask, bool *pinned, bool value) {
  for (size_t j = 0; j < live->count; ++j)
    if (mask & (1u << j))
      pinned[live->layers[j]] = value;
}

/* Fills the plan from the states by walking back from the end. */
static void reconstruct(const MemoptLayerGraph *graph, const MemoptSpmTarget *target,
                        const Live *live, const State *states, SpmPlan *plan) {
  size_t count = memoptLayerGraphCount(graph);
  size_t masks = (size_t)1 << MAX_LIVE;
  plan->pinned = memoptAllocateZeroed(count, sizeof *plan->pinned);
  plan->offsets = memoptAllocateZeroed(count, sizeof *plan->offsets);
  plan->groups = memoptAllocateZeroed(count, sizeof *plan->groups);
  size_t boundary = count;
  unsigned mask = 0;
  while (boundary > 0) {
    const State *state = &states[boundary * masks + mask];
    setMask(&live[boundary], mask, plan->pinned, true);
    plan->groups[plan->groupCount++] =
        (SpmGroup){state->previousBoundary, boundary - 1, state->tileRows, {0}};
    mask = state->previousMask;
    boundary = state->previousBoundary;
  }
  /* Groups were collected last first. */
  for (size_t i = 0; i < plan->groupCount / 2; ++i) {
    SpmGroup swap = plan->groups[i];
    plan->groups[i] = plan->groups[plan->groupCount - 1 - i];
    plan->groups[plan->groupCount - 1 - i] = swap;
  }
  spmPlanCostGroups(graph, target, plan);
}

void spmPlanCostGroups(const MemoptLayerGraph *graph, const MemoptSpmTarget *target,
                       SpmPlan *plan) {
  plan->offchipBytes = plan->cycles = plan->macs = plan->weightBytes = 0;
  for (size_t g = 0; g < plan->groupCount; ++g) {
    SpmGroup *group = &plan->groups[g];
    memoptGroupCost(graph, group->first, group->last, group->tileRows, plan->pinned, target,
                    &group->cost);
    plan->offchipBytes += group->cost.offchipBytes;
    plan->cycles += group->cost.cycles;
    plan->macs += group->cost.macs;
    plan->weightBytes += group->cost.weightBytes;
  }
}

/* Runs the DP at `capacity`; false when no plan fits. */
static bool runDP(const MemoptLayerGraph *graph, const MemoptSpmTarget *fullTarget,
                  const SpmSearchOptions *options, uint64_t capacity, SpmPlan *plan) {
  /* Streamed weights fill the room they are given: give them `capacity`. */
  MemoptSpmTarget reduced = *fullTarget;
  reduced.spmBytes = capacity;
  const MemoptSpmTarget *target = &reduced;
  size_t count = memoptLayerGraphCount(graph);
  size_t masks = (size_t)1 << MAX_LIVE;
  size_t maxGroup = options->strategy == SpmStrategyPinOnly ? 1 : options->maxGroupLayers;
  Live *live = liveAcrossBoundaries(graph, target, options, capacity);
  State *states = memoptAllocateZeroed((count + 1) * masks, sizeof *states);
  bool *pinned = memoptAllocateZeroed(count, sizeof *pinned);
  int64_t tiles[64];
  states[0].reached = true;
  for (size_t b = 0; b < count; ++b)
    for (unsigned mask = 0; mask < masks; ++mask) {
      const State *from = &states[b * masks + mask];
      if (!from->reached)
        continue;
      setMask(&live[b], mask, pinned, true);
      uint64_t pinnedBefore = 0;
      for (size_t j = 0; j < live[b].count; ++j)
        if (mask & (1u << j))
          pinnedBefore += memoptLayerBytes(graph, live[b].layers[j], target);
      for (size_t e = b; e < count && e < b + maxGroup; ++e) {
        const MemoptLayer *lastLayer = memoptLayerGraphAt(graph, e);
        if (pinnedBefore > capacity)
          break;
        if (spmGroupOutputCount(graph, b, e) > SPM_MAX_GROUP_OUTPUTS)
          continue;
        /* The group's outputs that could stay pinned past it. */
        size_t choices[MAX_PIN_CHOICES], choiceCount = 0;
        for (size_t j = 0; j < live[e + 1].count && choiceCount < MAX_PIN_CHOICES; ++j)
          if (live[e + 1].layers[j] >= b)
            choices[choiceCount++] = live[e + 1].layers[j];
        size_t tileCount = spmTileCandidates(lastLayer->rows, tiles);
        for (size_t t = 0; t < tileCount; ++t)
          for (unsigned subset = 0; subset < (1u << choiceCount); ++subset) {
            for (size_t c = 0; c < choiceCount; ++c)
              pinned[choices[c]] = subset & (1u << c);
            MemoptGroupCost cost;
            memoptGroupCost(graph, b, e, tiles[t], pinned, target, &cost);
            if (cost.footprintBytes > capacity)
              continue;
            uint64_t primary, secondary;
            objectiveOf(options, &cost, &primary, &secondary);
            primary += from->primary;
            secondary += from->secondary;
            unsigned next = maskOf(&live[e + 1], pinned);
            State *to = &states[(e + 1) * masks + next];
            if (better(primary, secondary, to))
              *to = (State){true, primary, secondary, b, mask, tiles[t]};
          }
        for (size_t c = 0; c < choiceCount; ++c)
          pinned[choices[c]] = false;
      }
      setMask(&live[b], mask, pinned, false);
    }
  bool found = states[count * masks].reached;
  if (found)
    reconstruct(graph, target, live, states, plan);
  free(pinned);
  free(states);
  free(live);
  return found;
}

/* The first layer that does not fit alone at one row per tile, or -1. */
static intptr_t layerTooLarge(const MemoptLayerGraph *graph, const MemoptSpmTarget *target,
                              uint64_t *needed) {
  size_t count = memoptLayerGraphCount(graph);
  bool *none = memoptAllocateZeroed(count, sizeof *none);
  intptr_t found = -1;
  for (size_t l = 0; l < count && found < 0; ++l) {
    MemoptGroupCost cost;
    memoptGroupCost(graph, l, l, 1, none, target, &cost);
    if (cost.footprintBytes > target->spmBytes) {
      found = (intptr_t)l;
      *needed = cost.footprintBytes;
    }
  }
  free(none);
  return found;
}

bool spmPlanCreate(const MemoptLayerGraph *graph, const MemoptSpmTarget *target,
                   const SpmSearchOptions *options, SpmPlan *plan, intptr_t *failedLayer,
                   MemoptStringBuffer *error) {
  *failedLayer = -1;
  memset(plan, 0, sizeof *plan);
  uint64_t needed = 0;
  intptr_t tooLarge = layerTooLarge(graph, target, &needed);
  if (tooLarge >= 0) {
    *failedLayer = tooLarge;
    memoptStringBufferAppendFormat(
        error,
        "layer %ld (%s) needs %llu bytes of scratchpad at its smallest tile (1 row), more than "
        "the %llu bytes there are",
        (long)tooLarge, memoptLayerKindName(memoptLayerGraphAt(graph, (size_t)tooLarge)->kind),
        (unsigned long long)needed, (unsigned long long)target->spmBytes);
    return false;
  }
  uint64_t capacity = target->spmBytes;
  for (int retry = 0; retry <= MAX_PACKING_RETRIES; ++retry) {
    bool solved = options->strategy == SpmStrategyILP
                      ? spmSolveILP(graph, target, options, capacity, plan, error)
                      : runDP(graph, target, options, capacity, plan);
    if (!solved) {
      if (!error->length)
        memoptStringBufferAppendFormat(error, "no plan fits in %llu bytes",
                                       (unsigned long long)capacity);
      return false;
    }
    plan->capacityUsed = capacity;
    plan->packingRetries = retry;
    if (spmPackPinned(graph, target, plan, target->spmBytes))
      return true;
    spmPlanDestroy(plan);
    capacity = capacity / 50 * 49; /* 98% */
  }
  memoptStringBufferAppendFormat(error,
                                 "the pinned tensors could not be packed after %d retries at 98%% "
                                 "of the capacity",
                                 MAX_PACKING_RETRIES);
  return false;
}

void spmPlanDestroy(SpmPlan *plan) {
  free(plan->groups);
  free(plan->pinned);
  free(plan->offsets);
  memset(plan, 0, sizeof *plan);
}

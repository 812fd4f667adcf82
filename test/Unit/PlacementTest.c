/* The placement search: on problems whose middle layers are equal, the
 * threshold search (memoptPlacementSearch) must choose exactly the DP's plan
 * (memoptPlacementSearchDP): the same configuration, time per batch to the
 * bit, stage bounds and recompute choices, ties broken alike. The problems
 * are drawn from a fixed-seed generator over the ranges that make ties,
 * recomputation and infeasible stages common: few distinct layer figures,
 * HBM around a few layers' worth, small clusters. */
#include "Place/Place.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

static uint64_t seed = 12345;

/* A value in [0, bound) from a 64-bit linear congruential generator. */
static uint64_t draw(uint64_t bound) {
  seed = seed * 6364136223846793005u + 1442695040888963407u;
  return (seed >> 33) % bound;
}

typedef struct Case {
  MemoptPlacementLayer layers[24];
  double seconds[3][5];
  int64_t microbatches[5];
  MemoptPlacementProblem problem;
} Case;

/* A random problem: a prologue, `middle` equal layers, an epilogue (each
 * figure a small integer, so that sums tie exactly). */
static void makeCase(Case *c, size_t middle) {
  memset(c, 0, sizeof *c);
  size_t microbatchCount = 1 + draw(3);
  for (size_t mb = 0; mb < microbatchCount; ++mb)
    c->microbatches[mb] = (int64_t)1 << mb;
  double parameters[3], activations[3], boundaries[3];
  for (int kind = 0; kind < 3; ++kind) {
    for (size_t mb = 0; mb < microbatchCount; ++mb)
      c->seconds[kind][mb] = (double)(1 + draw(4)) * (double)(mb + 1);
    parameters[kind] = (double)draw(3) * 64;
    activations[kind] = (double)(1 + draw(4)) * 16;
    boundaries[kind] = (double)(1 + draw(3)) * 8;
  }
  size_t layers = middle + 2;
  for (size_t l = 0; l < layers; ++l) {
    int kind = l == 0 ? 0 : l + 1 == layers ? 2 : 1;
    c->layers[l] = (MemoptPlacementLayer){c->seconds[kind],
                                          parameters[kind],
                                          activations[kind],
                                          boundaries[kind],
                                          0,
                                          0,
                                          NULL,
                                          {NULL, NULL},
                                          -1,
                                          {0, 0},
                                          {0, 0}};
  }
  c->problem = (MemoptPlacementProblem){
      c->layers,
      layers,
      c->microbatches,
      microbatchCount,
      (int64_t)(1 + draw(12)),
      (double)(200 + draw(1200)),
      (double)(1 + draw(64)),
      (int64_t)(1 + draw(4)) * 8,
      (double)draw(3),
      (int64_t)1 << draw(3),
      0,
      2,
      MemoptPlacementTraining,
  };
}

static void samePlan(const MemoptPlacementPlan *a, const MemoptPlacementPlan *b) {
  assert_int_equal(a->pipeline, b->pipeline);
  assert_int_equal(a->tensorParallel, b->tensorParallel);
  assert_int_equal(a->dataParallel, b->dataParallel);
  assert_int_equal(a->microbatch, b->microbatch);
  assert_true(a->batchSeconds == b->batchSeconds);
  assert_int_equal(a->stageCount, b->stageCount);
  for (size_t s = 0; s < a->stageCount; ++s) {
    assert_int_equal(a->stages[s].firstLayer, b->stages[s].firstLayer);
    assert_int_equal(a->stages[s].layerCount, b->stages[s].layerCount);
    assert_int_equal(a->stages[s].recompute, b->stages[s].recompute);
  }
}

/* 3000 random problems of 2 to 22 layers. */
static void thresholdSearchChoosesTheDPPlan(void **state) {
  (void)state;
  size_t found = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    Case c;
    makeCase(&c, draw(21));
    MemoptPlacementPlan dp, search;
    MemoptPlacementFailure dpFailure, searchFailure;
    bool dpFound = memoptPlacementSearchDP(&c.problem, &dp, &dpFailure);
    bool searchFound = memoptPlacementSearch(&c.problem, &search, &searchFailure);
    assert_int_equal(dpFound, searchFound);
    if (dpFound) {
      samePlan(&dp, &search);
      ++found;
    } else {
      assert_true(dpFailure.smallestMemoryBytes == searchFailure.smallestMemoryBytes);
    }
    memoptPlacementPlanDestroy(&dp);
    memoptPlacementPlanDestroy(&search);
  }
  /* Most problems have a plan: the comparison is not vacuous. */
  assert_true(found > 1500);
}

/* The program as written holds, per device, every layer's whole
 * parameters, its split parameters over t, and the most one microbatch's
 * ops hold at once among its layers, at the plan's tensor degree. Three
 * layers (whole, split, held at microbatch 2 on 1 device and on each of 2):
 * (100, 0, 80 | 60), (20, 800, 240 | 140), (10, 200, 120 | 100).
 *   tensor-parallel 2: 100 + 20 + 10 + (0 + 800 + 200) / 2 + 140 = 770
 *   data-parallel 2:   130 + 1000 / 1 + 240                       = 1370
 * The training figures on the same problem count none of it: their fields
 * (parameterBytes, activationBytes, boundaryBytes) are 0, and so is their
 * memory. */
static void programMemoryCountsTheParametersShareAndOneMicrobatch(void **state) {
  (void)state;
  double seconds[1] = {1};
  int64_t microbatches[1] = {2};
  double held[3][2] = {{80, 60}, {240, 140}, {120, 100}};
  MemoptPlacementLayer layers[3] = {{seconds, 0, 0, 0, 100, 0, held[0], {NULL, NULL}, -1, {0, 0}, {0, 0}},
                                    {seconds, 0, 0, 0, 20, 800, held[1], {NULL, NULL}, -1, {0, 0}, {0, 0}},
                                    {seconds, 0, 0, 0, 10, 200, held[2], {NULL, NULL}, -1, {0, 0}, {0, 0}}};
  MemoptPlacementProblem problem = {layers, 3, microbatches, 1, 2, 1e9, 1e9, 2, 7, 2, 0, 2,
                                    MemoptPlacementProgram};
  MemoptPlacementPlan plan;
  assert_true(memoptPlacementEvaluateFixed(&problem, 1, 2, 1, &plan));
  assert_int_equal(plan.stageCount, 1);
  assert_true(plan.stages[0].memoryBytes == 770);
  memoptPlacementPlanDestroy(&plan);
  problem.globalBatch = 4;
  assert_true(memoptPlacementEvaluateFixed(&problem, 1, 1, 2, &plan));
  assert_true(plan.stages[0].memoryBytes == 1370);
  memoptPlacementPlanDestroy(&plan);
  problem.memory = MemoptPlacementTraining;
  assert_true(memoptPlacementEvaluateFixed(&problem, 1, 1, 2, &plan));
  assert_true(plan.stages[0].memoryBytes == 0);
  memoptPlacementPlanDestroy(&plan);
}

/* A parameter two layers of a stage read is held once by it, and by every
 * stage that reads it. Layers: a prologue (whole 100: an embedding table),
 * 2 layers (whole 20, split 800) and an epilogue (whole 110, split 1600)
 * that reads the table (tied, 100 whole) and both layers' matrices again
 * (a backward: 800 split each), held 50 each at microbatch 1.
 *   1 stage:        100 + 2 x 820 + 1710 - 100 - 2 x 800 + 50 = 1800
 *                   (the parameters once: 100 + 2 x 820 + 10 = 1750)
 *   2 stages [0, 2) and [2, 4):
 *     first:  100 + 820 + 50                                 =  970
 *     second: 820 + 1710 - 800 (layer 2's, read again) + 50   = 1780
 *   (the second holds the table and layer 1's matrices too, which the
 *   epilogue reads). */
static void programMemoryHoldsAParameterOncePerStageThatReadsIt(void **state) {
  (void)state;
  double seconds[1] = {1};
  int64_t microbatches[1] = {1};
  double held[1] = {50};
  MemoptPlacementLayer layers[4] = {
      {seconds, 0, 0, 0, 100, 0, held, {NULL, NULL}, -1, {0, 0}, {0, 0}},
      {seconds, 0, 0, 0, 20, 800, held, {NULL, NULL}, -1, {0, 0}, {0, 0}},
      {seconds, 0, 0, 0, 20, 800, held, {NULL, NULL}, -1, {0, 0}, {0, 0}},
      {seconds, 0, 0, 0, 110, 1600, held, {NULL, NULL}, -1, {100, 0}, {0, 800}}};
  MemoptPlacementProblem problem = {layers, 4, microbatches,          1, 1, 1e9, 1e9, 1, 7, 1,
                                    0,      2, MemoptPlacementProgram};
  MemoptPlacementPlan plan;
  assert_true(memoptPlacementEvaluateFixed(&problem, 1, 1, 1, &plan));
  assert_true(plan.stages[0].memoryBytes == 1800);
  memoptPlacementPlanDestroy(&plan);
  problem.devices = 2;
  assert_true(memoptPlacementEvaluateFixed(&problem, 2, 1, 1, &plan));
  assert_int_equal(plan.stageCount, 2);
  assert_true(plan.stages[0].memoryBytes == 970);
  assert_true(plan.stages[1].memoryBytes == 1780);
  memoptPlacementPlanDestroy(&plan);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(thresholdSearchChoosesTheDPPlan),
      cmocka_unit_test(programMemoryCountsTheParametersShareAndOneMicrobatch),
      cmocka_unit_test(programMemoryHoldsAParameterOncePerStageThatReadsIt),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

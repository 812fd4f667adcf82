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
    c->layers[l] = (MemoptPlacementLayer){c->seconds[kind], parameters[kind], activations[kind],
                                          boundaries[kind]};
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
      NULL,
      NULL,
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

/* The program as written holds, per device, the parameters its stage's ops
 * read and the most one microbatch's ops hold at once at the plan's tensor
 * degree, each stage priced whole. Three layers; the stages [first, end) in
 * memoptPlacementStageIndex's order:
 *   [0,1) [0,2) [0,3) [1,2) [1,3) [2,3)
 * parameters on 1 device and on each of 2:
 *   (100, 100) (920, 520) (1130, 630) (820, 420) (1030, 530) (210, 110)
 * held at microbatch 2 on 1 device and on each of 2:
 *   (80, 60) (240, 140) (250, 150) (300, 200) (310, 210) (120, 100)
 *   1 stage, tensor-parallel 2: 630 + 150                           = 780
 *   1 stage, data-parallel 2:   1130 + 250                          = 1380
 *   2 stages [0, 2) and [2, 3): 920 + 240 = 1160; 210 + 120          = 330
 *   (each stage's own figures, not sums over its layers)
 * The training figures on the same problem count none of it: their fields
 * (parameterBytes, activationBytes, boundaryBytes) are 0, and so is their
 * memory. */
static void programMemoryPricesEachStageWhole(void **state) {
  (void)state;
  double seconds[1] = {1};
  int64_t microbatches[1] = {2};
  double parameters[6][2] = {{100, 100}, {920, 520},  {1130, 630},
                             {820, 420}, {1030, 530}, {210, 110}};
  double held[6][2] = {{80, 60}, {240, 140}, {250, 150}, {300, 200}, {310, 210}, {120, 100}};
  MemoptPlacementLayer layers[3] = {{seconds, 0, 0, 0}, {seconds, 0, 0, 0}, {seconds, 0, 0, 0}};
  MemoptPlacementProblem problem = {layers,
                                    3,
                                    microbatches,
                                    1,
                                    2,
                                    1e9,
                                    1e9,
                                    2,
                                    7,
                                    2,
                                    0,
                                    2,
                                    MemoptPlacementProgram,
                                    &parameters[0][0],
                                    &held[0][0]};
  MemoptPlacementPlan plan;
  assert_true(memoptPlacementEvaluateFixed(&problem, 1, 2, 1, &plan));
  assert_int_equal(plan.stageCount, 1);
  assert_true(plan.stages[0].memoryBytes == 780);
  memoptPlacementPlanDestroy(&plan);
  problem.globalBatch = 4;
  assert_true(memoptPlacementEvaluateFixed(&problem, 1, 1, 2, &plan));
  assert_true(plan.stages[0].memoryBytes == 1380);
  memoptPlacementPlanDestroy(&plan);
  problem.globalBatch = 2;
  assert_true(memoptPlacementEvaluateFixed(&problem, 2, 1, 1, &plan));
  assert_int_equal(plan.stageCount, 2);
  assert_int_equal(plan.stages[1].firstLayer, 2);
  assert_true(plan.stages[0].memoryBytes == 1160);
  assert_true(plan.stages[1].memoryBytes == 330);
  memoptPlacementPlanDestroy(&plan);
  problem.memory = MemoptPlacementTraining;
  problem.globalBatch = 4;
  assert_true(memoptPlacementEvaluateFixed(&problem, 1, 1, 2, &plan));
  assert_true(plan.stages[0].memoryBytes == 0);
  memoptPlacementPlanDestroy(&plan);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(thresholdSearchChoosesTheDPPlan),
      cmocka_unit_test(programMemoryPricesEachStageWhole),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The per-layer operator scheduler: the list schedule and the ILP on tiny
 * layers whose optimum is known by hand. */
#include "Place/Place.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

static const MemoptOpUnit T = MemoptOpUnitTensor, V = MemoptOpUnitVector, N = MemoptOpUnitNone;

/* A tensor op and two vector ops, independent: the vector ops queue (3 + 2)
 * while the tensor op (4) overlaps them: makespan 5. */
static void independentOpsOverlapAcrossUnits(void **state) {
  (void)state;
  double seconds[] = {4, 3, 2};
  MemoptOpUnit units[] = {T, V, V};
  MemoptScheduleProblem problem = {seconds, units, 3, NULL, 0};
  double starts[3];
  assert_float_equal(memoptScheduleList(&problem, starts), 5, 1e-12);
  MemoptScheduleStatus status;
  assert_float_equal(memoptScheduleSolve(&problem, 10, 0, starts, &status), 5, 1e-9);
  assert_int_equal(status, MemoptScheduleOptimal);
}

/* T1(1) -> V1(5) -> T3(5), and V0(4) independent. The list scheduler starts
 * V0 at once (it is ready first), delaying the critical V1 until 4: makespan
 * 4 + 5 + 5 = 14. The optimum runs V1 at 1, T3 at 6 and V0 beside T3: 11. */
static void ilpBeatsGreedyListSchedule(void **state) {
  (void)state;
  double seconds[] = {1, 5, 5, 4};
  MemoptOpUnit units[] = {T, V, T, V};
  const size_t edges[][2] = {{0, 1}, {1, 2}};
  MemoptScheduleProblem problem = {seconds, units, 4, edges, 2};
  double starts[4];
  assert_float_equal(memoptScheduleList(&problem, starts), 14, 1e-12);
  MemoptScheduleStatus status;
  double makespan = memoptScheduleSolve(&problem, 10, 0, starts, &status);
  assert_float_equal(makespan, 11, 1e-6);
  assert_int_equal(status, MemoptScheduleOptimal);
  /* The starts respect the dependences and the units. */
  assert_true(starts[1] >= starts[0] + 1 - 1e-6);
  assert_true(starts[2] >= starts[1] + 5 - 1e-6);
  assert_true(starts[3] + 4 <= starts[1] + 1e-6 || starts[1] + 5 <= starts[3] + 1e-6);
}

/* A chain is its own schedule: the sum of its durations; ops without a unit
 * take no time and do not block anything. */
static void chainTakesTheSumOfItsOps(void **state) {
  (void)state;
  double seconds[] = {2, 0, 3, 1};
  MemoptOpUnit units[] = {T, N, V, T};
  const size_t edges[][2] = {{0, 1}, {1, 2}, {2, 3}};
  MemoptScheduleProblem problem = {seconds, units, 4, edges, 3};
  double starts[4];
  assert_float_equal(memoptScheduleList(&problem, starts), 6, 1e-12);
  MemoptScheduleStatus status;
  assert_float_equal(memoptScheduleSolve(&problem, 10, 0, starts, &status), 6, 1e-9);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(independentOpsOverlapAcrossUnits),
      cmocka_unit_test(ilpBeatsGreedyListSchedule),
      cmocka_unit_test(chainTakesTheSumOfItsOps),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* place-to-shard's parts (private to lib/Place): the checks before it
 * changes anything (PlaceToShardCheck.c) and the pipeline driver
 * (PipelineDriver.c), the function that runs every stage of a placed
 * function on MPI ranks, one stage per rank, passing the values between
 * stages with mpi.send and mpi.recv. */
#ifndef MEMOPT_PLACE_PLACETOSHARD_H
#define MEMOPT_PLACE_PLACETOSHARD_H

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stdint.h>

/// Returns true when `func` is a func.func holding place.stage ops in its body.
bool memoptPlaceHoldsStages(MlirOperation func);

/// Returns the number of place.stage ops in the body of `func`.
intptr_t memoptPlaceStageCount(MlirOperation func);

/// Checks the functions of `module` that hold stages before place-to-shard lowers them (and, when `driven`, that each pipeline of several stages can be driven); false after a located error at each problem.
bool memoptPlaceToShardCheck(MlirOperation module, bool driven);

/// How the driver calls one outlined stage.
typedef struct MemoptPipelineStage {
  /* A detached block (owned) holding the func.call of the stage's function
   * on values of the original function, with the views normalization
   * applies to its operands before it and to its results after it. */
  MlirBlock recipe;
  MlirOperation call;   /* the func.call in `recipe` */
  MlirValue *outputs;   /* owned: the original function's value each call result stands for */
  intptr_t outputCount;
} MemoptPipelineStage;

/// Returns the values of the original function that place.stage `stage`'s yielded values stand for (its results, or those of the cast unpacking its packed tuple), `*count` of them; the caller frees the array.
MlirValue *memoptPipelineStageOutputs(MlirOperation stage, intptr_t *count);

/// Checks that the place.stage ops of `func` (more than one) can be driven: each on one device (tensor x data parallel 1); false after a located error at each that is not.
bool memoptPipelineDriverCheck(MlirOperation func);

/// Builds the driver of `func` from its outlined `stages` (in order; their recipes are consumed): a detached func.func with `func`'s name, type and attributes, plus `place.pipeline_stages`. Returns a null op after a located error when a value passed between ranks is not a tensor of static shape.
MlirOperation memoptPipelineDriverBuild(MlirOperation func, MemoptPipelineStage *stages,
                                        intptr_t count);

/// Frees what `stage` owns (its recipe block, when not consumed, and its outputs).
void memoptPipelineStageDestroy(MemoptPipelineStage *stage);

#endif /* MEMOPT_PLACE_PLACETOSHARD_H */

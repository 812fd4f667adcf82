/* What one pipeline stage holds per device, for place-search's
 * `memory=program`, from what PlaceProgramMemory.c found in the function.
 *
 * A stage of ops [start, end) runs as a function whose arguments are what
 * earlier ops made and its ops read (the function's return excluded: each
 * stage returns what it made), the data arguments they read and the
 * parameters they read, all held until it returns; beside them it holds the
 * buffers its own ops make, each from the op that allocates it to its last
 * use in the function (a buffer a later stage reads is a result: held to
 * the end of the stage).
 *
 * Where the tensor split sums a value over a split loop (the row split),
 * the partitioned program all-reduces it right after the op into a buffer
 * of its own: there the device holds the op's live buffers but those it
 * freed, and that copy.
 *
 * A device holds its share of each buffer: of a buffer carrying the batch,
 * the microbatch's samples; of one the tensor split divides, 1 / t. The
 * lowered program allocates that share rounded up to the buffer's
 * alignment, so each share is rounded before it is summed, per tensor
 * degree and microbatch. */
#include "Place/PlaceSearch.h"

#include "Analysis/BufferizationModel.h"

#include <math.h>
#include <stdlib.h>

/* The bytes a device allocates for its share of `record` at `microbatch`
 * samples (of `irBatch` in the function) on a tensor-parallel group of
 * `tensor`. */
static int64_t shareBytes(const MemoptPlaceBuffer *record, double irBatch, double microbatch,
                          double tensor) {
  double bytes = (double)record->payload * (record->perSample ? microbatch / irBatch : 1) /
                 (record->split ? tensor : 1);
  double alignment = (double)record->alignment;
  return (int64_t)(ceil(ceil(bytes) / alignment) * alignment);
}

/* The op of the function at or after `start` that first reads `record`
 * (among `reads`), or MEMOPT_NO_INDEX. */
static size_t firstReadFrom(const MemoptPlaceBuffer *record, const size_t *reads, size_t start) {
  size_t first = MEMOPT_NO_INDEX;
  for (size_t r = record->firstRead; r < record->readEnd; ++r)
    if (reads[r] >= start && reads[r] < first)
      first = reads[r];
  return first;
}

/* The figures a stage is priced at: k = degree x microbatch count +
 * microbatch candidate, for tensor groups of 2^degree. */
typedef struct Figures {
  double irBatch;
  const int64_t *microbatches;
  size_t microbatchCount;
  size_t count; /* degrees x microbatchCount */
} Figures;

/* The bytes a device allocates for its share of `record` in figure k. */
static int64_t figureShare(const MemoptPlaceBuffer *record, const Figures *figures, size_t k) {
  return shareBytes(record, figures->irBatch,
                    (double)figures->microbatches[k % figures->microbatchCount],
                    (double)((int64_t)1 << (k / figures->microbatchCount)));
}

/* Adds to inputs[op * figures->count + k] the share of each of the `count`
 * records a stage from `start` holds as an input (an argument, or a buffer
 * made before it) at the op first reading it from `start` on, if any. */
static void addInputs(const MemoptPlaceBuffer *records, size_t count, const size_t *reads,
                      size_t start, size_t ops, const Figures *figures, int64_t *inputs) {
  for (size_t b = 0; b < count; ++b) {
    if (!records[b].argument && records[b].made >= start)
      continue;
    size_t first = firstReadFrom(&records[b], reads, start);
    for (size_t k = 0; first < ops && k < figures->count; ++k)
      inputs[first * figures->count + k] += figureShare(&records[b], figures, k);
  }
}

/* Writes out[e * figures->count + k], for each of the `endCount` ascending
 * `ends`, the most atOp[op * figures->count + k] holds over ops [start,
 * ends[e]) (none when `atOp` is NULL) plus the inputs those ops read. */
static void sweepStage(const int64_t *atOp, const int64_t *inputs, size_t start, size_t ops,
                       const size_t *ends, size_t endCount, const Figures *figures, double *out) {
  size_t n = figures->count;
  int64_t *peak = memoptAllocateZeroed(n, sizeof *peak);
  int64_t *read = memoptAllocateZeroed(n, sizeof *read);
  for (size_t op = start, e = 0; e < endCount && op < ops; ++op) {
    for (size_t k = 0; k < n; ++k) {
      read[k] += inputs[op * n + k];
      if (atOp && atOp[op * n + k] > peak[k])
        peak[k] = atOp[op * n + k];
    }
    for (; e < endCount && ends[e] == op + 1; ++e)
      for (size_t k = 0; k < n; ++k)
        out[e * n + k] = (double)(peak[k] + read[k]);
  }
  free(read);
  free(peak);
}

void memoptPlaceProgramMemoryStageParameters(const MemoptPlaceProgramMemory *memory, size_t start,
                                             const size_t *ends, size_t endCount, size_t degrees,
                                             double *bytes) {
  /* A parameter's share does not depend on the microbatch: one candidate. */
  const int64_t one = 1;
  Figures figures = {memory->irBatch, &one, 1, degrees};
  int64_t *inputs = memoptAllocateZeroed((memory->opCount + 1) * degrees, sizeof *inputs);
  addInputs(memory->parameters, memory->parameterCount, memory->parameterReads, start,
            memory->opCount, &figures, inputs);
  sweepStage(NULL, inputs, start, memory->opCount, ends, endCount, &figures, bytes);
  free(inputs);
}

void memoptPlaceProgramMemoryStageHeld(const MemoptPlaceProgramMemory *memory, size_t start,
                                       const size_t *ends, size_t endCount,
                                       const int64_t *microbatches, size_t microbatchCount,
                                       size_t degrees, double *held) {
  size_t positions = memory->positionCount, ops = memory->opCount;
  Figures figures = {memory->irBatch, microbatches, microbatchCount, degrees * microbatchCount};
  size_t n = figures.count;
  /* Per position and figure: what buffers made from `start` on hold there
   * (from differences), what those freed after it hold, and the copy an
   * all-reduce right after it makes (tensor groups of 2 and more); per op,
   * the most any position standing for it holds, and the stage's inputs by
   * the op first reading them. */
  int64_t *live = memoptAllocateZeroed((positions + 1) * n, sizeof *live);
  int64_t *dying = memoptAllocateZeroed((positions + 1) * n, sizeof *dying);
  int64_t *reduced = memoptAllocateZeroed((positions + 1) * n, sizeof *reduced);
  int64_t *atOp = memoptAllocateZeroed((ops + 1) * n, sizeof *atOp);
  int64_t *inputs = memoptAllocateZeroed((ops + 1) * n, sizeof *inputs);
  addInputs(memory->buffers, memory->bufferCount, memory->reads, start, ops, &figures, inputs);
  for (size_t b = 0; b < memory->bufferCount; ++b) {
    const MemoptPlaceBuffer *buffer = &memory->buffers[b];
    if (buffer->argument || buffer->made < start)
      continue;
    for (size_t k = 0; k < n; ++k) {
      int64_t share = figureShare(buffer, &figures, k);
      live[buffer->firstPosition * n + k] += share;
      live[(buffer->lastPosition + 1) * n + k] -= share;
      dying[buffer->lastPosition * n + k] += share;
      if (buffer->reducedAt < positions && k >= microbatchCount)
        reduced[buffer->reducedAt * n + k] += share;
    }
  }
  for (size_t p = 0; p < positions; ++p) {
    size_t op = memory->opAt[p];
    for (size_t k = 0; k < n; ++k) {
      if (p > 0)
        live[p * n + k] += live[(p - 1) * n + k];
      int64_t most = live[p * n + k];
      /* The all-reduce after it: its buffers but those freed, and the copy. */
      int64_t afterward = live[p * n + k] - dying[p * n + k] + reduced[p * n + k];
      if (reduced[p * n + k] > 0 && afterward > most)
        most = afterward;
      if (most > atOp[op * n + k])
        atOp[op * n + k] = most;
    }
  }
  sweepStage(atOp, inputs, start, ops, ends, endCount, &figures, held);
  free(inputs);
  free(atOp);
  free(reduced);
  free(dying);
  free(live);
}

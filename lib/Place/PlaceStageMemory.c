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

void memoptPlaceProgramMemoryStageParameters(const MemoptPlaceProgramMemory *memory, size_t start,
                                             const size_t *ends, size_t endCount, size_t degrees,
                                             double *bytes) {
  size_t ops = memory->opCount;
  /* Each parameter counts from the op first reading it. */
  int64_t *at = memoptAllocateZeroed((ops + 1) * degrees, sizeof *at);
  for (size_t p = 0; p < memory->parameterCount; ++p) {
    const MemoptPlaceBuffer *parameter = &memory->parameters[p];
    size_t first = firstReadFrom(parameter, memory->parameterReads, start);
    for (size_t t = 0; first < ops && t < degrees; ++t)
      at[first * degrees + t] += shareBytes(parameter, 1, 1, (double)((int64_t)1 << t));
  }
  int64_t *sum = memoptAllocateZeroed(degrees, sizeof *sum);
  for (size_t op = start, e = 0; e < endCount && op < ops; ++op) {
    for (size_t t = 0; t < degrees; ++t)
      sum[t] += at[op * degrees + t];
    for (; e < endCount && ends[e] == op + 1; ++e)
      for (size_t t = 0; t < degrees; ++t)
        bytes[e * degrees + t] = (double)sum[t];
  }
  free(sum);
  free(at);
}

void memoptPlaceProgramMemoryStageHeld(const MemoptPlaceProgramMemory *memory, size_t start,
                                       const size_t *ends, size_t endCount,
                                       const int64_t *microbatches, size_t microbatchCount,
                                       size_t degrees, double *held) {
  size_t positions = memory->positionCount, ops = memory->opCount;
  size_t figures = degrees * microbatchCount; /* figure k: degree k / count, microbatch k % count */
  /* Per figure: what buffers made from `start` on hold at each position
   * (from differences), the most any position standing for an op holds
   * there, and the stage's inputs by the op first reading them. */
  int64_t *live = memoptAllocateZeroed((positions + 1) * figures, sizeof *live);
  /* Per position and figure: what its buffers freed after it hold, and the
   * copy an all-reduce right after it makes (tensor groups of 2 and more). */
  int64_t *dying = memoptAllocateZeroed((positions + 1) * figures, sizeof *dying);
  int64_t *reduced = memoptAllocateZeroed((positions + 1) * figures, sizeof *reduced);
  int64_t *atOp = memoptAllocateZeroed((ops + 1) * figures, sizeof *atOp);
  int64_t *inputs = memoptAllocateZeroed((ops + 1) * figures, sizeof *inputs);
  for (size_t b = 0; b < memory->bufferCount; ++b) {
    const MemoptPlaceBuffer *buffer = &memory->buffers[b];
    bool made = !buffer->argument && buffer->made >= start;
    size_t first = made ? buffer->firstPosition : firstReadFrom(buffer, memory->reads, start);
    if (!made && first >= ops)
      continue;
    for (size_t k = 0; k < figures; ++k) {
      int64_t share = shareBytes(buffer, memory->irBatch, (double)microbatches[k % microbatchCount],
                                 (double)((int64_t)1 << (k / microbatchCount)));
      if (made) {
        live[first * figures + k] += share;
        live[(buffer->lastPosition + 1) * figures + k] -= share;
        dying[buffer->lastPosition * figures + k] += share;
        if (buffer->reducedAt < positions && k >= microbatchCount)
          reduced[buffer->reducedAt * figures + k] += share;
      } else {
        inputs[first * figures + k] += share;
      }
    }
  }
  for (size_t p = 0; p < positions; ++p) {
    size_t op = memory->opAt[p];
    for (size_t k = 0; k < figures; ++k) {
      if (p > 0)
        live[p * figures + k] += live[(p - 1) * figures + k];
      int64_t most = live[p * figures + k];
      /* The all-reduce after it: its buffers but those freed, and the copy. */
      int64_t afterward = live[p * figures + k] - dying[p * figures + k] + reduced[p * figures + k];
      if (reduced[p * figures + k] > 0 && afterward > most)
        most = afterward;
      if (most > atOp[op * figures + k])
        atOp[op * figures + k] = most;
    }
  }
  /* One sweep from `start`: the most held so far, plus the inputs read so far. */
  int64_t *peak = memoptAllocateZeroed(figures, sizeof *peak);
  int64_t *read = memoptAllocateZeroed(figures, sizeof *read);
  for (size_t op = start, e = 0; e < endCount && op < ops; ++op) {
    for (size_t k = 0; k < figures; ++k) {
      read[k] += inputs[op * figures + k];
      if (atOp[op * figures + k] > peak[k])
        peak[k] = atOp[op * figures + k];
    }
    for (; e < endCount && ends[e] == op + 1; ++e)
      for (size_t k = 0; k < figures; ++k)
        held[e * figures + k] = (double)(peak[k] + read[k]);
  }
  free(read);
  free(peak);
  free(inputs);
  free(atOp);
  free(reduced);
  free(dying);
  free(live);
}

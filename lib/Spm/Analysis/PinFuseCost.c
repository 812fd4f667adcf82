/* The cost of running one fused group on a scratchpad accelerator: the group
 * runs tile by tile with double buffering, so a tile takes the longer of its
 * transfers and its compute; weights load once, in the first tile. */
#include "Spm/Spm.h"
#include "Analysis/Analysis.h"

#include <stdlib.h>

static uint64_t ceilDivide(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

static uint64_t elementBytes(const MemoptSpmTarget *target, const MemoptLayer *layer) {
  return target->elementBytes ? target->elementBytes : layer->irElementBytes;
}

uint64_t memoptLayerBytes(const MemoptLayerGraph *graph, size_t index,
                          const MemoptSpmTarget *target) {
  const MemoptLayer *layer = memoptLayerGraphAt(graph, index);
  return (uint64_t)layer->rows * layer->rowElements * elementBytes(target, layer);
}

/* Cycles of one tile moving `bytes` in `transfers` DMA transfers and
 * computing `macs`, overlapped. */
static uint64_t tileCycles(const MemoptSpmTarget *target, uint64_t bytes, uint64_t transfers,
                           uint64_t macs) {
  uint64_t transfer = ceilDivide(bytes, target->dramBytesPerCycle) +
                      transfers * target->dmaSetupCycles;
  uint64_t compute = ceilDivide(macs, target->macsPerCycle);
  return transfer > compute ? transfer : compute;
}

/* Rows of the external feature map `value` the group reads per tile: the
 * most any of its readers in the group needs. `whole` tells whether every
 * reader reads it whole (so it can stream through row by row). */
static int64_t externalRows(const MemoptLayerGraph *graph, size_t first, size_t last,
                            const int64_t *rows, MlirValue value, bool *whole) {
  int64_t most = 0;
  *whole = true;
  for (size_t l = first; l <= last; ++l) {
    const MemoptLayer *layer = memoptLayerGraphAt(graph, l);
    for (size_t i = 0; i < layer->inputCount; ++i) {
      const MemoptLayerInput *input = &layer->inputs[i];
      if (!mlirValueEqual(input->value, value))
        continue;
      int64_t read = memoptLayerInputRows(input, rows[l - first], input->sourceRows);
      *whole = *whole && input->rule == MemoptRowWhole;
      if (read > most)
        most = read;
    }
  }
  return most;
}

/* True when input `i` of layer `l` is the first read in the group of an
 * external feature map (so each one is counted once). */
static bool firstExternalRead(const MemoptLayerGraph *graph, size_t first, size_t l, size_t i) {
  const MemoptLayerInput *input = &memoptLayerGraphAt(graph, l)->inputs[i];
  if (input->producer >= (intptr_t)first)
    return false;
  for (size_t k = first; k <= l; ++k) {
    const MemoptLayer *layer = memoptLayerGraphAt(graph, k);
    for (size_t j = 0; j < (k == l ? i : layer->inputCount); ++j)
      if (mlirValueEqual(layer->inputs[j].value, input->value))
        return false;
  }
  return true;
}

static void addBuffer(MemoptGroupBuffers *buffers, uint64_t size, int copies) {
  for (int i = 0; buffers && i < copies; ++i)
    if (buffers->count < MEMOPT_MAX_GROUP_BUFFERS)
      buffers->sizes[buffers->count++] = size;
    else /* past the list's room, the last buffer absorbs the rest */
      buffers->sizes[MEMOPT_MAX_GROUP_BUFFERS - 1] += size;
}

/* Costs the group; lists its working buffers in `list` when not NULL. */
static void groupCost(const MemoptLayerGraph *graph, size_t first, size_t last, int64_t tileRows,
                      const bool *pinned, const MemoptSpmTarget *target, MemoptGroupCost *cost,
                      MemoptGroupBuffers *list) {
  if (list)
    *list = (MemoptGroupBuffers){.count = 0};
  /* Groups are short (spm-pin-fuse allows at most 256 layers). */
  int64_t stackRows[256];
  int64_t *rows =
      last - first < 256 ? stackRows : memoptAllocateZeroed(last - first + 1, sizeof *rows);
  int64_t tiles = memoptLayerGraphHalo(graph, first, last, tileRows, rows);
  uint64_t loadPerTile = 0, storeTotal = 0, macsPerTile = 0, weightBytes = 0;
  uint64_t transfersPerTile = 0, weightTransfers = 0, buffers = 0, pinnedBytes = 0;
  uint64_t largestSlice = 0;
  for (size_t l = first; l <= last; ++l) {
    const MemoptLayer *layer = memoptLayerGraphAt(graph, l);
    uint64_t bytes = elementBytes(target, layer);
    int64_t computed = rows[l - first];
    macsPerTile += layer->macs * (uint64_t)computed / (uint64_t)layer->rows;
    if (layer->weightElements) {
      weightBytes += layer->weightElements * bytes;
      ++weightTransfers;
      uint64_t slice = ceilDivide(layer->weightElements * bytes, layer->weightSlices);
      if (slice > largestSlice)
        largestSlice = slice;
    }
    for (size_t i = 0; i < layer->inputCount; ++i) {
      const MemoptLayerInput *input = &layer->inputs[i];
      if (!firstExternalRead(graph, first, l, i) || (input->producer >= 0 && pinned[input->producer]))
        continue;
      bool whole;
      int64_t read = externalRows(graph, first, last, rows, input->value, &whole);
      uint64_t rowBytes = input->sourceRowElements * bytes;
      loadPerTile += (uint64_t)read * rowBytes;
      buffers += 2 * (whole ? rowBytes : (uint64_t)read * rowBytes);
      addBuffer(list, whole ? rowBytes : (uint64_t)read * rowBytes, 2);
      ++transfersPerTile;
    }
    uint64_t tileBytes = (uint64_t)computed * layer->rowElements * bytes;
    bool output = layer->lastUse > (intptr_t)last;
    if (pinned[l] && !layer->isResult)
      continue; /* held in full below */
    if (output) {
      storeTotal += memoptLayerBytes(graph, l, target);
      buffers += 2 * tileBytes;
      addBuffer(list, tileBytes, 2);
      ++transfersPerTile;
    } else {
      buffers += tileBytes;
      addBuffer(list, tileBytes, 1);
    }
  }
  /* Every pinned tensor alive during the group occupies its full size. */
  for (size_t p = 0; p <= last; ++p) {
    if (!pinned[p])
      continue;
    const MemoptLayer *layer = memoptLayerGraphAt(graph, p);
    bool live = p >= first || layer->lastUse >= (intptr_t)first;
    if (!layer->isResult && live)
      pinnedBytes += memoptLayerBytes(graph, p, target);
  }
  uint64_t storePerTile = ceilDivide(storeTotal, (uint64_t)tiles);
  uint64_t rest = buffers + pinnedBytes;
  uint64_t perTileBytes = loadPerTile + storePerTile, firstTileBytes = perTileBytes + weightBytes;
  uint64_t firstTileTransfers = transfersPerTile + weightTransfers;
  uint64_t weightBuffer = weightBytes, weightTraffic = weightBytes;
  bool streamed = weightBytes > 0 && rest + weightBytes > target->spmBytes;
  if (streamed) {
    /* Blocks of output-channel slices, double-buffered, as large as fit. */
    uint64_t room = target->spmBytes > rest ? target->spmBytes - rest : 0;
    uint64_t slicesPerBlock = room / (2 * largestSlice);
    weightBuffer = 2 * (slicesPerBlock ? slicesPerBlock : 1) * largestSlice;
    if (list) {
      list->streamedBytes = weightBuffer;
      list->sliceBytes = largestSlice;
    }
    uint64_t blocks = 0;
    for (size_t l = first; l <= last && slicesPerBlock; ++l) {
      const MemoptLayer *layer = memoptLayerGraphAt(graph, l);
      if (layer->weightElements)
        blocks += ceilDivide(layer->weightSlices, slicesPerBlock);
    }
    perTileBytes += weightBytes;
    firstTileBytes = perTileBytes;
    transfersPerTile += blocks;
    firstTileTransfers = transfersPerTile;
    weightTraffic = (uint64_t)tiles * weightBytes;
  } else {
    for (size_t l = first; l <= last; ++l) {
      const MemoptLayer *layer = memoptLayerGraphAt(graph, l);
      if (layer->weightElements)
        addBuffer(list, layer->weightElements * elementBytes(target, layer), 1);
    }
  }
  uint64_t firstTile = tileCycles(target, firstTileBytes, firstTileTransfers, macsPerTile);
  uint64_t steady = tileCycles(target, perTileBytes, transfersPerTile, macsPerTile);
  *cost = (MemoptGroupCost){
      .tiles = tiles,
      .offchipBytes = (uint64_t)tiles * loadPerTile + storeTotal,
      .weightBytes = weightTraffic,
      .weightsStreamed = streamed,
      .macs = (uint64_t)tiles * macsPerTile,
      .cycles = firstTile + (uint64_t)(tiles - 1) * steady,
      .footprintBytes = rest + weightBuffer,
      .pinnedBytes = pinnedBytes,
  };
  if (rows != stackRows)
    free(rows);
}

void memoptGroupCost(const MemoptLayerGraph *graph, size_t first, size_t last, int64_t tileRows,
                     const bool *pinned, const MemoptSpmTarget *target, MemoptGroupCost *cost) {
  groupCost(graph, first, last, tileRows, pinned, target, cost, NULL);
}

void memoptGroupBuffersList(const MemoptLayerGraph *graph, size_t first, size_t last,
                            int64_t tileRows, const bool *pinned, const MemoptSpmTarget *target,
                            MemoptGroupBuffers *buffers) {
  MemoptGroupCost cost;
  groupCost(graph, first, last, tileRows, pinned, target, &cost, buffers);
}

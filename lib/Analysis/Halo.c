/* The halo of a fused group: the rows every layer must compute so that the
 * group's last layer produces one tile of rows (the receptive field of the
 * tile through the chain, overlapping windows included). */
#include "Analysis/Analysis.h"

static int64_t minimum(int64_t a, int64_t b) { return a < b ? a : b; }

int64_t memoptLayerInputRows(const MemoptLayerInput *input, int64_t rows, int64_t producerRows) {
  switch (input->rule) {
  case MemoptRowSame:
    return minimum(rows, producerRows);
  case MemoptRowWindow:
    return minimum((rows - 1) * input->stride + input->kernel, producerRows);
  case MemoptRowBroadcast:
    return minimum(1, producerRows);
  case MemoptRowWhole:
    break;
  }
  return producerRows;
}

int64_t memoptLayerGraphHalo(const MemoptLayerGraph *graph, size_t first, size_t last,
                             int64_t tileRows, int64_t *rows) {
  const MemoptLayer *lastLayer = memoptLayerGraphAt(graph, last);
  tileRows = tileRows < 1 ? 1 : minimum(tileRows, lastLayer->rows);
  int64_t tiles = (lastLayer->rows + tileRows - 1) / tileRows;
  rows[last - first] = tileRows;
  for (size_t l = last; l-- > first;) {
    const MemoptLayer *layer = memoptLayerGraphAt(graph, l);
    /* Every layer produces at least its share of rows per tile, and the
     * rows its consumers in the group read. */
    int64_t needed = (layer->rows + tiles - 1) / tiles;
    for (size_t c = l + 1; c <= last; ++c) {
      const MemoptLayer *consumer = memoptLayerGraphAt(graph, c);
      for (size_t i = 0; i < consumer->inputCount; ++i)
        if (consumer->inputs[i].producer == (intptr_t)l) {
          int64_t read = memoptLayerInputRows(&consumer->inputs[i], rows[c - first], layer->rows);
          if (read > needed)
            needed = read;
        }
    }
    rows[l - first] = minimum(needed, layer->rows);
  }
  return tiles;
}

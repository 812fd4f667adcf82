/* The halo of a fused group: the rows every layer must compute so that the
 * group's last layer produces one tile of rows (the receptive field of the
 * tile through the chain, overlapping windows included). */
#include "Spm/Spm.h"
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
  /* Every layer produces at least its share of rows per tile; consumers,
   * which come later, then raise what their producers in the group compute. */
  for (size_t l = first; l <= last; ++l) {
    const MemoptLayer *layer = memoptLayerGraphAt(graph, l);
    rows[l - first] = (layer->rows + tiles - 1) / tiles;
  }
  rows[last - first] = tileRows;
  for (size_t c = last + 1; c-- > first;) {
    const MemoptLayer *consumer = memoptLayerGraphAt(graph, c);
    rows[c - first] = minimum(rows[c - first], consumer->rows);
    for (size_t i = 0; i < consumer->inputCount; ++i) {
      intptr_t producer = consumer->inputs[i].producer;
      if (producer < (intptr_t)first)
        continue;
      int64_t read = memoptLayerInputRows(&consumer->inputs[i], rows[c - first],
                                          consumer->inputs[i].sourceRows);
      if (read > rows[producer - (intptr_t)first])
        rows[producer - (intptr_t)first] = read;
    }
  }
  return tiles;
}

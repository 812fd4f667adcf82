/* Pin or Fuse: the accelerator target, a CNN function as a layer graph, the
 * cost of a fused group on a scratchpad (SPM) accelerator, and the passes
 * that choose groups, tiles and pins (spm-pin-fuse), fold normalizations
 * (spm-fold-norm-scale), print the graph (print-layer-graph) and lower spm
 * ops to memrefs in a fast memory space (spm-to-memref).
 * python-free-docs/pin-or-fuse.md. */
#ifndef MEMOPT_SPM_SPM_H
#define MEMOPT_SPM_SPM_H

#include "Pass/Pass.h"
#include "Support/Support.h"

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===------------------------------------------------------------------===*
 * Pin or Fuse: accelerator target, layer graph, halo and cost model
 *
 * A CNN function seen as a list of layers in program order (each a linalg
 * op, or another op that reads a feature map), the rows of each layer a tile
 * of a fused group needs (the halo), and what a group costs on a scratchpad
 * (SPM) accelerator (python-free-docs/analysis.md).
 *===------------------------------------------------------------------===*/

/// An accelerator with a software-managed scratchpad.
typedef struct MemoptSpmTarget {
  uint64_t spmBytes;          /* scratchpad capacity */
  uint64_t dramBytesPerCycle; /* off-chip bandwidth */
  uint64_t macsPerCycle;      /* compute throughput */
  uint64_t elementBytes;      /* bytes per tensor element; 0: the IR's element size */
  uint64_t dmaSetupCycles;    /* fixed latency of one DMA transfer */
} MemoptSpmTarget;

/// Returns the number of documented target presets.
size_t memoptSpmTargetPresetCount(void);

/// Returns the name of preset `index` ("spm-512k", ...).
const char *memoptSpmTargetPresetName(size_t index);

/// Finds preset `name`; false when there is none.
bool memoptSpmTargetPreset(const char *name, MemoptSpmTarget *target);

/// Reads the module attribute `spm.target` (a preset name as a string, or a
/// dictionary with `preset` and/or the fields spm_bytes, dram_bytes_per_cycle,
/// macs_per_cycle, element_bytes, dma_setup_cycles) over `target`. Returns
/// false with the reason in `error` when the attribute is malformed; leaves
/// `target` alone when the attribute is absent.
bool memoptSpmTargetFromModule(MlirOperation module, MemoptSpmTarget *target,
                               MemoptStringBuffer *error);

/// What a layer computes.
typedef enum MemoptLayerKind {
  MemoptLayerConv,        /* regular convolution */
  MemoptLayerPointwise,   /* 1x1 convolution */
  MemoptLayerDepthwise,   /* depthwise convolution */
  MemoptLayerPool,        /* pooling window */
  MemoptLayerElementwise, /* one feature-map input, element by element */
  MemoptLayerAdd,         /* residual add: two or more feature-map inputs */
  MemoptLayerConcat,      /* concatenation */
  MemoptLayerNorm,        /* normalization (batch norm at inference is per element) */
  MemoptLayerReduction,   /* reduces over rows (instance/layer norm statistics, softmax) */
  MemoptLayerMatmul,      /* matrix product (classifier) */
  MemoptLayerReshape,     /* reshape of a feature map */
  MemoptLayerOther        /* any other op that reads a feature map */
} MemoptLayerKind;

/// How many rows of a feature-map input a tile of a layer's output reads.
typedef enum MemoptRowRule {
  MemoptRowSame,      /* the same rows */
  MemoptRowWindow,    /* a window: (rows - 1) * stride + dilated kernel */
  MemoptRowBroadcast, /* one row (a per-channel vector broadcast over rows) */
  MemoptRowWhole      /* every row */
} MemoptRowRule;

/// One feature-map input of a layer.
typedef struct MemoptLayerInput {
  intptr_t producer;      /* layer index, or -1 for a function argument */
  MlirValue value;        /* the feature map as produced (before any tensor.pad) */
  MemoptRowRule rule;
  int64_t kernel, stride; /* MemoptRowWindow: rows of the dilated kernel, row stride */
  int64_t sourceRows;           /* rows of the feature map */
  uint64_t sourceRowElements;   /* elements of one of its rows */
} MemoptLayerInput;

/// One layer of a layer graph.
typedef struct MemoptLayer {
  MlirOperation op;
  MemoptLayerKind kind;
  MlirValue output;         /* the layer's feature map */
  int64_t rows;             /* rows of the output (H; 1 without a spatial layout) */
  intptr_t rowDim;          /* the dimension of the output holding rows, or -1 */
  uint64_t rowElements;     /* elements of one output row (batch x width x channels) */
  uint64_t weightElements;  /* elements of the inputs that are not feature maps */
  uint64_t weightSlices;    /* output channels: the weights split into this many equal slices */
  uint64_t macs;            /* multiply-accumulates (or element operations) of the layer */
  uint64_t irElementBytes;  /* element size of the output in the IR */
  MemoptLayerInput *inputs; /* feature-map inputs */
  size_t inputCount;
  intptr_t lastUse;         /* last layer reading the output; layer count when returned */
  bool isResult;            /* returned by the function */
} MemoptLayer;

/// The layers of one func.func (opaque).
typedef struct MemoptLayerGraph MemoptLayerGraph;

/// Builds the layer graph of `func` (static shapes, one block). Returns NULL
/// with the reason in `error` when the function cannot be modelled.
MemoptLayerGraph *memoptLayerGraphCreate(MlirOperation func, MemoptStringBuffer *error);

/// Frees a layer graph (NULL is allowed).
void memoptLayerGraphDestroy(MemoptLayerGraph *graph);

/// Returns the number of layers.
size_t memoptLayerGraphCount(const MemoptLayerGraph *graph);

/// Returns layer `index`, in program order.
const MemoptLayer *memoptLayerGraphAt(const MemoptLayerGraph *graph, size_t index);

/// Returns the layer that owns `op` (the layer itself, or a tensor.pad,
/// tensor.empty or linalg.fill used only by it), or -1.
intptr_t memoptLayerGraphOwner(const MemoptLayerGraph *graph, MlirOperation op);

/// Returns the name of a layer kind ("conv", "depthwise", ...).
const char *memoptLayerKindName(MemoptLayerKind kind);

/// Returns the rows of a producer a consumer reads through `input` for
/// `rows` rows of its output, at most `producerRows`.
int64_t memoptLayerInputRows(const MemoptLayerInput *input, int64_t rows, int64_t producerRows);

/// Fills `rows` (one entry per layer of the group `first`..`last`, inclusive)
/// with the rows each layer computes per tile when the group's last layer
/// produces `tileRows` rows per tile: the receptive field through the group
/// (halo included). Returns the number of tiles.
int64_t memoptLayerGraphHalo(const MemoptLayerGraph *graph, size_t first, size_t last,
                             int64_t tileRows, int64_t *rows);

/// The modelled cost of running one fused group.
typedef struct MemoptGroupCost {
  int64_t tiles;
  uint64_t offchipBytes;   /* feature-map bytes loaded and stored */
  uint64_t weightBytes;    /* weight bytes loaded (once, or once per tile when streamed) */
  bool weightsStreamed;    /* the weights do not fit beside the tiles: streamed in channel blocks */
  uint64_t macs;           /* including the halo recomputation */
  uint64_t cycles;         /* sum over tiles of max(transfer, compute) */
  uint64_t footprintBytes; /* SPM bytes needed, pinned tensors included */
  uint64_t pinnedBytes;    /* the part of the footprint held by pinned tensors */
} MemoptGroupCost;

/// The most working buffers memoptGroupBuffers lists.
enum { MEMOPT_MAX_GROUP_BUFFERS = 256 };

/// The working buffers of a group: tiles and resident weights, each
/// contiguous in the SPM, and the double buffer of streamed weights, which
/// may be split at any multiple of one output-channel slice.
typedef struct MemoptGroupBuffers {
  uint64_t sizes[MEMOPT_MAX_GROUP_BUFFERS];
  size_t count;
  uint64_t streamedBytes; /* 0 when the weights are resident */
  uint64_t sliceBytes;    /* the largest output-channel slice of the streamed weights */
} MemoptGroupBuffers;

/// Returns the bytes of layer `index`'s output on `target`.
uint64_t memoptLayerBytes(const MemoptLayerGraph *graph, size_t index,
                          const MemoptSpmTarget *target);

/// Computes the cost of the group `first`..`last` with `tileRows` rows of
/// its last layer per tile. Weights stay resident when they fit in
/// `target->spmBytes` beside everything else, else they stream through a
/// double buffer of output-channel slices, reloaded every tile; an input the
/// group reads whole (a global pooling) streams row by row. `pinned[i]` tells whether layer i's output is
/// pinned (one entry per layer of the graph): pinned inputs load nothing,
/// pinned outputs store nothing, and every pinned output live during the
/// group (produced before or in it, read in or after it) counts in full in
/// the footprint.
void memoptGroupCost(const MemoptLayerGraph *graph, size_t first, size_t last, int64_t tileRows,
                     const bool *pinned, const MemoptSpmTarget *target, MemoptGroupCost *cost);

/// Lists the working buffers of the group costed by memoptGroupCost with the
/// same arguments (pinned tensors excluded): the footprint less the pinned
/// bytes, buffer by buffer.
void memoptGroupBuffersList(const MemoptLayerGraph *graph, size_t first, size_t last,
                            int64_t tileRows, const bool *pinned, const MemoptSpmTarget *target,
                            MemoptGroupBuffers *buffers);

/*===------------------------------------------------------------------===*
 * Passes
 *===------------------------------------------------------------------===*/

/// spm-pin-fuse (SpmPinFusePass.c).
extern const MemoptPassInfo memoptSpmPinFusePass;

/// spm-fold-norm-scale (SpmFoldNormScalePass.c).
extern const MemoptPassInfo memoptSpmFoldNormScalePass;

/// print-layer-graph (PrintLayerGraphPass.c).
extern const MemoptPassInfo memoptPrintLayerGraphPass;

/// Lowers the spm ops of `func` (python-free-docs/dialects.md#lowering-spm-to-memref):
/// pins into one arena of `spmBytes` bytes (0: up to the highest pin end;
/// errors name it as `spmBytesSource`, "spm-bytes") in memory space
/// `memorySpace`, loads and stores to copies, groups to tile loops that
/// compute in that memory space. Emits an error on each op it cannot lower
/// and then fails; the IR is unchanged unless upstream tiling itself fails.
/// With `reportCopies`, emits a remark with the bytes the lowered program
/// copies between off-chip memory and the scratchpad.
MlirLogicalResult memoptLowerSpm(MlirOperation func, int64_t memorySpace, int64_t spmBytes,
                                 const char *spmBytesSource, bool reportCopies);

/// spm-to-memref: the pass that runs memoptLowerSpm on each function (SpmToMemref.c).
extern const MemoptPassInfo memoptSpmToMemrefPass;

#ifdef __cplusplus
}
#endif

#endif /* MEMOPT_SPM_SPM_H */

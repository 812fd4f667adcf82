/* The layer graph of a CNN function: every op that reads a feature map is a
 * layer (a tensor.pad in front of a convolution or pooling belongs to it, as
 * do the tensor.empty / linalg.fill that initialize its output); feature maps
 * are the layers' outputs and the function arguments that images enter by.
 * Both NHWC (memopt-zoo, TPP) and NCHW (torch-mlir) layouts are modelled:
 * the row dimension is H. */
#include "Spm/Spm.h"
#include "Analysis/Analysis.h"
#include "IR/IR.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdlib.h>
#include <string.h>

typedef enum Layout { LayoutNone, LayoutNHWC, LayoutNCHW } Layout;

/* An op of the function body and the layer that owns it (-1: none). */
typedef struct OwnedOp {
  MlirOperation op;
  intptr_t owner;
} OwnedOp;

struct MemoptLayerGraph {
  MemoptLayer *layers;
  Layout *layouts; /* per layer, of its output */
  size_t count, capacity;
  OwnedOp *ops;
  size_t opCount;
  MlirBlock body;
};

static bool nameContains(MlirOperation op, const char *part) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  size_t length = strlen(part);
  for (size_t i = 0; i + length <= name.length; ++i)
    if (memcmp(name.data + i, part, length) == 0)
      return true;
  return false;
}

static bool isNamedWindowOp(MlirOperation op) {
  return memoptOperationIsA(op, "linalg.conv_2d_nhwc_hwcf") ||
         memoptOperationIsA(op, "linalg.conv_2d_nhwc_fhwc") ||
         memoptOperationIsA(op, "linalg.conv_2d_nchw_fchw") ||
         memoptOperationIsA(op, "linalg.depthwise_conv_2d_nhwc_hwc") ||
         memoptOperationIsA(op, "linalg.depthwise_conv_2d_nchw_chw") ||
         (nameContains(op, "linalg.pooling_n") && nameContains(op, "_"));
}

static Layout layoutOfNamedOp(MlirOperation op) {
  if (nameContains(op, "nchw"))
    return LayoutNCHW;
  if (nameContains(op, "nhwc"))
    return LayoutNHWC;
  return LayoutNone;
}

static uint64_t elementCount(MlirType type) {
  if (!mlirTypeIsARankedTensor(type) || !mlirShapedTypeHasStaticShape(type))
    return 0;
  uint64_t count = 1;
  for (intptr_t d = 0; d < mlirShapedTypeGetRank(type); ++d)
    count *= (uint64_t)mlirShapedTypeGetDimSize(type, d);
  return count;
}

static int64_t rowsOf(MlirType type, Layout layout) {
  if (!mlirTypeIsARankedTensor(type) || mlirShapedTypeGetRank(type) != 4 || layout == LayoutNone)
    return 1;
  return mlirShapedTypeGetDimSize(type, layout == LayoutNHWC ? 1 : 2);
}

/* The value a tensor.pad pads, or `value` itself. */
static MlirValue throughPad(MlirValue value) {
  if (mlirValueIsAOpResult(value) && memoptOperationIsA(mlirOpResultGetOwner(value), "tensor.pad"))
    return mlirOperationGetOperand(mlirOpResultGetOwner(value), 0);
  return value;
}

static intptr_t producerOf(const MemoptLayerGraph *graph, MlirValue value) {
  for (size_t i = graph->count; i-- > 0;)
    if (mlirValueEqual(graph->layers[i].output, value))
      return (intptr_t)i;
  return -1;
}

/* A function argument is a feature map when a convolution or pooling reads
 * it as its image, directly or through pads and elementwise preprocessing
 * (a few linalg.generic ops); its layout is theirs. */
static Layout argumentLayout(MlirValue value, int depth) {
  if (depth > 8)
    return LayoutNone;
  for (MlirOpOperand use = mlirValueGetFirstUse(value); !mlirOpOperandIsNull(use);
       use = mlirOpOperandGetNextUse(use)) {
    MlirOperation user = mlirOpOperandGetOwner(use);
    Layout layout = LayoutNone;
    if (isNamedWindowOp(user) && mlirOpOperandGetOperandNumber(use) == 0)
      return layoutOfNamedOp(user);
    /* Preprocessing keeps the image's shape; a weight broadcast into it does not. */
    bool preprocessing = memoptOperationIsA(user, "linalg.generic") &&
                         mlirOperationGetNumResults(user) == 1 &&
                         mlirTypeEqual(mlirValueGetType(value),
                                       mlirValueGetType(mlirOperationGetResult(user, 0)));
    if (memoptOperationIsA(user, "tensor.pad") || preprocessing)
      layout = argumentLayout(mlirOperationGetResult(user, 0), depth + 1);
    if (layout != LayoutNone)
      return layout;
  }
  return LayoutNone;
}

/* Returns the layout of feature map `value` (a layer output or an image
 * argument), or LayoutNone when it is not a feature map. */
static bool isFeatureMap(const MemoptLayerGraph *graph, MlirValue value, intptr_t *producer,
                         Layout *layout) {
  value = throughPad(value);
  *producer = producerOf(graph, value);
  if (*producer >= 0) {
    *layout = graph->layouts[*producer];
    return true;
  }
  if (mlirValueIsABlockArgument(value) &&
      mlirBlockEqual(mlirBlockArgumentGetOwner(value), graph->body)) {
    *layout = argumentLayout(value, 0);
    return *layout != LayoutNone;
  }
  return false;
}

/* Entry H of `strides` or `dilations` of a named convolution or pooling;
 * both are optional and default to 1 along every dimension. */
static int64_t firstWindowEntry(MlirOperation op, const char *name) {
  MlirAttribute values = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name));
  if (mlirAttributeIsNull(values) || !mlirAttributeIsADenseElements(values) ||
      mlirElementsAttrGetNumElements(values) < 1)
    return 1;
  return mlirDenseElementsAttrGetInt64Value(values, 0);
}

/* Rows of the dilated window along H of a named convolution or pooling. */
static void windowOf(MlirOperation op, Layout layout, int64_t *kernel, int64_t *kernelWidth,
                     int64_t *stride) {
  MlirType filter = mlirValueGetType(mlirOperationGetOperand(op, 1));
  intptr_t rank = mlirShapedTypeGetRank(filter);
  intptr_t rowDim = 0;
  if (rank > 2) {
    if (layout == LayoutNCHW)
      rowDim = rank - 2;
    else if (nameContains(op, "fhwc"))
      rowDim = 1;
  }
  int64_t kernelRows = mlirShapedTypeGetDimSize(filter, rowDim);
  *kernelWidth = mlirShapedTypeGetDimSize(filter, rowDim + 1);
  *stride = firstWindowEntry(op, "strides");
  *kernel = (kernelRows - 1) * firstWindowEntry(op, "dilations") + 1;
}

static bool bodyContains(MlirOperation op, const char *name) {
  if (mlirOperationGetNumRegions(op) == 0)
    return false;
  MlirBlock block = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  if (mlirBlockIsNull(block))
    return false;
  for (MlirOperation inner = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(inner);
       inner = mlirOperationGetNextInBlock(inner))
    if (memoptOperationIsA(inner, name))
      return true;
  return false;
}

static bool hasReductionIterator(MlirOperation op) {
  MlirAttribute iterators =
      mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("iterator_types"));
  if (mlirAttributeIsNull(iterators) || !mlirAttributeIsAArray(iterators))
    return false;
  for (intptr_t i = 0; i < mlirArrayAttrGetNumElements(iterators); ++i)
    if (memoptLinalgIteratorKind(mlirArrayAttrGetElement(iterators, i)) ==
        MemoptIteratorReduction)
      return true;
  return false;
}

/* True when every feature-map input has as many rows as the output (a
 * residual join rather than a broadcast of a per-channel vector). */
static bool sameRows(const MemoptLayer *layer, size_t inputCount) {
  for (size_t i = 0; i < inputCount; ++i)
    if (layer->inputs[i].sourceRows != layer->rows)
      return false;
  return true;
}

static void appendLayer(MemoptLayerGraph *graph, MemoptLayer layer, Layout layout) {
  if (graph->count == graph->capacity) {
    graph->capacity = graph->capacity ? 2 * graph->capacity : 64;
    graph->layers = memoptReallocArray(graph->layers, graph->capacity, sizeof *graph->layers);
    graph->layouts = memoptReallocArray(graph->layouts, graph->capacity, sizeof *graph->layouts);
  }
  graph->layouts[graph->count] = layout;
  graph->layers[graph->count++] = layer;
}

static bool isLinalg(MlirOperation op) { return nameContains(op, "linalg."); }

/* Number of `ins` operands: linalg ops on tensors have one `outs` operand per
 * result. */
static intptr_t insCount(MlirOperation op) {
  if (!isLinalg(op))
    return mlirOperationGetNumOperands(op);
  return mlirOperationGetNumOperands(op) - mlirOperationGetNumResults(op);
}

/* Builds the layer `op` when it reads a feature map; false otherwise. */
static bool buildLayer(MemoptLayerGraph *graph, MlirOperation op, MemoptStringBuffer *error) {
  if (mlirOperationGetNumResults(op) < 1 || memoptOperationIsA(op, "tensor.pad") ||
      memoptOperationIsA(op, "linalg.fill"))
    return false;
  MlirValue output = mlirOperationGetResult(op, 0);
  MlirType outputType = mlirValueGetType(output);
  if (!mlirTypeIsARankedTensor(outputType))
    return false;
  intptr_t operandCount = mlirOperationGetNumOperands(op);
  intptr_t ins = insCount(op);
  MemoptLayerInput *inputs = memoptReallocArray(NULL, (size_t)operandCount, sizeof *inputs);
  size_t inputCount = 0;
  Layout layout = LayoutNone;
  uint64_t weights = 0;
  bool window = isNamedWindowOp(op);
  int64_t kernel = 1, kernelWidth = 1, stride = 1;
  for (intptr_t i = 0; i < operandCount; ++i) {
    MlirValue operand = mlirOperationGetOperand(op, i);
    intptr_t producer;
    Layout operandLayout;
    if (!isFeatureMap(graph, operand, &producer, &operandLayout)) {
      if (i < ins && !(window && i == 1 && nameContains(op, "pooling")))
        weights += elementCount(mlirValueGetType(operand));
      continue;
    }
    if (layout == LayoutNone)
      layout = operandLayout;
    MlirValue source = throughPad(operand);
    bool repeated = false;
    for (size_t j = 0; j < inputCount; ++j)
      repeated = repeated || mlirValueEqual(inputs[j].value, source);
    if (repeated)
      continue;
    int64_t sourceRows = rowsOf(mlirValueGetType(source), operandLayout);
    inputs[inputCount++] = (MemoptLayerInput){
        producer,   source, MemoptRowSame, 1, 1, sourceRows,
        elementCount(mlirValueGetType(source)) / (uint64_t)sourceRows};
  }
  if (inputCount == 0) {
    free(inputs);
    return false;
  }
  if (!mlirShapedTypeHasStaticShape(outputType)) {
    free(inputs);
    memoptStringBufferAppendCString(error, "a layer output has a dynamic shape");
    return false;
  }
  if (window)
    layout = layoutOfNamedOp(op);
  if (mlirShapedTypeGetRank(outputType) != 4)
    layout = LayoutNone;

  MemoptLayer layer = {.op = op, .output = output, .inputs = inputs, .inputCount = inputCount};
  layer.rows = rowsOf(outputType, layout);
  layer.rowDim = layout == LayoutNHWC ? 1 : layout == LayoutNCHW ? 2 : -1;
  layer.rowElements = elementCount(outputType) / (uint64_t)layer.rows;
  layer.weightElements = weights;
  intptr_t channelDim = layout == LayoutNCHW ? 1 : mlirShapedTypeGetRank(outputType) - 1;
  layer.weightSlices =
      channelDim >= 0 ? (uint64_t)mlirShapedTypeGetDimSize(outputType, channelDim) : 1;
  memoptTypeGetElementByteSize(mlirShapedTypeGetElementType(outputType), &layer.irElementBytes);
  layer.lastUse = -1;
  uint64_t outputElements = elementCount(outputType);
  uint64_t largestOperand = outputElements;
  for (intptr_t i = 0; i < operandCount; ++i) {
    uint64_t elements = elementCount(mlirValueGetType(mlirOperationGetOperand(op, i)));
    if (elements > largestOperand)
      largestOperand = elements;
  }

  if (window) {
    windowOf(op, layout, &kernel, &kernelWidth, &stride);
    MlirType filter = mlirValueGetType(mlirOperationGetOperand(op, 1));
    if (nameContains(op, "pooling")) {
      layer.kind = MemoptLayerPool;
      layer.macs = outputElements * elementCount(filter);
    } else if (nameContains(op, "depthwise")) {
      layer.kind = MemoptLayerDepthwise;
      layer.macs = outputElements * (uint64_t)(kernel * kernelWidth);
    } else {
      layer.kind = kernel == 1 && kernelWidth == 1 ? MemoptLayerPointwise : MemoptLayerConv;
      int64_t channelDim = layout == LayoutNCHW ? 1 : 3;
      uint64_t outChannels = (uint64_t)mlirShapedTypeGetDimSize(outputType, channelDim);
      layer.macs = outputElements * (elementCount(filter) / outChannels);
    }
  } else if (memoptOperationIsA(op, "linalg.generic")) {
    if (hasReductionIterator(op))
      layer.kind = MemoptLayerReduction;
    else if (inputCount >= 2 && bodyContains(op, "arith.addf") && sameRows(&layer, inputCount))
      layer.kind = MemoptLayerAdd;
    else if (bodyContains(op, "math.sqrt") || bodyContains(op, "math.rsqrt"))
      layer.kind = MemoptLayerNorm;
    else
      layer.kind = MemoptLayerElementwise;
    layer.macs = largestOperand;
  } else if (nameContains(op, "matmul")) {
    layer.kind = MemoptLayerMatmul;
    MlirType lhs = mlirValueGetType(mlirOperationGetOperand(op, 0));
    layer.macs = outputElements *
                 (uint64_t)mlirShapedTypeGetDimSize(lhs, mlirShapedTypeGetRank(lhs) - 1);
  } else if (memoptOperationIsA(op, "linalg.softmax")) {
    layer.kind = MemoptLayerReduction;
    layer.macs = outputElements;
  } else if (memoptOperationIsA(op, "tensor.concat")) {
    layer.kind = MemoptLayerConcat;
    layer.macs = 0;
  } else if (memoptOperationIsA(op, "tensor.collapse_shape") ||
             memoptOperationIsA(op, "tensor.expand_shape") ||
             memoptOperationIsA(op, "tensor.reshape")) {
    layer.kind = MemoptLayerReshape;
    layer.macs = 0;
  } else {
    layer.kind = MemoptLayerOther;
    layer.macs = largestOperand;
  }

  /* How many rows of each input a tile of the output reads. */
  for (size_t i = 0; i < inputCount; ++i) {
    MemoptLayerInput *input = &layer.inputs[i];
    int64_t inputRows = input->sourceRows;
    bool rowwise = layout != LayoutNone && layer.kind != MemoptLayerReduction &&
                   layer.kind != MemoptLayerOther && layer.kind != MemoptLayerMatmul &&
                   layer.kind != MemoptLayerReshape;
    if (!rowwise)
      input->rule = MemoptRowWhole;
    else if (window && mlirValueEqual(throughPad(mlirOperationGetOperand(op, 0)), input->value)) {
      input->rule = MemoptRowWindow;
      input->kernel = kernel;
      input->stride = stride;
    } else if (inputRows == layer.rows)
      input->rule = MemoptRowSame;
    else if (inputRows == 1)
      input->rule = MemoptRowBroadcast;
    else
      input->rule = MemoptRowWhole;
  }
  appendLayer(graph, layer, layout);
  return true;
}

/* Marks `op`, and the tensor.empty / linalg.fill / tensor.pad chain feeding
 * it through single-use values, as owned by `layer`. */
static void own(MemoptLayerGraph *graph, MlirOperation op, intptr_t layer) {
  for (size_t i = 0; i < graph->opCount; ++i)
    if (mlirOperationEqual(graph->ops[i].op, op)) {
      graph->ops[i].owner = layer;
      break;
    }
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i) {
    MlirValue operand = mlirOperationGetOperand(op, i);
    if (!mlirValueIsAOpResult(operand))
      continue;
    MlirOperation producer = mlirOpResultGetOwner(operand);
    if (memoptValueHasOneUse(operand) &&
        mlirBlockEqual(mlirOperationGetBlock(producer), graph->body) &&
        (memoptOperationIsA(producer, "tensor.empty") ||
         memoptOperationIsA(producer, "linalg.fill") || memoptOperationIsA(producer, "tensor.pad")))
      own(graph, producer, layer);
  }
}

intptr_t memoptLayerGraphOwner(const MemoptLayerGraph *graph, MlirOperation op) {
  for (size_t i = 0; i < graph->opCount; ++i)
    if (mlirOperationEqual(graph->ops[i].op, op))
      return graph->ops[i].owner;
  return -1;
}

MemoptLayerGraph *memoptLayerGraphCreate(MlirOperation func, MemoptStringBuffer *error) {
  MlirRegion region = mlirOperationGetRegion(func, 0);
  MlirBlock body = mlirRegionGetFirstBlock(region);
  if (mlirBlockIsNull(body)) {
    memoptStringBufferAppendCString(error, "the function has no body");
    return NULL;
  }
  if (!mlirBlockIsNull(mlirBlockGetNextInRegion(body))) {
    memoptStringBufferAppendCString(error, "the function has more than one block");
    return NULL;
  }
  MemoptLayerGraph *graph = memoptAllocateZeroed(1, sizeof *graph);
  *graph = (MemoptLayerGraph){.body = body};
  size_t opCapacity = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (graph->opCount == opCapacity) {
      opCapacity = opCapacity ? 2 * opCapacity : 256;
      graph->ops = memoptReallocArray(graph->ops, opCapacity, sizeof *graph->ops);
    }
    graph->ops[graph->opCount++] = (OwnedOp){op, -1};
  }
  for (size_t i = 0; i < graph->opCount; ++i) {
    if (buildLayer(graph, graph->ops[i].op, error))
      continue;
    if (error->length) {
      memoptLayerGraphDestroy(graph);
      return NULL;
    }
  }
  for (size_t i = 0; i < graph->count; ++i)
    own(graph, graph->layers[i].op, (intptr_t)i);
  /* Last uses: the latest layer reading each output, or past the end when
   * the function returns it. */
  for (size_t i = 0; i < graph->count; ++i)
    for (size_t j = 0; j < graph->layers[i].inputCount; ++j) {
      intptr_t producer = graph->layers[i].inputs[j].producer;
      if (producer >= 0 && graph->layers[producer].lastUse < (intptr_t)i)
        graph->layers[producer].lastUse = (intptr_t)i;
    }
  MlirOperation terminator = mlirBlockGetTerminator(body);
  for (intptr_t i = 0; !mlirOperationIsNull(terminator) && i < mlirOperationGetNumOperands(terminator);
       ++i) {
    intptr_t producer = producerOf(graph, mlirOperationGetOperand(terminator, i));
    if (producer >= 0) {
      graph->layers[producer].isResult = true;
      graph->layers[producer].lastUse = (intptr_t)graph->count;
    }
  }
  return graph;
}

void memoptLayerGraphDestroy(MemoptLayerGraph *graph) {
  if (!graph)
    return;
  for (size_t i = 0; i < graph->count; ++i)
    free(graph->layers[i].inputs);
  free(graph->layers);
  free(graph->layouts);
  free(graph->ops);
  free(graph);
}

size_t memoptLayerGraphCount(const MemoptLayerGraph *graph) { return graph->count; }

const MemoptLayer *memoptLayerGraphAt(const MemoptLayerGraph *graph, size_t index) {
  return &graph->layers[index];
}

const char *memoptLayerKindName(MemoptLayerKind kind) {
  static const char *const names[] = {"conv",    "pointwise", "depthwise", "pool",
                                      "elementwise", "add",   "concat",    "norm",
                                      "reduction", "matmul",  "reshape",   "other"};
  return names[kind];
}

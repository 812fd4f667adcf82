/* Shape symbols: which dimensions of a function are equal at run time, and
 * the size of every dimension as a polynomial over independent symbols.
 *
 * Every dimension of every ranked tensor or memref value, and every index
 * value, is a node. Nodes known equal are merged (union-find):
 *   - tensor.dim results with the dimension they read, tensor.empty and
 *     expand_shape / extract_slice size operands with the dimensions they
 *     size, remat.dim_symbol dimensions that name the same symbol;
 *   - through linalg indexing maps: every operand dimension indexed by the
 *     same loop (so elementwise ops, matmuls, transposes and reductions all
 *     relate their operands' dimensions), and each result with its init;
 *   - insert_slice, cast, remat.regenerate (the tensor it regenerates) and
 *     elementwise arith/math ops on tensors: the dimensions of results and
 *     operands of the same rank;
 *   - scf.for: init, iteration argument, yielded value and result.
 * Some classes are defined from others instead: static sizes and index
 * constants as constants, a collapsed dimension (or an expanded source) as
 * the product of its group, a concatenated dimension as the sum of its
 * inputs, arith.muli / addi / subi as product, sum and difference. Classes
 * left without a definition become the symbols, numbered in order of first
 * appearance (arguments first). */
#include "Analysis/Analysis.h"
#include "Analysis/BufferizationModel.h"
#include "IR/IR.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/Linalg.h"

#include <stdlib.h>
#include <string.h>

/* One way a class's size is computed from other nodes: a polynomial whose
 * symbols are node numbers. */
typedef struct Definition {
  size_t node;
  MemoptPolynomial *value;
} Definition;

/* A name a remat.dim_symbol gives to a node. */
typedef struct NamedNode {
  char *name;
  size_t node;
} NamedNode;

/* Where a node comes from, to report a symbol's source. */
typedef struct NodeSource {
  MlirValue value;
  int64_t dim; /* -1: an index value */
} NodeSource;

typedef enum ResolveState { Unresolved, Resolving, Resolved } ResolveState;

struct MemoptShapeSymbols {
  MemoptPointerMap firstNode; /* value -> its first node */
  size_t *parent;             /* union-find */
  NodeSource *sources;
  size_t nodeCount, nodeCapacity;
  Definition *definitions;
  size_t definitionCount, definitionCapacity;
  NamedNode *named;
  size_t namedCount, namedCapacity;
  /* Filled by resolution, per node (meaningful at class roots). */
  ResolveState *state;
  MemoptPolynomial **size;
  /* The symbols. */
  char **names;
  MemoptSymbolRange *ranges;
  size_t *symbolNodes;
  size_t symbolCount, symbolCapacity;
};

static size_t findRoot(MemoptShapeSymbols *symbols, size_t node) {
  while (symbols->parent[node] != node) {
    symbols->parent[node] = symbols->parent[symbols->parent[node]];
    node = symbols->parent[node];
  }
  return node;
}

/* Keeps the older root, so a class is named after its first appearance. */
static void unite(MemoptShapeSymbols *symbols, size_t a, size_t b) {
  a = findRoot(symbols, a);
  b = findRoot(symbols, b);
  if (a < b)
    symbols->parent[b] = a;
  else if (b < a)
    symbols->parent[a] = b;
}

static void define(MemoptShapeSymbols *symbols, size_t node, MemoptPolynomial *value) {
  symbols->definitions =
      memoptGrowArray(symbols->definitions, &symbols->definitionCapacity,
                      symbols->definitionCount + 1, sizeof *symbols->definitions);
  symbols->definitions[symbols->definitionCount++] = (Definition){node, value};
}

static bool isShaped(MlirType type) {
  return mlirTypeIsARankedTensor(type) || (mlirTypeIsAMemRef(type));
}

static intptr_t nodeCountOf(MlirType type) {
  if (isShaped(type))
    return mlirShapedTypeGetRank(type);
  return mlirTypeIsAIndex(type) ? 1 : 0;
}

/* The first node of `value`, creating its nodes on first sight (static
 * dimensions are defined as their extent). MEMOPT_NO_INDEX when the value
 * has no size nodes. */
static size_t nodesOf(MemoptShapeSymbols *symbols, MlirValue value) {
  size_t first = memoptPointerMapLookup(&symbols->firstNode, value.ptr);
  if (first != MEMOPT_NO_INDEX)
    return first;
  MlirType type = mlirValueGetType(value);
  intptr_t count = nodeCountOf(type);
  if (count == 0)
    return MEMOPT_NO_INDEX;
  first = symbols->nodeCount;
  size_t capacity = symbols->nodeCapacity;
  symbols->parent =
      memoptGrowArray(symbols->parent, &capacity, first + (size_t)count, sizeof *symbols->parent);
  capacity = symbols->nodeCapacity;
  symbols->sources = memoptGrowArray(symbols->sources, &symbols->nodeCapacity,
                                     first + (size_t)count, sizeof *symbols->sources);
  for (intptr_t i = 0; i < count; ++i) {
    size_t node = first + (size_t)i;
    symbols->parent[node] = node;
    symbols->sources[node] = (NodeSource){value, isShaped(type) ? (int64_t)i : -1};
    if (isShaped(type) && !mlirShapedTypeIsDynamicDim(type, i))
      define(symbols, node, memoptPolynomialCreateConstant(mlirShapedTypeGetDimSize(type, i)));
  }
  symbols->nodeCount += (size_t)count;
  memoptPointerMapInsert(&symbols->firstNode, value.ptr, first);
  return first;
}

static size_t dimNode(MemoptShapeSymbols *symbols, MlirValue value, int64_t dim) {
  size_t first = nodesOf(symbols, value);
  MlirType type = mlirValueGetType(value);
  if (first == MEMOPT_NO_INDEX || !isShaped(type) || dim < 0 || dim >= mlirShapedTypeGetRank(type))
    return MEMOPT_NO_INDEX;
  return first + (size_t)dim;
}

static size_t scalarNode(MemoptShapeSymbols *symbols, MlirValue value) {
  if (isShaped(mlirValueGetType(value)))
    return MEMOPT_NO_INDEX;
  return nodesOf(symbols, value);
}

static void uniteNodes(MemoptShapeSymbols *symbols, size_t a, size_t b) {
  if (a != MEMOPT_NO_INDEX && b != MEMOPT_NO_INDEX)
    unite(symbols, a, b);
}

static MlirAttribute attributeOf(MlirOperation op, const char *name) {
  return mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name));
}

static bool isConstantIndex(MlirValue value, int64_t *constant) {
  if (!mlirValueIsAOpResult(value))
    return false;
  MlirOperation op = mlirOpResultGetOwner(value);
  if (!memoptOperationIsA(op, "arith.constant"))
    return false;
  MlirAttribute attribute = attributeOf(op, "value");
  if (!mlirAttributeIsAInteger(attribute))
    return false;
  *constant = mlirIntegerAttrGetValueInt(attribute);
  return true;
}

/* Unites equal-rank shaped operands and results of `op` dimension by
 * dimension: ops whose results have the shape of their operands. */
static void uniteSameShapes(MemoptShapeSymbols *symbols, MlirOperation op) {
  if (mlirOperationGetNumResults(op) == 0)
    return;
  MlirValue result = mlirOperationGetResult(op, 0);
  MlirType type = mlirValueGetType(result);
  if (!isShaped(type))
    return;
  intptr_t rank = mlirShapedTypeGetRank(type);
  for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r) {
    MlirValue other = mlirOperationGetResult(op, r);
    if (isShaped(mlirValueGetType(other)) && mlirShapedTypeGetRank(mlirValueGetType(other)) == rank)
      for (intptr_t d = 0; d < rank; ++d)
        uniteNodes(symbols, dimNode(symbols, result, d), dimNode(symbols, other, d));
  }
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i) {
    MlirValue operand = mlirOperationGetOperand(op, i);
    MlirType operandType = mlirValueGetType(operand);
    if (isShaped(operandType) && mlirShapedTypeGetRank(operandType) == rank)
      for (intptr_t d = 0; d < rank; ++d)
        uniteNodes(symbols, dimNode(symbols, result, d), dimNode(symbols, operand, d));
  }
}

/* Every operand dimension indexed by exactly loop j (a plain d_j result of
 * its indexing map) has the loop's extent; results share their init's. */
static void visitLinalg(MemoptShapeSymbols *symbols, MlirOperation op, MlirAttribute maps) {
  intptr_t operandCount = mlirOperationGetNumOperands(op);
  if (mlirArrayAttrGetNumElements(maps) != operandCount)
    return;
  intptr_t loopCount = 0;
  if (operandCount > 0)
    loopCount = mlirAffineMapGetNumDims(mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, 0)));
  size_t *loops = memoptAllocateZeroed((size_t)loopCount, sizeof *loops);
  for (intptr_t j = 0; j < loopCount; ++j)
    loops[j] = MEMOPT_NO_INDEX;
  for (intptr_t i = 0; i < operandCount; ++i) {
    MlirValue operand = mlirOperationGetOperand(op, i);
    MlirAffineMap map = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, i));
    for (intptr_t r = 0; r < mlirAffineMapGetNumResults(map); ++r) {
      MlirAffineExpr expr = mlirAffineMapGetResult(map, r);
      if (!mlirAffineExprIsADim(expr))
        continue;
      intptr_t loop = mlirAffineDimExprGetPosition(expr);
      size_t node = dimNode(symbols, operand, r);
      if (loop >= loopCount || node == MEMOPT_NO_INDEX)
        continue;
      if (loops[loop] == MEMOPT_NO_INDEX)
        loops[loop] = node;
      else
        unite(symbols, loops[loop], node);
    }
  }
  free(loops);
  intptr_t resultCount = mlirOperationGetNumResults(op);
  for (intptr_t r = 0; r < resultCount; ++r) {
    MlirValue result = mlirOperationGetResult(op, r);
    MlirValue init = mlirOperationGetOperand(op, operandCount - resultCount + r);
    MlirType type = mlirValueGetType(result);
    if (!isShaped(type) || !isShaped(mlirValueGetType(init)))
      continue;
    for (intptr_t d = 0; d < mlirShapedTypeGetRank(type); ++d)
      uniteNodes(symbols, dimNode(symbols, result, d), dimNode(symbols, init, d));
  }
}

/* Dynamic extents given as operands, in order, for the dynamic entries of
 * a static-sizes array (tensor.empty, expand_shape output_shape, slices). */
static void uniteDynamicSizes(MemoptShapeSymbols *symbols, MlirValue shaped, MlirOperation op,
                              intptr_t firstOperand) {
  MlirType type = mlirValueGetType(shaped);
  intptr_t next = firstOperand;
  for (intptr_t d = 0; d < mlirShapedTypeGetRank(type); ++d)
    if (mlirShapedTypeIsDynamicDim(type, d) && next < mlirOperationGetNumOperands(op))
      uniteNodes(symbols, dimNode(symbols, shaped, d),
                 scalarNode(symbols, mlirOperationGetOperand(op, next++)));
}

/* The product of the dimensions of `value` in reassociation group `group`,
 * as a polynomial over nodes. */
static MemoptPolynomial *groupProduct(MemoptShapeSymbols *symbols, MlirValue value,
                                      MlirAttribute group) {
  MemoptPolynomial *product = memoptPolynomialCreateConstant(1);
  for (intptr_t k = 0; k < mlirArrayAttrGetNumElements(group); ++k) {
    int64_t dim = mlirIntegerAttrGetValueInt(mlirArrayAttrGetElement(group, k));
    MemoptPolynomial *factor = memoptPolynomialCreateSymbol((unsigned)dimNode(symbols, value, dim));
    MemoptPolynomial *next = memoptPolynomialMultiply(product, factor);
    memoptPolynomialDestroy(factor);
    memoptPolynomialDestroy(product);
    product = next;
  }
  return product;
}

/* The merged side of a reshape is the product of each group of the split
 * side (a one-member group is an equality). */
static void visitReshape(MemoptShapeSymbols *symbols, MlirOperation op, bool expanding) {
  MlirAttribute reassociation = attributeOf(op, "reassociation");
  if (mlirAttributeIsNull(reassociation) || !mlirAttributeIsAArray(reassociation))
    return;
  MlirValue source = mlirOperationGetOperand(op, 0);
  MlirValue result = mlirOperationGetResult(op, 0);
  MlirValue merged = expanding ? source : result;
  MlirValue split = expanding ? result : source;
  if (expanding)
    uniteDynamicSizes(symbols, result, op, 1);
  for (intptr_t g = 0; g < mlirArrayAttrGetNumElements(reassociation); ++g) {
    MlirAttribute group = mlirArrayAttrGetElement(reassociation, g);
    size_t mergedNode = dimNode(symbols, merged, g);
    if (mergedNode == MEMOPT_NO_INDEX)
      continue;
    if (mlirArrayAttrGetNumElements(group) == 1) {
      uniteNodes(symbols, mergedNode,
                 dimNode(symbols, split, mlirIntegerAttrGetValueInt(mlirArrayAttrGetElement(group, 0))));
      continue;
    }
    define(symbols, mergedNode, groupProduct(symbols, split, group));
  }
}

static void visitConcat(MemoptShapeSymbols *symbols, MlirOperation op) {
  MlirAttribute dimAttribute = attributeOf(op, "dim");
  if (mlirAttributeIsNull(dimAttribute))
    return;
  int64_t concatDim = mlirIntegerAttrGetValueInt(dimAttribute);
  MlirValue result = mlirOperationGetResult(op, 0);
  intptr_t rank = mlirShapedTypeGetRank(mlirValueGetType(result));
  MemoptPolynomial *sum = memoptPolynomialCreateConstant(0);
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i) {
    MlirValue input = mlirOperationGetOperand(op, i);
    for (intptr_t d = 0; d < rank; ++d)
      if (d != concatDim)
        uniteNodes(symbols, dimNode(symbols, result, d), dimNode(symbols, input, d));
    MemoptPolynomial *extent =
        memoptPolynomialCreateSymbol((unsigned)dimNode(symbols, input, concatDim));
    memoptPolynomialAccumulate(sum, extent, 1);
    memoptPolynomialDestroy(extent);
  }
  define(symbols, dimNode(symbols, result, concatDim), sum);
}

static void visitIndexArithmetic(MemoptShapeSymbols *symbols, MlirOperation op) {
  MlirValue result = mlirOperationGetResult(op, 0);
  size_t resultNode = scalarNode(symbols, result);
  if (resultNode == MEMOPT_NO_INDEX)
    return;
  int64_t constant;
  if (memoptOperationIsA(op, "arith.constant")) {
    if (isConstantIndex(result, &constant))
      define(symbols, resultNode, memoptPolynomialCreateConstant(constant));
    return;
  }
  if (memoptOperationIsA(op, "arith.index_cast")) {
    uniteNodes(symbols, resultNode, scalarNode(symbols, mlirOperationGetOperand(op, 0)));
    return;
  }
  size_t lhs = scalarNode(symbols, mlirOperationGetOperand(op, 0));
  size_t rhs = scalarNode(symbols, mlirOperationGetOperand(op, 1));
  if (lhs == MEMOPT_NO_INDEX || rhs == MEMOPT_NO_INDEX)
    return;
  MemoptPolynomial *a = memoptPolynomialCreateSymbol((unsigned)lhs);
  MemoptPolynomial *b = memoptPolynomialCreateSymbol((unsigned)rhs);
  if (memoptOperationIsA(op, "arith.muli")) {
    define(symbols, resultNode, memoptPolynomialMultiply(a, b));
  } else {
    MemoptPolynomial *sum = memoptPolynomialClone(a);
    memoptPolynomialAccumulate(sum, b, memoptOperationIsA(op, "arith.subi") ? -1 : 1);
    define(symbols, resultNode, sum);
  }
  memoptPolynomialDestroy(a);
  memoptPolynomialDestroy(b);
}

static void visitDimSymbol(MemoptShapeSymbols *symbols, MlirOperation op) {
  MlirAttribute dim = attributeOf(op, "dim");
  MlirAttribute name = attributeOf(op, "symbol");
  if (!mlirAttributeIsAInteger(dim) || !mlirAttributeIsAString(name))
    return;
  size_t node = dimNode(symbols, mlirOperationGetOperand(op, 0), mlirIntegerAttrGetValueInt(dim));
  if (node == MEMOPT_NO_INDEX)
    return;
  MlirStringRef text = mlirStringAttrGetValue(name);
  for (size_t i = 0; i < symbols->namedCount; ++i)
    if (strlen(symbols->named[i].name) == text.length &&
        memcmp(symbols->named[i].name, text.data, text.length) == 0) {
      unite(symbols, symbols->named[i].node, node);
      return;
    }
  symbols->named = memoptGrowArray(symbols->named, &symbols->namedCapacity, symbols->namedCount + 1,
                                   sizeof *symbols->named);
  symbols->named[symbols->namedCount++] = (NamedNode){memoptStrndup(text.data, text.length), node};
}

static void visitScfFor(MemoptShapeSymbols *symbols, MlirOperation op) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  MlirOperation yield = mlirBlockGetTerminator(body);
  intptr_t resultCount = mlirOperationGetNumResults(op);
  intptr_t firstInit = mlirOperationGetNumOperands(op) - resultCount;
  for (intptr_t r = 0; r < resultCount; ++r) {
    MlirValue result = mlirOperationGetResult(op, r);
    MlirValue related[3] = {mlirOperationGetOperand(op, firstInit + r),
                            mlirBlockGetArgument(body, r + 1), mlirOperationGetOperand(yield, r)};
    intptr_t count = nodeCountOf(mlirValueGetType(result));
    for (int k = 0; k < 3; ++k)
      for (intptr_t d = 0; d < count; ++d) {
        size_t a = memoptPointerMapLookup(&symbols->firstNode, result.ptr);
        size_t b = nodesOf(symbols, related[k]);
        if (a == MEMOPT_NO_INDEX)
          a = nodesOf(symbols, result);
        if (a != MEMOPT_NO_INDEX && b != MEMOPT_NO_INDEX)
          unite(symbols, a + (size_t)d, b + (size_t)d);
      }
  }
}

static bool isElementwiseOnShapes(MlirOperation op) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  bool arithOrMath = (name.length > 6 && memcmp(name.data, "arith.", 6) == 0) ||
                     (name.length > 5 && memcmp(name.data, "math.", 5) == 0);
  return arithOrMath || memoptOperationIsA(op, "tensor.cast") ||
         memoptOperationIsA(op, "memref.cast") || memoptOperationIsA(op, "tensor.insert_slice") ||
         memoptOperationIsA(op, "bufferization.to_tensor") ||
         memoptOperationIsA(op, "bufferization.to_buffer") ||
         memoptOperationIsA(op, "bufferization.materialize_in_destination") ||
         memoptOperationIsA(op, "remat.regenerate");
}

static void visitOp(MemoptShapeSymbols *symbols, MlirOperation op) {
  for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r)
    nodesOf(symbols, mlirOperationGetResult(op, r));
  MlirAttribute maps = mlirLinalgGetIndexingMapsAttribute(op);
  if (!mlirAttributeIsNull(maps)) {
    visitLinalg(symbols, op, maps);
  } else if (memoptOperationIsA(op, "tensor.dim") || memoptOperationIsA(op, "memref.dim")) {
    int64_t dim;
    if (isConstantIndex(mlirOperationGetOperand(op, 1), &dim))
      uniteNodes(symbols, scalarNode(symbols, mlirOperationGetResult(op, 0)),
                 dimNode(symbols, mlirOperationGetOperand(op, 0), dim));
  } else if (memoptOperationIsA(op, "tensor.empty") || memoptOperationIsA(op, "memref.alloc") ||
             memoptOperationIsA(op, "bufferization.alloc_tensor")) {
    uniteDynamicSizes(symbols, mlirOperationGetResult(op, 0), op, 0);
  } else if (memoptOperationIsA(op, "tensor.expand_shape")) {
    visitReshape(symbols, op, true);
  } else if (memoptOperationIsA(op, "tensor.collapse_shape")) {
    visitReshape(symbols, op, false);
  } else if (memoptOperationIsA(op, "tensor.concat")) {
    visitConcat(symbols, op);
  } else if (memoptOperationIsA(op, "tensor.extract_slice")) {
    MlirValue result = mlirOperationGetResult(op, 0);
    MlirAttribute sizes = attributeOf(op, "static_sizes");
    MlirAttribute segments = attributeOf(op, "operandSegmentSizes");
    if (!mlirAttributeIsNull(sizes) && !mlirAttributeIsNull(segments) &&
        mlirDenseArrayGetNumElements(sizes) == mlirShapedTypeGetRank(mlirValueGetType(result)))
      uniteDynamicSizes(symbols, result, op, 1 + mlirDenseI32ArrayGetElement(segments, 1));
  } else if (memoptOperationIsA(op, "remat.dim_symbol")) {
    visitDimSymbol(symbols, op);
  } else if (memoptOperationIsA(op, "scf.for")) {
    visitScfFor(symbols, op);
  } else if (mlirOperationGetNumResults(op) == 1 &&
             !isShaped(mlirValueGetType(mlirOperationGetResult(op, 0))) &&
             (memoptOperationIsA(op, "arith.constant") || memoptOperationIsA(op, "arith.muli") ||
              memoptOperationIsA(op, "arith.addi") || memoptOperationIsA(op, "arith.subi") ||
              memoptOperationIsA(op, "arith.index_cast"))) {
    visitIndexArithmetic(symbols, op);
  } else if (isElementwiseOnShapes(op)) {
    uniteSameShapes(symbols, op);
  }
}

static MlirWalkResult visitCallback(MlirOperation op, void *userData) {
  visitOp(userData, op);
  return MlirWalkResultAdvance;
}

static MemoptPolynomial *resolveNode(MemoptShapeSymbols *symbols, size_t node);

/* Replaces every node in `value` by the resolved size of its class. */
static MemoptPolynomial *substitute(MemoptShapeSymbols *symbols, const MemoptPolynomial *value,
                                    bool *cyclic);

static MemoptPolynomial *newSymbol(MemoptShapeSymbols *symbols, size_t root) {
  size_t index = symbols->symbolCount;
  size_t capacity = symbols->symbolCapacity;
  symbols->names = memoptGrowArray(symbols->names, &capacity, index + 1, sizeof *symbols->names);
  capacity = symbols->symbolCapacity;
  symbols->ranges = memoptGrowArray(symbols->ranges, &capacity, index + 1, sizeof *symbols->ranges);
  symbols->symbolNodes = memoptGrowArray(symbols->symbolNodes, &symbols->symbolCapacity, index + 1,
                                         sizeof *symbols->symbolNodes);
  char *name = NULL;
  for (size_t i = 0; i < symbols->namedCount && !name; ++i)
    if (findRoot(symbols, symbols->named[i].node) == root)
      name = memoptStrndup(symbols->named[i].name, strlen(symbols->named[i].name));
  if (!name) {
    MemoptStringBuffer text = memoptStringBufferCreate();
    memoptStringBufferAppendFormat(&text, "s%zu", index);
    name = memoptStringBufferRelease(&text);
  }
  symbols->names[index] = name;
  symbols->ranges[index] = (MemoptSymbolRange){1, INT64_MAX};
  symbols->symbolNodes[index] = root;
  symbols->symbolCount = index + 1;
  return memoptPolynomialCreateSymbol((unsigned)index);
}

static MemoptPolynomial *resolveNode(MemoptShapeSymbols *symbols, size_t node) {
  size_t root = findRoot(symbols, node);
  if (symbols->state[root] == Resolved)
    return symbols->size[root];
  if (symbols->state[root] == Resolving)
    return NULL;
  symbols->state[root] = Resolving;
  MemoptPolynomial *size = NULL;
  /* A constant definition wins: the class is static. */
  for (size_t i = 0; i < symbols->definitionCount && !size; ++i) {
    int64_t constant;
    if (findRoot(symbols, symbols->definitions[i].node) == root &&
        memoptPolynomialIsConstant(symbols->definitions[i].value, &constant))
      size = memoptPolynomialCreateConstant(constant);
  }
  for (size_t i = 0; i < symbols->definitionCount && !size; ++i) {
    if (findRoot(symbols, symbols->definitions[i].node) != root)
      continue;
    bool cyclic = false;
    MemoptPolynomial *candidate = substitute(symbols, symbols->definitions[i].value, &cyclic);
    if (cyclic)
      memoptPolynomialDestroy(candidate);
    else
      size = candidate;
  }
  if (!size)
    size = newSymbol(symbols, root);
  symbols->size[root] = size;
  symbols->state[root] = Resolved;
  return size;
}

static MemoptPolynomial *substitute(MemoptShapeSymbols *symbols, const MemoptPolynomial *value,
                                    bool *cyclic) {
  /* Each term c*n1*n2*... becomes c times the product of the nodes' sizes. */
  MemoptPolynomial *result = memoptPolynomialCreateConstant(0);
  size_t termCount = memoptPolynomialGetNumTerms(value);
  for (size_t t = 0; t < termCount && !*cyclic; ++t) {
    unsigned nodes[MEMOPT_POLYNOMIAL_MAX_DEGREE];
    unsigned degree = 0;
    int64_t coefficient =
        memoptPolynomialGetTerm(value, t, nodes, MEMOPT_POLYNOMIAL_MAX_DEGREE, &degree);
    MemoptPolynomial *product = memoptPolynomialCreateConstant(coefficient);
    for (unsigned k = 0; k < degree && !*cyclic; ++k) {
      MemoptPolynomial *factor = resolveNode(symbols, nodes[k]);
      if (!factor) {
        *cyclic = true;
        break;
      }
      MemoptPolynomial *next = memoptPolynomialMultiply(product, factor);
      memoptPolynomialDestroy(product);
      product = next;
    }
    memoptPolynomialAccumulate(result, product, 1);
    memoptPolynomialDestroy(product);
  }
  return result;
}

/* Reads `memopt.symbol_bounds = {name = [min, max], ...}` of the function. */
static bool readBounds(MemoptShapeSymbols *symbols, MlirOperation func, MemoptStringBuffer *error) {
  MlirAttribute bounds = attributeOf(func, "memopt.symbol_bounds");
  if (mlirAttributeIsNull(bounds))
    return true;
  if (!mlirAttributeIsADictionary(bounds)) {
    memoptStringBufferAppendCString(error, "'memopt.symbol_bounds' must be a dictionary from symbol names to [minimum, maximum]");
    return false;
  }
  for (intptr_t i = 0; i < mlirDictionaryAttrGetNumElements(bounds); ++i) {
    MlirNamedAttribute entry = mlirDictionaryAttrGetElement(bounds, i);
    MlirStringRef name = mlirIdentifierStr(entry.name);
    size_t symbol = symbols->symbolCount;
    for (size_t s = 0; s < symbols->symbolCount; ++s)
      if (strlen(symbols->names[s]) == name.length &&
          memcmp(symbols->names[s], name.data, name.length) == 0)
        symbol = s;
    if (symbol == symbols->symbolCount) {
      memoptStringBufferAppendFormat(error, "'memopt.symbol_bounds' names '%.*s', which is not a symbol of the function",
                                     (int)name.length, name.data);
      return false;
    }
    MlirAttribute range = entry.attribute;
    bool wellFormed = mlirAttributeIsAArray(range) && mlirArrayAttrGetNumElements(range) == 2 &&
                      mlirAttributeIsAInteger(mlirArrayAttrGetElement(range, 0)) &&
                      mlirAttributeIsAInteger(mlirArrayAttrGetElement(range, 1));
    int64_t minimum = wellFormed ? mlirIntegerAttrGetValueInt(mlirArrayAttrGetElement(range, 0)) : 0;
    int64_t maximum = wellFormed ? mlirIntegerAttrGetValueInt(mlirArrayAttrGetElement(range, 1)) : 0;
    if (!wellFormed || minimum < 1 || maximum < minimum) {
      memoptStringBufferAppendFormat(error, "'memopt.symbol_bounds' of '%.*s' must be [minimum, maximum] with 1 <= minimum <= maximum",
                                     (int)name.length, name.data);
      return false;
    }
    symbols->ranges[symbol] = (MemoptSymbolRange){minimum, maximum};
  }
  return true;
}

static bool hasConstantDefinition(MemoptShapeSymbols *symbols, size_t root) {
  for (size_t i = 0; i < symbols->definitionCount; ++i) {
    int64_t constant;
    if (findRoot(symbols, symbols->definitions[i].node) == root &&
        memoptPolynomialIsConstant(symbols->definitions[i].value, &constant))
      return true;
  }
  return false;
}

MemoptShapeSymbols *memoptShapeSymbolsCreate(MlirOperation func, MemoptStringBuffer *error) {
  MemoptShapeSymbols *symbols = memoptAllocateZeroed(1, sizeof *symbols);
  symbols->firstNode = memoptPointerMapCreate();
  MlirRegion region = mlirOperationGetRegion(func, 0);
  MlirBlock entry = mlirRegionGetFirstBlock(region);
  if (!mlirBlockIsNull(entry))
    for (intptr_t i = 0; i < mlirBlockGetNumArguments(entry); ++i)
      nodesOf(symbols, mlirBlockGetArgument(entry, i));
  mlirOperationWalk(func, visitCallback, symbols, MlirWalkPreOrder);
  symbols->state = memoptAllocateZeroed(symbols->nodeCount, sizeof *symbols->state);
  symbols->size = memoptAllocateZeroed(symbols->nodeCount, sizeof *symbols->size);
  /* Only dimensions make symbols: an index value that sizes nothing (a loop
   * index) stays unresolved. */
  for (size_t node = 0; node < symbols->nodeCount; ++node)
    if (symbols->sources[node].dim >= 0)
      resolveNode(symbols, node);
  for (size_t node = 0; node < symbols->nodeCount; ++node)
    if (symbols->sources[node].dim < 0 && hasConstantDefinition(symbols, findRoot(symbols, node)))
      resolveNode(symbols, node);
  if (!readBounds(symbols, func, error)) {
    memoptShapeSymbolsDestroy(symbols);
    return NULL;
  }
  return symbols;
}

void memoptShapeSymbolsDestroy(MemoptShapeSymbols *symbols) {
  if (!symbols)
    return;
  for (size_t i = 0; i < symbols->definitionCount; ++i)
    memoptPolynomialDestroy(symbols->definitions[i].value);
  for (size_t i = 0; i < symbols->namedCount; ++i)
    free(symbols->named[i].name);
  for (size_t i = 0; i < symbols->nodeCount && symbols->size; ++i)
    memoptPolynomialDestroy(symbols->size[i]);
  for (size_t i = 0; i < symbols->symbolCount; ++i)
    free(symbols->names[i]);
  memoptPointerMapDestroy(&symbols->firstNode);
  free(symbols->parent);
  free(symbols->sources);
  free(symbols->definitions);
  free(symbols->named);
  free(symbols->state);
  free(symbols->size);
  free(symbols->names);
  free(symbols->ranges);
  free(symbols->symbolNodes);
  free(symbols);
}

size_t memoptShapeSymbolsGetNumSymbols(const MemoptShapeSymbols *symbols) {
  return symbols->symbolCount;
}

const char *const *memoptShapeSymbolsGetNames(const MemoptShapeSymbols *symbols) {
  return (const char *const *)symbols->names;
}

const MemoptSymbolRange *memoptShapeSymbolsGetRanges(const MemoptShapeSymbols *symbols) {
  return symbols->ranges;
}

MlirValue memoptShapeSymbolsGetSource(const MemoptShapeSymbols *symbols, size_t symbol,
                                      int64_t *dim) {
  NodeSource source = symbols->sources[symbols->symbolNodes[symbol]];
  *dim = source.dim;
  return source.value;
}

const MemoptPolynomial *memoptShapeSymbolsGetDimSize(const MemoptShapeSymbols *symbols,
                                                     MlirValue value, int64_t dim) {
  size_t first = memoptPointerMapLookup(&symbols->firstNode, value.ptr);
  MlirType type = mlirValueGetType(value);
  if (first == MEMOPT_NO_INDEX || !isShaped(type) || dim < 0 || dim >= mlirShapedTypeGetRank(type))
    return NULL;
  size_t node = first + (size_t)dim;
  /* Roots were resolved at creation; finding them again only reads. */
  while (symbols->parent[node] != node)
    node = symbols->parent[node];
  return symbols->size[node];
}

MemoptPolynomial *memoptShapeSymbolsGetElementCount(const MemoptShapeSymbols *symbols,
                                                    MlirValue value) {
  MlirType type = mlirValueGetType(value);
  if (!isShaped(type))
    return NULL;
  MemoptPolynomial *elements = memoptPolynomialCreateConstant(1);
  for (intptr_t d = 0; d < mlirShapedTypeGetRank(type) && elements; ++d) {
    const MemoptPolynomial *size = memoptShapeSymbolsGetDimSize(symbols, value, d);
    MemoptPolynomial *extent =
        !mlirShapedTypeIsDynamicDim(type, d)
            ? memoptPolynomialCreateConstant(mlirShapedTypeGetDimSize(type, d))
            : (size ? memoptPolynomialClone(size) : NULL);
    MemoptPolynomial *next = extent ? memoptPolynomialMultiply(elements, extent) : NULL;
    memoptPolynomialDestroy(extent);
    memoptPolynomialDestroy(elements);
    elements = next;
  }
  return elements;
}

MemoptPolynomial *memoptShapeSymbolsGetByteSize(const MemoptShapeSymbols *symbols,
                                                MlirValue value) {
  MlirType type = mlirValueGetType(value);
  uint64_t elementBytes;
  if (!isShaped(type) || !memoptTypeGetElementByteSize(mlirShapedTypeGetElementType(type), &elementBytes))
    return NULL;
  MemoptPolynomial *elements = memoptShapeSymbolsGetElementCount(symbols, value);
  if (!elements)
    return NULL;
  MemoptPolynomial *perElement = memoptPolynomialCreateConstant((int64_t)elementBytes);
  MemoptPolynomial *bytes = memoptPolynomialMultiply(perElement, elements);
  memoptPolynomialDestroy(perElement);
  memoptPolynomialDestroy(elements);
  return bytes;
}

MemoptComparison memoptShapeSymbolsCompare(const MemoptShapeSymbols *symbols,
                                           const MemoptPolynomial *a, const MemoptPolynomial *b) {
  return memoptPolynomialCompare(a, b, symbols->ranges, symbols->symbolCount);
}

const MemoptPolynomial *memoptShapeSymbolsGetIndexValue(const MemoptShapeSymbols *symbols,
                                                        MlirValue value) {
  size_t node = memoptPointerMapLookup(&symbols->firstNode, value.ptr);
  if (node == MEMOPT_NO_INDEX || isShaped(mlirValueGetType(value)))
    return NULL;
  while (symbols->parent[node] != node)
    node = symbols->parent[node];
  return symbols->size[node];
}

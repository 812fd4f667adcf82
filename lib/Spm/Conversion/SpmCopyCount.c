/* Counting the bytes the lowered program copies between off-chip memory and
 * the scratchpad, to set against spm-pin-fuse's modelled `spm.offchip_bytes`,
 * and checking which elements a tile loop's slices cover.
 * The lowering records each copy site (SpmLowering.h); this file runs each
 * tile loop nest symbolically, evaluating its index arithmetic (arith,
 * affine.apply/min/max) iteration by iteration, taking the branch of each
 * scf.if its condition selects, and adds the bytes of every site executed.
 * Sites outside loops (weights, spm.load, spm.store) count once. */
#include "Spm/Spm.h"
#include "Analysis/BufferizationModel.h"
#include "Spm/Conversion/SpmLowering.h"
#include "IR/IR.h"

#include "mlir-c/AffineExpr.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdlib.h>
#include <string.h>

/* The maps of a run hold signed integers in MemoptPointerMap's size_t
 * values (two's complement round trip). */
static void mapPut(MemoptPointerMap *map, const void *key, int64_t value) {
  memoptPointerMapInsert(map, key, (size_t)value);
}

static bool mapGet(const MemoptPointerMap *map, const void *key, int64_t *value) {
  size_t stored;
  if (!memoptPointerMapFind(map, key, &stored))
    return false;
  *value = (int64_t)stored;
  return true;
}

/* The state of one symbolic run. Each time a site op executes, `visit` is
 * called with the site's tag. */
typedef struct Run Run;
struct Run {
  MemoptPointerMap values; /* index and integer values computed so far */
  MemoptPointerMap sites;  /* site op -> its tag */
  void (*visit)(Run *run, MlirOperation site, int64_t tag);
  void *userData;
  bool unknown; /* some size could not be evaluated */
};

static bool valueOf(Run *run, MlirValue value, int64_t *result) {
  if (mapGet(&run->values, value.ptr, result))
    return true;
  if (!mlirValueIsAOpResult(value) ||
      !memoptOperationIsA(mlirOpResultGetOwner(value), "arith.constant"))
    return false;
  MlirAttribute attribute = mlirOperationGetAttributeByName(
      mlirOpResultGetOwner(value), mlirStringRefCreateFromCString("value"));
  if (!mlirAttributeIsAInteger(attribute))
    return false;
  *result = mlirIntegerAttrGetValueInt(attribute);
  return true;
}

static int64_t floorDivide(int64_t a, int64_t b) {
  return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

static bool evaluateExpr(MlirAffineExpr expr, const int64_t *dims, const int64_t *symbols,
                         int64_t *result) {
  if (mlirAffineExprIsAConstant(expr)) {
    *result = mlirAffineConstantExprGetValue(expr);
    return true;
  }
  if (mlirAffineExprIsADim(expr)) {
    *result = dims[mlirAffineDimExprGetPosition(expr)];
    return true;
  }
  if (mlirAffineExprIsASymbol(expr)) {
    *result = symbols[mlirAffineSymbolExprGetPosition(expr)];
    return true;
  }
  int64_t lhs, rhs;
  if (!evaluateExpr(mlirAffineBinaryOpExprGetLHS(expr), dims, symbols, &lhs) ||
      !evaluateExpr(mlirAffineBinaryOpExprGetRHS(expr), dims, symbols, &rhs))
    return false;
  if (mlirAffineExprIsAAdd(expr))
    *result = lhs + rhs;
  else if (mlirAffineExprIsAMul(expr))
    *result = lhs * rhs;
  else if (rhs == 0)
    return false;
  else if (mlirAffineExprIsAFloorDiv(expr))
    *result = floorDivide(lhs, rhs);
  else if (mlirAffineExprIsACeilDiv(expr))
    *result = -floorDivide(-lhs, rhs);
  else if (mlirAffineExprIsAMod(expr))
    *result = lhs - rhs * floorDivide(lhs, rhs);
  else
    return false;
  return true;
}

/* affine.apply, affine.min, affine.max. */
static bool evaluateAffine(Run *run, MlirOperation op, int64_t *result) {
  MlirAffineMap map = mlirAffineMapAttrGetValue(
      mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("map")));
  intptr_t dimCount = mlirAffineMapGetNumDims(map);
  intptr_t operands = mlirOperationGetNumOperands(op);
  int64_t *values = memoptAllocateZeroed((size_t)operands, sizeof *values);
  bool ok = true;
  for (intptr_t i = 0; i < operands && ok; ++i)
    ok = valueOf(run, mlirOperationGetOperand(op, i), &values[i]);
  bool isMin = memoptOperationIsA(op, "affine.min");
  for (intptr_t r = 0; r < mlirAffineMapGetNumResults(map) && ok; ++r) {
    int64_t value = 0;
    ok = evaluateExpr(mlirAffineMapGetResult(map, r), values, values + dimCount, &value);
    if (ok && (r == 0 || (isMin ? value < *result : value > *result)))
      *result = value;
  }
  free(values);
  return ok;
}

/* arith.cmpi predicates, in arith::CmpIPredicate order. */
static int64_t compare(int64_t predicate, int64_t a, int64_t b) {
  uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
  switch (predicate) {
  case 0:
    return a == b;
  case 1:
    return a != b;
  case 2:
    return a < b;
  case 3:
    return a <= b;
  case 4:
    return a > b;
  case 5:
    return a >= b;
  case 6:
    return ua < ub;
  case 7:
    return ua <= ub;
  case 8:
    return ua > ub;
  default:
    return ua >= ub;
  }
}

/* Computes the integer result of `op` when it is index arithmetic this file
 * knows; returns false otherwise (or when an operand is unknown). */
static bool evaluate(Run *run, MlirOperation op, int64_t *result) {
  if (memoptOperationIsA(op, "affine.apply") || memoptOperationIsA(op, "affine.min") ||
      memoptOperationIsA(op, "affine.max"))
    return evaluateAffine(run, op, result);
  static const char *const binary[] = {"arith.addi",  "arith.subi",  "arith.muli",  "arith.divsi",
                                       "arith.remsi", "arith.minsi", "arith.maxsi", "arith.andi",
                                       "arith.ori",   "arith.xori",  "arith.cmpi",  "arith.select"};
  size_t kind = sizeof binary / sizeof *binary;
  for (size_t k = 0; k < sizeof binary / sizeof *binary; ++k)
    if (memoptOperationIsA(op, binary[k]))
      kind = k;
  if (kind == sizeof binary / sizeof *binary)
    return false;
  int64_t a, b, c = 0;
  if (!valueOf(run, mlirOperationGetOperand(op, 0), &a) ||
      !valueOf(run, mlirOperationGetOperand(op, 1), &b) ||
      (kind == 11 && !valueOf(run, mlirOperationGetOperand(op, 2), &c)))
    return false;
  switch (kind) {
  case 0:
    *result = a + b;
    return true;
  case 1:
    *result = a - b;
    return true;
  case 2:
    *result = a * b;
    return true;
  case 3:
    if (b == 0)
      return false;
    *result = a / b;
    return true;
  case 4:
    if (b == 0)
      return false;
    *result = a % b;
    return true;
  case 5:
    *result = a < b ? a : b;
    return true;
  case 6:
    *result = a > b ? a : b;
    return true;
  case 7:
    *result = a & b;
    return true;
  case 8:
    *result = a | b;
    return true;
  case 9:
    *result = a ^ b;
    return true;
  case 10:
    *result = compare(mlirIntegerAttrGetValueInt(mlirOperationGetAttributeByName(
                          op, mlirStringRefCreateFromCString("predicate"))),
                      a, b);
    return true;
  default:
    *result = a ? b : c;
    return true;
  }
}

/* The element size in bytes of a shaped type; 0 when unknown. */
static int64_t elementBytes(MlirType type) {
  MlirType element = mlirShapedTypeGetElementType(type);
  return mlirTypeIsAFloat(element)     ? mlirFloatTypeGetWidth(element) / 8
         : mlirTypeIsAInteger(element) ? (mlirIntegerTypeGetWidth(element) + 7) / 8
                                       : 0;
}

/* Evaluates the offsets, sizes or strides (`segment` 0, 1 or 2) of a
 * tensor.extract_slice or insert_slice into `values` (its rank of them). */
static bool sliceOperands(Run *run, MlirOperation slice, intptr_t segment, int64_t *values) {
  intptr_t rank = mlirDenseArrayGetNumElements(
      mlirOperationGetAttributeByName(slice, mlirStringRefCreateFromCString("static_sizes")));
  for (intptr_t d = 0; d < rank; ++d) {
    MemoptIndex index = memoptSliceIndex(slice, (int)segment, d);
    values[d] = index.fixed;
    if (!memoptIndexIsFixed(index) && !valueOf(run, index.value, &values[d]))
      return false;
  }
  return true;
}

/* Bytes of the slice a copy site moves: its sizes times the element size. */
static bool siteBytes(Run *run, MlirOperation site, int64_t *bytes) {
  bool insert = memoptOperationIsA(site, "tensor.insert_slice");
  MlirType type =
      mlirValueGetType(insert ? mlirOperationGetOperand(site, 0) : mlirOperationGetResult(site, 0));
  int64_t size = elementBytes(type);
  if (!memoptOperationIsA(site, "tensor.extract_slice") && !insert) {
    /* a copy of a whole tensor: linalg.copy */
    if (!mlirShapedTypeHasStaticShape(type))
      return false;
    for (intptr_t d = 0; d < mlirShapedTypeGetRank(type); ++d)
      if (__builtin_mul_overflow(size, mlirShapedTypeGetDimSize(type, d), &size))
        return false; /* more bytes than 64 bits count */
    *bytes = size;
    return true;
  }
  MlirAttribute staticSizes =
      mlirOperationGetAttributeByName(site, mlirStringRefCreateFromCString("static_sizes"));
  intptr_t rank = mlirDenseArrayGetNumElements(staticSizes);
  int64_t *sizes = memoptAllocateZeroed((size_t)rank, sizeof *sizes);
  bool ok = sliceOperands(run, site, 1, sizes);
  for (intptr_t d = 0; ok && d < rank; ++d)
    ok = !__builtin_mul_overflow(size, sizes[d], &size);
  free(sizes);
  *bytes = size;
  return ok;
}

/* The visitor of spmCountCopies: adds the bytes of a site of kind `kind`. */
static void countSite(Run *run, MlirOperation op, int64_t kind) {
  SpmCopyTotals *totals = run->userData;
  int64_t bytes;
  if (!siteBytes(run, op, &bytes)) {
    run->unknown = true;
    return;
  }
  uint64_t *total = kind == SpmCopyTileLoad    ? &totals->loadedBytes
                    : kind == SpmCopyTileStore   ? &totals->storedBytes
                    : kind == SpmCopyWeightLoad  ? &totals->weightBytes
                                                 : &totals->explicitBytes;
  if (__builtin_add_overflow(*total, (uint64_t)bytes, total))
    run->unknown = true; /* the sum no longer fits 64 bits */
}

static void runBlock(Run *run, MlirBlock block);

static void runLoop(Run *run, MlirOperation loop) {
  int64_t lower, upper, step;
  if (!valueOf(run, mlirOperationGetOperand(loop, 0), &lower) ||
      !valueOf(run, mlirOperationGetOperand(loop, 1), &upper) ||
      !valueOf(run, mlirOperationGetOperand(loop, 2), &step) || step <= 0) {
    run->unknown = true;
    return;
  }
  MlirBlock body = memoptSingleBlock(loop);
  for (int64_t iv = lower; iv < upper; iv += step) {
    mapPut(&run->values, mlirBlockGetArgument(body, 0).ptr, iv);
    runBlock(run, body);
  }
}

static void runBlock(Run *run, MlirBlock block) {
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    int64_t value = 0;
    if (mapGet(&run->sites, op.ptr, &value))
      run->visit(run, op, value);
    if (memoptOperationIsA(op, "scf.for")) {
      runLoop(run, op);
    } else if (memoptOperationIsA(op, "scf.if")) {
      int64_t condition;
      if (!valueOf(run, mlirOperationGetOperand(op, 0), &condition)) {
        run->unknown = true;
        continue;
      }
      MlirRegion taken = mlirOperationGetRegion(op, condition ? 0 : 1);
      MlirBlock branch = mlirRegionGetFirstBlock(taken);
      if (!mlirBlockIsNull(branch))
        runBlock(run, branch);
    } else if (mlirOperationGetNumResults(op) == 1 && evaluate(run, op, &value)) {
      mapPut(&run->values, mlirOperationGetResult(op, 0).ptr, value);
    }
  }
}

/* True when the loop-carried tensor `value` starts from a view of the pin
 * arena (bufferization.to_tensor), through the inits of enclosing loops and
 * a copy into the view (of a value the loop starts from). */
static bool inPinArena(MlirValue value) {
  while (mlirValueIsABlockArgument(value)) {
    MlirOperation loop = mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(value));
    intptr_t number = mlirBlockArgumentGetArgNumber(value);
    if (!memoptOperationIsA(loop, "scf.for") || number == 0)
      return false;
    /* scf.for operands: lower, upper, step, then the inits of iter_args 1... */
    value = mlirOperationGetOperand(loop, 2 + number);
  }
  if (mlirValueIsAOpResult(value) && memoptOperationIsA(mlirOpResultGetOwner(value), "linalg.copy"))
    value = mlirOperationGetOperand(mlirOpResultGetOwner(value), 1);
  return mlirValueIsAOpResult(value) &&
         memoptOperationIsA(mlirOpResultGetOwner(value), "bufferization.to_tensor");
}

/* True when `value` is a result of a tile loop nest that writes into the
 * pin arena (a group output pinned in place): reading it stays on chip. */
static bool pinnedLoopResult(MlirValue value) {
  if (!mlirValueIsAOpResult(value) || !memoptOperationIsA(mlirOpResultGetOwner(value), "scf.for"))
    return false;
  MlirOperation loop = mlirOpResultGetOwner(value);
  return inPinArena(mlirOperationGetOperand(loop, 3 + mlirOpResultGetResultNumber(value)));
}

/* The kind a site counts as: copies to and from a destination in the pin
 * arena, and reads of a group output pinned in place, stay in the
 * scratchpad. */
static SpmCopyKind countedKind(const SpmCopySite *site) {
  if (site->kind == SpmCopyTileLoad && pinnedLoopResult(mlirOperationGetOperand(site->op, 0)))
    return SpmCopyNone;
  if (site->kind == SpmCopyTileStore)
    return inPinArena(mlirOperationGetOperand(site->op, 1)) ? SpmCopyNone : SpmCopyTileStore;
  if (site->kind == SpmCopyDestinationLoad)
    return inPinArena(mlirOperationGetOperand(site->op, 0)) ? SpmCopyNone : SpmCopyTileLoad;
  return site->kind;
}

bool spmCountCopies(const SpmLowering *lowering, SpmCopyTotals *totals) {
  memset(totals, 0, sizeof *totals);
  Run run = {memoptPointerMapCreate(), memoptPointerMapCreate(), countSite, totals, false};
  for (size_t i = 0; i < lowering->copyCount; ++i)
    if (countedKind(&lowering->copies[i]) != SpmCopyNone)
      mapPut(&run.sites, lowering->copies[i].op.ptr, countedKind(&lowering->copies[i]));
  /* Sites in loops count as their nests run, each nest once; others once. */
  for (size_t i = 0; i < lowering->copyCount; ++i) {
    const SpmCopySite *site = &lowering->copies[i];
    if (mlirOperationIsNull(site->nest)) {
      if (countedKind(site) != SpmCopyNone)
        countSite(&run, site->op, countedKind(site));
      continue;
    }
    bool first = true;
    for (size_t j = 0; j < i && first; ++j)
      first = !mlirOperationEqual(lowering->copies[j].nest, site->nest);
    if (first)
      runLoop(&run, site->nest);
  }
  memoptPointerMapDestroy(&run.values);
  memoptPointerMapDestroy(&run.sites);
  return !run.unknown;
}

/* Evaluates the box of `slice` (`rank` offsets, then `rank` sizes) into
 * `box`; false, with the run marked unknown, when some index cannot be
 * evaluated or a stride is not 1. */
static bool unitStrideBox(Run *run, MlirOperation slice, intptr_t rank, int64_t *box) {
  int64_t *strides = memoptAllocateZeroed((size_t)rank, sizeof *strides);
  bool ok = sliceOperands(run, slice, 0, box) && sliceOperands(run, slice, 1, box + rank) &&
            sliceOperands(run, slice, 2, strides);
  for (intptr_t d = 0; ok && d < rank; ++d)
    ok = strides[d] == 1;
  free(strides);
  if (!ok)
    run->unknown = true;
  return ok;
}

/* Runs the loop nest `nest` symbolically, calling `visit` with tag i each
 * time `sites[i]` runs; false when some index could not be evaluated. */
static bool runSites(MlirOperation nest, const MlirOperation *sites, size_t count,
                     void (*visit)(Run *, MlirOperation, int64_t), void *userData) {
  Run run = {memoptPointerMapCreate(), memoptPointerMapCreate(), visit, userData, false};
  for (size_t i = 0; i < count; ++i)
    mapPut(&run.sites, sites[i].ptr, (int64_t)i);
  runLoop(&run, nest);
  memoptPointerMapDestroy(&run.values);
  memoptPointerMapDestroy(&run.sites);
  return !run.unknown;
}

/* Which elements of a slice's source the slices taken so far cover. */
typedef struct Coverage {
  const int64_t *shape;
  intptr_t rank;
  unsigned char *covered; /* one flag per element, row-major */
} Coverage;

/* The visitor of spmSliceCoversSource: flags the elements of the slice. */
static void coverSlice(Run *run, MlirOperation slice, int64_t tag) {
  (void)tag;
  Coverage *coverage = run->userData;
  intptr_t rank = coverage->rank;
  int64_t *box = memoptAllocateZeroed(3 * (size_t)rank, sizeof *box);
  int64_t *offsets = box, *sizes = box + rank, *index = box + 2 * rank;
  bool ok = unitStrideBox(run, slice, rank, box);
  for (intptr_t d = 0; ok && d < rank; ++d) /* inside the source */
    ok = offsets[d] >= 0 && sizes[d] >= 0 && offsets[d] + sizes[d] <= coverage->shape[d];
  bool empty = false;
  for (intptr_t d = 0; ok && d < rank; ++d) {
    empty = empty || sizes[d] == 0;
    index[d] = 0;
  }
  if (!ok)
    run->unknown = true;
  /* Odometer over the box, the last dimension fastest. */
  while (ok && !empty) {
    int64_t linear = 0;
    for (intptr_t d = 0; d < rank; ++d)
      linear = linear * coverage->shape[d] + offsets[d] + index[d];
    coverage->covered[linear] = 1;
    intptr_t d = rank - 1;
    while (d >= 0 && ++index[d] == sizes[d])
      index[d--] = 0;
    if (d < 0)
      break;
  }
  free(box);
}

bool spmSliceCoversSource(MlirOperation nest, MlirOperation slice) {
  MlirType source = mlirValueGetType(mlirOperationGetOperand(slice, 0));
  MlirType result = mlirValueGetType(mlirOperationGetResult(slice, 0));
  if (!mlirShapedTypeHasStaticShape(source) ||
      mlirShapedTypeGetRank(source) != mlirShapedTypeGetRank(result))
    return false;
  intptr_t rank = mlirShapedTypeGetRank(source);
  int64_t *shape = memoptAllocateZeroed((size_t)rank, sizeof *shape);
  size_t elements = 1;
  bool countable = true;
  for (intptr_t d = 0; d < rank; ++d) {
    shape[d] = mlirShapedTypeGetDimSize(source, d);
    countable = countable && !__builtin_mul_overflow(elements, (size_t)shape[d], &elements);
  }
  /* The source's size comes from the input: when a flag per element does not
   * fit in memory, the slice counts as not covering it (the safe answer). */
  Coverage coverage = {shape, rank, countable ? memoptTryAllocateZeroed(elements, 1) : NULL};
  bool covers = coverage.covered != NULL && runSites(nest, &slice, 1, coverSlice, &coverage);
  for (size_t i = 0; covers && i < elements; ++i)
    covers = coverage.covered[i];
  free(coverage.covered);
  free(shape);
  return covers;
}

/* The box the outer slice of spmSliceContains took last, and whether every
 * inner slice so far lay inside it. */
typedef struct Containment {
  intptr_t rank;
  int64_t *outer; /* offsets, then sizes */
  bool seen;      /* the outer slice has run */
  bool contained;
} Containment;

/* The visitor of spmSliceContains: tag 0 records the outer slice's box,
 * tag 1 checks the inner slice's against it. */
static void checkContainment(Run *run, MlirOperation slice, int64_t tag) {
  Containment *containment = run->userData;
  intptr_t rank = containment->rank;
  int64_t *box = memoptAllocateZeroed(2 * (size_t)rank, sizeof *box);
  bool known = unitStrideBox(run, slice, rank, box);
  if (known && tag == 0) {
    memcpy(containment->outer, box, sizeof *box * (size_t)(2 * rank));
    containment->seen = true;
  } else if (known) {
    bool inside = containment->seen;
    for (intptr_t d = 0; inside && d < rank; ++d)
      inside = box[d] >= containment->outer[d] &&
               box[d] + box[rank + d] <= containment->outer[d] + containment->outer[rank + d];
    containment->contained = containment->contained && inside;
  }
  free(box);
}

bool spmSliceContains(MlirOperation nest, MlirOperation outer, MlirOperation inner) {
  intptr_t rank = mlirShapedTypeGetRank(mlirValueGetType(mlirOperationGetOperand(outer, 0)));
  if (rank != mlirShapedTypeGetRank(mlirValueGetType(mlirOperationGetResult(outer, 0))) ||
      rank != mlirShapedTypeGetRank(mlirValueGetType(mlirOperationGetResult(inner, 0))))
    return false;
  Containment containment = {rank, memoptAllocateZeroed(2 * (size_t)rank, sizeof(int64_t)), false,
                             true};
  MlirOperation sites[] = {outer, inner};
  bool contained =
      runSites(nest, sites, 2, checkContainment, &containment) && containment.contained;
  free(containment.outer);
  return contained;
}

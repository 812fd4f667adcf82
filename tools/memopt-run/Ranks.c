/* Running a program that holds shard ops on MPI ranks: what the entry's
 * arguments and results look like on each rank, read from the shardings
 * upstream's sharding-propagation leaves on them; the single-device
 * reference (the same program without its annotations); and the comparison
 * of each rank's slice of a result with the same slice of the reference
 * (python-free-docs/harness.md, "Running on MPI ranks"). */
#include "Harness.h"

#include "IR/IR.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static MlirAttribute attribute(MlirOperation op, const char *name) {
  return mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name));
}

/* The number of elements of `op`'s dense array attribute `name`; 0 when absent. */
static intptr_t arrayLength(MlirOperation op, const char *name) {
  MlirAttribute array = attribute(op, name);
  return mlirAttributeIsNull(array) ? 0 : mlirDenseArrayGetNumElements(array);
}

/* The shard.sharding op defining the sharding operand of a shard.shard op,
 * or null when it is not one (a block argument, say). */
static MlirOperation shardingOf(MlirOperation shard) {
  MlirValue sharding = mlirOperationGetOperand(shard, 1);
  if (!mlirValueIsAOpResult(sharding))
    return (MlirOperation){NULL};
  MlirOperation op = mlirOpResultGetOwner(sharding);
  return memoptOperationIsA(op, "shard.sharding") ? op : (MlirOperation){NULL};
}

/* Parses the printed split axes "#shard<axisarray[[0], [], [1, 2]]>" into
 * `rank` rows of `gridRank` axes each (-1 pads a row); false on anything else. */
static bool parseSplitAxes(const char *text, intptr_t rank, intptr_t gridRank, int64_t *axes) {
  for (intptr_t i = 0; i < rank * gridRank; ++i)
    axes[i] = -1;
  const char *p = strstr(text, "[[");
  if (!p)
    return strstr(text, "[]") != NULL; /* no split at all */
  ++p;
  for (intptr_t d = 0; *p == '['; ++d) {
    ++p;
    for (intptr_t k = 0; *p != ']'; ++k) {
      char *end;
      long long axis = strtoll(p, &end, 10);
      if (end == p || d >= rank || k >= gridRank || axis < 0 || axis >= gridRank)
        return false;
      axes[d * gridRank + k] = axis;
      p = end;
      while (*p == ',' || *p == ' ')
        ++p;
    }
    ++p;
    while (*p == ',' || *p == ' ')
      ++p;
  }
  return *p == ']';
}

/* Devices dimension `d` of `value` is split over (1 when it is not split). */
static int64_t splitCount(const HarnessShardPlan *plan, const HarnessShardedValue *value, intptr_t d) {
  int64_t count = 1;
  for (intptr_t k = 0; k < plan->gridRank; ++k) {
    int64_t axis = value->splitAxes[d * plan->gridRank + k];
    if (axis >= 0)
      count *= plan->gridShape[axis];
  }
  return count;
}

/* Reads the sharding `shard` (a shard.shard op, or null for a replicated
 * value) gives `value` of type `type`. Emits the reason at the op and
 * returns false when memopt-run cannot place the value's slices. */
static bool readSharding(HarnessShardPlan *plan, MlirOperation shard, const HarnessValueType *type,
                         const char *what, HarnessShardedValue *value, MemoptStringBuffer *error) {
  value->rank = type->isTensor ? type->rank : 0;
  size_t rows = value->rank > 0 ? (size_t)value->rank : 1;
  value->globalShape = memoptAllocateZeroed(rows, sizeof *value->globalShape);
  value->localShape = memoptAllocateZeroed(rows, sizeof *value->localShape);
  value->splitAxes = memoptAllocateZeroed(rows * (size_t)plan->gridRank, sizeof *value->splitAxes);
  for (size_t i = 0; i < rows * (size_t)plan->gridRank; ++i)
    value->splitAxes[i] = -1;
  for (intptr_t d = 0; d < value->rank; ++d)
    value->globalShape[d] = value->localShape[d] = type->shape[d];
  if (mlirOperationIsNull(shard))
    return true;
  MlirOperation sharding = shardingOf(shard);
  if (mlirOperationIsNull(sharding) || mlirOperationGetNumOperands(sharding) != 0 ||
      arrayLength(sharding, "static_halo_sizes") != 0 ||
      arrayLength(sharding, "static_sharded_dims_offsets") != 0) {
    memoptEmitOpError(shard, "%s: --ranks needs a static sharding without halos or uneven offsets",
                      what);
    memoptStringBufferAppendFormat(error, "%s has a sharding memopt-run cannot slice", what);
    return false;
  }
  MlirStringRef grid = mlirFlatSymbolRefAttrGetValue(attribute(sharding, "grid"));
  if (!mlirStringRefEqual(grid, mlirStringRefCreateFromCString(plan->gridName))) {
    memoptEmitOpError(shard, "%s is sharded over grid @%.*s, other values of the entry over @%s",
                      what, (int)grid.length, grid.data, plan->gridName);
    memoptStringBufferAppendFormat(error, "the entry uses more than one grid");
    return false;
  }
  MemoptStringBuffer text = memoptStringBufferCreate();
  mlirAttributePrint(attribute(sharding, "split_axes"), memoptAppendToBuffer, &text);
  bool ok = parseSplitAxes(memoptStringBufferGet(&text), value->rank, plan->gridRank, value->splitAxes);
  if (!ok) {
    memoptEmitOpError(shard, "%s: cannot read the split axes %s", what, memoptStringBufferGet(&text));
    memoptStringBufferAppendFormat(error, "%s has split axes memopt-run cannot read", what);
  }
  memoptStringBufferDestroy(&text);
  for (intptr_t d = 0; ok && d < value->rank; ++d) {
    int64_t devices = splitCount(plan, value, d);
    if (type->shape[d] == mlirShapedTypeGetDynamicSize()) {
      memoptEmitOpError(shard, "%s: dimension %zd is dynamic; --ranks needs static shapes", what, d);
      memoptStringBufferAppendFormat(error, "%s has a dynamic dimension", what);
      ok = false;
    } else if (type->shape[d] % devices != 0) {
      memoptEmitOpError(shard,
                        "%s: dimension %zd of extent %lld does not split evenly over the %lld "
                        "devices of grid @%s it is split over",
                        what, d, (long long)type->shape[d], (long long)devices, plan->gridName);
      memoptStringBufferAppendFormat(error,
                                     "%s: dimension %zd of extent %lld is not divisible by %lld",
                                     what, d, (long long)type->shape[d], (long long)devices);
      ok = false;
    } else
      value->localShape[d] = type->shape[d] / devices;
  }
  return ok;
}

typedef struct GridSearch {
  MlirOperation firstUse; /* the first shard op of the entry naming a grid */
  MlirStringRef grid;
  MlirOperation otherUse; /* the first naming another grid */
} GridSearch;

static MlirWalkResult findGrid(MlirOperation op, void *userData) {
  GridSearch *search = userData;
  if (!memoptOperationIsInDialect(op, "shard"))
    return MlirWalkResultAdvance;
  MlirAttribute grid = attribute(op, "grid");
  if (mlirAttributeIsNull(grid) || !mlirAttributeIsAFlatSymbolRef(grid))
    return MlirWalkResultAdvance;
  MlirStringRef name = mlirFlatSymbolRefAttrGetValue(grid);
  if (mlirOperationIsNull(search->firstUse)) {
    search->firstUse = op;
    search->grid = name;
  } else if (!mlirStringRefEqual(name, search->grid)) {
    search->otherUse = op;
    return MlirWalkResultInterrupt;
  }
  return MlirWalkResultAdvance;
}

/* The shard.shard op annotating argument `value` for its users, or null;
 * false (with the error at the second) when two annotations disagree. */
static bool argumentAnnotation(MlirValue value, MlirOperation *found, MemoptStringBuffer *error) {
  *found = (MlirOperation){NULL};
  for (MlirOpOperand use = mlirValueGetFirstUse(value); !mlirOpOperandIsNull(use);
       use = mlirOpOperandGetNextUse(use)) {
    MlirOperation user = mlirOpOperandGetOwner(use);
    if (!memoptOperationIsA(user, "shard.shard") || mlirOpOperandGetOperandNumber(use) != 0)
      continue;
    if (mlirOperationIsNull(*found)) {
      *found = user;
      continue;
    }
    MlirOperation a = shardingOf(*found), b = shardingOf(user);
    if (mlirOperationIsNull(a) || mlirOperationIsNull(b) ||
        !mlirAttributeEqual(attribute(a, "split_axes"), attribute(b, "split_axes"))) {
      memoptEmitOpError(user, "this argument is annotated with two different shardings");
      memoptStringBufferAppendCString(error, "an argument of the entry has two shardings");
      return false;
    }
  }
  return true;
}

bool harnessShardPlanRead(MlirModule module, const HarnessEntry *entry, long long ranks,
                          HarnessShardPlan *plan, MemoptStringBuffer *error) {
  memset(plan, 0, sizeof *plan);
  GridSearch search = {{NULL}, {NULL, 0}, {NULL}};
  mlirOperationWalk(entry->function, findGrid, &search, MlirWalkPreOrder);
  if (mlirOperationIsNull(search.firstUse)) {
    memoptEmitOpError(entry->function, "@%s holds no shard op: nothing says how to split it", entry->name);
    memoptStringBufferAppendFormat(error, "--ranks=%lld needs an entry with shard ops", ranks);
    return false;
  }
  if (!mlirOperationIsNull(search.otherUse)) {
    memoptEmitOpError(search.otherUse, "uses grid @%.*s, but @%s also uses @%.*s",
                      (int)mlirFlatSymbolRefAttrGetValue(attribute(search.otherUse, "grid")).length,
                      mlirFlatSymbolRefAttrGetValue(attribute(search.otherUse, "grid")).data,
                      entry->name, (int)search.grid.length, search.grid.data);
    memoptStringBufferAppendFormat(error, "--ranks runs an entry on one grid; @%s uses two", entry->name);
    return false;
  }
  MlirAttribute predicted = attribute(entry->function, "place.memory_bytes_per_device");
  if (mlirAttributeIsNull(predicted))
    plan->predictedBytes = -1;
  else if (mlirAttributeIsAInteger(predicted) && mlirIntegerAttrGetValueSInt(predicted) >= 0)
    plan->predictedBytes = mlirIntegerAttrGetValueSInt(predicted);
  else {
    memoptEmitOpError(entry->function,
                      "place.memory_bytes_per_device must be a non-negative integer (bytes)");
    memoptStringBufferAppendFormat(error, "@%s has a place.memory_bytes_per_device that is not a "
                                          "byte count", entry->name);
    return false;
  }
  plan->gridName = memoptStrndup(search.grid.data, search.grid.length);
  MlirSymbolTable symbols = mlirSymbolTableCreate(mlirModuleGetOperation(module));
  MlirOperation grid = mlirSymbolTableLookup(symbols, search.grid);
  mlirSymbolTableDestroy(symbols);
  if (mlirOperationIsNull(grid) || !memoptOperationIsA(grid, "shard.grid")) {
    memoptEmitOpError(search.firstUse, "grid @%s is not a shard.grid of the module", plan->gridName);
    memoptStringBufferAppendFormat(error, "grid @%s not found", plan->gridName);
    return false;
  }
  MlirAttribute shape = attribute(grid, "shape");
  plan->gridRank = mlirDenseArrayGetNumElements(shape);
  plan->gridShape = memoptAllocateZeroed(plan->gridRank > 0 ? (size_t)plan->gridRank : 1,
                                         sizeof *plan->gridShape);
  plan->devices = 1;
  for (intptr_t a = 0; a < plan->gridRank; ++a) {
    plan->gridShape[a] = mlirDenseI64ArrayGetElement(shape, a);
    if (plan->gridShape[a] < 1) {
      memoptEmitOpError(grid, "axis %zd of grid @%s is dynamic; --ranks needs a static grid", a,
                        plan->gridName);
      memoptStringBufferAppendFormat(error, "grid @%s has a dynamic axis", plan->gridName);
      return false;
    }
    if (__builtin_mul_overflow(plan->devices, plan->gridShape[a], &plan->devices)) {
      memoptEmitOpError(grid, "grid @%s has more devices than a 64-bit count holds", plan->gridName);
      memoptStringBufferAppendFormat(error, "grid @%s is too large", plan->gridName);
      return false;
    }
  }
  if (plan->devices != ranks) {
    memoptEmitOpError(grid, "grid @%s has %lld devices, but --ranks=%lld starts %lld processes; "
                            "give every device one rank",
                      plan->gridName, (long long)plan->devices, ranks, ranks);
    memoptStringBufferAppendFormat(error, "grid @%s has %lld devices, %s than --ranks=%lld",
                                   plan->gridName, (long long)plan->devices,
                                   plan->devices > ranks ? "more" : "fewer", ranks);
    return false;
  }

  plan->argumentCount = entry->argumentCount;
  plan->arguments = memoptAllocateZeroed(entry->argumentCount + 1, sizeof *plan->arguments);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(entry->function, 0));
  MemoptStringBuffer what = memoptStringBufferCreate();
  bool ok = true;
  for (size_t i = 0; ok && i < entry->argumentCount; ++i) {
    MlirOperation shard;
    memoptStringBufferClear(&what);
    memoptStringBufferAppendFormat(&what, "argument %zu of @%s", i, entry->name);
    ok = argumentAnnotation(mlirBlockGetArgument(body, (intptr_t)i), &shard, error) &&
         readSharding(plan, shard, &entry->arguments[i], what.data, &plan->arguments[i], error);
  }
  plan->resultCount = entry->resultCount;
  plan->results = memoptAllocateZeroed(entry->resultCount + 1, sizeof *plan->results);
  MlirOperation terminator = mlirBlockGetTerminator(body);
  for (size_t i = 0; ok && i < entry->resultCount; ++i) {
    MlirValue returned = mlirOperationGetOperand(terminator, (intptr_t)i);
    MlirOperation shard = {NULL};
    if (mlirValueIsAOpResult(returned) &&
        memoptOperationIsA(mlirOpResultGetOwner(returned), "shard.shard"))
      shard = mlirOpResultGetOwner(returned);
    memoptStringBufferClear(&what);
    memoptStringBufferAppendFormat(&what, "result %zu of @%s", i, entry->name);
    ok = readSharding(plan, shard, &entry->results[i], what.data, &plan->results[i], error);
  }
  memoptStringBufferDestroy(&what);
  return ok;
}

/* Checks that partitioning gave `values` the local shapes the plan expects. */
static bool checkLocal(const HarnessShardedValue *values, const HarnessValueType *types, size_t count,
                       const char *kind, const char *entryName, MemoptStringBuffer *error) {
  for (size_t i = 0; i < count; ++i)
    for (intptr_t d = 0; d < values[i].rank; ++d)
      if (types[i].shape[d] != values[i].localShape[d]) {
        memoptStringBufferAppendFormat(error,
                                       "shard-partition gave %s %zu of @%s type %s; its sharding "
                                       "makes dimension %zd %lld long on each rank",
                                       kind, i, entryName, types[i].spelling, d,
                                       (long long)values[i].localShape[d]);
        return false;
      }
  return true;
}

bool harnessShardPlanSplitsDimension(const HarnessShardPlan *plan, const HarnessShardedValue *value,
                                     intptr_t d) {
  /* A row lists its grid axes first, -1 padded. */
  return plan->gridRank > 0 && value->splitAxes[d * plan->gridRank] >= 0;
}

bool harnessShardPlanSplitsArgument(const HarnessShardPlan *plan, size_t argument) {
  if (!plan->gridName || argument >= plan->argumentCount)
    return false;
  for (intptr_t d = 0; d < plan->arguments[argument].rank; ++d)
    if (harnessShardPlanSplitsDimension(plan, &plan->arguments[argument], d))
      return true;
  return false;
}

/* True when row `d` of `a`'s split axes equals row `e` of `b`'s. */
static bool sameSplit(const HarnessShardPlan *plan, const HarnessShardedValue *a, intptr_t d,
                      const HarnessShardedValue *b, intptr_t e) {
  for (intptr_t k = 0; k < plan->gridRank; ++k)
    if (a->splitAxes[d * plan->gridRank + k] != b->splitAxes[e * plan->gridRank + k])
      return false;
  return true;
}

int64_t *harnessShardPlanViewSlice(const HarnessShardPlan *plan, const HarnessEntry *entry,
                                   size_t argument) {
  const HarnessArgumentView *view = &entry->views[argument];
  if (view->source < 0 || view->stepCount != 1 || argument >= plan->argumentCount ||
      (size_t)view->source >= plan->argumentCount)
    return NULL;
  MlirAttribute properties = view->steps[0].properties;
  MlirAttribute offsets = mlirDictionaryAttrGetElementByName(
      properties, mlirStringRefCreateFromCString("static_offsets"));
  MlirAttribute sizes = mlirDictionaryAttrGetElementByName(
      properties, mlirStringRefCreateFromCString("static_sizes"));
  MlirAttribute strides = mlirDictionaryAttrGetElementByName(
      properties, mlirStringRefCreateFromCString("static_strides"));
  const HarnessShardedValue *source = &plan->arguments[view->source];
  const HarnessShardedValue *result = &plan->arguments[argument];
  if (mlirAttributeIsNull(offsets) || mlirAttributeIsNull(sizes) || mlirAttributeIsNull(strides) ||
      !mlirAttributeIsADenseI64Array(offsets) || !mlirAttributeIsADenseI64Array(sizes) ||
      !mlirAttributeIsADenseI64Array(strides) ||
      mlirDenseArrayGetNumElements(offsets) != source->rank ||
      mlirDenseArrayGetNumElements(sizes) != source->rank ||
      mlirDenseArrayGetNumElements(strides) != source->rank)
    return NULL;
  int64_t *local = memoptAllocateZeroed((size_t)source->rank + 1, sizeof *local);
  bool ok = true;
  intptr_t kept = 0; /* the view's dimensions matched so far, as extract_slice drops unit sizes */
  for (intptr_t e = 0; e < source->rank && ok; ++e) {
    int64_t size = mlirDenseI64ArrayGetElement(sizes, e);
    bool keeps = kept < result->rank && result->globalShape[kept] == size;
    bool split = harnessShardPlanSplitsDimension(plan, source, e);
    ok = mlirDenseI64ArrayGetElement(strides, e) == 1 && (keeps || size == 1);
    if (ok && split)
      ok = keeps && mlirDenseI64ArrayGetElement(offsets, e) == 0 &&
           size == source->globalShape[e] && sameSplit(plan, source, e, result, kept);
    else if (ok && keeps)
      ok = !harnessShardPlanSplitsDimension(plan, result, kept);
    local[e] = split ? source->localShape[e] : size;
    kept += keeps;
  }
  if (ok && kept == result->rank)
    return local;
  free(local);
  return NULL;
}

bool harnessShardPlanCheckPartitioned(const HarnessShardPlan *plan, const HarnessEntry *entry,
                                      MemoptStringBuffer *error) {
  if (entry->argumentCount != plan->argumentCount || entry->resultCount != plan->resultCount) {
    memoptStringBufferAppendFormat(error, "shard-partition changed the number of values of @%s",
                                   entry->name);
    return false;
  }
  return checkLocal(plan->arguments, entry->arguments, entry->argumentCount, "argument", entry->name,
                    error) &&
         checkLocal(plan->results, entry->results, entry->resultCount, "result", entry->name, error);
}

void harnessShardPlanDestroy(HarnessShardPlan *plan) {
  HarnessShardedValue *lists[] = {plan->arguments, plan->results};
  size_t counts[] = {plan->argumentCount, plan->resultCount};
  for (size_t l = 0; l < 2; ++l) {
    for (size_t i = 0; lists[l] && i < counts[l]; ++i) {
      free(lists[l][i].globalShape);
      free(lists[l][i].localShape);
      free(lists[l][i].splitAxes);
    }
    free(lists[l]);
  }
  for (int64_t r = 0; plan->stageNames && r < plan->pipelineStages; ++r)
    free(plan->stageNames[r]);
  free(plan->stageNames);
  free(plan->stagePredictedBytes);
  free(plan->stageInputBytes);
  free(plan->gridName);
  free(plan->gridShape);
  memset(plan, 0, sizeof *plan);
}

void harnessShardOffsets(const HarnessShardPlan *plan, const HarnessShardedValue *value,
                         int64_t rank, int64_t *offsets) {
  /* Ranks are the grid's devices in row-major order, as convert-shard-to-mpi
   * delinearizes them; a dimension split over axes (a, b) takes its slice
   * number row-major over those axes. */
  int64_t *coordinates = memoptAllocateZeroed((size_t)plan->gridRank + 1, sizeof *coordinates);
  int64_t rest = rank;
  for (intptr_t a = plan->gridRank - 1; a >= 0; --a) {
    coordinates[a] = rest % plan->gridShape[a];
    rest /= plan->gridShape[a];
  }
  for (intptr_t d = 0; d < value->rank; ++d) {
    int64_t slice = 0;
    for (intptr_t k = 0; k < plan->gridRank; ++k) {
      int64_t axis = value->splitAxes[d * plan->gridRank + k];
      if (axis >= 0)
        slice = slice * plan->gridShape[axis] + coordinates[axis];
    }
    offsets[d] = slice * value->localShape[d];
  }
  free(coordinates);
}

/*===------------------------------------------------------------------===*
 * The single-device reference
 *===------------------------------------------------------------------===*/

typedef struct Annotations {
  MlirOperation *ops;
  size_t count, capacity;
  MlirOperation unsupported; /* a shard op that is not an annotation */
} Annotations;

static MlirWalkResult collectAnnotations(MlirOperation op, void *userData) {
  Annotations *found = userData;
  if (!memoptOperationIsInDialect(op, "shard"))
    return MlirWalkResultAdvance;
  if (!memoptOperationIsA(op, "shard.shard") && !memoptOperationIsA(op, "shard.sharding") &&
      !memoptOperationIsA(op, "shard.grid")) {
    found->unsupported = op;
    return MlirWalkResultInterrupt;
  }
  found->ops = memoptGrowArray(found->ops, &found->capacity, found->count + 1, sizeof *found->ops);
  found->ops[found->count++] = op;
  return MlirWalkResultAdvance;
}

bool harnessShardAnnotationsStrip(MlirModule module, MemoptStringBuffer *error) {
  Annotations found = {NULL, 0, 0, {NULL}};
  mlirOperationWalk(mlirModuleGetOperation(module), collectAnnotations, &found, MlirWalkPreOrder);
  if (!mlirOperationIsNull(found.unsupported)) {
    MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(found.unsupported));
    memoptEmitOpError(found.unsupported,
                      "the single-device reference keeps only annotations (shard.shard, "
                      "shard.sharding); this op already communicates");
    memoptStringBufferAppendFormat(error, "--ranks compares with the program without its shard "
                                          "annotations, and '%.*s' is more than one",
                                   (int)name.length, name.data);
    free(found.ops);
    return false;
  }
  /* Pre-order: a shard.shard comes after the shard.sharding it uses, so
   * walking backwards removes every user before what it uses. */
  for (size_t i = found.count; i-- > 0;) {
    MlirOperation op = found.ops[i];
    if (memoptOperationIsA(op, "shard.shard"))
      mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), mlirOperationGetOperand(op, 0));
    mlirOperationDestroy(op);
  }
  free(found.ops);
  return true;
}

/*===------------------------------------------------------------------===*
 * Comparing slices
 *===------------------------------------------------------------------===*/

bool harnessValuesParse(const char *text, int64_t count, double *values) {
  const char *p = text;
  for (int64_t i = 0; i < count; ++i) {
    while (*p && strchr("[], \n\t", *p))
      ++p;
    char *end;
    values[i] = strtod(p, &end);
    if (end == p)
      return false;
    p = end;
  }
  while (*p && strchr("[], \n\t", *p))
    ++p;
  return *p == '\0';
}

double harnessSliceMaxRelativeError(const double *reference, const int64_t *globalShape,
                                    const double *slice, const int64_t *localShape,
                                    const int64_t *offsets, intptr_t rank, int64_t *worstIndex,
                                    double *scaleOut) {
  int64_t globalCount = 1, localCount = 1;
  for (intptr_t d = 0; d < rank; ++d) {
    globalCount *= globalShape[d];
    localCount *= localShape[d];
  }
  double scale = 0;
  for (int64_t g = 0; g < globalCount; ++g)
    scale = fmax(scale, fabs(reference[g]));
  double worst = 0;
  *worstIndex = 0;
  for (int64_t l = 0; l < localCount; ++l) {
    /* The element's global row-major index from its local one. */
    int64_t rest = l, global = 0, stride = 1;
    for (intptr_t d = rank - 1; d >= 0; --d) {
      int64_t index = rest % localShape[d];
      rest /= localShape[d];
      global += (offsets[d] + index) * stride;
      stride *= globalShape[d];
    }
    double a = slice[l], b = reference[global];
    double error;
    if (isnan(a) || isnan(b) || isinf(a) || isinf(b))
      error = (a == b || (isnan(a) && isnan(b))) ? 0 : INFINITY;
    else
      error = a == b ? 0 : fabs(a - b) / (scale > 0 ? scale : 1);
    if (error > worst || isnan(error)) {
      worst = error;
      *worstIndex = l;
    }
  }
  *scaleOut = scale > 0 ? scale : 1;
  return worst;
}

/* The wrapper memopt-run adds to a model: a public function, at tensor level,
 * that builds the entry's inputs, brackets each call of the entry with
 * memopt_rt's run markers and checksums the results of the last call. An
 * argument place-to-shard marks as a view of another (`memopt.view`) is
 * made as that view of the other's input, as a caller passes it: the two
 * share one buffer.
 *
 * It is written as MLIR text, with every type printed by MLIR itself, parsed
 * in the model's context and moved into the model's module. Text keeps the
 * generator readable and the output identical to what a person would write
 * (it is kept with --keep); parsing checks it like any other input. Because
 * it is tensor code, the wrapper goes through the same bufferization and
 * lowering as the model: inputs are heap buffers counted by memopt_rt, live
 * before the first run begins, hence excluded from every run's peak. */
#include "Harness.h"

#include "IR/IR.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/Func.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The input formulas (python-free-docs/harness.md states them for users):
 *   float element l of argument a: 0.5 * sin(0.7 * l + 0.37 * a + 1.3 * seed + 0.1)
 *   integer element l of argument a: (7 * l + 3 * a + 5 * seed) mod 16 (mod 2 for i1)
 * Bounded, deterministic, different across arguments and seeds, and the
 * integers stay valid as small indices such as token ids.
 * Float constants print as %.17e: 17 digits round-trip a double, and MLIR's
 * float literals need the '.' that this format always has. */
static const double FloatAmplitude = 0.5;
static const double FloatFrequency = 0.7;
static const long long IntegerModulus = 16;

static double floatPhase(long long seed, size_t argument) {
  return 0.37 * (double)argument + 1.3 * (double)seed + 0.1;
}

double harnessFloatInputValue(long long seed, size_t argument, int64_t linearIndex) {
  return FloatAmplitude * sin(FloatFrequency * (double)linearIndex + floatPhase(seed, argument));
}

static long long integerModulus(HarnessElement element) {
  return element == HarnessI1 ? 2 : IntegerModulus;
}

/* (3 * a + 5 * seed) mod m, computed without overflow. */
static long long integerOffset(long long seed, size_t argument, long long modulus) {
  return (3 * ((long long)argument % modulus) + 5 * (seed % modulus)) % modulus;
}

long long harnessIntegerInputValue(long long seed, size_t argument, int64_t linearIndex,
                                   long long modulus) {
  return (7 * (linearIndex % modulus) + integerOffset(seed, argument, modulus)) % modulus;
}

/* The element type memopt_rt receives: index travels as i64. */
static HarnessElement runtimeElement(HarnessElement element) {
  return element == HarnessIndex ? HarnessI64 : element;
}

/* The suffix of memopt_rt's typed entry points ("F32", "BF16", "I1"). */
static const char *runtimeSuffix(HarnessElement element) {
  static const char *const suffixes[] = {
      [HarnessF64] = "F64", [HarnessF32] = "F32", [HarnessF16] = "F16", [HarnessBF16] = "BF16",
      [HarnessI64] = "I64", [HarnessI32] = "I32", [HarnessI16] = "I16", [HarnessI8] = "I8",
      [HarnessI1] = "I1",   [HarnessIndex] = "I64",
  };
  return suffixes[element];
}

/* Appends `@name`, quoted when it is not a bare identifier. */
static void appendSymbol(MemoptStringBuffer *out, const char *name) {
  bool bare = (name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z') ||
              name[0] == '_';
  for (const char *p = name; *p && bare; ++p)
    bare = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
           *p == '_' || *p == '$' || *p == '.';
  if (bare) {
    memoptStringBufferAppendFormat(out, "@%s", name);
    return;
  }
  memoptStringBufferAppendCString(out, "@\"");
  for (const char *p = name; *p; ++p) {
    if (*p == '"' || *p == '\\')
      memoptStringBufferAppend(out, "\\", 1);
    memoptStringBufferAppend(out, p, 1);
  }
  memoptStringBufferAppendCString(out, "\"");
}

/* Appends "(T0, T1)" from the spellings. */
static void appendTypeList(MemoptStringBuffer *out, const HarnessValueType *values, size_t count) {
  memoptStringBufferAppendCString(out, "(");
  for (size_t i = 0; i < count; ++i)
    memoptStringBufferAppendFormat(out, "%s%s", i ? ", " : "", values[i].spelling);
  memoptStringBufferAppendCString(out, ")");
}

static void appendFunctionType(MemoptStringBuffer *out, const HarnessEntry *entry) {
  appendTypeList(out, entry->arguments, entry->argumentCount);
  memoptStringBufferAppendCString(out, " -> ");
  appendTypeList(out, entry->results, entry->resultCount);
}

/* The linalg.generic body computing the input value from the linear index `linear`. */
static void appendElementValue(MemoptStringBuffer *out, const HarnessValueType *value,
                               long long seed, size_t argument, const char *linear,
                               const char *indent) {
  const char *e = value->elementSpelling;
  memoptStringBufferAppendFormat(out, "%s%%l64 = arith.index_cast %s : index to i64\n", indent,
                                 linear);
  if (harnessElementIsFloat(value->element)) {
    memoptStringBufferAppendFormat(
        out,
        "%s%%lf = arith.uitofp %%l64 : i64 to f64\n"
        "%s%%frequency = arith.constant %.17e : f64\n"
        "%s%%phase = arith.constant %.17e : f64\n"
        "%s%%amplitude = arith.constant %.17e : f64\n"
        "%s%%angle0 = arith.mulf %%lf, %%frequency : f64\n"
        "%s%%angle = arith.addf %%angle0, %%phase : f64\n"
        "%s%%sine = math.sin %%angle : f64\n"
        "%s%%v64 = arith.mulf %%sine, %%amplitude : f64\n",
        indent, indent, FloatFrequency, indent, floatPhase(seed, argument), indent, FloatAmplitude,
        indent, indent, indent, indent);
    if (value->element == HarnessF64)
      memoptStringBufferAppendFormat(out, "%slinalg.yield %%v64 : f64\n", indent);
    else
      memoptStringBufferAppendFormat(out,
                                     "%s%%v = arith.truncf %%v64 : f64 to %s\n"
                                     "%slinalg.yield %%v : %s\n",
                                     indent, e, indent, e);
    return;
  }
  long long modulus = integerModulus(value->element);
  memoptStringBufferAppendFormat(out,
                                 "%s%%seven = arith.constant 7 : i64\n"
                                 "%s%%offset = arith.constant %lld : i64\n"
                                 "%s%%modulus = arith.constant %lld : i64\n"
                                 "%s%%scaled = arith.muli %%l64, %%seven : i64\n"
                                 "%s%%shifted = arith.addi %%scaled, %%offset : i64\n"
                                 "%s%%v64 = arith.remui %%shifted, %%modulus : i64\n",
                                 indent, indent, integerOffset(seed, argument, modulus), indent,
                                 modulus, indent, indent, indent);
  if (value->element == HarnessI64)
    memoptStringBufferAppendFormat(out, "%slinalg.yield %%v64 : i64\n", indent);
  else if (value->element == HarnessIndex)
    memoptStringBufferAppendFormat(out,
                                   "%s%%v = arith.index_cast %%v64 : i64 to index\n"
                                   "%slinalg.yield %%v : index\n",
                                   indent, indent);
  else
    memoptStringBufferAppendFormat(out,
                                   "%s%%v = arith.trunci %%v64 : i64 to %s\n"
                                   "%slinalg.yield %%v : %s\n",
                                   indent, e, indent, e);
}

/* Appends the name of the rank's coordinate along grid axis `axis`. */
static void appendCoordinate(MemoptStringBuffer *out, const HarnessShardPlan *plan, int64_t axis) {
  if (plan->gridRank == 1)
    memoptStringBufferAppendCString(out, "%coord");
  else
    memoptStringBufferAppendFormat(out, "%%coord#%lld", (long long)axis);
}

/* Defines %argA_offD, where this rank's slice of argument A starts along
 * each split dimension D: the slice number, row-major over the grid axes D
 * is split over, times the slice's extent (harnessShardOffsets computes the
 * same on the host). */
static void appendSliceOffsets(MemoptStringBuffer *out, const HarnessShardPlan *plan,
                               size_t argument) {
  const HarnessShardedValue *value = &plan->arguments[argument];
  for (intptr_t d = 0; d < value->rank; ++d) {
    MemoptStringBuffer slice = memoptStringBufferCreate();
    for (intptr_t k = 0; k < plan->gridRank; ++k) {
      int64_t axis = value->splitAxes[d * plan->gridRank + k];
      if (axis < 0)
        continue;
      if (k == 0) {
        appendCoordinate(&slice, plan, axis);
        continue;
      }
      memoptStringBufferAppendFormat(out,
                                     "    %%arg%zu_n%zd_%zd = arith.constant %lld : index\n"
                                     "    %%arg%zu_m%zd_%zd = arith.muli %s, %%arg%zu_n%zd_%zd : index\n"
                                     "    %%arg%zu_s%zd_%zd = arith.addi %%arg%zu_m%zd_%zd, ",
                                     argument, d, k, (long long)plan->gridShape[axis], argument, d,
                                     k, slice.data, argument, d, k, argument, d, k, argument, d, k);
      appendCoordinate(out, plan, axis);
      memoptStringBufferAppendCString(out, " : index\n");
      memoptStringBufferClear(&slice);
      memoptStringBufferAppendFormat(&slice, "%%arg%zu_s%zd_%zd", argument, d, k);
    }
    if (slice.length)
      memoptStringBufferAppendFormat(out,
                                     "    %%arg%zu_extent%zd = arith.constant %lld : index\n"
                                     "    %%arg%zu_off%zd = arith.muli %s, %%arg%zu_extent%zd : index\n",
                                     argument, d, (long long)value->localShape[d], argument, d,
                                     slice.data, argument, d);
    memoptStringBufferDestroy(&slice);
  }
}

/* Defines %argN: a tensor filled element by element, or a scalar constant.
 * On ranks, element i of the slice takes the value of element offset + i
 * of the global tensor. */
static void appendInput(MemoptStringBuffer *out, const HarnessValueType *value, size_t argument,
                        const HarnessWrapperSpec *spec) {
  const char *e = value->elementSpelling;
  if (!value->isTensor) {
    if (harnessElementIsFloat(value->element)) {
      double v = harnessFloatInputValue(spec->seed, argument, 0);
      if (value->element == HarnessF64)
        memoptStringBufferAppendFormat(out, "    %%arg%zu = arith.constant %.17e : f64\n", argument, v);
      else {
        /* Rounded by arith.truncf, like the tensor elements. */
        memoptStringBufferAppendFormat(out, "    %%arg%zu_64 = arith.constant %.17e : f64\n", argument, v);
        memoptStringBufferAppendFormat(out, "    %%arg%zu = arith.truncf %%arg%zu_64 : f64 to %s\n",
                                       argument, argument, e);
      }
    } else {
      long long v = harnessIntegerInputValue(spec->seed, argument, 0, integerModulus(value->element));
      if (value->element == HarnessI1)
        memoptStringBufferAppendFormat(out, "    %%arg%zu = arith.constant %s\n", argument,
                                       v ? "true" : "false");
      else
        memoptStringBufferAppendFormat(out, "    %%arg%zu = arith.constant %lld : %s\n", argument, v, e);
    }
    return;
  }
  /* Dynamic extents are --dim (checked to be given). */
  bool dynamic = false;
  for (intptr_t d = 0; d < value->rank; ++d)
    dynamic = dynamic || value->shape[d] == mlirShapedTypeGetDynamicSize();
  if (dynamic)
    memoptStringBufferAppendFormat(out, "    %%arg%zu_dim = arith.constant %lld : index\n", argument,
                                   spec->dim);
  memoptStringBufferAppendFormat(out, "    %%arg%zu_empty = tensor.empty(", argument);
  size_t dynamicCount = 0;
  for (intptr_t d = 0; d < value->rank; ++d)
    if (value->shape[d] == mlirShapedTypeGetDynamicSize())
      memoptStringBufferAppendFormat(out, "%s%%arg%zu_dim", dynamicCount++ ? ", " : "", argument);
  memoptStringBufferAppendFormat(out, ") : %s\n", value->spelling);

  MemoptStringBuffer dims = memoptStringBufferCreate();
  MemoptStringBuffer iterators = memoptStringBufferCreate();
  for (intptr_t d = 0; d < value->rank; ++d) {
    memoptStringBufferAppendFormat(&dims, "%sd%zd", d ? ", " : "", d);
    memoptStringBufferAppendFormat(&iterators, "%s\"parallel\"", d ? ", " : "");
  }
  memoptStringBufferAppendFormat(
      out,
      "    %%arg%zu = linalg.generic {indexing_maps = [affine_map<(%s) -> (%s)>], "
      "iterator_types = [%s]} outs(%%arg%zu_empty : %s) {\n"
      "    ^bb0(%%out: %s):\n",
      argument, memoptStringBufferGet(&dims), memoptStringBufferGet(&dims),
      memoptStringBufferGet(&iterators), argument, value->spelling, e);
  memoptStringBufferDestroy(&dims);
  memoptStringBufferDestroy(&iterators);

  /* Row-major linear index by Horner's rule: ((i0 * n1 + i1) * n2 + i2) ... */
  const char *indent = "      ";
  const HarnessShardPlan *plan = spec->shards;
  MemoptStringBuffer linear = memoptStringBufferCreate();
  if (value->rank == 0) {
    memoptStringBufferAppendFormat(out, "%s%%zero = arith.constant 0 : index\n", indent);
    memoptStringBufferAppendCString(&linear, "%zero");
  }
  for (intptr_t d = 0; d < value->rank; ++d) {
    if (plan && harnessShardPlanSplitsDimension(plan, &plan->arguments[argument], d))
      memoptStringBufferAppendFormat(out,
                                     "%s%%local%zd = linalg.index %zd : index\n"
                                     "%s%%i%zd = arith.addi %%local%zd, %%arg%zu_off%zd : index\n",
                                     indent, d, d, indent, d, d, argument, d);
    else
      memoptStringBufferAppendFormat(out, "%s%%i%zd = linalg.index %zd : index\n", indent, d, d);
    if (d == 0) {
      memoptStringBufferAppendCString(&linear, "%i0");
      continue;
    }
    int64_t extent = plan ? plan->arguments[argument].globalShape[d]
                     : value->shape[d] == mlirShapedTypeGetDynamicSize() ? spec->dim
                                                                           : value->shape[d];
    memoptStringBufferAppendFormat(out,
                                   "%s%%n%zd = arith.constant %lld : index\n"
                                   "%s%%rows%zd = arith.muli %s, %%n%zd : index\n"
                                   "%s%%linear%zd = arith.addi %%rows%zd, %%i%zd : index\n",
                                   indent, d, (long long)extent, indent, d, linear.data, d, indent,
                                   d, d, d);
    memoptStringBufferClear(&linear);
    memoptStringBufferAppendFormat(&linear, "%%linear%zd", d);
  }
  appendElementValue(out, value, spec->seed, argument, linear.data, indent);
  memoptStringBufferDestroy(&linear);
  memoptStringBufferAppendFormat(out, "    } -> %s\n", value->spelling);
}

/* Defines %argN as the rank's slice of argument N's view: the view's one
 * extract_slice, with the sizes of `made` (harnessShardPlanViewSlice), of
 * the rank's slice of the source. */
static void appendLocalView(MemoptStringBuffer *out, const HarnessEntry *entry, size_t argument,
                            const HarnessMadeView *made) {
  const HarnessArgumentView *view = &entry->views[argument];
  const HarnessValueType *source = &entry->arguments[view->source];
  MlirAttribute offsets = mlirDictionaryAttrGetElementByName(
      view->steps[0].properties, mlirStringRefCreateFromCString("static_offsets"));
  memoptStringBufferAppendFormat(out, "    %%arg%zu = tensor.extract_slice %%arg%zd[", argument,
                                 view->source);
  for (intptr_t d = 0; d < source->rank; ++d)
    memoptStringBufferAppendFormat(out, "%s%lld", d ? ", " : "",
                                   (long long)mlirDenseI64ArrayGetElement(offsets, d));
  memoptStringBufferAppendCString(out, "] [");
  for (intptr_t d = 0; d < source->rank; ++d)
    memoptStringBufferAppendFormat(out, "%s%lld", d ? ", " : "", (long long)made->localSizes[d]);
  memoptStringBufferAppendCString(out, "] [");
  for (intptr_t d = 0; d < source->rank; ++d)
    memoptStringBufferAppendCString(out, d ? ", 1" : "1");
  memoptStringBufferAppendFormat(out, "] : %s to %s\n", source->spelling,
                                 entry->arguments[argument].spelling);
}

/* Defines %argN as argument N's view of its source (HarnessArgumentView):
 * each step in MLIR's generic form, its properties and types as recorded. */
static void appendView(MemoptStringBuffer *out, const HarnessEntry *entry, size_t argument) {
  const HarnessArgumentView *view = &entry->views[argument];
  MlirType type = entry->arguments[view->source].type;
  for (size_t k = 0; k < view->stepCount; ++k) {
    const HarnessViewStep *step = &view->steps[k];
    if (k + 1 < view->stepCount)
      memoptStringBufferAppendFormat(out, "    %%arg%zu_view%zu = ", argument, k);
    else
      memoptStringBufferAppendFormat(out, "    %%arg%zu = ", argument);
    memoptStringBufferAppendFormat(out, "\"%.*s\"(", (int)step->op.length, step->op.data);
    if (k == 0)
      memoptStringBufferAppendFormat(out, "%%arg%zd", view->source);
    else
      memoptStringBufferAppendFormat(out, "%%arg%zu_view%zu", argument, k - 1);
    memoptStringBufferAppendCString(out, ") <");
    mlirAttributePrint(step->properties, memoptAppendToBuffer, out);
    memoptStringBufferAppendCString(out, "> : (");
    mlirTypePrint(type, memoptAppendToBuffer, out);
    memoptStringBufferAppendCString(out, ") -> ");
    mlirTypePrint(step->type, memoptAppendToBuffer, out);
    memoptStringBufferAppendCString(out, "\n");
    type = step->type;
  }
}

/* Appends one call of the entry on %arg0..%argN; results named `results`
 * (NULL: left unnamed, the call is only measured). */
static void appendEntryCall(MemoptStringBuffer *out, const HarnessEntry *entry, const char *results,
                            const char *indent) {
  memoptStringBufferAppendFormat(out, "%sfunc.call @memoptRtRunBegin() : () -> ()\n%s", indent,
                                 indent);
  if (results && entry->resultCount == 1)
    memoptStringBufferAppendFormat(out, "%%%s = ", results);
  else if (results && entry->resultCount > 1)
    memoptStringBufferAppendFormat(out, "%%%s:%zu = ", results, entry->resultCount);
  memoptStringBufferAppendCString(out, "func.call ");
  appendSymbol(out, entry->name);
  memoptStringBufferAppendCString(out, "(");
  for (size_t i = 0; i < entry->argumentCount; ++i)
    memoptStringBufferAppendFormat(out, "%s%%arg%zu", i ? ", " : "", i);
  memoptStringBufferAppendCString(out, ") : ");
  appendFunctionType(out, entry);
  memoptStringBufferAppendFormat(out, "\n%sfunc.call @memoptRtRunEnd() : () -> ()\n", indent);
}

/* Hands result `index` of the last call to memopt_rt: as an unranked tensor
 * (index elements converted to i64, scalars wrapped in a 0-d tensor). */
static void appendOutput(MemoptStringBuffer *out, const HarnessEntry *entry, size_t index,
                         bool print) {
  const HarnessValueType *value = &entry->results[index];
  HarnessElement element = runtimeElement(value->element);
  const char *e = harnessElementName(element);
  MemoptStringBuffer name = memoptStringBufferCreate();
  if (entry->resultCount == 1)
    memoptStringBufferAppendCString(&name, "%result");
  else
    memoptStringBufferAppendFormat(&name, "%%result#%zu", index);
  const char *result = name.data;

  memoptStringBufferAppendFormat(out, "    %%index%zu = arith.constant %zu : i64\n", index, index);
  if (value->isTensor) {
    MemoptStringBuffer tensorType = memoptStringBufferCreate();
    memoptStringBufferAppendCString(&tensorType, value->spelling);
    if (value->element == HarnessIndex) {
      /* The same shape with i64 elements: rebuild the spelling from the type. */
      memoptStringBufferClear(&tensorType);
      memoptStringBufferAppendCString(&tensorType, "tensor<");
      for (intptr_t d = 0; d < value->rank; ++d) {
        if (value->shape[d] == mlirShapedTypeGetDynamicSize())
          memoptStringBufferAppendCString(&tensorType, "?x");
        else
          memoptStringBufferAppendFormat(&tensorType, "%lldx", (long long)value->shape[d]);
      }
      memoptStringBufferAppendCString(&tensorType, "i64>");
      memoptStringBufferAppendFormat(out, "    %%wide%zu = arith.index_cast %s : %s to %s\n", index,
                                     result, value->spelling, tensorType.data);
      memoptStringBufferClear(&name);
      memoptStringBufferAppendFormat(&name, "%%wide%zu", index);
      result = name.data;
    }
    memoptStringBufferAppendFormat(out, "    %%unranked%zu = tensor.cast %s : %s to tensor<*x%s>\n",
                                   index, result, tensorType.data, e);
    memoptStringBufferDestroy(&tensorType);
  } else {
    if (value->element == HarnessIndex) {
      memoptStringBufferAppendFormat(out, "    %%wide%zu = arith.index_cast %s : index to i64\n", index,
                                     result);
      memoptStringBufferClear(&name);
      memoptStringBufferAppendFormat(&name, "%%wide%zu", index);
      result = name.data;
    }
    memoptStringBufferAppendFormat(out,
                                   "    %%scalar%zu = tensor.from_elements %s : tensor<%s>\n"
                                   "    %%unranked%zu = tensor.cast %%scalar%zu : tensor<%s> to "
                                   "tensor<*x%s>\n",
                                   index, result, e, index, index, e, e);
  }
  memoptStringBufferAppendFormat(out,
                                 "    func.call @memoptRtChecksum%s(%%index%zu, %%unranked%zu) : "
                                 "(i64, tensor<*x%s>) -> ()\n",
                                 runtimeSuffix(element), index, index, e);
  if (print)
    memoptStringBufferAppendFormat(out,
                                   "    func.call @memoptRtPrint%s(%%index%zu, %%unranked%zu) : "
                                   "(i64, tensor<*x%s>) -> ()\n",
                                   runtimeSuffix(element), index, index, e);
  memoptStringBufferDestroy(&name);
}

/* Declarations of the memopt_rt functions the wrapper calls. The outputs are
 * only read: without saying so, bufferization assumes an external function
 * writes its operands and must copy a result that aliases a read-only input. */
static void appendRuntimeDeclarations(MemoptStringBuffer *out, const HarnessEntry *entry,
                                      bool print) {
  memoptStringBufferAppendCString(out, "  func.func private @memoptRtRunBegin()\n"
                                       "  func.func private @memoptRtRunEnd()\n");
  bool declared[HarnessIndex + 1] = {false};
  for (size_t i = 0; i < entry->resultCount; ++i) {
    HarnessElement element = runtimeElement(entry->results[i].element);
    if (declared[element])
      continue;
    declared[element] = true;
    for (int kind = 0; kind < (print ? 2 : 1); ++kind)
      memoptStringBufferAppendFormat(out,
                                     "  func.func private @memoptRt%s%s(i64, tensor<*x%s> "
                                     "{bufferization.access = \"read\"}) "
                                     "attributes {llvm.emit_c_interface}\n",
                                     kind ? "Print" : "Checksum", runtimeSuffix(element),
                                     harnessElementName(element));
  }
}

static char *generateWrapperText(const HarnessEntry *entry, const char *wrapperName,
                                 const HarnessWrapperSpec *spec) {
  const HarnessShardPlan *plan = spec->shards;
  MemoptStringBuffer out = memoptStringBufferCreate();
  memoptStringBufferAppendCString(&out, "module {\n  // Stands for the model's entry while parsing.\n"
                                        "  func.func private ");
  appendSymbol(&out, entry->name);
  appendFunctionType(&out, entry);
  memoptStringBufferAppendCString(&out, "\n");
  if (plan && plan->gridName) {
    memoptStringBufferAppendCString(&out, "  // Stands for the model's grid while parsing.\n  shard.grid ");
    appendSymbol(&out, plan->gridName);
    memoptStringBufferAppendCString(&out, "(shape = ");
    for (intptr_t a = 0; a < plan->gridRank; ++a)
      memoptStringBufferAppendFormat(&out, "%s%lld", a ? "x" : "", (long long)plan->gridShape[a]);
    memoptStringBufferAppendCString(&out, ")\n");
  }
  appendRuntimeDeclarations(&out, entry, spec->printOutputs);
  memoptStringBufferAppendFormat(&out, "  func.func @%s() {\n", wrapperName);
  if (plan)
    memoptStringBufferAppendCString(&out, "    %mpi_init = mpi.init : !mpi.retval\n");
  /* A pipeline driver's inputs are whole on every rank: no slices. */
  if (plan && plan->gridName) {
    /* The rank's place in the grid, as convert-shard-to-mpi computes it. */
    memoptStringBufferAppendCString(&out, "    %coord");
    if (plan->gridRank > 1)
      memoptStringBufferAppendFormat(&out, ":%zd", plan->gridRank);
    memoptStringBufferAppendCString(&out, " = shard.process_multi_index on ");
    appendSymbol(&out, plan->gridName);
    memoptStringBufferAppendCString(&out, " axes = [] : ");
    for (intptr_t a = 0; a < plan->gridRank; ++a)
      memoptStringBufferAppendCString(&out, a ? ", index" : "index");
    memoptStringBufferAppendCString(&out, "\n");
    for (size_t i = 0; i < entry->argumentCount; ++i)
      appendSliceOffsets(&out, plan, i);
  }
  /* Views after the inputs they view (their sources are no views). */
  for (size_t i = 0; i < entry->argumentCount; ++i)
    if (!spec->madeViews || !spec->madeViews[i].made)
      appendInput(&out, &entry->arguments[i], i, spec);
  for (size_t i = 0; spec->madeViews && i < entry->argumentCount; ++i) {
    if (spec->madeViews[i].localSizes)
      appendLocalView(&out, entry, i, &spec->madeViews[i]);
    else if (spec->madeViews[i].made)
      appendView(&out, entry, i);
  }
  if (spec->runs > 1) {
    memoptStringBufferAppendFormat(&out,
                                   "    %%first = arith.constant 0 : index\n"
                                   "    %%earlier = arith.constant %lld : index\n"
                                   "    %%step = arith.constant 1 : index\n"
                                   "    scf.for %%run = %%first to %%earlier step %%step {\n",
                                   spec->runs - 1);
    appendEntryCall(&out, entry, NULL, "      ");
    memoptStringBufferAppendCString(&out, "    }\n");
  }
  appendEntryCall(&out, entry, "result", "    ");
  for (size_t i = 0; i < entry->resultCount; ++i)
    appendOutput(&out, entry, i, spec->printOutputs);
  if (plan)
    memoptStringBufferAppendCString(&out, "    %mpi_finalize = mpi.finalize : !mpi.retval\n");
  memoptStringBufferAppendCString(&out, "    return\n  }\n}\n");
  return memoptStringBufferRelease(&out);
}

static MlirStringRef symbolName(MlirOperation op) {
  MlirAttribute name =
      mlirOperationGetAttributeByName(op, mlirSymbolTableGetSymbolAttributeName());
  return mlirAttributeIsNull(name) ? mlirStringRefCreate(NULL, 0) : mlirStringAttrGetValue(name);
}

/* Returns "memopt_run_main", or with a numeric suffix if the model uses that name. */
static char *chooseWrapperName(MlirSymbolTable symbols) {
  MemoptStringBuffer name = memoptStringBufferCreate();
  memoptStringBufferAppendCString(&name, "memopt_run_main");
  for (int suffix = 1;
       !mlirOperationIsNull(mlirSymbolTableLookup(symbols, mlirStringRefCreateFromCString(name.data)));
       ++suffix) {
    memoptStringBufferClear(&name);
    memoptStringBufferAppendFormat(&name, "memopt_run_main_%d", suffix);
  }
  return memoptStringBufferRelease(&name);
}

/* Moves the wrapper's functions into `module`, except the stand-in for the
 * entry; a runtime declaration the model already has must agree with ours. */
static bool mergeWrapper(MlirModule module, MlirModule wrapper, const HarnessEntry *entry,
                         MlirSymbolTable symbols, MemoptStringBuffer *error) {
  MlirBlock body = mlirModuleGetBody(module);
  MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(wrapper));
  while (!mlirOperationIsNull(op)) {
    MlirOperation next = mlirOperationGetNextInBlock(op);
    MlirStringRef name = symbolName(op);
    MlirOperation existing = mlirSymbolTableLookup(symbols, name);
    /* The entry and the grid (on ranks) are the model's; the wrapper's are stand-ins. */
    bool isEntryStandIn = mlirStringRefEqual(name, mlirStringRefCreateFromCString(entry->name)) ||
                          memoptOperationIsA(op, "shard.grid");
    if (!isEntryStandIn && !mlirOperationIsNull(existing)) {
      MlirAttribute ours = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("function_type"));
      MlirAttribute theirs =
          mlirOperationGetAttributeByName(existing, mlirStringRefCreateFromCString("function_type"));
      if (mlirAttributeIsNull(theirs) || !mlirAttributeEqual(ours, theirs)) {
        memoptStringBufferAppendFormat(error,
                                       "the model defines @%.*s, a name memopt-run needs for "
                                       "memopt_rt with another type",
                                       (int)name.length, name.data);
        return false;
      }
    } else if (!isEntryStandIn) {
      mlirOperationRemoveFromParent(op);
      mlirBlockAppendOwnedOperation(body, op);
    }
    op = next;
  }
  return true;
}

/* Entry arguments become read-only, so that every run sees the same inputs:
 * an entry that updates an argument in place copies it, inside the run. Other
 * functions become private so that symbol-dce keeps only what the entry and
 * the wrapper use (a model's own test driver is not compiled). */
static void prepareFunctions(MlirModule module, const HarnessEntry *entry, const char *wrapperName) {
  MlirContext context = mlirModuleGetContext(module);
  MlirAttribute readOnly = mlirBoolAttrGet(context, 0);
  for (size_t i = 0; i < entry->argumentCount; ++i)
    if (entry->arguments[i].isTensor)
      mlirFuncSetArgAttr(entry->function, (intptr_t)i,
                         mlirStringRefCreateFromCString("bufferization.writable"), readOnly);
  MlirAttribute privateVisibility = mlirStringAttrGet(context, mlirStringRefCreateFromCString("private"));
  for (MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    bool isFunction = mlirStringRefEqual(mlirIdentifierStr(mlirOperationGetName(op)),
                                         mlirStringRefCreateFromCString("func.func"));
    MlirStringRef name = symbolName(op);
    if (!isFunction || mlirOperationEqual(op, entry->function) ||
        mlirStringRefEqual(name, mlirStringRefCreateFromCString(wrapperName)) ||
        mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0))))
      continue;
    mlirOperationSetAttributeByName(op, mlirSymbolTableGetVisibilityAttributeName(),
                                    privateVisibility);
  }
}

char *harnessWrapperInsert(MlirModule module, const HarnessEntry *entry,
                           const HarnessWrapperSpec *spec, MemoptStringBuffer *error) {
  for (size_t i = 0; i < entry->argumentCount; ++i) {
    const HarnessValueType *value = &entry->arguments[i];
    for (intptr_t d = 0; value->isTensor && d < value->rank; ++d)
      if (value->shape[d] == mlirShapedTypeGetDynamicSize() && spec->dim < 1) {
        memoptStringBufferAppendFormat(error,
                                       "argument %zu of @%s has type %s with dynamic dimensions; "
                                       "give their size with --dim=N",
                                       i, entry->name, value->spelling);
        return NULL;
      }
  }
  MlirSymbolTable symbols = mlirSymbolTableCreate(mlirModuleGetOperation(module));
  char *wrapperName = chooseWrapperName(symbols);
  char *text = generateWrapperText(entry, wrapperName, spec);
  MlirModule wrapper = memoptParseModule(mlirModuleGetContext(module), mlirStringRefCreateFromCString(text),
                                          "<memopt-run wrapper>");
  bool ok = !mlirModuleIsNull(wrapper);
  if (!ok)
    memoptStringBufferAppendCString(error, "internal error: the generated wrapper does not parse");
  else
    ok = mergeWrapper(module, wrapper, entry, symbols, error);
  if (!mlirModuleIsNull(wrapper))
    mlirModuleDestroy(wrapper);
  mlirSymbolTableDestroy(symbols);
  free(text);
  if (!ok) {
    free(wrapperName);
    return NULL;
  }
  prepareFunctions(module, entry, wrapperName);
  return wrapperName;
}

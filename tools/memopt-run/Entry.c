/* Finding the function to run and describing its signature in the terms the
 * wrapper generator needs (ranked tensor or scalar, element, static shape,
 * and which arguments are views of another, place-to-shard's `memopt.view`). */
#include "Harness.h"

#include "IR/IR.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdlib.h>
#include <string.h>

static const char *const elementNames[] = {
    [HarnessF64] = "f64", [HarnessF32] = "f32", [HarnessF16] = "f16", [HarnessBF16] = "bf16",
    [HarnessI64] = "i64", [HarnessI32] = "i32", [HarnessI16] = "i16", [HarnessI8] = "i8",
    [HarnessI1] = "i1",   [HarnessIndex] = "index",
};

const char *harnessElementName(HarnessElement element) { return elementNames[element]; }

bool harnessElementIsFloat(HarnessElement element) {
  return element == HarnessF64 || element == HarnessF32 || element == HarnessF16 ||
         element == HarnessBF16;
}

static char *printType(MlirType type) {
  MemoptStringBuffer text = memoptStringBufferCreate();
  mlirTypePrint(type, memoptAppendToBuffer, &text);
  return memoptStringBufferRelease(&text);
}

/* Maps an element type to the harness's kinds; false when unsupported. */
static bool classifyElement(MlirType type, HarnessElement *element) {
  if (mlirTypeIsAF64(type))
    *element = HarnessF64;
  else if (mlirTypeIsAF32(type))
    *element = HarnessF32;
  else if (mlirTypeIsAF16(type))
    *element = HarnessF16;
  else if (mlirTypeIsABF16(type))
    *element = HarnessBF16;
  else if (mlirTypeIsAIndex(type))
    *element = HarnessIndex;
  else if (mlirTypeIsAInteger(type) && mlirIntegerTypeIsSignless(type)) {
    switch (mlirIntegerTypeGetWidth(type)) {
    case 64: *element = HarnessI64; break;
    case 32: *element = HarnessI32; break;
    case 16: *element = HarnessI16; break;
    case 8: *element = HarnessI8; break;
    case 1: *element = HarnessI1; break;
    default: return false;
    }
  } else
    return false;
  return true;
}

/* Describes `type`; false when it is neither a supported scalar nor a ranked
 * tensor of one. */
static bool describeValueType(MlirType type, HarnessValueType *value) {
  memset(value, 0, sizeof *value);
  value->type = type;
  MlirType element = type;
  if (mlirTypeIsARankedTensor(type)) {
    value->isTensor = true;
    value->rank = mlirShapedTypeGetRank(type);
    value->shape =
        memoptAllocateZeroed(value->rank > 0 ? (size_t)value->rank : 1, sizeof *value->shape);
    for (intptr_t d = 0; d < value->rank; ++d)
      value->shape[d] = mlirShapedTypeGetDimSize(type, d);
    element = mlirShapedTypeGetElementType(type);
  }
  value->spelling = printType(type);
  value->elementSpelling = printType(element);
  return classifyElement(element, &value->element);
}

static void destroyValueType(HarnessValueType *value) {
  free(value->shape);
  free(value->spelling);
  free(value->elementSpelling);
}

void harnessEntryDestroy(HarnessEntry *entry) {
  for (size_t i = 0; i < entry->argumentCount; ++i)
    destroyValueType(&entry->arguments[i]);
  for (size_t i = 0; i < entry->resultCount; ++i)
    destroyValueType(&entry->results[i]);
  free(entry->arguments);
  for (size_t i = 0; entry->views && i < entry->argumentCount; ++i)
    free(entry->views[i].steps);
  free(entry->views);
  free(entry->results);
  free(entry->name);
  memset(entry, 0, sizeof *entry);
}

static MlirStringRef stringAttribute(MlirOperation op, const char *name) {
  MlirAttribute attribute = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name));
  if (mlirAttributeIsNull(attribute) || !mlirAttributeIsAString(attribute))
    return mlirStringRefCreate(NULL, 0);
  return mlirStringAttrGetValue(attribute);
}

static bool isFunction(MlirOperation op) {
  return mlirStringRefEqual(mlirIdentifierStr(mlirOperationGetName(op)),
                            mlirStringRefCreateFromCString("func.func"));
}

static bool hasBody(MlirOperation function) {
  return !mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(function, 0)));
}

static bool isPublic(MlirOperation function) {
  MlirStringRef visibility = stringAttribute(function, "sym_visibility");
  return visibility.length == 0 ||
         mlirStringRefEqual(visibility, mlirStringRefCreateFromCString("public"));
}

static bool nameIs(MlirOperation function, const char *name) {
  return mlirStringRefEqual(stringAttribute(function, "sym_name"),
                            mlirStringRefCreateFromCString(name));
}

/* Picks the function; false with the reason. */
static bool selectFunction(MlirModule module, const char *name, MlirOperation *selected,
                           MemoptStringBuffer *error) {
  MlirBlock body = mlirModuleGetBody(module);
  MemoptStringBuffer candidates = memoptStringBufferCreate();
  size_t candidateCount = 0;
  const char *closest = NULL;
  size_t closestDistance = 4;
  MemoptStringBuffer closestName = memoptStringBufferCreate();
  *selected = (MlirOperation){NULL};
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!isFunction(op))
      continue;
    MlirStringRef symbol = stringAttribute(op, "sym_name");
    if (name) {
      if (nameIs(op, name)) {
        *selected = op;
        break;
      }
      char *candidate = memoptStrndup(symbol.data, symbol.length);
      size_t distance = memoptEditDistance(name, candidate);
      if (distance < closestDistance) {
        closestDistance = distance;
        memoptStringBufferClear(&closestName);
        memoptStringBufferAppendCString(&closestName, candidate);
        closest = closestName.data;
      }
      free(candidate);
    } else if (isPublic(op) && hasBody(op)) {
      *selected = op;
      memoptStringBufferAppendFormat(&candidates, "%s@%.*s", candidateCount ? ", " : "",
                                     (int)symbol.length, symbol.data);
      ++candidateCount;
    }
  }
  bool ok = true;
  if (name && mlirOperationIsNull(*selected)) {
    memoptStringBufferAppendFormat(error, "no function named '%s' in the model", name);
    if (closest)
      memoptStringBufferAppendFormat(error, "; did you mean '%s'?", closest);
    ok = false;
  } else if (!name && candidateCount == 0) {
    memoptStringBufferAppendCString(error, "the model has no public function with a body to run");
    ok = false;
  } else if (!name && candidateCount > 1) {
    memoptStringBufferAppendFormat(error,
                                   "the model has %zu public functions (%s); choose one with "
                                   "--entry=NAME",
                                   candidateCount, candidates.data);
    ok = false;
  } else if (!hasBody(*selected)) {
    memoptStringBufferAppendFormat(error, "'%s' is only a declaration; it has no body to run", name);
    ok = false;
  }
  memoptStringBufferDestroy(&candidates);
  memoptStringBufferDestroy(&closestName);
  return ok;
}

/* The views memopt-run can make of an argument: those place-to-shard hoists. */
static const char *const viewOps[] = {"tensor.collapse_shape", "tensor.expand_shape",
                                      "tensor.extract_slice"};

/* Reads `step` into `*out` when it is a dictionary {op = <a view op>,
 * properties = <a dictionary>, type = <a ranked tensor type>}; false
 * otherwise. */
static bool readViewStep(MlirAttribute step, HarnessViewStep *out) {
  if (!mlirAttributeIsADictionary(step))
    return false;
  MlirAttribute op = mlirDictionaryAttrGetElementByName(step, mlirStringRefCreateFromCString("op"));
  MlirAttribute properties =
      mlirDictionaryAttrGetElementByName(step, mlirStringRefCreateFromCString("properties"));
  MlirAttribute result =
      mlirDictionaryAttrGetElementByName(step, mlirStringRefCreateFromCString("type"));
  if (mlirAttributeIsNull(op) || !mlirAttributeIsAString(op) || mlirAttributeIsNull(properties) ||
      !mlirAttributeIsADictionary(properties) || mlirAttributeIsNull(result) ||
      !mlirAttributeIsAType(result) || !mlirTypeIsARankedTensor(mlirTypeAttrGetValue(result)))
    return false;
  *out = (HarnessViewStep){mlirStringAttrGetValue(op), properties, mlirTypeAttrGetValue(result)};
  for (size_t k = 0; k < sizeof viewOps / sizeof *viewOps; ++k)
    if (mlirStringRefEqual(out->op, mlirStringRefCreateFromCString(viewOps[k])))
      return true;
  return false;
}

/* Reads argument `i`'s `memopt.view` into `entry->views[i]`; false with the
 * reason (also emitted at the function) when it is malformed. The type it
 * makes is checked where the view is made (on ranks, the argument's type is
 * its slice's), the steps' properties when the wrapper is parsed. */
static bool readArgumentView(HarnessEntry *entry, size_t i, MemoptStringBuffer *error) {
  HarnessArgumentView *view = &entry->views[i];
  view->source = -1;
  MlirAttribute attribute = memoptFuncGetArgAttr(entry->function, (intptr_t)i, "memopt.view");
  if (mlirAttributeIsNull(attribute))
    return true;
  const char *problem = NULL;
  MlirAttribute source =
      mlirAttributeIsADictionary(attribute)
          ? mlirDictionaryAttrGetElementByName(attribute, mlirStringRefCreateFromCString("source"))
          : (MlirAttribute){NULL};
  MlirAttribute steps =
      mlirAttributeIsADictionary(attribute)
          ? mlirDictionaryAttrGetElementByName(attribute, mlirStringRefCreateFromCString("steps"))
          : (MlirAttribute){NULL};
  int64_t index = -1;
  if (mlirAttributeIsNull(source) || !mlirAttributeIsAInteger(source) ||
      !memoptIntegerAttrGetInt64(source, &index) || index < 0 ||
      index >= (int64_t)entry->argumentCount || index == (int64_t)i)
    problem = "has no 'source', the index of another argument";
  else if (!entry->arguments[index].isTensor ||
           !mlirAttributeIsNull(
               memoptFuncGetArgAttr(entry->function, (intptr_t)index, "memopt.view")))
    problem = "has a 'source' that is a scalar or a view itself";
  else if (mlirAttributeIsNull(steps) || !mlirAttributeIsAArray(steps) ||
           mlirArrayAttrGetNumElements(steps) == 0)
    problem = "has no 'steps', a non-empty array";
  size_t count = problem ? 0 : (size_t)mlirArrayAttrGetNumElements(steps);
  view->steps = memoptAllocateZeroed(count + 1, sizeof *view->steps);
  for (size_t k = 0; !problem && k < count; ++k)
    if (!readViewStep(mlirArrayAttrGetElement(steps, (intptr_t)k), &view->steps[k]))
      problem = "has a step that is not {op = <collapse_shape, expand_shape or extract_slice of "
                "tensor>, properties = {...}, type = <ranked tensor>}";
  if (problem) {
    memoptEmitOpError(entry->function, "argument %zu: memopt.view %s", i, problem);
    memoptStringBufferAppendFormat(error, "argument %zu of @%s: memopt.view %s", i, entry->name,
                                   problem);
    return false;
  }
  view->source = (intptr_t)index;
  view->stepCount = count;
  return true;
}

bool harnessEntryFind(MlirModule module, const char *name, HarnessEntry *entry,
                      MemoptStringBuffer *error) {
  memset(entry, 0, sizeof *entry);
  MlirOperation function;
  if (!selectFunction(module, name, &function, error))
    return false;
  entry->function = function;
  MlirStringRef symbol = stringAttribute(function, "sym_name");
  entry->name = memoptStrndup(symbol.data, symbol.length);
  MlirType type = mlirTypeAttrGetValue(
      mlirOperationGetAttributeByName(function, mlirStringRefCreateFromCString("function_type")));
  entry->argumentCount = (size_t)mlirFunctionTypeGetNumInputs(type);
  entry->resultCount = (size_t)mlirFunctionTypeGetNumResults(type);
  entry->arguments = memoptAllocateZeroed(entry->argumentCount + 1, sizeof *entry->arguments);
  entry->views = memoptAllocateZeroed(entry->argumentCount + 1, sizeof *entry->views);
  entry->results = memoptAllocateZeroed(entry->resultCount + 1, sizeof *entry->results);
  const char *supported = "ranked tensors and scalars of f64, f32, f16, bf16, i64, i32, i16, "
                          "i8, i1 or index";
  bool ok = true;
  for (size_t i = 0; i < entry->argumentCount; ++i)
    if (!describeValueType(mlirFunctionTypeGetInput(type, (intptr_t)i), &entry->arguments[i]) &&
        ok) {
      memoptStringBufferAppendFormat(error,
                                     "argument %zu of @%s has type %s, for which memopt-run cannot "
                                     "generate inputs (supported: %s)",
                                     i, entry->name, entry->arguments[i].spelling, supported);
      ok = false;
    }
  for (size_t i = 0; ok && i < entry->argumentCount; ++i)
    ok = readArgumentView(entry, i, error);
  for (size_t i = 0; i < entry->resultCount; ++i)
    if (!describeValueType(mlirFunctionTypeGetResult(type, (intptr_t)i), &entry->results[i]) &&
        ok) {
      memoptStringBufferAppendFormat(error,
                                     "result %zu of @%s has type %s, which memopt-run cannot "
                                     "checksum (supported: %s)",
                                     i, entry->name, entry->results[i].spelling, supported);
      ok = false;
    }
  if (!ok)
    harnessEntryDestroy(entry);
  return ok;
}

/* Reading a function argument's attributes: the C API sets them
 * (mlirFuncSetArgAttr) but has no getter; they live in the function's
 * `arg_attrs`, an array with one dictionary per argument. */
#include "IR/IR.h"

#include "mlir-c/BuiltinAttributes.h"

MlirAttribute memoptFuncGetArgAttr(MlirOperation func, intptr_t argument, const char *name) {
  MlirAttribute all =
      mlirOperationGetAttributeByName(func, mlirStringRefCreateFromCString("arg_attrs"));
  if (mlirAttributeIsNull(all) || !mlirAttributeIsAArray(all) || argument < 0 ||
      argument >= mlirArrayAttrGetNumElements(all))
    return (MlirAttribute){NULL};
  MlirAttribute dictionary = mlirArrayAttrGetElement(all, argument);
  if (!mlirAttributeIsADictionary(dictionary))
    return (MlirAttribute){NULL};
  return mlirDictionaryAttrGetElementByName(dictionary, mlirStringRefCreateFromCString(name));
}

// A memopt.view memopt-run cannot make (place-to-shard writes none of these)
// is an error at the function, naming the argument and what is wrong, and
// nothing runs.
// RUN: split-file %s %t
// RUN: not memopt-run %t/source.mlir 2>&1 | FileCheck %s --check-prefix=SOURCE
// RUN: not memopt-run %t/step.mlir 2>&1 | FileCheck %s --check-prefix=STEP
// RUN: not memopt-run %t/type.mlir 2>&1 | FileCheck %s --check-prefix=TYPE
// SOURCE: source.mlir:1:1: error: 'func.func' op argument 1: memopt.view has no 'source', the index of another argument
// SOURCE: memopt-run: error: argument 1 of @f: memopt.view has no 'source'

//--- source.mlir
func.func @f(%w: tensor<2x4xf32>, %v: tensor<2x4xf32> {memopt.view = {source = 1 : i64, steps = []}}) -> tensor<2x4xf32> {
  return %v : tensor<2x4xf32>
}

// STEP: step.mlir:1:1: error: 'func.func' op argument 1: memopt.view has a step that is not {op = <collapse_shape, expand_shape or extract_slice of tensor>, properties = {...}, type = <ranked tensor>}

//--- step.mlir
func.func @f(%w: tensor<2x4xf32>, %v: tensor<8xf32> {memopt.view = {source = 0 : i64, steps = [{op = "tensor.reshape", properties = {}, type = tensor<8xf32>}]}}) -> tensor<8xf32> {
  return %v : tensor<8xf32>
}

// TYPE: type.mlir:1:1: error: 'func.func' op argument 1: memopt.view makes another type than tensor<4x2xf32>

//--- type.mlir
func.func @f(%w: tensor<2x4xf32>, %v: tensor<4x2xf32> {memopt.view = {source = 0 : i64, steps = [{op = "tensor.collapse_shape", properties = {reassociation = [[0, 1]]}, type = tensor<8xf32>}]}}) -> tensor<4x2xf32> {
  return %v : tensor<4x2xf32>
}

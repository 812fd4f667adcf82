// memopt's ops come from IRDL, which gives them no custom assembly form, and
// MLIR's parser fails on one written in custom form without saying why (exit 1,
// no message, with mlir-opt --irdl-file too). memopt-opt points at the op and
// says what to write instead. Names in comments (remat.dim_symbol), strings and
// value names are not ops: the error is at line 13, column 8.
// RUN: not memopt-opt %s 2>&1 | FileCheck %s
// CHECK: irdl-op-in-custom-form-is-a-located-error.mlir:13:8: error: 'remat.dim_symbol' is written in custom form, which memopt's ops do not have (their dialects are defined in IRDL): write it in generic form, "remat.dim_symbol"(...) : (...) -> (...)
// CHECK-NEXT: {{^}}  %1 = remat.dim_symbol() : index
// CHECK-NEXT: {{^}}       ^
func.func @f(%x: tensor<4xf32>) -> index {
  %spm.load = arith.constant {note = "spm.load"} 0 : index
  "remat.evict"(%x) : (tensor<4xf32>) -> ()
  %1 = remat.dim_symbol() : index
  return %1 : index
}

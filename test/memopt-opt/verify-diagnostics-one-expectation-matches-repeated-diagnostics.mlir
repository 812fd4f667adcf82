// One expectation is met by every diagnostic it matches, as in mlir-opt: the
// linalg.matmul parser warns twice, at an unknown location, that it cannot
// cast the f16 operand (once per input), and one @unknown expectation covers
// both. The run passes, with no "unexpected warning".
// RUN: memopt-opt %s --verify-diagnostics 2>&1 | FileCheck %s --allow-empty
// CHECK-NOT: unexpected

func.func @matmul_invalid_mixed_types(%t: tensor<?xf16>, %f: vector<4xf16>)
  -> (tensor<?xf16>, vector<4xf16>)
{
  // expected-warning @unknown {{could not cast operand of type 'f16' to 'vector<4xf16>'}}
  // expected-error @below {{Cannot build binary Linalg operation: expects allComplex, allFloatingPoint, or allInteger, got 'vector<4xf16>' and 'f16'}}
  %0 = linalg.matmul ins(%t, %t : tensor<?xf16>, tensor<?xf16>)
                                outs(%f : vector<4xf16>) -> tensor<?xf16>
  func.return %0, %f : tensor<?xf16>, vector<4xf16>
}

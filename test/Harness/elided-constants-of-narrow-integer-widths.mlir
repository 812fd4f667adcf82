// --fill-elided gives elided constants of every integer width the generated
// values: i16 and i8 are written at their own width, i1 as one int per element
// (what mlirDenseElementsAttrBoolGet reads). The k-th elided constant is input
// number 1000 + k, whose element l is (7 l + 3 (1000 + k)) mod 16 (mod 2 for i1):
//   k = 0, i16: 3000 mod 16 = 8  -> 8, 15, 22 mod 16 = 6, 13       (sum 42)
//   k = 1, i8:  3003 mod 16 = 11 -> 11, 18 mod 16 = 2, 9, 16 mod 16 = 0 (sum 22)
//   k = 2, i1:  3006 mod 2 = 0   -> 0, 1, 0, 1                      (sum 2)
//   k = 3, i64: 3009 mod 16 = 1  -> 1, 8, 15, 22 mod 16 = 6         (sum 30)
// RUN: memopt-run %s --fill-elided --print-outputs | FileCheck %s
// CHECK:      output 0: tensor<4xi16> hash={{.*}} sum=42
// CHECK-NEXT: {{^}}[8, 15, 6, 13]
// CHECK:      output 1: tensor<4xi8> hash={{.*}} sum=22
// CHECK-NEXT: {{^}}[11, 2, 9, 0]
// CHECK:      output 2: tensor<4xi1> hash={{.*}} sum=2
// CHECK-NEXT: {{^}}[0, 1, 0, 1]
// CHECK:      output 3: tensor<4xi64> hash={{.*}} sum=30
// CHECK-NEXT: {{^}}[1, 8, 15, 6]

func.func @weights() -> (tensor<4xi16>, tensor<4xi8>, tensor<4xi1>, tensor<4xi64>) {
  %a = arith.constant dense_resource<__elided__> : tensor<4xi16>
  %b = arith.constant dense_resource<__elided__> : tensor<4xi8>
  %c = arith.constant dense_resource<__elided__> : tensor<4xi1>
  %d = arith.constant dense_resource<__elided__> : tensor<4xi64>
  return %a, %b, %c, %d : tensor<4xi16>, tensor<4xi8>, tensor<4xi1>, tensor<4xi64>
}

// The inputs follow the documented formulas (python-free-docs/harness.md),
// element l of argument a under --seed=s:
//   floats:   0.5 * sin(0.7 * l + 0.37 * a + 1.3 * s + 0.1)
//   integers: (7 * l + 3 * a + 5 * s) mod 16   (mod 2 for i1)
// The entry returns its arguments, so --print-outputs shows them.
// RUN: memopt-run %s --print-outputs | FileCheck %s --check-prefix=SEED0
// RUN: memopt-run %s --print-outputs --seed=1 | FileCheck %s --check-prefix=SEED1
//
// seed 0, argument 0: 0.5 sin(0.1), 0.5 sin(0.8), 0.5 sin(1.5), ... as f32.
// SEED0:      output 0: tensor<2x3xf32> hash=0x{{[0-9a-f]+}} sum={{.*}} nonfinite=0
// SEED0-NEXT: {{^\[\[0.049916707, 0.358678043, 0.498747498\],$}}
// SEED0-NEXT: {{^ \[0.404248208, 0.119624667, -0.22126022\]\]$}}
// argument 1: (7l + 3) mod 16.
// SEED0-NEXT: output 1: tensor<6xi32> hash={{.*}} sum=43 abs_sum=43 nonfinite=0
// SEED0-NEXT: {{^}}[3, 10, 1, 8, 15, 6]
// argument 2: (7l + 6) mod 2.
// SEED0-NEXT: output 2: tensor<4xi1> hash={{.*}} sum=2 abs_sum=2 nonfinite=0
// SEED0-NEXT: {{^}}[0, 1, 0, 1]
//
// seed 1 shifts the float phase by 1.3 and the integers by 5.
// SEED1:      output 0: tensor<2x3xf32>
// SEED1-NEXT: {{^\[\[0.492724866, 0.431604683, 0.167494074\],$}}
// SEED1-NEXT: {{^ \[-0.175391614, -0.435787886, -0.491226315\]\]$}}
// SEED1-NEXT: output 1: tensor<6xi32> hash={{.*}} sum=57 abs_sum=57 nonfinite=0
// SEED1-NEXT: {{^}}[8, 15, 6, 13, 4, 11]
// SEED1-NEXT: output 2: tensor<4xi1> hash={{.*}} sum=2 abs_sum=2 nonfinite=0
// SEED1-NEXT: {{^}}[1, 0, 1, 0]

func.func @identity(%x: tensor<2x3xf32>, %n: tensor<6xi32>, %b: tensor<4xi1>)
    -> (tensor<2x3xf32>, tensor<6xi32>, tensor<4xi1>) {
  return %x, %n, %b : tensor<2x3xf32>, tensor<6xi32>, tensor<4xi1>
}

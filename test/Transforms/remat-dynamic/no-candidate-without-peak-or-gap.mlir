// Without `everywhere`, a gap must span a candidate peak of the symbolic
// live bytes; with the default min-gap (4) the 5-op gap of this function
// qualifies only under `everywhere`, and a gap of 5 ops is too short for
// min-gap=6: the IR is left unchanged.
// RUN: memopt-opt %S/evict-across-long-gap.mlir --remat-dynamic="min-gap=6 everywhere=true" 2>&1 | FileCheck %s
// RUN: memopt-opt %S/evict-across-long-gap.mlir --remat-dynamic="min-bytes=1GiB everywhere=true" 2>&1 | FileCheck %s
// CHECK: remark: remat-dynamic: 0 values made evictable
// CHECK-NOT: remat.

// strategy=ilp solves the same problem exactly with GLPK and reports the
// DP's gap to it. On the residual block with a 6 KiB scratchpad both reach
// 486 cycles (the DP is optimal here); the ILP's plan is emitted like the DP's.
// RUN: memopt-opt %S/Inputs/residual-block.mlir --spm-pin-fuse="spm-bytes=6KiB strategy=ilp" 2>&1 >/dev/null | FileCheck %s
// RUN: memopt-opt %S/Inputs/residual-block.mlir --spm-pin-fuse="spm-bytes=6KiB strategy=ilp" 2>/dev/null | mlir-opt --irdl-file=%memopt_irdl | FileCheck %s --check-prefix=IR
// With transfer as the objective, at 4 KiB, too.
// RUN: memopt-opt %S/Inputs/residual-block.mlir --spm-pin-fuse="spm-bytes=4KiB strategy=ilp objective=transfer" 2>&1 >/dev/null | FileCheck %s --check-prefix=TRANSFER
// A graph too large for the ILP within its time limit is an error, not a
// silent fallback.
// RUN: memopt-zoo mobilenet-v2 --resolution=64 -o %t.mv2.mlir
// RUN: not memopt-opt %t.mv2.mlir --spm-pin-fuse="strategy=ilp ilp-time-limit=0.1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LARGE

// CHECK: remark: spm-pin-fuse (ilp): @block: 6 layers in {{[0-9]+}} groups, {{[0-9]+}} pinned; off-chip feature-map bytes 1536, cycles 486
// CHECK: remark: spm-pin-fuse: dp reaches 486 against the ilp optimum 486: gap 0.000%

// IR: spm.cycles = 486 : i64, spm.offchip_bytes = 1536 : i64
// IR: "spm.group"
// IR: "spm.pin"

// TRANSFER: remark: spm-pin-fuse: dp reaches 2560 against the ilp optimum 2560: gap 0.000%

// LARGE: error: spm-pin-fuse: ilp:

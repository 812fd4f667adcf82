// The JSON report: target, per function the plan's groups (layers, tile,
// cost), its pinned tensors (offset, last reader) and the totals of the
// fuse-only, pin-only and DP plans side by side.
// RUN: memopt-opt %S/Inputs/residual-block.mlir --spm-pin-fuse="spm-bytes=64KiB max-group=3 objective=transfer report=%t.json" -o /dev/null
// RUN: FileCheck %s --input-file=%t.json

// CHECK: "spm_bytes": 65536
// CHECK: "name": "block"
// CHECK: "strategy": "dp"
// CHECK: "layers": 6
// CHECK: "offchip_bytes": 1536
// CHECK: "groups": [
// CHECK: "first_layer": 0
// CHECK: "last_layer": 2
// CHECK: "tile_rows": 8
// CHECK: "first_layer": 3
// CHECK: "last_layer": 5
// CHECK: "pinned": [
// CHECK: "layer": 2
// CHECK: "offset": 0
// CHECK: "last_use": 3
// CHECK: "baselines": {
// CHECK: "fuse-only": {
// CHECK: "offchip_bytes": 5632
// CHECK: "pin-only": {
// CHECK: "offchip_bytes": 1536
// CHECK: "dp": {
// CHECK: "offchip_bytes": 1536

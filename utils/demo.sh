#!/usr/bin/env bash
# Sets up, builds, and runs memopt on the bundled attention example (1024
# tokens): AutoChunk chunks the rows around the memory peak, chunk-to-scf
# lowers the regions to loops, and memopt-run measures the original and the
# optimized program side by side: peak memory, time, and equal outputs.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build"

"$root/utils/install-deps.sh"
mkdir -p "$build"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release > "$build/configure.log" \
  || { cat "$build/configure.log"; exit 1; }
ninja -C "$build" > "$build/build.log" || { cat "$build/build.log"; exit 1; }

example="$root/utils/examples/attention.mlir"
pipeline='builtin.module(autochunk{budget-ratio=0.2},func.func(chunk-to-scf))'
echo "== memopt-opt --pass-pipeline='$pipeline' $(basename "$example")"
"$build/bin/memopt-opt" "$example" --pass-pipeline="$pipeline" -o /dev/null 2>&1 \
  | grep 'remark: autochunk' | sed 's/^.*remark: //'
echo
echo "== measured: the original against the optimized program"
"$build/bin/memopt-run" "$example" --compare --pipeline="$pipeline" --tolerance=0 2>/dev/null

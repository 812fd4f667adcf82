#!/usr/bin/env bash
# Sets up, builds, and runs memopt on the bundled attention example: which
# dimensions the ops around the memory peak can be chunked along.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build"

"$root/utils/install-deps.sh"
mkdir -p "$build"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release > "$build/configure.log" \
  || { cat "$build/configure.log"; exit 1; }
ninja -C "$build" > "$build/build.log" || { cat "$build/build.log"; exit 1; }

example="$root/utils/examples/attention.mlir"
echo "== memopt on $(basename "$example")"
"$build/bin/memopt-opt" "$example" --print-dimension-flow=mode=function -o /dev/null

#!/usr/bin/env bash
# Start-up cost: memopt-opt against upstream mlir-opt on an empty module,
# measured side by side (interleaved runs) in one invocation.
#   utils/bench-startup.sh [build dir] [runs]
# Target: memopt-opt's median no more than 1.5x mlir-opt's.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
runs="${2:-41}"
memopt="$build/bin/memopt-opt"
upstream=/usr/lib/llvm-22/bin/mlir-opt
[ -x "$memopt" ] || { echo "bench-startup: build memopt first ($memopt missing)" >&2; exit 1; }

input="$(mktemp --suffix=.mlir)"
trap 'rm -f "$input"' EXIT
echo 'module {}' > "$input"

# Microseconds one run of "$@" takes.
elapsed() {
  local start end
  start=$(date +%s%N)
  "$@" "$input" > /dev/null
  end=$(date +%s%N)
  echo $(((end - start) / 1000))
}

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

ours=(); theirs=()
"$memopt" "$input" > /dev/null; "$upstream" "$input" > /dev/null   # warm the page cache
for _ in $(seq "$runs"); do
  ours+=("$(elapsed "$memopt")")
  theirs+=("$(elapsed "$upstream")")
done
m=$(printf '%s\n' "${ours[@]}" | median)
u=$(printf '%s\n' "${theirs[@]}" | median)
echo "runs: $runs (interleaved)"
echo "memopt-opt median: $((m / 1000)).$(printf '%03d' $((m % 1000))) ms"
echo "mlir-opt median:   $((u / 1000)).$(printf '%03d' $((u % 1000))) ms"
awk -v m="$m" -v u="$u" 'BEGIN {printf "ratio memopt-opt / mlir-opt: %.2f (target <= 1.50)\n", m / u}'

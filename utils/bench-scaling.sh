#!/usr/bin/env bash
# Scaling benchmark of every memopt pass (not a test). Each pass runs on
# chains of N elementwise linalg.generic ops (utils/gen-chain.sh: each with
# its tensor.empty destination, 2N + 2 ops in all, alternating exp and tanh
# on tensor<64x16xf32>), and the table gives the pass's throughput in chain links
# per second of wall time (memopt-opt's startup and parsing included) for
# each N, then the ratio of the throughput at the largest N to the smallest.
# A pass that is near-linear in the number of ops keeps that ratio near 1
# (>= 0.5); a quadratic one drops it towards smallest/largest. At the
# smallest sizes memopt-opt's startup (about 0.1 s) dominates, so a linear
# pass shows a ratio above 1. A run longer than TIMEOUT seconds prints
# "timeout": its throughput is below N / TIMEOUT, and a ratio computed from
# that bound is marked "<".
#
#   utils/bench-scaling.sh [build dir]      SIZES="250 1000 4000" TIMEOUT=120 PASSES="..."
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
opt="$build/bin/memopt-opt"
[ -x "$opt" ] || { echo "bench-scaling: build memopt first ($opt missing)" >&2; exit 1; }
read -r -a sizes <<<"${SIZES:-250 1000 4000}"
timeout_s="${TIMEOUT:-120}"
# Every memopt pass (memopt-opt --help, MEMOPT PASSES), with its defaults.
default_passes="memory-estimate memopt-verify print-dimension-flow print-shape-symbols
  memory-schedule inplace-elementwise autochunk chunk-to-scf place-costs place-search
  place-to-shard spm-pin-fuse print-layer-graph spm-fold-norm-scale spm-to-memref remat
  print-remat-optimum remat-dynamic remat-to-runtime"
read -r -a passes <<<"$(echo ${PASSES:-$default_passes})"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

for n in "${sizes[@]}"; do "$root/utils/gen-chain.sh" "$n" >"$work/chain-$n.mlir"; done

printf '%-22s' pass
for n in "${sizes[@]}"; do printf ' %12s' "$n ops/s"; done
printf ' %10s\n' "ratio"
for pass in "${passes[@]}"; do
  printf '%-22s' "$pass"
  first="" last="" bound=""
  for n in "${sizes[@]}"; do
    start=$(date +%s.%N)
    if timeout "$timeout_s" "$opt" "$work/chain-$n.mlir" "--$pass" -o /dev/null 2>/dev/null; then
      status=ok
    else
      status=$?
    fi
    end=$(date +%s.%N)
    seconds=$(echo "$end - $start" | bc -l)
    if [ "$status" = 124 ]; then
      printf ' %12s' timeout
      rate=$(echo "$n / $timeout_s" | bc -l)
      bound="<"
    elif [ "$status" != ok ]; then
      printf ' %12s' "exit $status"
      rate=""
    else
      rate=$(echo "$n / $seconds" | bc -l)
      printf ' %12.0f' "$rate"
    fi
    [ -n "$first" ] || first="$rate"
    last="$rate"
  done
  if [ -n "$first" ] && [ -n "$last" ]; then
    printf ' %9s%.2f\n' "$bound" "$(echo "$last / $first" | bc -l)"
  else
    printf ' %10s\n' "-"
  fi
done

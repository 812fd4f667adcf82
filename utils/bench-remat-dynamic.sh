#!/usr/bin/env bash
# Run-time rematerialization benchmark (not a test): dynamic training steps
# (memopt-zoo --dynamic --train) measured at several runtime sizes (memopt-run
# --dim gives batch and sequence that size), unoptimized and through
# inplace-elementwise + memory-schedule + remat-dynamic + remat-to-runtime
# under a limit, side by side in one memopt-run --compare: peaks, their
# ratio, the time ratio, evictions, equal outputs. The static model of that
# size (memopt-zoo without --dynamic) through the static pipeline,
# inplace-elementwise + memory-schedule + remat with the limit as its
# budget, gives the static-shape peak the dynamic one is
# compared with (BladeDISC++'s claim: symbolic comparable to static). Times
# are ratios of the thread's CPU time (see harness.md, Timing): of the
# medians of the runs (time), and of their minima (tmin), which noise from
# other processes on the machine, always added, disturbs least. The work the
# regenerations recomputed (memopt_rt's recomputed_ops_per_run, the element
# operations remat-to-runtime costed them at) is given as a share of the
# step's work, the function's element operations that the static remat
# reports; beside it, the share the static remat recomputes. Unlike the
# time, these do not vary from run to run.
#
# The runtime stops evicting once a step fits under its limit, while the
# static remat's discrete steps may land well under the same budget. So the
# symbolic pipeline runs a second time with the static pipeline's measured
# peak as its limit: at_static is the peak it then reaches over the static
# one (at most 1: it matches the static result), recomp@s what it recomputes.
#
# The limit is LIMIT_RATIO times the unoptimized peak of that size (measured
# first); LIMIT_RATIO=0 passes a 1-byte limit, so memopt_rt evicts whatever
# lowers the peak (the lowest peak it reaches with the inserted remat).
#
# The dynamic model states what the workload guarantees: batch and sequence
# (the shape symbols s0 and s1) are at least the smallest of DIMS
# (memopt.symbol_bounds), so that sizes that differ only by a constant
# (a weight gradient against an activation) compare.
#
#   utils/bench-remat-dynamic.sh [build dir]
# Environment: DIMS (default "16 32 48"), RUNS (default 3), LIMIT_RATIO
# (default 0.6), OPTIONS (remat-dynamic options, default none).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
bin="$build/bin"
dims="${DIMS:-16 32 48}"
runs="${RUNS:-3}"
limit_ratio="${LIMIT_RATIO:-0.6}"
options="${OPTIONS:-}"
for tool in memopt-zoo memopt-opt memopt-run; do
  [ -x "$bin/$tool" ] || { echo "bench-remat-dynamic: build memopt first ($bin/$tool missing)" >&2; exit 1; }
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
pipeline="builtin.module(func.func(inplace-elementwise,memory-schedule,remat-dynamic{$options}),remat-to-runtime)"
static_pipeline() { echo "builtin.module(func.func(inplace-elementwise,memory-schedule,remat{budget=$1 allow-partial=true}))"; }
min_dim="$(printf '%s\n' $dims | sort -n | head -1)"
bounds="memopt.symbol_bounds = {s0 = [$min_dim, 1048576], s1 = [$min_dim, 1048576]}"

# Workloads: name, then memopt-zoo arguments (training step, small widths so
# that the naive loops of the harness stay fast).
workloads=(
  "gpt2-block|gpt2-block --hidden=64 --heads=2 --train"
  "llama-block|llama-block --hidden=64 --heads=2 --train"
)

row() { awk -v key="$1" '$1 == key":" { print $2, $3, $4 }' "$2"; }
outputs_of() { awk '$1 == "outputs:" { $1 = ""; print substr($0, 2) }' "$1"; }

echo "pipeline: $pipeline; static: $(static_pipeline LIMIT); limit: $limit_ratio x unoptimized peak; bounds: $bounds"
printf '%-12s %4s %12s %12s %7s %12s %9s %7s %7s %9s %8s %8s %9s %9s %s\n' workload dim peak_unopt \
  peak_remat ratio peak_static dyn/stat time tmin evictions recomp static_re at_static recomp@s outputs
for entry in "${workloads[@]}"; do
  name="${entry%%|*}"
  args="${entry#*|}"
  dynamic="$work/$name-dynamic.mlir"
  # shellcheck disable=SC2086
  "$bin/memopt-zoo" $args --seq=16 --dynamic -o "$work/$name-unbounded.mlir"
  sed "s/attributes {memopt.model = \"\([a-z0-9-]*\)\"}/attributes {memopt.model = \"\1\", $bounds}/" \
    "$work/$name-unbounded.mlir" > "$dynamic"
  grep -q memopt.symbol_bounds "$dynamic" || { echo "bench-remat-dynamic: no function attributes to bound in $name" >&2; exit 1; }
  for dim in $dims; do
    base="$work/$name-$dim-base.txt"
    "$bin/memopt-run" "$dynamic" --dim="$dim" --runs=1 > "$base"
    peak_unopt="$(awk '$1 == "peak_bytes:" { print $2 }' "$base")"
    limit="$(awk -v p="$peak_unopt" -v r="$limit_ratio" 'BEGIN { l = int(p * r); print (l < 1 ? 1 : l) }')"
    out="$work/$name-$dim.txt"
    "$bin/memopt-run" "$dynamic" --dim="$dim" --runs="$runs" --compare --tolerance=0 \
      --limit-bytes="$limit" --pipeline="$pipeline" > "$out" 2> "$out.err"
    static="$work/$name-$dim-static.mlir"
    # shellcheck disable=SC2086
    "$bin/memopt-zoo" $args --batch="$dim" --seq="$dim" -o "$static"
    "$bin/memopt-run" "$static" --runs=1 --pipeline="$(static_pipeline "$limit")" \
      > "$out.static" 2> "$out.static.err"
    read -r _ peak_remat ratio <<< "$(row peak_bytes "$out")"
    read -r _ time <<< "$(row cpu_ms_median "$out" | awk '{ print $1, $3 }')"
    read -r _ time_min <<< "$(row cpu_ms_min "$out" | awk '{ print $1, $3 }')"
    read -r _ evictions _ <<< "$(row evictions_per_run "$out")"
    read -r _ recomputed _ <<< "$(row recomputed_ops_per_run "$out")"
    # "... N element operations recomputed (P% of the function's W)": W is the step's work.
    read -r static_share step_work <<< "$(sed -n "s/.*recomputed (\([0-9.]*\)% of the function's \([0-9.e+]*\)).*/\1 \2/p" \
      "$out.static.err" | tail -1)"
    [ -n "${step_work:-}" ] || { echo "bench-remat-dynamic: no remat remark for $name at $dim" >&2; exit 1; }
    share="$(awk -v r="$recomputed" -v w="$step_work" 'BEGIN { printf "%.1f%%", 100 * r / w }')"
    peak_static="$(awk '$1 == "peak_bytes:" { print $2 }' "$out.static")"
    dyn_static="$(awk -v d="$peak_remat" -v s="$peak_static" 'BEGIN { printf "%.3f", d / s }')"
    matched="$work/$name-$dim-matched.txt"
    "$bin/memopt-run" "$dynamic" --dim="$dim" --runs=1 --compare --tolerance=0 \
      --limit-bytes="$peak_static" --pipeline="$pipeline" > "$matched" 2> "$matched.err"
    read -r _ peak_matched _ <<< "$(row peak_bytes "$matched")"
    read -r _ recomputed_matched _ <<< "$(row recomputed_ops_per_run "$matched")"
    at_static="$(awk -v d="$peak_matched" -v s="$peak_static" 'BEGIN { printf "%.3f", d / s }')"
    share_matched="$(awk -v r="$recomputed_matched" -v w="$step_work" 'BEGIN { printf "%.1f%%", 100 * r / w }')"
    outputs="$(outputs_of "$out")"
    outputs_matched="$(outputs_of "$matched")"
    [ "$outputs_matched" = "$outputs" ] || outputs="$outputs (at the static peak: $outputs_matched)"
    printf '%-12s %4s %12s %12s %7s %12s %9s %7s %7s %9s %8s %8s %9s %9s %s\n' "$name" "$dim" \
      "$peak_unopt" "$peak_remat" "$ratio" "$peak_static" "$dyn_static" "$time" "$time_min" "$evictions" \
      "$share" "$static_share%" "$at_static" "$share_matched" "$outputs"
  done
done

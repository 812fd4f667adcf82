#!/usr/bin/env bash
# Pin-or-Fuse benchmark (not a test): MobileNetV1, MobileNetV2, EfficientNet-B0
# and ResNet-50 from memopt-zoo (224x224, f32) on each spm-pin-fuse target
# preset. One spm-pin-fuse run per model and preset writes a report holding
# the fuse-only, pin-only and DP plans side by side: off-chip feature-map
# bytes and modelled cycles of each, the DP's reduction against fuse-only,
# and the wall time of memopt-opt running the DP alone (parse, plan, rewrite,
# print). Averages over all rows close the table, against the paper's figures
# (-50% transfer, -15% latency versus fusion alone).
#
#   utils/bench-pin-fuse.sh [build dir]
# Environment: MODELS (default "mobilenet-v1 mobilenet-v2 efficientnet-b0
# resnet50"), TARGETS (default "spm-512k spm-2m spm-8m"), OBJECTIVE (latency),
# MAX_GROUP (most layers per fused group, for the DP and both baselines;
# default 16: fusion alone needs long groups to be at its best), ILP_MODELS
# (memopt-zoo arguments joined by '|', one model per word), ILP_TIME_LIMIT (20 s).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
bin="$build/bin"
models="${MODELS:-mobilenet-v1 mobilenet-v2 efficientnet-b0 resnet50}"
targets="${TARGETS:-spm-512k spm-2m spm-8m}"
objective="${OBJECTIVE:-latency}"
max_group="${MAX_GROUP:-16}"
ilp_models="${ILP_MODELS:-mobilenet-v1|--blocks=3|--resolution=64 mobilenet-v2|--blocks=2|--resolution=64 efficientnet-b0|--blocks=1|--resolution=64 resnet50|--blocks=1|--resolution=64}"
ilp_limit="${ILP_TIME_LIMIT:-20}"
for tool in memopt-zoo memopt-opt; do
  [ -x "$bin/$tool" ] || { echo "bench-pin-fuse: build memopt first ($bin/$tool missing)" >&2; exit 1; }
done
command -v jq >/dev/null || { echo "bench-pin-fuse: needs jq" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

printf '%-16s %-9s %14s %14s %14s %12s %12s %12s %9s %9s %8s\n' model target \
  "fuse-only B" "pin-only B" "dp B" "fuse-only cyc" "pin-only cyc" "dp cyc" "dB %" "dcyc %" "time s"
sum_bytes=0
sum_cycles=0
rows=0
slowest=0
for model in $models; do
  "$bin/memopt-zoo" "$model" -o "$work/$model.mlir"
  for target in $targets; do
    report="$work/$model-$target.json"
    "$bin/memopt-opt" "$work/$model.mlir" \
      --spm-pin-fuse="target=$target objective=$objective max-group=$max_group report=$report" -o /dev/null 2>/dev/null
    start=$(date +%s.%N)
    "$bin/memopt-opt" "$work/$model.mlir" --spm-pin-fuse="target=$target objective=$objective max-group=$max_group" \
      -o "$work/out.mlir" 2>/dev/null
    end=$(date +%s.%N)
    seconds=$(echo "$end - $start" | bc -l)
    read -r fb pb db fc pc dc < <(jq -r '.functions[0].baselines |
      "\(."fuse-only".offchip_bytes) \(."pin-only".offchip_bytes) \(.dp.offchip_bytes) \(."fuse-only".cycles) \(."pin-only".cycles) \(.dp.cycles)"' "$report")
    dbytes=$(echo "100 * ($fb - $db) / $fb" | bc -l)
    dcycles=$(echo "100 * ($fc - $dc) / $fc" | bc -l)
    printf '%-16s %-9s %14d %14d %14d %12d %12d %12d %9.1f %9.1f %8.2f\n' "$model" "$target" \
      "$fb" "$pb" "$db" "$fc" "$pc" "$dc" "$dbytes" "$dcycles" "$seconds"
    sum_bytes=$(echo "$sum_bytes + $dbytes" | bc -l)
    sum_cycles=$(echo "$sum_cycles + $dcycles" | bc -l)
    slowest=$(echo "if ($seconds > $slowest) $seconds else $slowest" | bc -l)
    rows=$((rows + 1))
  done
done
printf '\naverage over %d model x target rows: off-chip feature-map bytes -%.1f%% (target >= 50%%), ' \
  "$rows" "$(echo "$sum_bytes / $rows" | bc -l)"
printf 'modelled latency -%.1f%% (target >= 15%%) versus fuse-only\n' "$(echo "$sum_cycles / $rows" | bc -l)"
printf 'slowest memopt-opt run with spm-pin-fuse: %.2f s (target < 1 s per model)\n' "$slowest"

# The DP's gap to the ILP optimum, on the models cut to their first blocks
# (whole networks exceed GLPK's time limit).
printf '\n%-34s %-9s %12s %12s %8s\n' "model (ILP-sized)" target "dp cyc" "ilp cyc" "gap %"
worst=0
for spec in $ilp_models; do
  name="${spec//|/ }"
  read -r -a zoo_args <<< "$name"
  "$bin/memopt-zoo" "${zoo_args[@]}" -o "$work/ilp.mlir"
  for target in $targets; do
    output=$("$bin/memopt-opt" "$work/ilp.mlir" \
      --spm-pin-fuse="target=$target objective=$objective max-group=$max_group strategy=ilp ilp-time-limit=$ilp_limit" \
      -o /dev/null 2>&1 || true)
    if remark=$(echo "$output" | grep 'dp reaches'); then
      read -r dp ilp gap < <(echo "$remark" | sed -n 's/.*dp reaches \([0-9]*\) against the ilp optimum \([0-9]*\): gap \([-0-9.]*\)%.*/\1 \2 \3/p')
      printf '%-34s %-9s %12d %12d %8.3f\n' "$name" "$target" "$dp" "$ilp" "$gap"
      worst=$(echo "if ($gap > $worst) $gap else $worst" | bc -l)
    else
      printf '%-34s %-9s %12s %12s   %s\n' "$name" "$target" - - \
        "$(echo "$output" | sed -n 's/.*error: spm-pin-fuse: //p' | head -1)"
    fi
  done
done
printf 'largest DP/ILP gap: %.3f%% (target <= 1%%)\n' "$worst"

#!/usr/bin/env bash
# spm-to-memref benchmark (not a test): MobileNetV1, MobileNetV2,
# EfficientNet-B0 and ResNet-50 from memopt-zoo (224x224, f32) on each
# spm-pin-fuse target preset. Per model and preset: spm-pin-fuse plans
# (its wall time), spm-to-memref lowers with report-copies (its wall time),
# and upstream mlir-opt bufferizes the result with the scratchpad in memory
# space 1 (accepted or not, its wall time). The copied bytes are the
# feature-map bytes the lowered tile loops move between off-chip memory and
# the scratchpad, counted by running the loops symbolically; the modelled
# bytes are spm-pin-fuse's `spm.offchip_bytes`: their ratio is how far the
# cost model is from the program it plans. Averages close the table.
#
#   utils/bench-spm-to-memref.sh [build dir]
# Environment: MODELS (default "mobilenet-v1 mobilenet-v2 efficientnet-b0
# resnet50"), TARGETS (default "spm-512k spm-2m spm-8m"), ZOO_ARGS (extra
# memopt-zoo options, e.g. "--resolution=96"), SHARED_MODELS (CNNs of public
# projects measured too when SHARED_MODELS_DIR, default ../shared/models,
# holds them; empty: none).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
bin="$build/bin"
models="${MODELS:-mobilenet-v1 mobilenet-v2 efficientnet-b0 resnet50}"
targets="${TARGETS:-spm-512k spm-2m spm-8m}"
zoo_args="${ZOO_ARGS:-}"
shared="${SHARED_MODELS_DIR:-$root/../shared/models}"
shared_models="${SHARED_MODELS-tpp-mobilenet-with-batchnorm tpp-mobilenet-without-batchnorm tpp-resnet50v1 tpp-resnet50-bottleneck-block mobilenet_v2_torch_nchw32.linalg efficientnet_b0_torch_nchw32.linalg}"
mlir_opt="${MLIR_OPT:-/usr/lib/llvm-22/bin/mlir-opt}"
for tool in "$bin/memopt-zoo" "$bin/memopt-opt" "$mlir_opt"; do
  [ -x "$tool" ] || { echo "bench-spm-to-memref: $tool missing (build memopt first)" >&2; exit 1; }
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

seconds_of() { # command...: runs it, prints its wall time in seconds; fails with it
  local start end
  start=$(date +%s.%N)
  "$@"
  end=$(date +%s.%N)
  echo "$end - $start" | bc -l
}

printf '%-16s %-9s %6s %5s %13s %13s %7s %13s %8s %8s %9s %9s\n' model target groups pins \
  "modelled B" "copied B" "ratio" "weights B" "plan s" "lower s" "upstream" "bufferize s"
rows=0
sum_ratio=0
slowest_lower=0
failures=0
# measure NAME INPUT: plans, lowers and bufferizes INPUT on every target.
measure() {
  local model="$1" input="$2" target planned lowered plan_s lower_s groups pins modelled copied
  local weights upstream upstream_s ratio
  for target in $targets; do
    planned="$work/$model-$target.spm.mlir"
    lowered="$work/$model-$target.lowered.mlir"
    plan_s=$(seconds_of "$bin/memopt-opt" "$input" --spm-pin-fuse="target=$target" \
      -o "$planned" 2>/dev/null)
    if ! lower_s=$(seconds_of "$bin/memopt-opt" "$planned" --spm-to-memref="report-copies" \
        -o "$lowered" 2>"$work/remarks"); then
      printf '%-16s %-9s lowering failed: %s\n' "$model" "$target" "$(grep -m1 error "$work/remarks")"
      failures=$((failures + 1))
      continue
    fi
    groups=$(grep -c '"spm.group"' "$planned" || true)
    pins=$(grep -c '"spm.pin"' "$planned" || true)
    modelled=$(grep -o 'spm.offchip_bytes = [0-9]*' "$planned" | grep -o '[0-9]*$')
    # A model of several functions gets one remark per function.
    copied=$(grep -o 'copies [0-9]* feature-map bytes' "$work/remarks" | awk '{ s += $2 } END { print s }')
    weights=$(grep -o '[0-9]* weight bytes' "$work/remarks" | awk '{ s += $1 } END { print s }')
    if upstream_s=$(seconds_of "$mlir_opt" "$lowered" --one-shot-bufferize=bufferize-function-boundaries \
        --buffer-deallocation-pipeline --convert-bufferization-to-memref -o /dev/null 2>/dev/null); then
      upstream=accepted
    else
      upstream=REJECTED
      upstream_s=0
      failures=$((failures + 1))
    fi
    ratio=$(echo "$copied / $modelled" | bc -l)
    printf '%-16s %-9s %6d %5d %13d %13d %7.3f %13d %8.2f %8.2f %9s %9.2f\n' "${model:0:16}" "$target" \
      "$groups" "$pins" "$modelled" "$copied" "$ratio" "$weights" "$plan_s" "$lower_s" "$upstream" "$upstream_s"
    rows=$((rows + 1))
    sum_ratio=$(echo "$sum_ratio + $ratio" | bc -l)
    slowest_lower=$(echo "if ($lower_s > $slowest_lower) $lower_s else $slowest_lower" | bc -l)
  done
}

for model in $models; do
  # shellcheck disable=SC2086
  "$bin/memopt-zoo" "$model" $zoo_args -o "$work/$model.mlir"
  measure "$model" "$work/$model.mlir"
done
for model in $shared_models; do
  [ -f "$shared/$model.mlir" ] || continue
  measure "$model" "$shared/$model.mlir"
done
if [ "$rows" -gt 0 ]; then
  printf '\n%d rows: copied / modelled feature-map bytes on average %.3f; slowest spm-to-memref run %.2f s; %d failures\n' \
    "$rows" "$(echo "$sum_ratio / $rows" | bc -l)" "$slowest_lower" "$failures"
fi
[ "$failures" -eq 0 ]

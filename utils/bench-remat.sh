#!/usr/bin/env bash
# Static rematerialization benchmark (not a test). For GPT-2 (2 layers) and
# Llama-block training steps from memopt-zoo at several sequence lengths:
# the unoptimized program and the program through remat (alone, and after
# memory-schedule) are measured side by side in one memopt-run --compare:
# peak heap bytes before/after, the reduction, the time ratio (fastest of
# RUNS calls), whether the gradients are bit-identical; the pass's compile
# time; and the gap of the heuristic to Checkmate's ILP where GLPK finishes
# (print-remat-optimum). Then remat's compile time on a full-size GPT-2
# (12 layers, 1024 tokens) and the ILP on small training steps.
#
#   utils/bench-remat.sh [build dir]
# Environment: RATIO (budget-ratio, default 0.6), SEQS (default "64 128 256"; empty: skip the table),
# RUNS (default 3), ILP_SECONDS (GLPK time limit per ILP, default 20).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
bin="$build/bin"
ratio="${RATIO:-0.6}"
seqs="${SEQS-64 128 256}"
runs="${RUNS:-3}"
ilp_seconds="${ILP_SECONDS:-20}"
for tool in memopt-zoo memopt-opt memopt-run; do
  [ -x "$bin/$tool" ] || { echo "bench-remat: build memopt first ($bin/$tool missing)" >&2; exit 1; }
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# allow-partial: where the budget is out of reach, measure what remat reached.
remat="remat{budget-ratio=$ratio allow-partial=true}"

# Workloads: name, then memopt-zoo arguments with SEQ standing for the length.
workloads=(
  "gpt2-2layers|gpt2 --layers=2 --hidden=64 --heads=2 --vocab=100 --positions=256 --seq=SEQ --train"
  "llama-block|llama-block --hidden=64 --heads=2 --seq=SEQ --train"
)
pipelines=(
  "remat|builtin.module(func.func($remat))"
  "schedule+remat|builtin.module(func.func(memory-schedule,$remat))"
)

field() { awk -v key="$1" '$1 == key":" { print $2, $3, $4 }' "$2"; }

# Wall seconds of one memopt-opt run of pipeline $2 on $1.
compile_seconds() {
  local start end
  start="$(date +%s.%N)"
  "$bin/memopt-opt" "$1" --pass-pipeline="$2" -o /dev/null 2>/dev/null
  end="$(date +%s.%N)"
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.2f", e - s }'
}

# The gap remark of print-remat-optimum, shortened for the table.
ilp_gap() {
  local remark
  remark="$("$bin/memopt-opt" "$1" -o /dev/null \
    --pass-pipeline="builtin.module(func.func(print-remat-optimum{budget-ratio=$ratio time-limit=$ilp_seconds max-nodes=400}))" \
    2>&1 | grep -o 'remark: print-remat-optimum: .*' || true)"
  if [[ "$remark" == *"gap "* ]]; then
    echo "${remark##*; gap }"
  elif [[ "$remark" == *"no solution in time"* ]]; then
    echo "ILP: no solution in ${ilp_seconds} s"
  else
    echo "ILP: ${remark#remark: print-remat-optimum: }"
  fi
}

echo "remat benchmark: budget-ratio $ratio, $runs timed calls each, peaks measured by memopt-run"
printf '%-13s %5s %-15s %10s %10s %9s %7s %8s %s\n' workload seq pipeline peak_before peak_after \
  reduction time compile outputs
for entry in "${workloads[@]}"; do
  name="${entry%%|*}"
  args="${entry#*|}"
  for seq in $seqs; do
    model="$work/$name-$seq.mlir"
    # shellcheck disable=SC2086
    "$bin/memopt-zoo" ${args//SEQ/$seq} -o "$model"
    for pipeline_entry in "${pipelines[@]}"; do
      label="${pipeline_entry%%|*}"
      pipeline="${pipeline_entry#*|}"
      out="$work/$name-$seq-$label.txt"
      if ! "$bin/memopt-run" "$model" --compare --runs="$runs" --pipeline="$pipeline" \
           --tolerance=0 > "$out" 2>"$out.err"; then
        printf '%-13s %5s %-15s %s\n' "$name" "$seq" "$label" "failed: $(tail -1 "$out.err")"
        continue
      fi
      read -r before after _ <<< "$(field peak_bytes "$out")"
      read -r _ _ time_ratio <<< "$(field time_ms_min "$out")"
      verdict="$(awk '$1 == "outputs:" { print $2 }' "$out")"
      reduction="$(awk -v b="$before" -v a="$after" 'BEGIN { printf "%.1f%%", 100 * (1 - a / b) }')"
      printf '%-13s %5s %-15s %10s %10s %9s %7s %7ss %s\n' "$name" "$seq" "$label" "$before" \
        "$after" "$reduction" "x$time_ratio" "$(compile_seconds "$model" "$pipeline")" "$verdict"
    done
    printf '%-13s %5s %-15s %s\n' "$name" "$seq" "ILP gap" "$(ilp_gap "$model")"
  done
done

echo
echo "compile time of remat on GPT-2, 12 layers, 1024 tokens (estimated peaks in the remark):"
big="$work/gpt2-12.mlir"
"$bin/memopt-zoo" gpt2 --layers=12 --train -o "$big"
# User CPU seconds as well as wall seconds: the machine may be shared.
TIMEFORMAT='%R %U'
remark_file="$work/gpt2-12.remark"
{ time "$bin/memopt-opt" "$big" --pass-pipeline="builtin.module(func.func($remat))" \
    -o /dev/null 2> "$remark_file"; } 2> "$work/gpt2-12.time"
{ time "$bin/memopt-opt" "$big" -o /dev/null; } 2> "$work/gpt2-12.parse-time"
remark="$(grep -o 'remark: remat: estimated peak [^:]*' "$remark_file" | head -1 || true)"
read -r wall user < "$work/gpt2-12.time"
read -r parse_wall parse_user < "$work/gpt2-12.parse-time"
echo "  $remark"
echo "  memopt-opt with remat: ${wall} s wall, ${user} s user; without (parse and print): ${parse_wall} s wall, ${parse_user} s user"

echo
echo "the heuristic against the ILP on small training steps (budget-ratio 0.85 and $ratio):"
small=(
  "gpt2-block|gpt2-block --hidden=32 --heads=2 --seq=32 --train"
  "llama-block|llama-block --hidden=32 --heads=2 --seq=32 --train"
)
for entry in "${small[@]}"; do
  name="${entry%%|*}"
  args="${entry#*|}"
  model="$work/small-$name.mlir"
  # shellcheck disable=SC2086
  "$bin/memopt-zoo" $args -o "$model"
  for r in 0.85 "$ratio"; do
    remark="$("$bin/memopt-opt" "$model" -o /dev/null \
      --pass-pipeline="builtin.module(func.func(print-remat-optimum{budget-ratio=$r time-limit=$ilp_seconds max-nodes=400}))" \
      2>&1 | grep -o 'remark: print-remat-optimum: .*' || true)"
    printf '  %-12s %s\n' "$name" "${remark#remark: print-remat-optimum: }"
  done
done

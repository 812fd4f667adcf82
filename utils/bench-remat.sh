#!/usr/bin/env bash
# Static rematerialization benchmark (not a test). For GPT-2 (2 layers) and
# Llama-block training steps from memopt-zoo at several sequence lengths:
# the unoptimized program and the program through remat (alone, after
# memory-schedule, and after inplace-elementwise + memory-schedule) are measured side by side in one memopt-run --compare:
# peak heap bytes before/after, the reduction, the time ratio (fastest of
# RUNS calls), whether the gradients are bit-identical; the pass's compile
# time. Then remat's compile time on a full-size GPT-2 (12 layers, 1024
# tokens), and the heuristic against Checkmate's ILP (print-remat-optimum)
# with each solver, CBC and GLPK, on the benchmark training steps at 64
# tokens and on smaller ones.
#
#   utils/bench-remat.sh [build dir]
# Environment: RATIO (budget-ratio, default 0.6), SEQS (default "64 128 256"; empty: skip the table),
# RUNS (default 3), ILP_SECONDS (solver time limit per ILP, default 20),
# ILP_RATIOS (budget-ratios of the ILP table, default "RATIO 0.8"; empty: skip it).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
bin="$build/bin"
ratio="${RATIO:-0.6}"
seqs="${SEQS-64 128 256}"
runs="${RUNS:-3}"
ilp_seconds="${ILP_SECONDS:-20}"
ilp_ratios="${ILP_RATIOS-$ratio 0.8}"
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
  "inplace+schedule+remat|builtin.module(func.func(inplace-elementwise,memory-schedule,$remat))"
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

# One word for what the solver proved, from an ILP's part of the remark.
ilp_status() {
  case "$1" in
    *"proven optimal"*) echo optimal ;;
    *"proven within"*) echo within-gap ;;
    *"best found in time"*) echo feasible ;;
    *"no solution in time"*) echo no-solution ;;
    *"infeasible"*) echo infeasible ;;
    *) echo "?" ;;
  esac
}

# The ILP columns of a print-remat-optimum remark. When the heuristic fell
# short of the budget, the ILP ran again at the peak the heuristic reached
# ("ILP at R"), and that second ILP is the one compared.
ilp_row() {
  local remark="$1" first compared status optimum bound heuristic gap
  first="${remark#*at budget-ratio }"
  first="${first%%; heuristic:*}"
  status="$(ilp_status "$first")"
  compared="$first"
  if [[ "$remark" == *"; ILP at "* ]]; then
    compared="${remark##*; ILP at }"
    compared="${compared%%; gap*}"
    status="$status, at ${compared%%:*}: $(ilp_status "$compared")"
  fi
  heuristic="$(grep -o 'heuristic: .*' <<< "$remark" | grep -o 'recomputes [0-9.e+]*' | head -1)"
  optimum="$(grep -o 'optimum recomputes [0-9.e+]*' <<< "$compared" | awk '{ print $3 }')"
  bound="$(grep -o 'at least [0-9.e+]*' <<< "$compared" | awk '{ print $3 }')"
  if [[ "$remark" =~ \(([-0-9.]+)%\ of\ the\ optimum ]]; then
    gap="${BASH_REMATCH[1]}%"
  elif [[ "$remark" =~ \(([-0-9.]+)%\ of\ the\ bound ]]; then
    gap="<=${BASH_REMATCH[1]}%"
  else
    gap="-"
  fi
  printf '%-34s %10s %10s %11s %s' "$status" "${optimum:--}" "${bound:--}" \
    "${heuristic#recomputes }" "$gap"
}

if [ -n "$ilp_ratios" ]; then
  echo
  echo "the heuristic against Checkmate's ILP, ${ilp_seconds} s per ILP (recompute costs in element"
  echo "operations; gap: the heuristic's cost over the optimum's, or <= over the solver's lower bound):"
  printf '%-16s %7s %5s %-6s %-34s %10s %10s %11s %s\n' graph buffers ratio solver status \
    optimum bound heuristic gap
  ilp_graphs=(
    "gpt2-2layers-64|gpt2 --layers=2 --hidden=64 --heads=2 --vocab=100 --positions=256 --seq=64 --train"
    "llama-block-64|llama-block --hidden=64 --heads=2 --seq=64 --train"
    "gpt2-block-32|gpt2-block --hidden=32 --heads=2 --seq=32 --train"
    "mha-32|mha --hidden=32 --heads=2 --seq=32 --train"
  )
  for entry in "${ilp_graphs[@]}"; do
    name="${entry%%|*}"
    args="${entry#*|}"
    model="$work/ilp-$name.mlir"
    # shellcheck disable=SC2086
    "$bin/memopt-zoo" $args -o "$model"
    for r in $ilp_ratios; do
      for solver in cbc glpk; do
        remark="$("$bin/memopt-opt" "$model" -o /dev/null \
          --pass-pipeline="builtin.module(func.func(print-remat-optimum{budget-ratio=$r solver=$solver time-limit=$ilp_seconds max-nodes=400}))" \
          2>&1 | grep -o 'remark: print-remat-optimum: .*' || true)"
        remark="${remark#remark: print-remat-optimum: }"
        buffers="$(grep -o '^[0-9]* buffers' <<< "$remark" | awk '{ print $1 }')"
        printf '%-16s %7s %5s %-6s %s\n' "$name" "${buffers:-?}" "$r" "$solver" "$(ilp_row "$remark")"
      done
    done
  done
fi

#!/usr/bin/env bash
# Runs place-search's plans on MPI ranks (not a test). Each zoo transformer
# (memopt-zoo gpt2 and bert-encoder: 2 layers; llama-block: one block; all
# width 64 unless asked otherwise, 4 heads, 16 tokens), its forward function and its training
# step, is placed by place-search{memory=program} and lowered by
# place-to-shard, in two settings:
#   batch:  1, 2 and 4 devices of 1 GiB for a global batch of 16, small
#           enough that the plan changes with the device count;
#   tensor: 2 and 4 devices for a global batch of 1 (one sample, so the
#           devices go to tensor parallelism or pipeline stages).
# A stage function runs the batch its program holds, while place-search
# predicts one microbatch per device: so the program that runs is generated
# with the plan's microbatch x data-parallel degree as its batch (one
# microbatch per data rank) and placed again, which must give the same
# plan. A forward plan with a pipeline of one-device stages runs whole:
# place-to-shard's pipeline driver on one MPI rank per stage (memopt-run
# --ranks), each rank's outputs against the model run on one device, one row
# per rank with the stage it runs. Otherwise (training steps, and stages on
# several devices, which the driver cannot run:
# place-to-shard{pipeline-driver=false}) every stage function runs with
# memopt-run on as many MPI ranks as its grid has devices (--ranks; a 1x1
# grid runs on one device), which compares each rank's slice of every result
# with the single-device run of the stage. One row per stage: the plan
# (pipeline/tensor/data parallel), the ranks, the verdict on the outputs, the
# bytes each rank holds at its peak (inputs_bytes + peak_bytes: its slices of
# the parameters and data, and what the call allocates), place-search's
# memory per device for the stage, predicted / held for each rank, and the
# slowest rank's median time. A step that fails prints its first error
# instead; the matrix goes on.
#
#   utils/bench-place-run.sh [build dir] [width]
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
width="${2:-64}"
[[ "$width" =~ ^[0-9]+$ ]] && [ $((width % 4)) -eq 0 ] && [ "$width" -gt 0 ] ||
  { echo "bench-place-run: the width must be a positive multiple of the 4 heads, got '$width'" >&2; exit 1; }
bin="$build/bin"
for tool in memopt-zoo memopt-opt memopt-run; do
  [ -x "$bin/$tool" ] || { echo "bench-place-run: build memopt first ($bin/$tool missing)" >&2; exit 1; }
done
command -v jq >/dev/null || { echo "bench-place-run: needs jq" >&2; exit 1; }
command -v mpirun.mpich >/dev/null || { echo "bench-place-run: needs MPICH (utils/install-deps.sh)" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Each model: its zoo arguments and its leading data arguments (BERT's mask
# is data too); a training step's labels or target come last.
declare -A zooOf=(
  [gpt2]="gpt2 --layers=2 --hidden=$width --heads=4 --seq=16 --vocab=64 --positions=16"
  [bert-encoder]="bert-encoder --layers=2 --hidden=$width --heads=4 --seq=16"
  [llama-block]="llama-block --hidden=$width --heads=4 --seq=16"
)
declare -A dataOf=([gpt2]=1 [bert-encoder]=2 [llama-block]=1)
declare -A settingOf=(
  [batch]="global-batch=16 heads=4 hbm=1073741824"
  [tensor]="global-batch=1 max-microbatch=1 heads=4"
)
declare -A devicesOf=([batch]="1 2 4" [tensor]="2 4")
declare -A globalBatchOf=([batch]=16 [tensor]=1)

firstError() { grep -m1 -o 'error: .*' "$1" | cut -c1-150; }

format='%-13s %-8s %-7s %-7s %-6s %-5s %-30s %-5s %-17s %-22s %-10s %-18s %s\n'
row() { printf "$format" "$model" "$program" "$setting" "$devices" "$plan" "$batch" "$@"; }
failed() { printf '%-13s %-8s %-7s %-7s %s\n' "$model" "$program" "$setting" "$devices" "$1"; }

# predicted/held of every `rank R:` line of memopt-run's report.
ratios() { grep -o 'predicted/held=[0-9.]*' "$1" | cut -d= -f2 | sort -u | paste -sd, -; }

# The forward program's pipeline driver on one rank per stage, compared with
# the model before placement: one row per rank, its stage's held bytes
# against the stage's prediction.
runDriver() {
  local pipeline=$1 runnable=$2 ranks=${plan%%/*}
  if ! "$bin/memopt-run" "$runnable" --entry=forward --ranks="$ranks" --timeout=600 \
      --pipeline="$pipeline" >"$work/out" 2>"$work/err"; then
    verdict=$(grep -m1 -o '^outputs: [A-Za-z ]*' "$work/out" | cut -c10-)
    row "(driver)" "$ranks" "${verdict:+outputs $verdict; }$(firstError "$work/err")"
    return
  fi
  verdict=$(grep -m1 -o '^outputs: [a-z ]*' "$work/out" | cut -c10- | sed 's/ *$//')
  ms=$(grep -o '^rank [0-9]*: .*time_ms_median=[0-9.]*' "$work/out" | grep -o 'time_ms_median=[0-9.]*' | cut -d= -f2 | sort -g | tail -1)
  grep '^rank [0-9]*: stage=' "$work/out" | while read -r line; do
    stage=$(grep -o 'stage=@[A-Za-z0-9_]*' <<<"$line" | cut -c8-)
    held=$(grep -o 'held_bytes=[0-9]*' <<<"$line" | cut -d= -f2)
    predicted=$(grep -o 'predicted_bytes=[0-9]*' <<<"$line" | cut -d= -f2)
    ratio=$(grep -o 'predicted/held=[0-9.]*' <<<"$line" | cut -d= -f2)
    row "$stage (driver)" "$ranks" "$verdict" "${held:--}" "${predicted:--}" "${ratio:--}" "$ms"
  done
}

# The plan of a report: pipeline/tensor/data parallel and the microbatch.
planOf() { jq -r '.plan | "\(.pipeline)/\(.tensor_parallel)/\(.data_parallel) \(.microbatch)"' "$1"; }

# Places, lowers and runs `program` of `model` on `devices` in `setting`.
runPlan() {
  local zoo extra=() split="" data=${dataOf[$model]}
  read -r -a zoo <<<"${zooOf[$model]}"
  # The training step's labels (or target) come last: data, split by batch like the tokens.
  [ "$program" = train ] && extra=(--train) && split="trailing-data-arguments=1"
  local searched="$work/searched.mlir" placed="$work/placed.mlir" report="$work/plan.json"
  local placement="place-search{devices=$devices ${settingOf[$setting]} data-arguments=$data $split memory=program report=$report}"
  plan="" batch=""
  "$bin/memopt-zoo" "${zoo[@]}" --batch="${globalBatchOf[$setting]}" "${extra[@]}" -o "$work/program.mlir"
  if ! "$bin/memopt-opt" "$work/program.mlir" -o /dev/null 2>"$work/err" \
      --pass-pipeline="builtin.module($placement)"; then
    failed "place: $(firstError "$work/err")"
    return
  fi
  read -r plan microbatch <<<"$(planOf "$report")"
  # The program that runs: one microbatch per data rank, placed again.
  batch=$((microbatch * ${plan##*/}))
  local runnable="$work/runnable.mlir"
  "$bin/memopt-zoo" "${zoo[@]}" --batch="$batch" "${extra[@]}" -o "$runnable"
  if ! "$bin/memopt-opt" "$runnable" -o "$searched" 2>"$work/err" \
      --pass-pipeline="builtin.module($placement)" || [ "$(planOf "$report")" != "$plan $microbatch" ]; then
    failed "place at batch $batch: $(firstError "$work/err") (plan $(planOf "$report") against $plan $microbatch)"
    return
  fi
  if [ "$program" = forward ] && [ "${plan%%/*}" -gt 1 ] && [ "${plan#*/}" = 1/1 ]; then
    runDriver "builtin.module($placement,place-to-shard{data-arguments=$data})" "$runnable"
    return
  fi
  if ! "$bin/memopt-opt" "$searched" -o "$placed" 2>"$work/err" \
      --pass-pipeline="builtin.module(place-to-shard{pipeline-driver=false data-arguments=$data $split})"; then
    failed "place-to-shard: $(firstError "$work/err")"
    return
  fi
  # One line per stage function: its name and its grid's device count.
  local stages index=0
  stages=$(awk '/shard.grid @/ { match($0, /@[A-Za-z0-9_]+_grid/); name = substr($0, RSTART + 1, RLENGTH - 6);
                                 match($0, /shape = [0-9x]+/); split(substr($0, RSTART + 8, RLENGTH - 8), d, "x");
                                 n = 1; for (i in d) n *= d[i]; print name, n }' "$placed")
  while read -r stage ranks; do
    [ -n "$stage" ] || continue
    predicted=$(jq -r --argjson k "$index" '.plan.stages[$k].memory_bytes_per_device // "-"' "$report")
    index=$((index + 1))
    flags=(--entry="$stage" --timeout=600)
    [ "$ranks" -gt 1 ] && flags+=(--ranks="$ranks" --abs-tolerance=1e-8)
    if ! "$bin/memopt-run" "$placed" "${flags[@]}" >"$work/out" 2>"$work/err"; then
      verdict=$(grep -m1 -o '^outputs: [A-Za-z ]*' "$work/out" | cut -c10-)
      row "$stage" "$ranks" "${verdict:+outputs $verdict; }$(firstError "$work/err")"
      continue
    fi
    if [ "$ranks" -gt 1 ]; then
      verdict=$(grep -m1 -o '^outputs: [a-z ]*' "$work/out" | cut -c10- | sed 's/ *$//')
      held=$(grep -o '^rank [0-9]*: .*held_bytes=[0-9]*' "$work/out" | grep -o 'held_bytes=[0-9]*' | cut -d= -f2 | sort -u | paste -sd, -)
      ratio=$(ratios "$work/out")
      ms=$(grep -o '^rank [0-9]*: .*time_ms_median=[0-9.]*' "$work/out" | grep -o 'time_ms_median=[0-9.]*' | cut -d= -f2 | sort -g | tail -1)
    else
      verdict="one device"
      held=$(awk '/^inputs_bytes:|^peak_bytes:/ { held += $2 } END { print held }' "$work/out")
      ratio=$(awk -v p="$predicted" -v h="$held" 'BEGIN { if (p ~ /^[0-9]+$/) printf "%.3f", p / h; else print "-" }')
      ms=$(grep -m1 '^time_ms_median:' "$work/out" | awk '{print $2}')
    fi
    row "$stage" "$ranks" "$verdict" "$held" "$predicted" "$ratio" "$ms"
  done <<<"$stages"
}

printf "$format" model program setting devices plan batch stage ranks outputs \
  "held bytes per rank" predicted "predicted / held" "ms (slowest)"
for model in gpt2 bert-encoder llama-block; do
  for program in forward train; do
    for setting in batch tensor; do
      for devices in ${devicesOf[$setting]}; do
        runPlan
      done
    done
  done
done

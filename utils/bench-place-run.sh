#!/usr/bin/env bash
# Runs place-search's plans on MPI ranks (not a test). A small GPT-2
# (memopt-zoo gpt2: 2 layers, width 64, 2 heads, 16 tokens), its forward
# function and its training step, is placed on 1, 2 and 4 devices for a
# global batch of 16 (place-search, then place-to-shard). A stage function
# runs the batch its program holds, while place-search predicts one
# microbatch per device: so the program that runs is generated with the
# plan's microbatch x data-parallel degree as its batch (one microbatch per
# data rank) and placed again, which must give the same plan. A forward plan with a pipeline of
# one-device stages runs whole: place-to-shard's pipeline driver on one MPI
# rank per stage (memopt-run --ranks), each rank's outputs against the model
# run on one device, one row per rank with the stage it runs. Otherwise
# (training steps, and stages on several devices, which the driver cannot
# run: place-to-shard{pipeline-driver=false}) every stage function runs with
# memopt-run on as many MPI ranks as its grid has devices (--ranks; a 1x1
# grid runs on one device), which compares each rank's slice of every result
# with the single-device run of the stage. One row per stage: the plan
# (pipeline/tensor/data parallel), the ranks, the verdict on the outputs, the
# bytes each rank holds at its peak (inputs_bytes + peak_bytes: its slices of
# the parameters and data, and what the call allocates) against
# place-search's memory per device for the stage (memory=program: the
# program as written, forward or training step), and the slowest rank's
# median time. A step that fails prints its first error instead; the matrix goes on.
#
#   utils/bench-place-run.sh [build dir]
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
bin="$build/bin"
for tool in memopt-zoo memopt-opt memopt-run; do
  [ -x "$bin/$tool" ] || { echo "bench-place-run: build memopt first ($bin/$tool missing)" >&2; exit 1; }
done
command -v jq >/dev/null || { echo "bench-place-run: needs jq" >&2; exit 1; }
command -v mpirun.mpich >/dev/null || { echo "bench-place-run: needs MPICH (utils/install-deps.sh)" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

zoo=(gpt2 --layers=2 --hidden=64 --heads=2 --seq=16 --vocab=64 --positions=16)
# 1 GiB of HBM per device, 16 samples per step: small enough that the plan
# changes with the device count.
search="global-batch=16 heads=2 hbm=1073741824"

firstError() { grep -m1 -o 'error: .*' "$1" | cut -c1-150; }

# The forward program's pipeline driver on one rank per stage, compared with
# the model before placement: one row per rank, its stage's held bytes
# against the stage's prediction.
runDriver() {
  local devices=$1 plan=$2 pipeline=$3 model=$4 ranks=${2%%/*}
  if ! "$bin/memopt-run" "$model" --entry=forward --ranks="$ranks" --timeout=600 \
      --pipeline="$pipeline" >"$work/out" 2>"$work/err"; then
    verdict=$(grep -m1 -o '^outputs: [A-Za-z ]*' "$work/out" | cut -c10-)
    printf '%-8s %-7s %-8s %-5s %-24s %-5s %s\n' forward "$devices" "$plan" "$batch" "(driver)" "$ranks" \
      "${verdict:+outputs $verdict; }$(firstError "$work/err")"
    return
  fi
  verdict=$(grep -m1 -o '^outputs: [a-z ]*' "$work/out" | cut -c10- | sed 's/ *$//')
  ms=$(grep -o '^rank [0-9]*: .*time_ms_median=[0-9.]*' "$work/out" | grep -o 'time_ms_median=[0-9.]*' | cut -d= -f2 | sort -g | tail -1)
  grep '^rank [0-9]*: stage=' "$work/out" | while read -r line; do
    stage=$(grep -o 'stage=@[A-Za-z0-9_]*' <<<"$line" | cut -c8-)
    held=$(grep -o 'held_bytes=[0-9]*' <<<"$line" | cut -d= -f2)
    predicted=$(grep -o 'predicted_bytes=[0-9]*' <<<"$line" | cut -d= -f2)
    printf '%-8s %-7s %-8s %-5s %-24s %-5s %-17s %-30s %-12s %s\n' forward "$devices" "$plan" \
      "$batch" "$stage (driver)" "$ranks" "$verdict" "${held:--}" "${predicted:--}" "$ms"
  done
}

# The plan of a report: pipeline/tensor/data parallel and the microbatch.
planOf() { jq -r '.plan | "\(.pipeline)/\(.tensor_parallel)/\(.data_parallel) \(.microbatch)"' "$1"; }

printf '%-8s %-7s %-8s %-5s %-24s %-5s %-17s %-30s %-12s %s\n' \
  program devices plan batch stage ranks outputs "held bytes per rank" predicted "ms (slowest)"
for program in forward train; do
  extra=()
  split=""
  # The training step's labels come last: data, split by batch like the tokens.
  [ "$program" = train ] && extra=(--train) && split="trailing-data-arguments=1"
  "$bin/memopt-zoo" "${zoo[@]}" --batch=16 "${extra[@]}" -o "$work/$program.mlir"
  for devices in 1 2 4; do
    searched="$work/$program-$devices.searched.mlir"
    placed="$work/$program-$devices.mlir"
    report="$work/$program-$devices.json"
    placement="place-search{devices=$devices $search memory=program report=$report}"
    if ! "$bin/memopt-opt" "$work/$program.mlir" -o /dev/null 2>"$work/err" \
        --pass-pipeline="builtin.module($placement)"; then
      printf '%-8s %-7s %s\n' "$program" "$devices" "place: $(firstError "$work/err")"
      continue
    fi
    read -r plan microbatch <<<"$(planOf "$report")"
    # The program that runs: one microbatch per data rank, placed again.
    batch=$((microbatch * ${plan##*/}))
    model="$work/$program-$devices.model.mlir"
    "$bin/memopt-zoo" "${zoo[@]}" --batch="$batch" "${extra[@]}" -o "$model"
    if ! "$bin/memopt-opt" "$model" -o "$searched" 2>"$work/err" \
        --pass-pipeline="builtin.module($placement)" || [ "$(planOf "$report")" != "$plan $microbatch" ]; then
      printf '%-8s %-7s %s\n' "$program" "$devices" \
        "place at batch $batch: $(firstError "$work/err") (plan $(planOf "$report") against $plan $microbatch)"
      continue
    fi
    if [ "$program" = forward ] && [ "${plan%%/*}" -gt 1 ] && [ "${plan#*/}" = 1/1 ]; then
      runDriver "$devices" "$plan" "builtin.module($placement,place-to-shard)" "$model"
      continue
    fi
    if ! "$bin/memopt-opt" "$searched" -o "$placed" 2>"$work/err" \
        --pass-pipeline="builtin.module(place-to-shard{pipeline-driver=false $split})"; then
      printf '%-8s %-7s %s\n' "$program" "$devices" "place: $(firstError "$work/err")"
      continue
    fi
    # One line per stage function: its name and its grid's device count.
    stages=$(awk '/shard.grid @/ { match($0, /@[A-Za-z0-9_]+_grid/); name = substr($0, RSTART + 1, RLENGTH - 6);
                                   match($0, /shape = [0-9x]+/); split(substr($0, RSTART + 8, RLENGTH - 8), d, "x");
                                   n = 1; for (i in d) n *= d[i]; print name, n }' "$placed")
    index=0
    while read -r stage ranks; do
      [ -n "$stage" ] || continue
      predicted=$(jq -r --argjson k "$index" '.plan.stages[$k].memory_bytes_per_device // "-"' "$report")
      index=$((index + 1))
      flags=(--entry="$stage" --timeout=600)
      [ "$ranks" -gt 1 ] && flags+=(--ranks="$ranks")
      if ! "$bin/memopt-run" "$placed" "${flags[@]}" >"$work/out" 2>"$work/err"; then
        verdict=$(grep -m1 -o '^outputs: [A-Za-z ]*' "$work/out" | cut -c10-)
        printf '%-8s %-7s %-8s %-5s %-24s %-5s %s\n' "$program" "$devices" "$plan" "$batch" "$stage" "$ranks" \
          "${verdict:+outputs $verdict; }$(firstError "$work/err")"
        continue
      fi
      if [ "$ranks" -gt 1 ]; then
        verdict=$(grep -m1 -o '^outputs: [a-z ]*' "$work/out" | cut -c10- | sed 's/ *$//')
        peaks=$(grep -o '^rank [0-9]*: .*held_bytes=[0-9]*' "$work/out" | grep -o 'held_bytes=[0-9]*' | cut -d= -f2 | paste -sd, -)
        ms=$(grep -o '^rank [0-9]*: .*time_ms_median=[0-9.]*' "$work/out" | grep -o 'time_ms_median=[0-9.]*' | cut -d= -f2 | sort -g | tail -1)
      else
        verdict="one device"
        peaks=$(awk '/^inputs_bytes:|^peak_bytes:/ { held += $2 } END { print held }' "$work/out")
        ms=$(grep -m1 '^time_ms_median:' "$work/out" | awk '{print $2}')
      fi
      printf '%-8s %-7s %-8s %-5s %-24s %-5s %-17s %-30s %-12s %s\n' "$program" "$devices" "$plan" \
        "$batch" "$stage" "$ranks" "$verdict" "$peaks" "$predicted" "$ms"
    done <<<"$stages"
  done
done

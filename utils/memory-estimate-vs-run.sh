#!/usr/bin/env bash
# Compares memopt's static activation-memory estimate of a model's entry
# function with the peak memopt-run measures when the model runs.
#
#   memory-estimate-vs-run.sh MODEL.mlir [--entry=NAME] [--tolerance=BYTES] [--dim=N]
#
# memopt-run wraps the entry (its arguments become read-only inputs built
# before the run), lowers the module with aligned_alloc and reports
# peak_bytes: the highest heap bytes allocated during a call of the entry,
# inputs excluded. The estimate is taken on exactly the module memopt-run
# lowered (kept with --keep, TOSA converted as memopt-run converts it), with
# memory-estimate{callees=true}, and compared through the function's
# peak_allocated_bytes: the same heap quantity (sizes rounded up to their
# alignment, deallocation bookkeeping included). Prints one line
#   entry: NAME measured: M estimated: E difference: D
# and exits 0 when |D| <= tolerance (default 0: exact), 1 when not, 2 on error.
# Needs memopt-run and memopt-opt on PATH (or MEMOPT_BIN_DIR), and jq.
set -euo pipefail

usage() {
  echo "usage: $0 MODEL.mlir [--entry=NAME] [--tolerance=BYTES] [--dim=N]" >&2
  exit 2
}

model=""
tolerance=0
run_args=()
for arg in "$@"; do
  case "$arg" in
    --entry=*|--dim=*) run_args+=("$arg") ;;
    --tolerance=*) tolerance="${arg#--tolerance=}" ;;
    -*) usage ;;
    *) [ -z "$model" ] || usage; model="$arg" ;;
  esac
done
[ -n "$model" ] || usage
[[ "$tolerance" =~ ^[0-9]+$ ]] || { echo "$0: --tolerance takes a byte count" >&2; exit 2; }

bin_dir="${MEMOPT_BIN_DIR:-}"
run="${bin_dir:+$bin_dir/}memopt-run"
opt="${bin_dir:+$bin_dir/}memopt-opt"
command -v jq >/dev/null || { echo "$0: jq is required (utils/install-deps.sh)" >&2; exit 2; }

work="$(mktemp -d "${TMPDIR:-/tmp}/memory-estimate-vs-run.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# One timed run is enough: every run of a deterministic program has the same peak.
if ! "$run" "$model" --runs=1 --keep="$work/keep" "${run_args[@]}" >"$work/run.txt" 2>"$work/run.err"; then
  echo "$0: memopt-run failed:" >&2
  cat "$work/run.err" >&2
  exit 2
fi
entry="$(sed -n 's/^entry: //p' "$work/run.txt")"
measured="$(sed -n 's/^peak_bytes: //p' "$work/run.txt")"
[ -n "$entry" ] && [ -n "$measured" ] || { echo "$0: no entry or peak_bytes in memopt-run's output" >&2; exit 2; }

# The TOSA conversions memopt-run applies before bufferizing; callees=true
# reads other functions, hence one thread.
tosa='func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,tosa-to-tensor)'
if ! "$opt" "$work/keep/baseline.wrapped.mlir" --mlir-disable-threading -o /dev/null \
     --pass-pipeline="builtin.module($tosa,func.func(memory-estimate{callees=true report=$work/estimate.json}))" \
     2>"$work/estimate.err"; then
  echo "$0: memory-estimate failed:" >&2
  cat "$work/estimate.err" >&2
  exit 2
fi
estimated="$(jq -r --arg name "$entry" \
  '.functions[] | select(.name == $name) | .peak_allocated_bytes' "$work/estimate.json")"
[ -n "$estimated" ] && [ "$estimated" != null ] || {
  echo "$0: no estimate for @$entry" >&2
  exit 2
}

difference=$((estimated - measured))
echo "entry: $entry measured: $measured estimated: $estimated difference: $difference"
[ "${difference#-}" -le "$tolerance" ]

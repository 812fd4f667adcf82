#!/usr/bin/env bash
# Differential testing of memopt's pipelines on random programs
# (python-free-docs/difftest.md). For each program memopt-fuzz writes and each
# pipeline of the table below, checks that memopt-opt does not crash or fail,
# that its output verifies in upstream mlir-opt, and then, by the pipeline's
# kind, that the lowered program computes what the original does (memopt-run
# --compare) without a higher measured peak, or that an analysis left the IR
# as it was. A failing case is reduced (nodes dropped while it still fails the
# same way) and saved with the command that replays it.
#
#   utils/difftest.sh [--seed=S] [--count=N] [--dynamic=mixed|none|all] [--max-dim=N]
#                     [--pipelines=NAME,...] [--out=DIR] [--bin=DIR] [--no-reduce] [--quiet]
#                     [--known=FILE] [--program=FILE] [--extra-pipeline=LINE]
#
# Prints one line per failure and a summary; exits 1 when anything failed.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

# The pipelines: one line each, fields separated by '|':
#   name | memopt-opt --pass-pipeline | kind | tolerance | excuse
# kind: run      the output must be upstream IR; it runs against the original
#                under memopt-run, with `tolerance` (0: bit-identical results)
#       verify   the output (memopt ops allowed) must verify; it is not run
#       analysis the output must be the input as memopt-opt prints it
# excuse: an extended regex; a diagnostic of memopt-opt matching it explains a
#         higher measured peak (-: nothing does)
pipelines_table=(
  "autochunk|builtin.module(autochunk{budget-ratio=0.5 allow-partial=true min-inner-chunk=1})|verify|-|-"
  "autochunk-to-scf|builtin.module(autochunk{budget-ratio=0.5 allow-partial=true min-inner-chunk=1},func.func(chunk-to-scf))|run|0|-"
  "autochunk-tight-to-scf|builtin.module(autochunk{budget-ratio=0.05 allow-partial=true min-inner-chunk=1},func.func(chunk-to-scf))|run|0|-"
  "autochunk-default-to-scf|builtin.module(autochunk,func.func(chunk-to-scf))|run|0|-"
  "memory-estimate|builtin.module(memory-estimate)|analysis|-|-"
  "print-dimension-flow|builtin.module(print-dimension-flow)|analysis|-|-"
  "memory-schedule|builtin.module(func.func(memory-schedule))|run|0|-"
  "memory-schedule-then-autochunk|builtin.module(func.func(memory-schedule),autochunk{budget-ratio=0.5 allow-partial=true},func.func(chunk-to-scf))|run|0|-"
  "inplace-elementwise-then-schedule|builtin.module(func.func(inplace-elementwise,memory-schedule))|run|0|-"
  "print-shape-symbols|builtin.module(print-shape-symbols)|analysis|-|-"
  "print-layer-graph|builtin.module(print-layer-graph)|analysis|-|-"
)

seed=1
count=50
dynamic=mixed
max_dim=24
only=""
out=""
# The tools: next to the memopt-opt on PATH (as in lit), else build/bin.
bin="$root/build/bin"
if command -v memopt-opt > /dev/null; then bin="$(dirname "$(command -v memopt-opt)")"; fi
program_file=""
extra_pipelines=()
reduce=1
quiet=0
known=""
usage() {
  sed -n '/^#   utils/,/^#  *\[--known/p' "$0" | sed 's/^# *//' >&2
  exit 2
}
for arg in "$@"; do
  case "$arg" in
    --seed=*) seed="${arg#*=}" ;;
    --count=*) count="${arg#*=}" ;;
    --dynamic=mixed|--dynamic=none|--dynamic=all) dynamic="${arg#*=}" ;;
    --max-dim=*) max_dim="${arg#*=}" ;;
    --pipelines=*) only="${arg#*=}" ;;
    --out=*) out="${arg#*=}" ;;
    --bin=*) bin="${arg#*=}" ;;
    --no-reduce) reduce=0 ;;
    --quiet) quiet=1 ;;
    --known=*) known="${arg#*=}" ;;
    --program=*) program_file="${arg#*=}" ;;
    --extra-pipeline=*) extra_pipelines+=("${arg#*=}") ;;
    *) echo "difftest: error: unknown argument '$arg'" >&2; usage ;;
  esac
done
for number in "$seed" "$count" "$max_dim"; do
  [[ "$number" =~ ^[0-9]+$ ]] || { echo "difftest: error: '$number' is not a number" >&2; exit 2; }
done

llvm_bin=/usr/lib/llvm-22/bin
irdl="$bin/../share/memopt/memopt.irdl.mlir"
for tool in "$bin/memopt-opt" "$bin/memopt-run" "$bin/memopt-fuzz" "$llvm_bin/mlir-opt" "$irdl"; do
  [ -e "$tool" ] || { echo "difftest: error: $tool is missing (build first, or give --bin)" >&2; exit 2; }
done

# The selected lines of the table.
selected=()
for line in "${pipelines_table[@]}"; do
  name="${line%%|*}"
  if [ -z "$only" ] || [[ ",$only," == *",$name,"* ]]; then selected+=("$line"); fi
done
# Pipelines given on the command line (a test's) always run.
selected+=("${extra_pipelines[@]}")
[ "${#selected[@]}" -gt 0 ] || { echo "difftest: error: no pipeline named in '$only'" >&2; exit 2; }
# header_field FILE FIELD: the number after "FIELD=" in the `// memopt-fuzz` line.
header_field() {
  sed -n "/^\/\/ memopt-fuzz /{s/.* $2=\\([0-9]*\\).*/\\1/p;q;}" "$1"
}

# One given program (a saved reproducer, say): checked as it is, not reduced.
if [ -n "$program_file" ]; then
  [ -r "$program_file" ] || { echo "difftest: error: cannot read $program_file" >&2; exit 2; }
  count=1; reduce=0
  seed="$(header_field "$program_file" seed)"; seed="${seed:-0}"
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/memopt-difftest-XXXXXX")"
trap 'rm -rf "$work"' EXIT
if [ -z "$out" ]; then out="$PWD/difftest-failures"; fi

# is_dynamic SEED: whether that program has dynamic dims.
is_dynamic() {
  case "$dynamic" in
    all) return 0 ;;
    none) return 1 ;;
    *) [ $(($1 % 4)) -eq 3 ] ;;
  esac
}

# fuzz_args SEED: memopt-fuzz's arguments for that program.
fuzz_args() {
  local args="--seed=$1 --max-dim=$max_dim"
  if is_dynamic "$1"; then args="$args --dynamic"; fi
  echo "$args"
}

# check PROGRAM TABLE_LINE: runs one case in $work/case and sets `verdict`
# (pass, crash, error, verify, wrong, regression, changed) and `detail`, and
# `agreement` (bit-identical / within tolerance) for a run that passed.
check() {
  local program="$1" name pipeline kind tolerance excuse
  IFS='|' read -r name pipeline kind tolerance excuse <<< "$2"
  local dir="$work/case"
  rm -rf "$dir"; mkdir -p "$dir"
  verdict=pass; detail=""; agreement=""
  if ! "$bin/memopt-opt" "$program" -o "$dir/printed.mlir" 2> "$dir/printed.stderr"; then
    verdict=harness; detail="memopt-opt does not read the original: $(grep -m1 error "$dir/printed.stderr")"
    return
  fi
  "$bin/memopt-opt" "$program" --pass-pipeline="$pipeline" -o "$dir/out.mlir" 2> "$dir/opt.stderr"
  local status=$?
  if [ $status -ge 128 ] || grep -qE "Stack dump|AddressSanitizer|LeakSanitizer|runtime error:" "$dir/opt.stderr"; then
    verdict=crash; detail="memopt-opt exit $status: $(grep -m1 -E "error|Sanitizer|Assertion|Stack dump" "$dir/opt.stderr")"
    return
  fi
  if [ $status -ne 0 ]; then
    verdict=error; detail="memopt-opt exit $status: $(grep -m1 error "$dir/opt.stderr")"
    return
  fi
  if ! "$llvm_bin/mlir-opt" --irdl-file="$irdl" "$dir/out.mlir" > /dev/null 2> "$dir/verify.stderr"; then
    verdict=verify; detail="mlir-opt: $(grep -m1 error "$dir/verify.stderr")"
    return
  fi
  case "$kind" in
    analysis)
      if ! cmp -s "$dir/printed.mlir" "$dir/out.mlir"; then
        verdict=changed; detail="the analysis changed the IR"
      fi
      return ;;
    verify) return ;;
  esac
  # A pipeline that left the program as it was needs no run.
  if cmp -s "$dir/printed.mlir" "$dir/out.mlir"; then agreement=unchanged; return; fi
  if grep -qE '"(chunk|spm|place|remat)\.' "$dir/out.mlir"; then
    verdict=verify; detail="memopt ops remain after a lowering pipeline: $(grep -m1 -oE '"(chunk|spm|place|remat)\.[a-z_]+"' "$dir/out.mlir")"
    return
  fi
  local dim_arg=()
  local dim
  dim="$(header_field "$program" "dynamic=1 dim")"
  if [ -n "$dim" ]; then dim_arg=(--dim="$dim"); fi
  # The original runs once per program text (cached); a candidate of a
  # bit-exact pipeline runs alone and its `output` lines (type, shape, hash,
  # sums) must equal the original's. With a tolerance, memopt-run --compare
  # judges.
  local baseline
  baseline="$work/baseline-$(cksum < "$dir/printed.mlir" | cut -d' ' -f1)"
  if [ ! -e "$baseline.stdout" ]; then
    if ! "$bin/memopt-run" "$program" --runs=1 "${dim_arg[@]}" > "$baseline.run" 2> "$baseline.stderr"; then
      verdict=harness; detail="the original does not run: $(grep -m1 -E "error|failed" "$baseline.stderr")"
      return
    fi
    mv "$baseline.run" "$baseline.stdout"
  fi
  local peaks=()
  if [ "$tolerance" = 0 ]; then
    if ! "$bin/memopt-run" "$dir/out.mlir" --runs=1 "${dim_arg[@]}" > "$dir/run.stdout" 2> "$dir/run.stderr"; then
      verdict=wrong; detail="the output does not run: $(grep -m1 -E "error|failed" "$dir/run.stderr")"
      return
    fi
    if ! diff <(grep '^output ' "$baseline.stdout") <(grep '^output ' "$dir/run.stdout") > "$dir/outputs.diff"; then
      verdict=wrong; detail="results are not bit-identical: $(grep -m1 '^>' "$dir/outputs.diff")"
      return
    fi
    agreement=bit-identical
    peaks=($(sed -n 's/^peak_bytes: *//p' "$baseline.stdout" "$dir/run.stdout"))
  else
    "$bin/memopt-run" "$program" --compare --against="$dir/out.mlir" --runs=1 --tolerance="$tolerance" \
      "${dim_arg[@]}" > "$dir/run.stdout" 2> "$dir/run.stderr"
    local status=$?
    agreement="$(sed -n 's/^outputs: //p' "$dir/run.stdout")"
    if [ -z "$agreement" ]; then
      verdict=wrong; detail="the output does not run: $(grep -m1 -E "error|failed" "$dir/run.stderr")"
      return
    fi
    if [ $status -ne 0 ]; then
      verdict=wrong; detail="results differ (tolerance $tolerance): $(grep -m1 DIFFERENT "$dir/run.stdout")"
      return
    fi
    peaks=($(sed -n 's/^peak_bytes: *//p' "$dir/run.stdout"))
  fi
  if [ "${peaks[1]}" -gt "${peaks[0]}" ]; then
    if [ "$excuse" = "-" ] || ! grep -qE "$excuse" "$dir/opt.stderr"; then
      verdict=regression; detail="measured peak ${peaks[0]} -> ${peaks[1]} bytes, no remark says why"
    fi
  fi
}

# reduce SEED TABLE_LINE VERDICT: drops nodes while the case still fails with
# VERDICT; leaves the smallest program in $work/reduced.mlir and its drop list
# in `drops`.
reduce_case() {
  local seed="$1" line="$2" wanted="$3" nodes i candidate
  local args
  args="$(fuzz_args "$seed")"
  nodes="$(header_field "$work/program.mlir" nodes)"
  drops=""
  cp "$work/program.mlir" "$work/reduced.mlir"
  for ((i = nodes - 1; i >= 0; i--)); do
    candidate="${drops:+$drops,}$i"
    "$bin/memopt-fuzz" $args --drop="$candidate" -o "$work/candidate.mlir" || continue
    check "$work/candidate.mlir" "$line"
    if [ "$verdict" = "$wanted" ]; then
      drops="$candidate"
      cp "$work/candidate.mlir" "$work/reduced.mlir"
    fi
  done
}

declare -A counts=()
for key in crash error verify wrong regression changed harness pass; do counts[$key]=0; done
known_failures=0; known_seen=""
programs=0; passes_run=0; identical=0; tolerated=0; unchanged=0; failures=0
mode_note="static"
[ "$dynamic" = all ] && mode_note="dynamic"
[ "$dynamic" = mixed ] && mode_note="seeds = 3 mod 4 dynamic"
for ((s = seed; s < seed + count; s++)); do
  args="$(fuzz_args "$s")"
  if [ -n "$program_file" ]; then
    cp "$program_file" "$work/program.mlir" || exit 2
  elif ! "$bin/memopt-fuzz" $args -o "$work/program.mlir"; then
    echo "difftest: error: memopt-fuzz $args failed" >&2; exit 2
  fi
  programs=$((programs + 1))
  for line in "${selected[@]}"; do
    name="${line%%|*}"
    check "$work/program.mlir" "$line"
    passes_run=$((passes_run + 1))
    case "$agreement" in
      bit-identical) identical=$((identical + 1)) ;;
      "within tolerance") tolerated=$((tolerated + 1)) ;;
      unchanged) unchanged=$((unchanged + 1)) ;;
    esac
    if [ "$verdict" = pass ]; then counts[pass]=$((counts[pass] + 1)); continue; fi
    # A failure the --known list expects (a bug already reported) is counted
    # apart; the list says where its regression test is.
    if [ -n "$known" ] && grep -qE "^$s $name $verdict( |\$)" "$known"; then
      known_seen="$known_seen $s:$name"
      known_failures=$((known_failures + 1))
      [ $quiet -eq 1 ] || echo "known: seed=$s pipeline=$name: $verdict: $detail"
      continue
    fi
    counts[$verdict]=$((counts[$verdict] + 1))
    failures=$((failures + 1))
    first_detail="$detail"
    mkdir -p "$out"
    saved="$out/seed-$s-$name.mlir"
    drops=""
    if [ $reduce -eq 1 ]; then
      reduce_case "$s" "$line" "$verdict"
    else
      cp "$work/program.mlir" "$work/reduced.mlir"
    fi
    check "$work/reduced.mlir" "$line"
    {
      echo "// difftest: $verdict under $name: $detail"
      echo "// pipeline: $(echo "$line" | cut -d'|' -f2)"
      echo "// replay: memopt-fuzz $args${drops:+ --drop=$drops}"
      cat "$work/reduced.mlir"
    } > "$saved"
    echo "FAIL seed=$s pipeline=$name: $verdict: $first_detail"
    if [ -n "$program_file" ]; then
      echo "     replay: utils/difftest.sh --program=$program_file --pipelines=$name"
    else
      echo "     replay: utils/difftest.sh --seed=$s --count=1 --dynamic=$(is_dynamic "$s" && echo all || echo none) --max-dim=$max_dim --pipelines=$name"
    fi
    echo "     reproducer: $saved${drops:+ (nodes $drops dropped)}"
  done
  if [ $quiet -eq 0 ] && [ $((programs % 25)) -eq 0 ]; then
    echo "difftest: $programs programs, $failures failures so far" >&2
  fi
done

names=""
for line in "${selected[@]}"; do names="$names${names:+,}${line%%|*}"; done
echo "difftest: programs $programs (seeds $seed..$((seed + count - 1)), $mode_note, max-dim $max_dim)"
echo "difftest: pipelines $names"
echo "difftest: passes run $passes_run, crashes ${counts[crash]}, pass errors ${counts[error]}, verifier failures ${counts[verify]}, wrong results ${counts[wrong]}, memory regressions ${counts[regression]}, analyses that changed the IR ${counts[changed]}, originals that do not run ${counts[harness]}"
echo "difftest: runs compared: bit-identical $identical, within tolerance $tolerated; left unchanged (not run) $unchanged"
# A known failure that did not happen is fixed: the list must say so.
if [ -n "$known" ]; then
  while read -r known_seed known_name known_verdict _; do
    [[ "$known_seed" =~ ^[0-9]+$ ]] || continue
    [ "$known_seed" -ge "$seed" ] && [ "$known_seed" -lt $((seed + count)) ] || continue
    [[ ",$names," == *",$known_name,"* ]] || continue
    if [[ " $known_seen " != *" $known_seed:$known_name "* ]]; then
      echo "FIXED seed=$known_seed pipeline=$known_name no longer fails ($known_verdict): remove it from $known"
      failures=$((failures + 1))
    fi
  done < "$known"
  echo "difftest: known failures $known_failures (listed in $known)"
fi
if [ $failures -gt 0 ]; then
  echo "difftest: $failures failures; reproducers in $out"
  exit 1
fi
echo "difftest: all passed"

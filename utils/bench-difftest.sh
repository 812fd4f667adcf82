#!/usr/bin/env bash
# Differential testing at scale: runs utils/difftest.sh over many seeds (every
# pipeline of its table, every fourth program with dynamic dims) and reports
# programs tried, passes run, crashes, verifier failures, wrong results and
# memory regressions, then the failures by pipeline with the seeds to replay.
#
#   utils/bench-difftest.sh [--seed=S] [--count=N] [--out=DIR] [other difftest.sh options]
#
# Defaults: --seed=100000 --count=2000 --no-reduce (reduce one seed later with
# utils/difftest.sh --seed=S --count=1 --pipelines=NAME), --out=difftest-bench.
# Takes about a second per program on an idle core.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seed=100000
count=2000
out="$PWD/difftest-bench"
rest=()
for arg in "$@"; do
  case "$arg" in
    --seed=*) seed="${arg#*=}" ;;
    --count=*) count="${arg#*=}" ;;
    --out=*) out="${arg#*=}" ;;
    *) rest+=("$arg") ;;
  esac
done
mkdir -p "$out"
log="$out/difftest.log"
start=$(date +%s)
"$root/utils/difftest.sh" --seed="$seed" --count="$count" --out="$out" --no-reduce --quiet \
  "${rest[@]}" > "$log"
status=$?
elapsed=$(($(date +%s) - start))
grep '^difftest: ' "$log"
echo "bench-difftest: $elapsed s for $count programs; log $log"
# Failures by pipeline and kind, with their seeds.
grep '^FAIL ' "$log" | sed 's/^FAIL seed=\([0-9]*\) pipeline=\([^:]*\): \([a-z]*\):.*/\2 \3 \1/' \
  | sort -k1,1 -k2,2 -k3,3n \
  | awk '{ key = $1 " " $2; if (key != last) { if (last != "") print line; line = sprintf("  %-28s %-11s seeds %s", $1, $2, $3); n = 0; last = key }
           else if (n < 20) line = line "," $3; else if (n == 20) line = line ",..."; n++ }
         END { if (last != "") print line }'
exit $status

#!/usr/bin/env bash
# Long mutation-fuzzing campaigns with memopt-mutate (python-free-docs/fuzzing.md).
#   utils/fuzz.sh [--count=N] [--seed=S] [--jobs=N] [--bin=DIR] [--out=DIR]
#                 [--leak-check-every=N] [--timeout=SECONDS] [-- MORE memopt-mutate OPTIONS]
# Defaults: 100000 inputs, seed 1, 2 jobs, the ASan build (build-asan/bin) when
# it exists, else build/bin; seeds are test/ and ../shared/models when present.
# Prints memopt-mutate's summary; exits 1 on any finding.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

count=100000
seed=1
jobs=2
bin=""
out="$root/build/fuzz-findings"
leak_every=10
timeout=20
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --count=*) count="${1#*=}" ;;
    --seed=*) seed="${1#*=}" ;;
    --jobs=*) jobs="${1#*=}" ;;
    --bin=*) bin="${1#*=}" ;;
    --out=*) out="${1#*=}" ;;
    --leak-check-every=*) leak_every="${1#*=}" ;;
    --timeout=*) timeout="${1#*=}" ;;
    --) shift; extra=("$@"); break ;;
    *) sed -n '2,7s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
  esac
  shift
done
if [ -z "$bin" ]; then
  if [ -x "$root/build-asan/bin/memopt-mutate" ]; then bin="$root/build-asan/bin"
  else bin="$root/build/bin"; fi
fi
[ -x "$bin/memopt-mutate" ] || { echo "fuzz.sh: no memopt-mutate in $bin (build first)" >&2; exit 2; }

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
echo "fuzz.sh: $bin/memopt-mutate, $count inputs from seed $seed on $jobs jobs, findings in $out"
exec "$bin/memopt-mutate" --seeds="$root/test" --seeds-if-present="$root/../shared/models" \
  --count="$count" --seed="$seed" --jobs="$jobs" --out="$out" \
  --leak-check-every="$leak_every" --timeout="$timeout" --quiet ${extra[@]+"${extra[@]}"}

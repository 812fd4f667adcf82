#!/usr/bin/env bash
# Sets up, builds and runs the whole memopt test suite (lit: FileCheck tests,
# executed lowerings, C unit tests).
#   utils/test.sh              normal build in build/, warnings as errors
#   utils/test.sh --sanitize   AddressSanitizer + UBSan build in build-asan/
# Prints "memopt: N passed, N failed" last; exits non-zero on any failure.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

build="$root/build"
sanitize=OFF
build_type=Release
case "${1:-}" in
  "") ;;
  --sanitize) build="$root/build-asan"; sanitize=ON; build_type=Debug ;;
  *) echo "usage: utils/test.sh [--sanitize]" >&2; exit 2 ;;
esac

"$root/utils/install-deps.sh"
mkdir -p "$build"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="$build_type" \
  -DMEMOPT_WERROR=ON -DMEMOPT_SANITIZE="$sanitize" > "$build/configure.log" \
  || { cat "$build/configure.log"; exit 1; }
ninja -C "$build"

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
/usr/lib/llvm-22/bin/lit -sv "$build/test" | tee "$log" || status=$?
passed=$(sed -n 's/^ *Passed *: *\([0-9]*\).*/\1/p' "$log")
failed=0
for kind in Failed Unresolved "Timed Out" "Unexpectedly Passed"; do
  n=$(sed -n "s/^ *$kind *: *\([0-9]*\).*/\1/p" "$log")
  failed=$((failed + ${n:-0}))
done
echo "memopt: ${passed:-0} passed, $failed failed"
[ "$status" -eq 0 ] && [ "$failed" -eq 0 ] && [ "${passed:-0}" -gt 0 ]

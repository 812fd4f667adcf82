#!/usr/bin/env bash
# Runs upstream MLIR's own lit tests twice, once with `mlir-opt` resolving to
# the real mlir-opt and once to memopt-opt, and prints both pass counts by
# directory: how far memopt-opt is a drop-in for mlir-opt.
#
#   utils/mlir-conformance.sh <llvm-project>/mlir/test [dir...]
#     --memopt-opt=PATH   the memopt-opt to judge (default: build/bin/memopt-opt)
#     --mlir-opt=PATH     the reference (default: /usr/lib/llvm-22/bin/mlir-opt)
#     --jobs=N            lit workers (default: 2)
#     --failures          also list the tests that pass with mlir-opt only
#     --logs=DIR          keep both lit logs (every command and its output) in DIR
#
# The directories default to Transforms IR Pass mlir-opt and
# Dialect/{Linalg,Tensor,SCF,Arith,Bufferization,Shard}. A test counts when it
# passes with mlir-opt and uses no test-only pass or op of the test dialect
# (those live in mlir-opt's test library, which no C API exposes). A test that
# crashes memopt-opt is listed as CRASH whether or not it counts.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
llvm_bin=/usr/lib/llvm-22/bin

memopt_opt="$root/build/bin/memopt-opt"
mlir_opt="$llvm_bin/mlir-opt"
jobs=2
show_failures=0
logs=""
tests=""
dirs=()
for arg in "$@"; do
  case "$arg" in
    --memopt-opt=*) memopt_opt="${arg#*=}" ;;
    --mlir-opt=*) mlir_opt="${arg#*=}" ;;
    --jobs=*) jobs="${arg#*=}" ;;
    --failures) show_failures=1 ;;
    --logs=*) logs="${arg#*=}" ;;
    -*) echo "mlir-conformance: unknown option '$arg'" >&2; exit 2 ;;
    *) if [ -z "$tests" ]; then tests="$arg"; else dirs+=("$arg"); fi ;;
  esac
done
if [ -z "$tests" ] || [ ! -f "$tests/lit.cfg.py" ]; then
  echo "usage: utils/mlir-conformance.sh <llvm-project>/mlir/test [dir...]" >&2
  echo "mlir-conformance: '${tests:-}' is not an MLIR lit test tree (no lit.cfg.py)" >&2
  exit 2
fi
tests="$(cd "$tests" && pwd)"
[ ${#dirs[@]} -gt 0 ] || dirs=(Transforms IR Pass mlir-opt Dialect/Linalg Dialect/Tensor
                               Dialect/SCF Dialect/Arith Dialect/Bufferization Dialect/Shard)
for tool in "$memopt_opt" "$mlir_opt"; do
  [ -x "$tool" ] || { echo "mlir-conformance: '$tool' is not an executable" >&2; exit 2; }
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# One lit configuration for both runs: the tool named mlir-opt is the only
# difference. Upstream's own lit.cfg.py needs its build tree, so this one
# gives what the tests of these directories use: LLVM's tools on PATH and
# the common substitutions. Tests needing more fail with both tools and
# do not count.
cat > "$work/lit.cfg.py" <<'EOF'
import os
import lit.formats
config.name = "mlir-conformance"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.local.cfg"]
config.test_source_root = lit_config.params["tests"]
config.test_exec_root = lit_config.params["exec_root"]
config.environment["PATH"] = os.pathsep.join(
    [lit_config.params["tool_dir"], lit_config.params["llvm_bin"],
     config.environment.get("PATH", "")])
config.substitutions.append(("%mlir_lib_dir", "/usr/lib/llvm-22/lib"))
config.substitutions.append(("%shlibext", ".so"))
config.substitutions.append(("%PYTHON", "python3"))
EOF

run_lit() { # tool name, result file
  local tool_dir="$work/$2-bin"
  mkdir -p "$tool_dir" "$work/$2-exec"
  ln -sf "$1" "$tool_dir/mlir-opt"
  local paths=()
  for d in "${dirs[@]}"; do paths+=("$tests/$d"); done
  # lit exits non-zero when a test fails; that is the point of the run.
  "$llvm_bin/lit" --config-prefix=lit -q -a --no-progress-bar -j "$jobs" \
    --param tests="$tests" --param exec_root="$work/$2-exec" \
    --param tool_dir="$tool_dir" --param llvm_bin="$llvm_bin" \
    "${paths[@]}" > "$work/$2.log" 2>&1 || true
  # "PASS: mlir-conformance :: Dialect/SCF/ops.mlir (12 of 500)" -> "PASS Dialect/SCF/ops.mlir"
  sed -n 's/^\([A-Z]*\): mlir-conformance :: \([^ ]*\) (.*/\1 \2/p' "$work/$2.log" \
    | sort -k2 > "$3"
}

# lit looks for the nearest lit.cfg.py above each test; upstream's would
# win, so the tree is seen through a copy made of symlinks with ours at
# its top.
mkdir -p "$work/tree"
cp "$work/lit.cfg.py" "$work/tree/lit.cfg.py"
for d in "${dirs[@]}"; do
  mkdir -p "$work/tree/$(dirname "$d")"
  ln -s "$tests/$d" "$work/tree/$d"
done
tests="$work/tree"

echo "mlir-conformance: running with $mlir_opt" >&2
run_lit "$mlir_opt" reference "$work/reference.txt"
echo "mlir-conformance: running with $memopt_opt" >&2
run_lit "$memopt_opt" memopt "$work/memopt.txt"

# Tests using mlir-opt's test library do not count: a test pass (test-*,
# *-test) on a RUN line, or an op, attribute or type of the test dialect
# (test.*, "test", transform.test*) outside comments.
uses_test_library() {
  grep -Eq -- 'RUN:.*([-{,( ]test-[a-z]|[a-z]-test([ ,{})"]|$))' "$tests/$1" ||
    grep -Eq -- '^([^/]*[^[:alnum:]_%.@^/])?(test\.[a-z_]|"test"|transform\.test)' "$tests/$1"
}

summarize() {
  local total_ref=0 total_memopt=0 crashes=0
  printf '%-26s %8s %8s %10s\n' directory counted mlir-opt memopt-opt
  for d in "${dirs[@]}"; do
    local counted=0 ref=0 mem=0
    while read -r status name; do
      case "$name" in "$d"/*) ;; *) continue ;; esac
      uses_test_library "$name" && continue
      counted=$((counted + 1))
      [ "$status" = PASS ] || continue
      ref=$((ref + 1))
      if grep -qx "PASS $name" "$work/memopt.txt"; then
        mem=$((mem + 1))
      elif [ "$show_failures" = 1 ]; then
        echo "  fails with memopt-opt: $name" >> "$work/failures.txt"
      fi
    done < "$work/reference.txt"
    printf '%-26s %8d %8d %10d\n' "$d" "$counted" "$ref" "$mem"
    total_ref=$((total_ref + ref))
    total_memopt=$((total_memopt + mem))
  done
  printf '%-26s %8s %8d %10d\n' total "" "$total_ref" "$total_memopt"
  # A crash is a stack dump in memopt-opt's log, whatever the test expects.
  crashes=$(grep -c 'PLEASE submit a bug report\|Stack dump:\|AddressSanitizer\|runtime error:' \
    "$work/memopt.log" || true)
  echo "memopt-opt crash reports: $crashes"
  if [ "$show_failures" = 1 ] && [ -f "$work/failures.txt" ]; then cat "$work/failures.txt"; fi
}
summarize
if [ -n "$logs" ]; then
  mkdir -p "$logs"
  cp "$work/reference.log" "$work/memopt.log" "$logs/"
fi

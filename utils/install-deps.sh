#!/usr/bin/env bash
# Installs the Debian packages memopt needs to build, test and benchmark.
# Idempotent: when every package is already present it only checks and exits.
set -euo pipefail

packages=(
  # compiler and build
  gcc g++ cmake ninja-build
  # MLIR 22 (C API, IRDL, upstream tools) and LLVM test tools (lit, FileCheck, not)
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools
  # python3 runs lit; ILP solvers (GLPK, COIN-OR CBC) for the optimality oracles
  python3 libglpk-dev coinor-libcbc-dev
  # unit tests
  libcmocka-dev pkg-config
  # JSON reports (memory-estimate{report=...}), and jq to read them in tests
  libjansson-dev jq
  # memopt-run --ranks: MPICH's launcher (mpirun.mpich) and libmpich.so, which
  # mlir-runner loads (convert-shard-to-mpi targets MPICH's ABI)
  mpich libmpich-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing packages: ${missing[*]}; run as root" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"

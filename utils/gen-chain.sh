#!/usr/bin/env bash
# Writes a chain of N elementwise linalg.generic ops (each with its
# tensor.empty destination: 2N + 2 ops in all) to standard output: one
# function, each op reading the previous result, alternating exp and tanh
# on tensor<64x16xf32>. The input of utils/bench-scaling.sh and of the lit
# tests that check a pass scales to long chains.
#
#   utils/gen-chain.sh N
set -euo pipefail
n="${1:?usage: gen-chain.sh N}"
echo '#map = affine_map<(i, j) -> (i, j)>'
echo 'func.func @chain(%v0: tensor<64x16xf32>) -> tensor<64x16xf32> {'
for ((i = 1; i <= n; ++i)); do
  fn=math.exp
  ((i % 2)) || fn=math.tanh
  printf '  %%d%d = tensor.empty() : tensor<64x16xf32>\n' "$i"
  printf '  %%v%d = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}\n' "$i"
  printf '      ins(%%v%d : tensor<64x16xf32>) outs(%%d%d : tensor<64x16xf32>) {\n' "$((i - 1))" "$i"
  printf '  ^bb0(%%in: f32, %%out: f32):\n    %%r = %s %%in : f32\n    linalg.yield %%r : f32\n  } -> tensor<64x16xf32>\n' "$fn"
done
printf '  return %%v%d : tensor<64x16xf32>\n}\n' "$n"

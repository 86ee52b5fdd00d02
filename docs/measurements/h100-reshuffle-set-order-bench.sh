#!/usr/bin/env bash
# Session 99, second call: the e2e "backend does not open" test's skip where CUDA opens, and reshuffle's bench (one
# and four channels apart: bench takes one --channels) against call 402's GL table (H100: c1 1.0957 / 12.10 / 25.93 ms).
set -u
tar -xJf bundle.tar.xz
GPUBLUR_GL_DEBS=$PWD/.gl . bundle/gpu_env.sh
b=$here
log=$OUT/c422.txt
step() {
  echo "=== $* [$(date +%T)]" >>"$log"
  local t=$SECONDS
  "$@" >>"$log" 2>&1
  echo "=== rc=$? ($((SECONDS - t)) s)" >>"$log"
}
nvidia-smi --query-gpu=name,driver_version --format=csv >>"$log" 2>&1
B=$b/bin/gpublur
step $b/bin/test_e2e --gtest_brief=1 --gtest_filter='*ABackendThatDoesNotOpen*:*BenchJsonSaysTheBackendDidNotOpen*'
for c in 1 4; do
  R="--method copy,reshuffle --sigma 3,8,12 --size 4096 --channels $c --repeat 3"
  step $B bench -b gl $R
  step $B bench -b cuda $R
done
grep -E "^===|PASSED|FAILED|SKIPPED|Failure" "$log" | tail -40

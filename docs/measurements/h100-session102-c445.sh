#!/usr/bin/env bash
# Session 102, second call: HEAD's GPU tests after this session's host changes (the cpu backend's row-thread pool,
# which every GPU test's cpu reference runs on; the pipeline's skip / warnings / folder changes; the kernel spectrum):
# test_cuda whole, the matrix at CI size (cuda, gl, cpu), test_e2e, GL's backend tests; then the cpu backend's pool
# on 16 cores (bench -b cpu, 2048^2 and 64^2).
set -u
tar -xJf bundle.tar.xz
GPUBLUR_GL_DEBS=$PWD/.gl . bundle/gpu_env.sh
b=$here
log=$OUT/c445.txt
step() {
  echo "=== $* [$(date +%T)]" >>"$log"
  local t=$SECONDS
  "$@" >>"$log" 2>&1
  echo "=== rc=$? ($((SECONDS - t)) s)" >>"$log"
}
nvidia-smi --query-gpu=name,driver_version --format=csv >>"$log" 2>&1
nproc >>"$log"
export GPUBLUR_MATRIX_LARGE=
step timeout 240 $b/bin/test_cuda --gtest_brief=1
step timeout 200 $b/bin/test_method_matrix --gtest_brief=1
step timeout 90 $b/bin/test_e2e --gtest_brief=1
step timeout 60 $b/bin/test_gl --gtest_brief=1 --gtest_filter='GlBackend*'
step timeout 60 $b/bin/gpublur bench -b cpu --method copy,gauss-sep,box,iir --sigma 3 --size 64,2048 --channels 4 \
  --repeat 5 --warmup 1
grep -E "^===|PASSED|FAILED|SKIPPED|Failure|^[0-9]+$" "$log" | tail -40
grep -A12 "bench -b cpu" "$log" | tail -11

#!/usr/bin/env bash
# Session 101, sixth call: CUDA kernels on grids of more than 65535 tile rows (tall_grid / grid_row): the matrix's CUDA
# cases at CI size (the usual grids, unchanged), under memcheck for one channel, then the new tall cases (2 x 4200007).
set -u
tar -xJf bundle.tar.xz
GPUBLUR_GL_DEBS=$PWD/.gl . bundle/gpu_env.sh
b=$here
log=$OUT/c440.txt
step() {
  echo "=== $* [$(date +%T)]" >>"$log"
  local t=$SECONDS
  "$@" >>"$log" 2>&1
  echo "=== rc=$? ($((SECONDS - t)) s)" >>"$log"
}
nvidia-smi --query-gpu=name,driver_version --format=csv >>"$log" 2>&1
step timeout 60 $b/bin/test_method_matrix --gtest_brief=1 --gtest_filter='*_cuda_*-*tall*'
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
step timeout 60 $CS --tool memcheck --error-exitcode 9 $b/bin/test_method_matrix --gtest_brief=1 --gtest_filter='*_cuda_*c1_203x117*-*tall*'
step timeout 170 $b/bin/test_method_matrix --gtest_filter='*tall*'
grep -E "^===|PASSED|FAILED|Failure|ERROR SUMMARY|^\[ +OK" "$log" | sed 's/Registry\/MethodMatrix.MatchesTheCpuReference\///' | tail -80

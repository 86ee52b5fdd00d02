#!/usr/bin/env bash
# Session 108, call 457: the column blocks by the measured rule (IirTuning::cols_block = 1: Young-van Vliet, columns
# 481-1024 tall) against never (GPUBLUR_CUDA_IIR_COLS_BLOCK=0), alternated, two rounds, one binary; CudaIirScan (the
# product variant now takes the rule) and racecheck on its small cases; the matrix's CUDA iir cases at full size.
set -u
tar -xJf bundle.tar.xz
GPUBLUR_GL_DEBS=$PWD/.gl . bundle/gpu_env.sh
b=$here
log=$OUT/c457.txt
step() {
  echo "=== $* [$(date +%T)]" >>"$log"
  local t=$SECONDS
  "$@" >>"$log" 2>&1
  echo "=== rc=$? ($((SECONDS - t)) s)" >>"$log"
}
nvidia-smi --query-gpu=name,driver_version --format=csv >>"$log" 2>&1
for round in 1 2; do
  for cb in 0 1; do
    echo "=== round $round cols_block=$cb [$(date +%T)]" >>"$log"
    GPUBLUR_CUDA_IIR_COLS_BLOCK=$cb timeout 120 $b/bin/gpublur bench -b cuda --method copy,iir,iir:impl=deriche \
      --sigma 3,200 --size 512,1024,2048x1024,1024x300 --channels 1,4 --repeat 11 2>&1 |
      grep -E "^(copy|iir)" | sed "s/^/r$round cb$cb: /" >>"$log"
  done
done
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
step timeout 100 $b/bin/test_cuda --gtest_brief=1 --gtest_filter='CudaIirScan.*'
step timeout 90 env GPUBLUR_CUDA_TEST_SMALL=1 $CS --tool racecheck --error-exitcode 1 $b/bin/test_cuda --gtest_brief=1 \
  --gtest_filter='CudaIirScan.MatchesTheReference'
step timeout 120 env GPUBLUR_MATRIX_LARGE=1 $b/bin/test_method_matrix --gtest_brief=1 --gtest_filter='*iir*_cuda_*'
grep -E "^===|PASSED|FAILED|SKIPPED|Failure|RACECHECK SUMMARY|NVIDIA|measured" "$log" | tail -40

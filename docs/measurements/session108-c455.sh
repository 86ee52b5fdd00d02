#!/usr/bin/env bash
# Session 108, call 455: session 107's call 453 (iir's column blocks against the column tiles, one binary,
# GPUBLUR_CUDA_IIR_COLS_BLOCK=0/1 alternated, two rounds; the passes' times; CudaIirScan; racecheck and memcheck on the
# small cases), then the method matrix's CUDA iir cases at full size with the column blocks on.
set -u
tar -xJf bundle.tar.xz
GPUBLUR_GL_DEBS=$PWD/.gl . bundle/gpu_env.sh
b=$here
log=$OUT/c455.txt
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
    GPUBLUR_CUDA_IIR_COLS_BLOCK=$cb timeout 90 $b/bin/gpublur bench -b cuda --method copy,iir,iir:impl=deriche \
      --sigma 3,12,200 --size 512,1024 --channels 1,4 --repeat 11 2>&1 | grep -E "^(copy|iir)" |
      sed "s/^/r$round cb$cb: /" >>"$log"
  done
done
for cb in 0 1; do
  echo "=== pass times cols_block=$cb" >>"$log"
  GPUBLUR_PASS_TIMES=1 GPUBLUR_CUDA_IIR_COLS_BLOCK=$cb timeout 60 $b/bin/gpublur bench -b cuda --method iir \
    --sigma 12 --size 1024 --channels 4 --repeat 11 2>&1 | grep -iE "pass|^iir" | tail -4 >>"$log"
done
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
step timeout 100 $b/bin/test_cuda --gtest_brief=1 --gtest_filter='CudaIirScan.*'
step timeout 80 env GPUBLUR_CUDA_TEST_SMALL=1 $CS --tool racecheck --error-exitcode 1 $b/bin/test_cuda --gtest_brief=1 \
  --gtest_filter='CudaIirScan.MatchesTheReference'
step timeout 60 env GPUBLUR_CUDA_TEST_SMALL=1 $CS --tool memcheck --error-exitcode 1 $b/bin/test_cuda --gtest_brief=1 \
  --gtest_filter='CudaIirScan.MatchesTheReference'
step timeout 120 env GPUBLUR_MATRIX_LARGE=1 GPUBLUR_CUDA_IIR_COLS_BLOCK=1 $b/bin/test_method_matrix --gtest_brief=1 \
  --gtest_filter='*iir*_cuda_*'
grep -E "^===|PASSED|FAILED|SKIPPED|Failure|ERROR SUMMARY|RACECHECK SUMMARY|NVIDIA|^r[12]|measured|pass" "$log" | tail -90

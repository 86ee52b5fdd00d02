#!/usr/bin/env bash
# Session 107, call 455 (the device budget's last minutes: call 453's script in its order of need): iir's column blocks
# against the column tiles (one round), CudaIirScan on the device, a second round, racecheck on the small cases.
set -u
tar -xJf bundle.tar.xz
GPUBLUR_GL_DEBS=$PWD/.gl . bundle/gpu_env.sh
b=$here
log=$OUT/c455.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >>"$log" 2>&1
bench() {
  for cb in 0 1; do
    GPUBLUR_CUDA_IIR_COLS_BLOCK=$cb timeout 60 $b/bin/gpublur bench -b cuda --method copy,iir,iir:impl=deriche \
      --sigma 3,12,200 --size 512,1024 --channels 1,4 --repeat 11 2>&1 | grep -E "^(copy|iir)" | sed "s/^/r$1 cb$cb: /" >>"$log"
  done
}
bench 1
echo "=== CudaIirScan [$(date +%T)]" >>"$log"
timeout 100 $b/bin/test_cuda --gtest_brief=1 --gtest_filter='CudaIirScan.*' >>"$log" 2>&1; echo "=== rc=$?" >>"$log"
bench 2
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
echo "=== racecheck [$(date +%T)]" >>"$log"
GPUBLUR_CUDA_TEST_SMALL=1 timeout 80 $CS --tool racecheck --error-exitcode 1 $b/bin/test_cuda --gtest_brief=1 \
  --gtest_filter='CudaIirScan.MatchesTheReference' >>"$log" 2>&1; echo "=== rc=$?" >>"$log"
grep -E "^===|PASSED|FAILED|Failure|RACECHECK SUMMARY|NVIDIA|^r[12]" "$log" | tail -80

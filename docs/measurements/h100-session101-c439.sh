#!/usr/bin/env bash
# Session 101, fifth call: the landed form (driver read-backs in bands of 1 GiB) through the 4 GiB half-storage download
# and the misuse tests on NVIDIA's GL; test_cuda's backend suite (a refused upload now drops the resident image) plain
# and under memcheck.
set -u
tar -xJf bundle.tar.xz
GPUBLUR_GL_DEBS=$PWD/.gl . bundle/gpu_env.sh
b=$here
log=$OUT/c439.txt
step() {
  echo "=== $* [$(date +%T)]" >>"$log"
  local t=$SECONDS
  "$@" >>"$log" 2>&1
  echo "=== rc=$? ($((SECONDS - t)) s)" >>"$log"
}
nvidia-smi --query-gpu=name,driver_version --format=csv >>"$log" 2>&1
step timeout 120 $b/bin/test_gl --gtest_filter='GlBackend.*'
step timeout 120 $b/bin/test_cuda --gtest_brief=1 --gtest_filter='CudaBackend*'
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
step timeout 120 $CS --tool memcheck --error-exitcode 9 $b/bin/test_cuda --gtest_brief=1 --gtest_filter='CudaBackend.MisuseIsAnError:CudaBackend.TimesAndRoundTripAllChannelCounts'
grep -E "^===|OK \]|PASSED|FAILED|Failure|ERROR SUMMARY" "$log"

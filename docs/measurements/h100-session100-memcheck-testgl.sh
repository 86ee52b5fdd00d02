#!/usr/bin/env bash
# Session 100, first call: memcheck over session 99's CUDA changes (upload / download spans holding their allocations,
# the preparation in compute, spread and kernels through the non-finite footprint path) on a folder of mixed shapes,
# test_cuda's backend suite under memcheck, then test_gl whole on NVIDIA's GL (owed since session 97; > 240 s).
set -u
tar -xJf bundle.tar.xz
GPUBLUR_GL_DEBS=$PWD/.gl . bundle/gpu_env.sh
b=$here
log=$OUT/c426.txt
step() {
  echo "=== $* [$(date +%T)]" >>"$log"
  local t=$SECONDS
  "$@" >>"$log" 2>&1
  echo "=== rc=$? ($((SECONDS - t)) s)" >>"$log"
}
nvidia-smi --query-gpu=name,driver_version --format=csv >>"$log" 2>&1
B=$b/bin/gpublur
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
M="$CS --tool memcheck --error-exitcode 9"
mkdir -p /tmp/in && cp $b/testdata/*.png $b/testdata/*.exr /tmp/in/
step $M $B blur /tmp/in -o /tmp/o1 -b cuda -m spread --sigma 5
step $M $B blur /tmp/in -o /tmp/o2 -b cuda -m kernel --param kernel=$b/testdata/kernels/gauss_sigma2.txt
step $M $B blur /tmp/in -o /tmp/o3 -b cuda -m box --sigma 12
step $M $B blur /tmp/in -o /tmp/o4 -b cuda -m iir --sigma 3
step $M $b/bin/test_cuda --gtest_brief=1 --gtest_filter='CudaBackend*:CudaSpread*:CudaCopy*'
step timeout 400 $b/bin/test_gl --gtest_brief=1
grep -E "^===|PASSED|FAILED|SKIPPED|Failure|ERROR SUMMARY" "$log" | tail -40

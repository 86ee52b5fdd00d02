#!/usr/bin/env bash
# Written in session 98 (no GPU machine then); run in session 99 as call 421 on an NVIDIA H200 (log:
# h200-gpu-check-session99.txt). It checks sessions 97 and 98 on the GPU: reshuffle's set order (the constant-image
# tests on CUDA and NVIDIA GL, its bench), test_e2e whole, the matrix's bilateral cases at full size, quality on GL
# rgba16f judged on the cpu backend, memcheck, then the issue tables. Two faults of its own, both in the log: bench takes
# one --channels, so the reshuffle benches stopped at the usage error (call 422's script runs them one count at a time),
# and test_e2e's ABackendThatDoesNotOpenReportsEveryImageNotRun read CUDA opening as a failure (fixed after this run).
set -u
tar -xJf bundle.tar.xz
GPUBLUR_GL_DEBS=$PWD/.gl . bundle/gpu_env.sh  # gpu_check.sh's environment; sets `here`, the bundle
b=$here
log=$OUT/c421.txt
step() {
  echo "=== $* [$(date +%T)]" >>"$log"
  local t=$SECONDS
  "$@" >>"$log" 2>&1
  echo "=== rc=$? ($((SECONDS - t)) s)" >>"$log"
}
nvidia-smi --query-gpu=name,driver_version --format=csv >>"$log" 2>&1
B=$b/bin/gpublur; T="--method box,integral,iir,iir:impl=deriche,fft --sigma 3,12,48,100,200 --size 1024,4096 --channels 4 --repeat 11"
step $b/bin/test_cuda --gtest_brief=1 --gtest_filter='*Reshuffle*'
step $b/bin/test_gl --gtest_brief=1 --gtest_filter='GlReshuffle*'
# reshuffle's sets now go the smallest weights first (call 402's GL table on the H100: c1 1.0957 / 12.10 / 25.93 ms)
R="--method copy,reshuffle --sigma 3,8,12 --size 4096 --channels 1,4 --repeat 3"
step $B bench -b gl $R
step $B bench -b cuda $R
step $b/bin/test_e2e --gtest_brief=1
step $b/bin/test_method_matrix --gtest_brief=1 --gtest_filter='*bilateral*_cuda_*:*bilateral*_gl_*'
# (test_quality: CPU tests, run by CI)
step $b/bin/gpublur quality -b gl --gl-storage rgba16f -m gauss-sep --sigma 3 $b/testdata/landscape_rgb8.png --no-impulse
step $b/bin/gpublur quality -b gl -m gauss-sep --sigma 3 $b/testdata/landscape_rgb8.png --no-impulse
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
step $CS --tool memcheck --error-exitcode 9 $b/bin/test_e2e --gtest_brief=1 --gtest_filter='*Bilateral*:*NonfiniteInputsWithoutAFootprint*:*OneInfinity*'
step $B bench -b cuda $T
step $B bench -b gl $T
grep -E "^===|PASSED|FAILED|SKIPPED|Failure" "$log" | tail -40

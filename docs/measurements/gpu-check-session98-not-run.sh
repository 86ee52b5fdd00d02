#!/usr/bin/env bash
# Not run: session 98 got no GPU machine (every start failed; its device time went on the tries). For the next
# session: copy to .device/scripts/, run with carry [bundle.tar.xz, .gl, .device] after scripts/bundle.sh and
# scripts/fetch_gl_debs.sh. It checks sessions 97 and 98 on the GPU: reshuffle's set order (the constant-image tests on
# CUDA and NVIDIA GL, its bench against call 402's GL table), test_e2e whole (the report, interrupt, quality,
# bilateral-alpha, iir non-finite and bench tests with NVIDIA's GL and CUDA), the matrix's bilateral cases at full
# size, quality on GL rgba16f judged on the cpu backend, memcheck, then the issue tables. One log ($OUT/c421.txt),
# in order of importance (a timeout keeps what ran).
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

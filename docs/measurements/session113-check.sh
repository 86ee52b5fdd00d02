#!/usr/bin/env bash
# Session 113: spread's fold from core's taps (29ce6e9 and the CUDA / GL changes after it) on the GPU, and the checks
# owed since session 112 (test_gl whole, the matrix, the sanitizer). Run from the repository root with the bundle
# (.device/bundle-a.tar.xz) and .device/gpublur-7db1550.xz (the bundle's gpublur before the change, xz) carried,
# and .gl.
# PART a: spread's tests on CUDA and GL, the sanitizer over them, and the spread bench old / new (CUDA, GL);
# PART b: test_gl whole and test_method_matrix whole. Logs under $OUT, written as they go.
set -u
part=${1:-a}
tar -xJf .device/bundle-a.tar.xz  # the bundle less cuda_kernel_timing, test_core and test_cli_core (64 MiB carry)
GPUBLUR_GL_DEBS=$PWD/.gl . bundle/gpu_env.sh
b=$here
log=$OUT/s113-$part.txt
t0=$SECONDS
step() {  # step NAME LIMIT CMD...
  local name=$1 lim=$2
  shift 2
  echo "=== $name [$((SECONDS - t0)) s]" >>"$log"
  timeout "$lim" "$@" >>"$log" 2>&1
  echo "=== $name rc=$? [$((SECONDS - t0)) s]" >>"$log"
}
nvidia-smi --query-gpu=name,driver_version --format=csv >>"$log" 2>&1
if [[ $part == a ]]; then
  xz -dc .device/gpublur-7db1550.xz >old-gpublur && chmod +x old-gpublur
  step test_cuda-spread 120 $b/bin/test_cuda --gtest_brief=1 --gtest_filter='*Spread*:*spread*'
  step test_gl-spread 120 $b/bin/test_gl --gtest_brief=1 --gtest_filter='*Spread*:*spread*'
  step matrix-spread 120 $b/bin/test_method_matrix --gtest_brief=1 --gtest_filter='*spread*'
  sanitize() {
    for tool in "$@"; do
      step "sanitizer-$tool" 120 env GPUBLUR_CUDA_TEST_SMALL=1 compute-sanitizer --tool $tool --error-exitcode 1 \
        $b/bin/test_cuda --gtest_brief=1 --gtest_filter='CudaSpread.*'
    done
  }
  bench_round() {
    for be in cuda gl; do
      for bin in ./old-gpublur $b/bin/gpublur; do
        echo "=== bench round $1 $be $bin [$((SECONDS - t0)) s]" >>"$log"
        timeout 60 $bin bench -b $be --method copy,spread --sigma 3,12,48 --size 1024,4096 --channels 4 --repeat 7 \
          2>&1 | grep -E "x(1024|4096) " | sed "s|^|r$1 $be $(basename $bin): |" >>"$log"
        timeout 60 $bin bench -b $be --method spread:radius=512,spread:radius=2048 --size 1024,4096 --channels 4 \
          --repeat 7 2>&1 | grep -E "x(1024|4096) " | sed "s|^|r$1 $be $(basename $bin): |" >>"$log"
      done
    done
  }
  # In order of need (little device time was left): memcheck, one bench round, the other tools, a second round.
  sanitize memcheck
  bench_round 1
  sanitize racecheck initcheck synccheck
  bench_round 2
  for be in cuda gl; do  # small images at large radii (the fold was (w + h) M + 4 M^2 reads there)
    for bin in ./old-gpublur $b/bin/gpublur; do
      timeout 60 $bin bench -b $be --method spread:radius=16,spread:radius=512,spread:radius=2048 --size 64,512 \
        --channels 1 --repeat 5 2>&1 | grep -E "x(64|512) " | sed "s|^|small $be $(basename $bin): |" >>"$log"
    done
  done
else
  step test_gl 330 $b/bin/test_gl --gtest_brief=1
  step test_method_matrix 250 $b/bin/test_method_matrix --gtest_brief=1
fi
echo "=== end [$((SECONDS - t0)) s]" >>"$log"
grep -E "^===|FAILED|Failure|ERROR SUMMARY" "$log" | tail -40

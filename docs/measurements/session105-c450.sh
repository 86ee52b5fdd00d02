#!/usr/bin/env bash
# Session 105, one call (call 450, lean: the device budget's last minutes; session 104's script, never run, plus the transparent pixels): HEAD's GPU tests after this session's changes (the 8-bit path's pack8 counts the values it
# clips, CUDA and GL; host-only fixes elsewhere): test_cuda whole, compute-sanitizer memcheck and racecheck on
# CUDA's packed tests, test_gl's backend / packed / methods suites on NVIDIA's GL, test_e2e; then a folder of 4K RGB8
# PNGs through CUDA's 8-bit path (report download ms) and a sharpening kernel's clipping counted on cuda and gl
# (packed) against cpu (float path).
set -u
tar -xJf bundle.tar.xz
GPUBLUR_GL_DEBS=$PWD/.gl . bundle/gpu_env.sh
b=$here
log=$OUT/c450.txt
step() {
  echo "=== $* [$(date +%T)]" >>"$log"
  local t=$SECONDS
  "$@" >>"$log" 2>&1
  echo "=== rc=$? ($((SECONDS - t)) s)" >>"$log"
}
nvidia-smi --query-gpu=name,driver_version --format=csv >>"$log" 2>&1
nproc >>"$log"
export GPUBLUR_MATRIX_LARGE=
step timeout 120 $b/bin/test_cuda --gtest_brief=1 --gtest_filter='*Packed*:*Copy*'
step timeout 180 compute-sanitizer --tool memcheck --error-exitcode 1 $b/bin/test_cuda --gtest_brief=1 --gtest_filter='*Packed*'
step timeout 120 $b/bin/test_gl --gtest_brief=1 --gtest_filter='GlBackend*:GlPacked*'
step timeout 150 $b/bin/test_e2e --gtest_brief=1 --gtest_filter='*Clip*:*Transparent*:*Packed*:*Interrupt*:*Ignore*'
mkdir -p /tmp/png
step timeout 60 $b/bin/gpublur_make_bench_images /tmp/png 3 0 3840 2160 6
printf -- '-1 3 -1\n' >/tmp/sharpen.txt
for be in cpu cuda gl; do
  rm -rf /tmp/os
  timeout 120 $b/bin/gpublur blur /tmp/png -o /tmp/os -b $be -m kernel --kernel /tmp/sharpen.txt 2>&1 |
    grep -o "[0-9]* value(s) above 1, [0-9]* below 0 and [0-9]* NaN" | sort >/tmp/counts_$be.txt
  echo "$be clip counts: $(wc -l </tmp/counts_$be.txt) images, first: $(head -1 /tmp/counts_$be.txt), md5 $(md5sum </tmp/counts_$be.txt)" >>"$log"
done
# Transparent pixels: colour 0 and no clip or drop warning on CUDA, packed and not (the project's sprite, box).
for packed in 1 0; do
  rm -rf /tmp/ot
  GPUBLUR_PACKED_IO=$packed timeout 60 $b/bin/gpublur blur $b/testdata/sprites_rgba8.png -o /tmp/ot -b cuda -m box \
    --sigma 5 >/tmp/ot.log 2>&1
  echo "sprite cuda packed $packed rc $? clip/drop warnings: $(grep -c 'clipped\|dropped' /tmp/ot.log) md5 $(md5sum </tmp/ot/sprites_rgba8.png)" >>"$log"
  rm -rf /tmp/ot
  GPUBLUR_PACKED_IO=$packed timeout 60 $b/bin/gpublur blur $b/testdata/sprites_rgba8.png -o /tmp/ot -b gl -m box \
    --sigma 5 >/tmp/ot.log 2>&1
  echo "sprite gl packed $packed rc $? clip/drop warnings: $(grep -c 'clipped\|dropped' /tmp/ot.log) md5 $(md5sum </tmp/ot/sprites_rgba8.png)" >>"$log"
done
grep -E "sprite|^===|PASSED|FAILED|SKIPPED|Failure|ERROR SUMMARY|download ms|clip counts|^[0-9]+$|NVIDIA" "$log" | tail -40

#!/usr/bin/env bash
# Session 107, call 454 (owed since session 105): compute-sanitizer racecheck on CUDA's packed tests (CudaPacked.*:
# the '*Packed*' filter of calls 451-452 also took CudaSchedules.Box1dPackedRows, whose large box cases racecheck ran
# past 200 s); then GL's kernel matrices with their block sums (conv2d.comp MATRIX) against the form before (4f25090's
# conv2d.comp through GPUBLUR_GL_SHADER_DIR), alternated: random 19 x 19 and 73 x 73 matrices, 4096^2, 1 and 4
# channels (docs/measurements/session106/m19.txt, m73.txt in .device/scripts/; .device/old_shaders/conv2d.comp).
set -u
tar -xJf bundle.tar.xz
GPUBLUR_GL_DEBS=$PWD/.gl . bundle/gpu_env.sh
b=$here
d=$PWD/.device
log=$OUT/c454.txt
step() {
  echo "=== $* [$(date +%T)]" >>"$log"
  local t=$SECONDS
  "$@" >>"$log" 2>&1
  echo "=== rc=$? ($((SECONDS - t)) s)" >>"$log"
}
nvidia-smi --query-gpu=name,driver_version --format=csv >>"$log" 2>&1
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
step timeout 240 $CS --tool racecheck --error-exitcode 1 $b/bin/test_cuda --gtest_brief=1 --gtest_filter='CudaPacked.*'
for round in 1 2; do
  for form in new old; do
    for n in 19 73; do
      if [ $form = old ]; then export GPUBLUR_GL_SHADER_DIR=$d/old_shaders; else unset GPUBLUR_GL_SHADER_DIR; fi
      timeout 60 $b/bin/gpublur bench -b gl -m kernel --param kernel=$d/scripts/m$n.txt --param normalize=true \
        --size 4096 --channels 1,4 --repeat 11 2>&1 | grep -E "^kernel|^copy" | sed "s/^/round $round $form m$n: /" >>"$log"
    done
  done
done
unset GPUBLUR_GL_SHADER_DIR
grep -E "^===|PASSED|FAILED|SKIPPED|Failure|RACECHECK SUMMARY|ERROR SUMMARY|NVIDIA|^round" "$log" | tail -60

#!/usr/bin/env bash
# Session 106, call 453 (owed since session 104): test_gl whole on NVIDIA's GL; then GL's kernel matrices with their
# block sums (conv2d.comp MATRIX: P more registers an invocation) against the form before (4f25090's conv2d.comp
# through GPUBLUR_GL_SHADER_DIR), alternated in one call: random 19 x 19 and 73 x 73 matrices, 4096^2, 1 and 4
# channels (docs/measurements/session106/m19.txt, m73.txt, in .device/scripts/; .device/old_shaders/conv2d.comp is
# 4f25090's).
set -u
tar -xJf bundle.tar.xz
GPUBLUR_GL_DEBS=$PWD/.gl . bundle/gpu_env.sh
b=$here
d=$PWD/.device
log=$OUT/c453.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >>"$log" 2>&1
echo "=== test_gl [$(date +%T)]" >>"$log"
t=$SECONDS
timeout 420 $b/bin/test_gl --gtest_brief=1 >>"$log" 2>&1
echo "=== test_gl rc=$? ($((SECONDS - t)) s)" >>"$log"
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
grep -E "^===|PASSED|FAILED|SKIPPED|Failure|NVIDIA|^round" "$log" | tail -60

#!/usr/bin/env bash
# Session 101, first call: dad6510 (GL upload / download error checks moved into upload() / download(),
# packed_buffers forgetting a failed allocation's capacity) had run only on llvmpipe. test_gl whole and the
# matrix's GL cases on NVIDIA's GL.
set -u
tar -xJf bundle.tar.xz
GPUBLUR_GL_DEBS=$PWD/.gl . bundle/gpu_env.sh
b=$here
log=$OUT/c435.txt
step() {
  echo "=== $* [$(date +%T)]" >>"$log"
  local t=$SECONDS
  "$@" >>"$log" 2>&1
  echo "=== rc=$? ($((SECONDS - t)) s)" >>"$log"
}
nvidia-smi --query-gpu=name,driver_version --format=csv >>"$log" 2>&1
step timeout 330 $b/bin/test_gl --gtest_brief=1
step timeout 200 $b/bin/test_method_matrix --gtest_brief=1 --gtest_filter='*_gl_*'
grep -E "^===|PASSED|FAILED|SKIPPED|Failure|tests from" "$log" | tail -40

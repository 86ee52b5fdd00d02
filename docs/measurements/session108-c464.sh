#!/usr/bin/env bash
# Session 108, call 464 (owed: no device time left in session 108): GlStagingTest on NVIDIA's GL, with the product's
# test_gl and two mutants (session108-c464-prep.sh: an upload or a download that does not wait for its staging
# buffer), which WaitsForTheGpuBehindASlowDispatch must fail; then the GL suites that transfer through the staging.
# Carry bundle.tar.xz, .gl and .device (the mutants, about 10 MB).
set -u
tar -xJf bundle.tar.xz
GPUBLUR_GL_DEBS=$PWD/.gl . bundle/gpu_env.sh
b=$here
m=$PWD/.device/mutants; xz -d -f $m/*.xz 2>/dev/null; chmod +x $m/*
log=$OUT/c464.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >>"$log" 2>&1
for t in $b/bin/test_gl $m/test_gl_upload_nowait $m/test_gl_download_nowait; do
  echo "=== $(basename $t) [$(date +%T)]" >>"$log"
  GPUBLUR_REQUIRE_GL=1 timeout 120 $t --gtest_brief=1 --gtest_filter='*GlStaging*' >>"$log" 2>&1
  echo "=== rc=$?" >>"$log"
done
echo "=== suites [$(date +%T)]" >>"$log"
GPUBLUR_REQUIRE_GL=1 timeout 150 $b/bin/test_gl --gtest_brief=1 \
  --gtest_filter='GlBackend*:GlPacked*' >>"$log" 2>&1
echo "=== rc=$?" >>"$log"
grep -E "^===|PASSED|FAILED|SKIPPED|Failure|NVIDIA" "$log" | tail -40

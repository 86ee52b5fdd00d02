#!/usr/bin/env bash
# Session 109, call 466: HEAD's bundle (the EXR size check, the second-signal watchdog, plan warnings by kind: host
# code) on the GPU machine: test_e2e whole (cuda and gl beside cpu, the signal tests on Ubuntu 24.04) and test_io.
# Carry bundle.tar.xz and .gl.
set -u
tar -xJf bundle.tar.xz
GPUBLUR_GL_DEBS=$PWD/.gl . bundle/gpu_env.sh
b=$here
log=$OUT/c466.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >>"$log" 2>&1
for t in test_io test_e2e; do
  echo "=== $t [$(date +%T)]" >>"$log"
  GPUBLUR_BIN=$b/bin/gpublur timeout 400 $b/bin/$t --gtest_brief=1 >>"$log" 2>&1
  echo "=== rc=$?" >>"$log"
done
grep -E "^===|PASSED|FAILED|SKIPPED|Failure|NVIDIA" "$log" | tail -30

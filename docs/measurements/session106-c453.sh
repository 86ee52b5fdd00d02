#!/usr/bin/env bash
# Session 106, call 453 (owed since session 104): test_gl whole on NVIDIA's GL, HEAD 4f25090's bundle.
set -u
tar -xJf bundle.tar.xz
GPUBLUR_GL_DEBS=$PWD/.gl . bundle/gpu_env.sh
b=$here
log=$OUT/c453.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >>"$log" 2>&1
echo "=== test_gl [$(date +%T)]" >>"$log"
t=$SECONDS
timeout 560 $b/bin/test_gl --gtest_brief=1 >>"$log" 2>&1
echo "=== test_gl rc=$? ($((SECONDS - t)) s)" >>"$log"
grep -E "^===|PASSED|FAILED|SKIPPED|Failure|NVIDIA" "$log" | tail -40

#!/usr/bin/env bash
# Session 101, second call: test_gl whole on NVIDIA's GL with every test's time (call 435 ran past its 330 s bound
# where session 100's took 273 s), after the rebuild that compiled the upload's ran_ reset.
set -u
tar -xJf bundle.tar.xz
GPUBLUR_GL_DEBS=$PWD/.gl . bundle/gpu_env.sh
b=$here
log=$OUT/c436.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv >>"$log" 2>&1
t=$SECONDS
timeout 560 $b/bin/test_gl >>"$log" 2>&1
echo "=== test_gl rc=$? ($((SECONDS - t)) s)" >>"$log"
grep -E "^\[ +(OK|FAILED|SKIPPED) +\]|^===|tests from .* ran|PASSED|Failure" "$log" | sort -t'(' -k2 -n -r | head -30
grep -E "tests from .* ran|PASSED|FAILED|^===" "$log" | tail -8

#!/usr/bin/env bash
# Session 101, third call: a 4 GiB download (16384^2 RGBA, half storage: the driver's read-back) on NVIDIA's GL,
# with the read-back in bands of 64 MiB (the bundle's test_gl) and as one call of 2^32 bytes, its GLsizei size wrapped
# (test_gl_oneshot: the same test binary built with the band at 8 GiB, as before this session).
set -u
tar -xJf bundle.tar.xz
GPUBLUR_GL_DEBS=$PWD/.gl . bundle/gpu_env.sh
b=$here
log=$OUT/c437.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >>"$log" 2>&1
for t in $b/bin/test_gl $PWD/.device/bin/test_gl_oneshot; do
  echo "=== $t" >>"$log"
  s=$SECONDS
  timeout 200 $t --gtest_filter='GlBackend.DownloadsFourGiB:GlBackend.DriverReadBackInBands:GlBackend.RejectsMisuse' >>"$log" 2>&1
  echo "=== rc=$? ($((SECONDS - s)) s)" >>"$log"
done
grep -vE "^\[ RUN|^Running main|^\[-+\]$|^$" "$log"
